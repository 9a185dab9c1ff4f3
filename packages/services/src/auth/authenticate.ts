import { type AnyScope, type ApiVersion, AppError, CURRENT_VERSION, isApiVersion, LEGACY_VERSION } from "@crs/contract";
import { checkKeyStatus, type Environment } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { ServiceDeps, Surface } from "../context";
import { preparedPerDatabase } from "../prepared";
import type { RateLimitPolicy } from "../rate-limits/consume-token";
import { keyMetadataCacheFor } from "./key-cache";
import { type VerifiedToken, verifiedTokensFor } from "./verified-tokens";

export interface AuthenticatedKey {
  organizationId: string;
  environment: Environment;
  keyId: string;
  scopes: ReadonlySet<AnyScope>;
  pinnedVersion: ApiVersion;
  rateLimit: RateLimitPolicy;
}

const invalidKey = (message = "Invalid API key provided.") =>
  new AppError("unauthenticated", { message, headers: { "WWW-Authenticate": 'Bearer realm="svc"' } });

const keyRecordQuery = preparedPerDatabase((db) =>
  db
    .select({
      organizationId: schema.apiKeys.organizationId,
      environment: schema.apiKeys.environment,
      revokedAt: schema.apiKeys.revokedAt,
      pinnedVersion: schema.apiKeys.pinnedVersion,
      ratePerSecond: schema.organizations.ratePerSecond,
      rateBurst: schema.organizations.rateBurst,
    })
    .from(schema.apiKeys)
    .innerJoin(schema.organizations, eq(schema.organizations.id, schema.apiKeys.organizationId))
    .where(
      tenantRow(
        schema.apiKeys,
        { organizationId: sql.placeholder("organizationId"), environment: sql.placeholder("environment") },
        sql.placeholder("keyId"),
      ),
    )
    .prepare("authenticate_key"),
);

/** Reads `Authorization: Bearer <key>`; returns null when no key was sent. */
export function readBearerToken(header: string | undefined): string | null {
  if (header === undefined || header === "") return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw invalidKey("The Authorization header must be 'Bearer <API key>'.");
  return match[1];
}

/**
 * Verifies the key's MAC without the database, then reads its metadata row once: revoked keys
 * and keys whose row disagrees with the token are refused, and an unpinned key is pinned to the
 * current version at its first call.
 */
export async function authenticateKey(deps: ServiceDeps, token: string, surface: Surface): Promise<AuthenticatedKey> {
  const verification = verifiedTokensFor(deps.sql, deps.keySigningSecret).verify(token);
  if (!verification) throw invalidKey();
  const expectedKind = surface === "legacy" ? "legacy_sandbox" : null;
  if (surface === "legacy" ? verification.kind !== expectedKind : verification.kind === "legacy_sandbox") {
    throw invalidKey(
      surface === "legacy"
        ? "The legacy listener accepts only svc_legacy_test_ keys."
        : "svc_legacy_test_ keys are accepted only on the legacy listener.",
    );
  }
  const { claims } = verification;
  const tenant = { organizationId: claims.org, environment: claims.env };
  // A key seen before comes from memory; revocations and rate changes reach it by LISTEN/NOTIFY (key-cache.ts).
  const cache = keyMetadataCacheFor<KeyRecord>(deps.sql);
  let row = cache.get(claims.kid);
  if (!row) {
    const token = cache.token;
    [row] = await keyRecordQuery(deps.db).execute({ ...tenant, keyId: claims.kid });
    const status = checkKeyStatus(claims, row);
    if (status === "revoked") throw invalidKey("This API key has been revoked.");
    if (status === "unknown" || !row) throw invalidKey();
    if (row.pinnedVersion === null) {
      const pinnedVersion = verification.kind === "legacy_sandbox" ? LEGACY_VERSION : CURRENT_VERSION;
      await deps.db
        .update(schema.apiKeys)
        .set({ pinnedVersion })
        .where(and(tenantRow(schema.apiKeys, tenant, claims.kid), isNull(schema.apiKeys.pinnedVersion)));
      // Another process may have pinned it first: read it again next time rather than remember a guess.
      return authenticated(verification, row, pinnedVersion);
    }
    cache.set(claims.kid, claims.org, row, token);
  } else if (checkKeyStatus(claims, row) !== "active") {
    throw invalidKey();
  }
  return authenticated(verification, row, row.pinnedVersion);
}

type KeyRecord = NonNullable<Awaited<ReturnType<ReturnType<typeof keyRecordQuery>["execute"]>>[number]>;

function authenticated({ claims, scopes }: VerifiedToken, row: KeyRecord, pinned: string | null): AuthenticatedKey {
  return {
    organizationId: claims.org,
    environment: claims.env,
    keyId: claims.kid,
    scopes,
    // A pin the service does not know (written by hand, or by a newer release) reads as current.
    pinnedVersion: pinned !== null && isApiVersion(pinned) ? pinned : CURRENT_VERSION,
    rateLimit: { perSecond: row.ratePerSecond, burst: row.rateBurst },
  };
}

/** 403 naming the scope the operation needs. */
export function requireScope(scopes: ReadonlySet<AnyScope>, scope: AnyScope | "none" | "any"): void {
  if (scope === "none" || scope === "any") return;
  if (!scopes.has(scope)) {
    throw new AppError("insufficient_scope", {
      message: `This key lacks the '${scope}' scope required by this operation.`,
      details: { required_scope: scope },
    });
  }
}
