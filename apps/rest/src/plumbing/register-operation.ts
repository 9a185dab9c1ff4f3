import {
  type Admission,
  admitRequest,
  type BoundOperation,
  runOperation,
  type ServiceDeps,
  type Surface,
} from "@crs/services";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError } from "./send-error";

export interface RestConfig {
  deps: ServiceDeps;
  surface: Surface;
}

declare module "fastify" {
  interface FastifyRequest {
    admission: Admission | null;
  }
}

export function toFastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Every body carries a top-level audit_ref; an event keeps its own (it is part of the signed content). */
function withAuditRef(body: unknown, requestId: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  return { ...record, audit_ref: record.audit_ref ?? requestId };
}

/**
 * Serves one operation at its path: admission in onRequest, before the body is read (a bad key is
 * refused before a bad body is looked at), then the operation with the input as it arrived.
 */
export function registerOperation(app: FastifyInstance, config: RestConfig, bound: BoundOperation): void {
  const { definition, handler } = bound;
  const { deps } = config;
  if (!definition.path) return;
  app.route({
    method: definition.method,
    url: toFastifyPath(definition.path),
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        request.admission = await admitRequest(
          deps,
          {
            operation: definition,
            surface: config.surface,
            requestId: request.requestId,
            authorization: request.headers.authorization,
            versionHeader: request.headers["svc-version"],
            clientAddress: request.ip,
          },
          (name, value) => reply.header(name, value),
        );
      } catch (error) {
        return sendError(reply, request, error, deps.publicBaseUrl);
      }
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const admission = request.admission;
        if (!admission) throw new Error("operation reached without admission");
        const answer = await runOperation(deps, definition, handler, {
          actor: admission.actor,
          requestId: request.requestId,
          surface: config.surface,
          version: admission.version,
          input: {
            params: request.params as Record<string, unknown>,
            query: request.query,
            body: request.body,
          },
          idempotencyKey: firstHeader(request.headers["idempotency-key"]),
        });
        if (answer.replayed) {
          reply.header("Idempotent-Replayed", "true");
          reply.header("Svc-Request-Id", answer.requestId);
        }
        return reply
          .code(answer.status)
          .type("application/json; charset=utf-8")
          .send(JSON.stringify(withAuditRef(answer.body, answer.requestId)));
      } catch (error) {
        return sendError(reply, request, error, deps.publicBaseUrl);
      }
    },
  });
}
