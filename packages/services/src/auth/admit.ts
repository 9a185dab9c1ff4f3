import {
  API_VERSIONS,
  type ApiVersion,
  AppError,
  CURRENT_VERSION,
  isApiVersion,
  LEGACY_VERSION,
  type OperationDefinition,
} from "@crs/contract";
import type { Actor, ServiceDeps, Surface } from "../context";
import {
  consumeToken,
  type RateLimitDecision,
  SANDBOX_KEY_MINT_LIMIT,
  SANDBOX_RATE_LIMIT,
} from "../rate-limits/consume-token";
import { type AuthenticatedKey, authenticateKey, readBearerToken, requireScope } from "./authenticate";

export type SetHeader = (name: string, value: string) => void;

export interface AdmissionRequest {
  operation: OperationDefinition;
  surface: Surface;
  requestId: string;
  /** the Authorization header */
  authorization: string | undefined;
  /** the Svc-Version header; absent: the key's pinned version */
  versionHeader?: string | string[] | undefined;
  /** buckets requests without a valid key */
  clientAddress: string;
}

export interface Admission {
  /** null only for an operation that needs no key, called without one */
  actor: Actor | null;
  version: ApiVersion;
}

/** Sets the rate-limit headers every answer carries; a refusal is 429 with Retry-After. */
function applyRateLimit(decision: RateLimitDecision, setHeader: SetHeader): void {
  setHeader("Svc-RateLimit-Limit", String(decision.limit));
  setHeader("Svc-RateLimit-Remaining", String(decision.remaining));
  if (!decision.admitted) {
    throw new AppError("rate_limited", {
      message: `Too many requests: the limit is a burst of ${decision.limit}. Retry after ${decision.retryAfterSeconds} s.`,
      headers: { "Retry-After": String(decision.retryAfterSeconds) },
    });
  }
}

/** Charges the bucket of a request that carries no valid key: per client address. */
export async function chargeClientAddress(deps: ServiceDeps, clientAddress: string, setHeader: SetHeader) {
  applyRateLimit(await consumeToken(deps.sql, `ip:${clientAddress}`, SANDBOX_RATE_LIMIT), setHeader);
}

function resolveVersion(
  header: string | string[] | undefined,
  pinned: ApiVersion | undefined,
  surface: Surface,
): ApiVersion {
  const value = Array.isArray(header) ? header[0] : header;
  if (surface === "legacy") {
    // The legacy listener serves its one version; its keys are pinned to it.
    if (value !== undefined && value !== LEGACY_VERSION) {
      throw new AppError("invalid_request", {
        status: 400,
        message: `The legacy listener serves Svc-Version ${LEGACY_VERSION} only (got '${value}'); ${CURRENT_VERSION} is served by the current REST listener.`,
        param: "Svc-Version",
      });
    }
    return LEGACY_VERSION;
  }
  if (header === undefined) return pinned ?? CURRENT_VERSION;
  if (value === undefined || !isApiVersion(value)) {
    throw new AppError("invalid_request", {
      status: 400,
      message: `Unknown Svc-Version '${value}'. Known versions: ${API_VERSIONS.join(", ")}.`,
      param: "Svc-Version",
    });
  }
  return value;
}

function actorOf(key: AuthenticatedKey, version: ApiVersion, requestId: string): Actor {
  return {
    organizationId: key.organizationId,
    environment: key.environment,
    keyId: key.keyId,
    scopes: key.scopes,
    apiVersion: version,
    requestId,
  };
}

/**
 * Admits one call on either surface before its input is read: key (401), token bucket (429; the
 * headers on every answer), version (400), scope (403). A bad key is refused before a bad body is
 * looked at, and even a refusal carries the rate-limit headers.
 */
export async function admitRequest(
  deps: ServiceDeps,
  request: AdmissionRequest,
  setHeader: SetHeader,
): Promise<Admission> {
  const { operation } = request;
  let key: AuthenticatedKey | null = null;
  try {
    const token = readBearerToken(request.authorization);
    if (token) key = await authenticateKey(deps, token, request.surface);
  } catch (error) {
    await chargeClientAddress(deps, request.clientAddress, setHeader);
    throw error;
  }
  if (operation.rateLimit === "sandbox-key-mint") {
    // A key in hand must not buy more organizations: minting always draws on the per-address bucket.
    const bucket = `mint:${request.surface}:${request.clientAddress}`;
    applyRateLimit(await consumeToken(deps.sql, bucket, SANDBOX_KEY_MINT_LIMIT), setHeader);
  } else if (key) {
    applyRateLimit(await consumeToken(deps.sql, `key:${key.keyId}`, key.rateLimit), setHeader);
  } else {
    await chargeClientAddress(deps, request.clientAddress, setHeader);
  }
  if (!key && operation.scope !== "none") {
    throw new AppError("unauthenticated", {
      message: "No API key provided. Send 'Authorization: Bearer <API key>'.",
      headers: { "WWW-Authenticate": 'Bearer realm="svc"' },
    });
  }
  const version = resolveVersion(request.versionHeader, key?.pinnedVersion, request.surface);
  setHeader("Svc-Version", version);
  if (!key) return { actor: null, version };
  requireScope(key.scopes, operation.scope);
  return { actor: actorOf(key, version, request.requestId), version };
}
