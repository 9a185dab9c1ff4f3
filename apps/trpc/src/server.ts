import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { AppError, CURRENT_VERSION, toErrorBody } from "@crs/contract";
import { newId } from "@crs/db";
import { chargeClientAddress, requestLogFields, type ServiceDeps } from "@crs/services";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { pino } from "pino";
import { type RequestScope, requestScope } from "./request-scope";
import { buildAppRouter } from "./router";
import { rpcErrorPayload } from "./trpc";

const BASE_PATH = "/trpc/";

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The procedure names a request asks for: `/trpc/a.b,c.d?batch=1` → ["a.b", "c.d"]. */
function requestedProcedures(url: string | undefined): string[] {
  const path = (url ?? "").split("?")[0] ?? "";
  if (!path.startsWith(BASE_PATH)) return [];
  return decodeURIComponent(path.slice(BASE_PATH.length)).split(",");
}

function answerError(response: ServerResponse, error: AppError, requestId: string, publicBaseUrl: string) {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.statusCode = error.status;
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify({ error: rpcErrorPayload(error, toErrorBody(error, requestId, publicBaseUrl)) }));
}

export interface TrpcServerOptions {
  logLevel?: string;
  /** where log lines go (default stdout); tests pass a stream to read them */
  logStream?: { write(line: string): void };
}

/**
 * The internal tRPC server: same keys, scopes and services as REST. Every answer carries
 * Svc-Request-Id and Svc-Version, also one refused before any procedure runs.
 */
export function createTrpcServer(deps: ServiceDeps, options: TrpcServerOptions = {}) {
  const level = options.logLevel ?? "info";
  const logger = options.logStream ? pino({ level }, options.logStream) : pino({ level });
  const router = buildAppRouter();
  const procedures = new Set(Object.keys(router._def.procedures));
  const handle = createHTTPHandler({
    router,
    basePath: BASE_PATH,
    maxBodySize: 1024 * 1024,
    createContext: ({ req, res, info }) => {
      const setHeader = (name: string, value: string) => {
        if (!res.headersSent) res.setHeader(name, value);
      };
      return {
        deps,
        requestId: requestScope.getStore()?.requestId ?? newId("request"),
        authorization: req.headers.authorization,
        idempotencyKey: firstHeader(req.headers["idempotency-key"]),
        calls: info.calls.length,
        clientAddress: req.socket.remoteAddress ?? "unknown",
        setHeader,
      };
    },
  });

  return createServer((request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    const requestId = newId("request");
    const scope: RequestScope = {
      requestId,
      publicBaseUrl: deps.publicBaseUrl,
      logger: logger.child({ request_id: requestId }),
    };
    // One line per request (as REST writes), once the answer has gone out.
    response.once("finish", () => {
      const names = requestedProcedures(request.url).filter((name) => procedures.has(name));
      const { request_id: _bound, ...fields } = requestLogFields({
        requestId: scope.requestId,
        surface: "trpc",
        method: request.method ?? "",
        route: names.length > 0 ? names.join(",") : null,
        status: response.statusCode,
        durationMs: performance.now() - started,
        actor: scope.actor,
      });
      scope.logger.info(fields, "request");
    });
    response.setHeader("Svc-Request-Id", scope.requestId);
    response.setHeader("Svc-Version", CURRENT_VERSION);
    const setHeader = (name: string, value: string) => response.setHeader(name, value);
    void requestScope.run(scope, async () => {
      try {
        // Streamed batches send their headers before any procedure has run: rate limits, a replay's
        // Idempotent-Replayed and a refusal's status could not be told. One answer per request only.
        if ((firstHeader(request.headers["trpc-accept"]) ?? "").includes("application/jsonl")) {
          throw new AppError("invalid_request", {
            status: 400,
            message: "Streamed responses (trpc-accept: application/jsonl) are not served; send plain requests.",
            param: "trpc-accept",
          });
        }
        // A request for no known procedure is answered by tRPC (404), charged to the caller's address as on REST.
        if (requestedProcedures(request.url).some((name) => !procedures.has(name))) {
          await chargeClientAddress(deps, request.socket.remoteAddress ?? "unknown", setHeader);
        }
        await handle(request, response);
      } catch (error) {
        const refusal =
          error instanceof AppError
            ? error
            : new AppError("internal_error", { message: "An unexpected error occurred." });
        if (!(error instanceof AppError)) scope.logger.error({ err: error }, "unexpected error");
        if (!response.headersSent) answerError(response, refusal, scope.requestId, scope.publicBaseUrl);
      }
    });
  });
}
