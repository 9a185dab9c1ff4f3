import { randomBytes } from "node:crypto";
import { decryptWebhookSecret, encryptWebhookSecret } from "@crs/core";

const IV_BYTES = 12;

/**
 * The JSON text of an answer to store, with each named top-level field of an object body encrypted
 * (AES-256-GCM, `context` as associated data, so a sealed value opens only in its own record).
 * Field order is kept, so the text `openStoredAnswer` gives back is the original byte for byte.
 */
export function sealStoredAnswer(
  bodyText: string,
  fields: readonly string[],
  key: Uint8Array,
  context: string,
): string {
  return mapFields(bodyText, fields, (value) =>
    encryptWebhookSecret(value, key, randomBytes(IV_BYTES), { associatedData: context }),
  );
}

/** The answer as first sent, from the text `sealStoredAnswer` stored. */
export function openStoredAnswer(
  storedText: string,
  fields: readonly string[],
  key: Uint8Array,
  context: string,
): string {
  return mapFields(storedText, fields, (value) => decryptWebhookSecret(value, key, { associatedData: context }));
}

function mapFields(text: string, fields: readonly string[], map: (value: string) => string): string {
  if (fields.length === 0) return text;
  const body = JSON.parse(text) as unknown;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return text;
  const record = body as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (typeof value === "string") record[field] = map(value);
  }
  return JSON.stringify(record);
}
