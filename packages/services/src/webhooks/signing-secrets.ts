import { randomBytes } from "node:crypto";
import { decryptWebhookSecret, encryptWebhookSecret, formatWebhookSecret } from "@crs/core";

const SECRET_BYTES = 32;
const IV_BYTES = 12;

/**
 * A new `whsec_` signing secret and its encrypted form for storage. `context` (the endpoint id, or the
 * organization for its fallback URL) is bound to the box as associated data: a box copied onto another
 * row does not open there.
 */
export function createSigningSecret(key: Uint8Array, context: string): { secret: string; box: string } {
  const secret = formatWebhookSecret(randomBytes(SECRET_BYTES));
  return { secret, box: encryptWebhookSecret(secret, key, randomBytes(IV_BYTES), { associatedData: context }) };
}

/** The signing secret in a stored box; throws if the box was altered or belongs to another row. */
export function openSigningSecret(box: string, key: Uint8Array, context: string): string {
  return decryptWebhookSecret(box, key, { associatedData: context });
}

/** The associated data of an organization's fallback secret box. */
export function fallbackSecretContext(organizationId: string, environment: string): string {
  return `fallback:${organizationId}:${environment}`;
}
