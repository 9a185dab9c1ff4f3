import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * API keys are signed tokens, never stored:
 *   <prefix><base64url(JSON claims)>.<base64url(HMAC-SHA256(secret, prefix + payload))>
 * The prefix is inside the MAC, so a sandbox body cannot be replayed under a live prefix.
 */
export const API_KEY_PREFIXES = {
  sandbox: "svc_test_",
  live: "svc_live_",
  legacy_sandbox: "svc_legacy_test_",
} as const;

export type KeyKind = keyof typeof API_KEY_PREFIXES;
export const ENVIRONMENTS = ["sandbox", "live"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export interface ApiKeyClaims {
  /** key id (`key_…`) */
  kid: string;
  /** organization id (`org_…`) */
  org: string;
  env: Environment;
  /** granted scopes, or a preset name that the contract expands (e.g. `sandbox`) */
  grants: string[];
  /** issued at, unix seconds */
  iat: number;
}

export type KeyVerification =
  | { ok: true; kind: KeyKind; claims: ApiKeyClaims }
  | { ok: false; reason: "malformed" | "bad_signature" | "environment_mismatch" };

const ENVIRONMENT_OF_KIND: Record<KeyKind, Environment> = {
  sandbox: "sandbox",
  live: "live",
  legacy_sandbox: "sandbox",
};

function mac(secret: string, signedPart: string): string {
  return createHmac("sha256", secret).update(signedPart).digest("base64url");
}

export function signApiKey(kind: KeyKind, claims: ApiKeyClaims, secret: string): string {
  if (ENVIRONMENT_OF_KIND[kind] !== claims.env) {
    throw new Error(`a ${kind} key must carry environment ${ENVIRONMENT_OF_KIND[kind]}`);
  }
  const prefix = API_KEY_PREFIXES[kind];
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${prefix}${payload}.${mac(secret, prefix + payload)}`;
}

/** Longest prefix first: svc_legacy_test_ must not be read as anything else. */
const KINDS_LONGEST_PREFIX_FIRST = (Object.keys(API_KEY_PREFIXES) as KeyKind[]).sort(
  (a, b) => API_KEY_PREFIXES[b].length - API_KEY_PREFIXES[a].length,
);

/** Checks form, MAC and environment; needs no database. Revocation is checked by `checkKeyStatus`. */
export function verifyApiKey(token: string, secret: string): KeyVerification {
  const kind = KINDS_LONGEST_PREFIX_FIRST.find((k) => token.startsWith(API_KEY_PREFIXES[k]));
  if (!kind) return { ok: false, reason: "malformed" };
  const prefix = API_KEY_PREFIXES[kind];
  const parts = token.slice(prefix.length).split(".");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return { ok: false, reason: "malformed" };
  const [payload, signature] = parts as [string, string];
  const expected = Buffer.from(mac(secret, prefix + payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { ok: false, reason: "bad_signature" };
  }
  let claims: ApiKeyClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as ApiKeyClaims;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (!isClaims(claims)) return { ok: false, reason: "malformed" };
  if (claims.env !== ENVIRONMENT_OF_KIND[kind]) return { ok: false, reason: "environment_mismatch" };
  return { ok: true, kind, claims };
}

function isClaims(value: unknown): value is ApiKeyClaims {
  const c = value as ApiKeyClaims;
  return (
    typeof c === "object" &&
    c !== null &&
    typeof c.kid === "string" &&
    typeof c.org === "string" &&
    (c.env === "sandbox" || c.env === "live") &&
    Array.isArray(c.grants) &&
    c.grants.every((g) => typeof g === "string") &&
    typeof c.iat === "number"
  );
}

export interface KeyRecord {
  organizationId: string;
  environment: Environment;
  revokedAt: Date | null;
}

/** A verified key is usable only while its metadata row agrees with it and it is not revoked. */
export function checkKeyStatus(claims: ApiKeyClaims, record: KeyRecord | undefined): "active" | "revoked" | "unknown" {
  if (!record || record.organizationId !== claims.org || record.environment !== claims.env) return "unknown";
  return record.revokedAt ? "revoked" : "active";
}
