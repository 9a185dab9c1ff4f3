import { type AnyScope, expandGrants } from "@crs/contract";
import { type ApiKeyClaims, type KeyKind, verifyApiKey } from "@crs/core";
import type { Sql } from "postgres";

/** A token whose MAC checked out, with its grants already expanded. */
export interface VerifiedToken {
  kind: KeyKind;
  claims: ApiKeyClaims;
  scopes: ReadonlySet<AnyScope>;
}

const MAX_TOKENS = 10_000;

/**
 * Tokens this process has verified, so a key's MAC is computed once rather than on every request
 * (it was about 5% of a GET's CPU). Safe to remember: a token is immutable signed text, so the same
 * string under the same secret always verifies the same way; revocation is not a property of the
 * token and stays with the key metadata (key-cache.ts). Only tokens that verified are kept, so
 * garbage cannot crowd out real keys; the oldest goes first once MAX_TOKENS are held.
 */
export class VerifiedTokens {
  private readonly tokens = new Map<string, VerifiedToken>();

  constructor(
    readonly secret: string,
    private readonly capacity = MAX_TOKENS,
  ) {}

  /** The verified token, or null when its form, MAC or environment is wrong. */
  verify(token: string): VerifiedToken | null {
    const known = this.tokens.get(token);
    if (known) return known;
    const verification = verifyApiKey(token, this.secret);
    if (!verification.ok) return null;
    // Shared by every later request with this token: frozen so no caller can change another's view.
    const claims = Object.freeze({ ...verification.claims, grants: Object.freeze([...verification.claims.grants]) });
    const verified: VerifiedToken = Object.freeze({
      kind: verification.kind,
      claims: claims as ApiKeyClaims,
      scopes: expandGrants(claims.grants, { legacy: verification.kind === "legacy_sandbox" }),
    });
    if (this.tokens.size >= this.capacity) {
      const oldest = this.tokens.keys().next().value;
      if (oldest !== undefined) this.tokens.delete(oldest);
    }
    this.tokens.set(token, verified);
    return verified;
  }

  get size(): number {
    return this.tokens.size;
  }
}

const byDatabase = new WeakMap<Sql, VerifiedTokens>();

/**
 * The verified tokens of one set of service deps (each process builds its deps once), kept beside
 * its database client so they go when the deps do; a different signing secret starts empty.
 */
export function verifiedTokensFor(sql: Sql, secret: string): VerifiedTokens {
  let tokens = byDatabase.get(sql);
  if (!tokens || tokens.secret !== secret) {
    tokens = new VerifiedTokens(secret);
    byDatabase.set(sql, tokens);
  }
  return tokens;
}
