import { createHmac, timingSafeEqual } from "node:crypto";

/** The header that carries a delivery's signature. */
export const WEBHOOK_SIGNATURE_HEADER = "Svc-Signature";

/** How far a signature's timestamp may be from the receiver's clock, either way, by default. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

export type WebhookSignatureFailure =
  | "missing_header"
  | "malformed_header"
  | "no_signature"
  | "signature_mismatch"
  | "timestamp_outside_tolerance";

/** Thrown by `verifyWebhookSignature`; `reason` says which check failed. */
export class WebhookSignatureError extends Error {
  constructor(
    readonly reason: WebhookSignatureFailure,
    message: string,
  ) {
    super(message);
    this.name = "WebhookSignatureError";
  }
}

export interface VerifiedWebhookSignature {
  /** The signed timestamp, unix seconds. */
  timestamp: number;
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * Checks a webhook delivery's `Svc-Signature` header against the raw request body, exactly as received
 * (before any JSON parsing), and throws `WebhookSignatureError` unless it is authentic and fresh.
 *
 * The header is `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, with one `v1=` entry
 * per secret the sender signed with (more than one while a secret is rotated); any one matching suffices.
 * Pass several secrets to accept either while rotating on the receiving side. The signed timestamp must
 * lie within `toleranceSeconds` of `now`, in either direction, which bounds how long a captured request
 * can be replayed.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string | readonly string[],
  toleranceSeconds: number = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  now: Date = new Date(),
): VerifiedWebhookSignature {
  if (!(toleranceSeconds > 0) || !Number.isFinite(toleranceSeconds)) {
    throw new RangeError("toleranceSeconds must be a positive, finite number of seconds");
  }
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (secrets.length === 0 || secrets.some((s) => typeof s !== "string" || s.length === 0)) {
    throw new RangeError("at least one non-empty signing secret is needed");
  }
  if (header == null || header.trim() === "") {
    throw new WebhookSignatureError("missing_header", "no Svc-Signature header");
  }

  const { timestamp, signatures } = parseSignatureHeader(header);
  if (signatures.length === 0) {
    throw new WebhookSignatureError("no_signature", "the Svc-Signature header has no v1 signature");
  }

  const signedPrefix = Buffer.from(`${timestamp}.`, "utf8");
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody;
  const expected = secrets.map((s) => createHmac("sha256", s).update(signedPrefix).update(body).digest());
  // Compare every candidate against every expected value, so timing does not reveal which one matched.
  let matched = false;
  for (const candidate of signatures) {
    for (const digest of expected) matched = timingSafeEqual(candidate, digest) || matched;
  }
  if (!matched) {
    throw new WebhookSignatureError(
      "signature_mismatch",
      "no v1 signature matches the body and secret (was the body changed, e.g. re-serialized, before verifying?)",
    );
  }

  const ageSeconds = Math.floor(now.getTime() / 1000) - timestamp;
  if (Math.abs(ageSeconds) > toleranceSeconds) {
    throw new WebhookSignatureError(
      "timestamp_outside_tolerance",
      `the signature timestamp is ${Math.abs(ageSeconds)} s ${ageSeconds > 0 ? "old" : "in the future"}, beyond the ${toleranceSeconds} s tolerance`,
    );
  }
  return { timestamp };
}

function parseSignatureHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const item of header.split(",")) {
    const separator = item.indexOf("=");
    if (separator <= 0) throw new WebhookSignatureError("malformed_header", "Svc-Signature items are key=value");
    const key = item.slice(0, separator).trim();
    const value = item.slice(separator + 1).trim();
    if (key === "t") {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) {
        throw new WebhookSignatureError("malformed_header", "Svc-Signature needs exactly one t=<unix seconds>");
      }
      timestamp = Number(value);
    } else if (key === "v1") {
      // A value that is not a SHA-256 hex digest can never match; skipping it keeps a newer sender's
      // extra entries harmless.
      if (HEX_SHA256.test(value)) signatures.push(Buffer.from(value, "hex"));
    }
    // Other schemes (a future v2, or v0 test signatures) are ignored.
  }
  if (timestamp === undefined) {
    throw new WebhookSignatureError("malformed_header", "Svc-Signature needs exactly one t=<unix seconds>");
  }
  return { timestamp, signatures };
}
