import type { OperationDefinition } from "@crs/contract";
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
  /** runs before admission; may set headers or throw the answer (the legacy listener's window) */
  beforeAdmission?: (definition: OperationDefinition, request: FastifyRequest, reply: FastifyReply) => Promise<void>;
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

/**
 * The body as JSON with a top-level audit_ref; an event keeps its own (it is part of the signed
 * content). A body without one gets it appended to its JSON text rather than to a copy of the
 * object: the same bytes, without copying every field on every answer.
 */
export function jsonWithAuditRef(body: unknown, requestId: string): string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return JSON.stringify(body);
  const record = body as Record<string, unknown>;
  if ("audit_ref" in record || typeof record.toJSON === "function") {
    return JSON.stringify({ ...record, audit_ref: record.audit_ref ?? requestId });
  }
  const json = JSON.stringify(record);
  const auditRef = `"audit_ref":${JSON.stringify(requestId)}}`;
  return json === "{}" ? `{${auditRef}` : `${json.slice(0, -1)},${auditRef}`;
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
        if (config.beforeAdmission) await config.beforeAdmission(definition, request, reply);
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
          .send(jsonWithAuditRef(answer.body, answer.requestId));
      } catch (error) {
        return sendError(reply, request, error, deps.publicBaseUrl);
      }
    },
  });
}
