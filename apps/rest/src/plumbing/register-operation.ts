import { type ApiVersion, AppError, CURRENT_VERSION, isApiVersion, type Operation } from "@crs/contract";
import {
  type AuthenticatedKey,
  authenticateKey,
  consumeToken,
  performWrite,
  type RateLimitDecision,
  readBearerToken,
  requireScope,
  SANDBOX_KEY_MINT_LIMIT,
  SANDBOX_RATE_LIMIT,
  type ServiceDeps,
  type Surface,
} from "@crs/services";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RouteContext, RouteReply } from "./request-context";
import { sendError } from "./send-error";

export interface RestConfig {
  deps: ServiceDeps;
  surface: Surface;
  baseUrl: string;
}

export type OperationHandler<Authenticated extends boolean = true> = (
  ctx: RouteContext<Authenticated>,
) => Promise<RouteReply>;

export function toFastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

function applyRateLimit(reply: FastifyReply, decision: RateLimitDecision): void {
  reply.header("Svc-RateLimit-Limit", String(decision.limit));
  reply.header("Svc-RateLimit-Remaining", String(decision.remaining));
  if (!decision.admitted) {
    throw new AppError("rate_limited", {
      message: `Too many requests: the limit is a burst of ${decision.limit}. Retry after ${decision.retryAfterSeconds} s.`,
      headers: { "Retry-After": String(decision.retryAfterSeconds) },
    });
  }
}

function resolveVersion(header: string | string[] | undefined, pinned: AuthenticatedKey["pinnedVersion"] | undefined) {
  if (header === undefined) return pinned ?? CURRENT_VERSION;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !isApiVersion(value)) {
    throw new AppError("invalid_request", {
      status: 400,
      message: `Unknown Svc-Version '${value}'. Known versions: 2026-06-11, ${CURRENT_VERSION}.`,
      param: "Svc-Version",
    });
  }
  return value;
}

interface Admission {
  key: AuthenticatedKey | null;
  version: ApiVersion;
}

declare module "fastify" {
  interface FastifyRequest {
    admission: Admission | null;
  }
}

/** Charges the bucket of a request that carries no valid key: per client IP. */
export async function chargeAnonymous(deps: ServiceDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  applyRateLimit(reply, await consumeToken(deps.sql, `ip:${request.ip}`, SANDBOX_RATE_LIMIT));
}

/**
 * Key (401), token bucket (429), version (400) and scope (403), in that order, before the body
 * is read: a bad key is refused before a bad body is looked at, and every answer, even a 400 for
 * unreadable JSON, carries the rate-limit headers.
 */
async function admit(config: RestConfig, operation: Operation, request: FastifyRequest, reply: FastifyReply) {
  const { deps } = config;
  let key: AuthenticatedKey | null = null;
  try {
    const token = readBearerToken(request.headers.authorization);
    if (token) key = await authenticateKey(deps, token, config.surface);
  } catch (error) {
    await chargeAnonymous(deps, request, reply);
    throw error;
  }
  // Minting always draws on the per-IP mint bucket: a key in hand must not buy more organizations.
  if (operation.id === "mintSandboxKey") {
    applyRateLimit(reply, await consumeToken(deps.sql, `mint:${config.surface}:${request.ip}`, SANDBOX_KEY_MINT_LIMIT));
  } else if (key) applyRateLimit(reply, await consumeToken(deps.sql, `key:${key.keyId}`, key.rateLimit));
  else await chargeAnonymous(deps, request, reply);
  if (!key && operation.scope !== "none") {
    throw new AppError("unauthenticated", {
      message: "No API key provided. Send 'Authorization: Bearer <API key>'.",
      headers: { "WWW-Authenticate": 'Bearer realm="svc"' },
    });
  }
  const version = resolveVersion(request.headers["svc-version"], key?.pinnedVersion);
  reply.header("Svc-Version", version);
  if (key) requireScope(key.scopes, operation.scope);
  request.admission = { key, version };
}

/** Registers one operation: admission before parsing, then the handler; any error becomes the envelope. */
export function registerOperation<Authenticated extends boolean = true>(
  app: FastifyInstance,
  config: RestConfig,
  operation: Operation,
  handler: OperationHandler<Authenticated>,
): void {
  const { deps } = config;
  app.route({
    method: operation.method,
    url: toFastifyPath(operation.path),
    onRequest: async (request, reply) => {
      try {
        await admit(config, operation, request, reply);
      } catch (error) {
        return sendError(reply, request, error);
      }
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const admission = request.admission;
        if (!admission) throw new Error("operation reached without admission");
        const { key, version } = admission;
        const actor = key
          ? {
              organizationId: key.organizationId,
              environment: key.environment,
              keyId: key.keyId,
              scopes: key.scopes,
              apiVersion: version,
              requestId: request.requestId,
            }
          : null;
        const idempotencyKey = request.headers["idempotency-key"];
        const context: RouteContext<boolean> = {
          deps,
          requestId: request.requestId,
          version,
          actor,
          params: request.params as Record<string, string>,
          query: request.query as Record<string, unknown>,
          body: request.body,
          baseUrl: config.baseUrl,
          write: (execute) => {
            if (!actor) throw new Error("a write needs an authenticated actor");
            return performWrite(
              deps,
              actor,
              {
                idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey[0] : idempotencyKey,
                route: `${operation.method} ${request.url.split("?")[0]}`,
                body: request.body ?? {},
              },
              async (tx) => {
                const result = await execute(tx);
                return { status: result.status, body: withAuditRef(result.body, request.requestId) };
              },
            );
          },
        };
        const result = await handler(context as RouteContext<Authenticated>);
        reply.type("application/json; charset=utf-8");
        if ("bodyText" in result) {
          if (result.replayed) {
            reply.header("Idempotent-Replayed", "true");
            reply.header("Svc-Request-Id", result.requestId);
          }
          return reply.code(result.status).send(result.bodyText);
        }
        return reply.code(result.status).send(JSON.stringify(withAuditRef(result.body, request.requestId)));
      } catch (error) {
        return sendError(reply, request, error);
      }
    },
  });
}

/** Every body carries a top-level audit_ref; an event keeps its own (it is part of the signed content). */
function withAuditRef(body: unknown, requestId: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  return { ...record, audit_ref: record.audit_ref ?? requestId };
}
