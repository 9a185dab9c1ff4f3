import { AppError, buildOpenApiDocument, CURRENT_VERSION, LEGACY_VERSION, screenJsonValue } from "@crs/contract";
import { newId } from "@crs/db";
import {
  boundLegacyOperations,
  boundOperations,
  chargeClientAddress,
  requestLogFields,
  type ServiceDeps,
  type Surface,
} from "@crs/services";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import { registerDocs } from "./docs/register-docs";
import {
  compatibilityWindowOf,
  type LegacyListenerOptions,
  listenerWindowHeaders,
  registerLegacyDocsRedirect,
  retiredListenerError,
} from "./plumbing/legacy-listener";
import { registerExportDownload } from "./plumbing/register-export-download";
import { registerOperation } from "./plumbing/register-operation";
import { sendError } from "./plumbing/send-error";

declare module "fastify" {
  interface FastifyRequest {
    requestId: string;
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface BuildRestAppOptions {
  deps: ServiceDeps;
  /**
   * `legacy`: the 2026-06-11 listener (its keys, its version, its window); needs `legacy`. Its deps'
   * `publicBaseUrl` is the legacy listener's own origin (key base_url, download and doc URLs).
   */
  surface?: Surface;
  legacy?: LegacyListenerOptions;
  logLevel?: string;
  /** where log lines go (default stdout); tests pass a stream to read them */
  logStream?: { write(line: string): void };
}

const documentedRoutes = new Map<string, string>();

/** `/v1/matters/:matter_id` as the API documents it: `/v1/matters/{matter_id}` (worked out once per route). */
function documentedRoute(template: string | undefined): string | null {
  if (template === undefined) return null;
  let route = documentedRoutes.get(template);
  if (route === undefined) {
    route = template.replace(/:(\w+)/g, "{$1}");
    documentedRoutes.set(template, route);
  }
  return route;
}

export async function buildRestApp(options: BuildRestAppOptions): Promise<FastifyInstance> {
  const { deps } = options;
  const surface = options.surface ?? "current";
  const legacy = options.legacy;
  if (surface === "legacy" && !legacy) throw new Error("the legacy listener needs its window and the current origin");
  const answeredVersion = surface === "legacy" ? LEGACY_VERSION : CURRENT_VERSION;
  /** On the legacy listener inside its window: the headers every answer carries. */
  const windowHeaders = (reply: FastifyReply) => {
    const headers = legacy ? listenerWindowHeaders(deps, legacy) : null;
    if (headers) for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  };
  /** On the legacy listener after its window, what any request no operation or route answers gets. */
  const retired = () => (legacy ? retiredListenerError(deps, legacy) : null);
  const chargeAnonymous = (request: FastifyRequest, reply: FastifyReply) =>
    chargeClientAddress(deps, request.ip, (name, value) => reply.header(name, value));
  const fail = (reply: FastifyReply, request: FastifyRequest, error: unknown) =>
    sendError(reply, request, error, deps.publicBaseUrl);
  const logLevel = options.logLevel ?? "info";
  // The request line is written at info: below that level its fields are not even gathered.
  const logsRequests = ["trace", "debug", "info"].includes(logLevel);
  const app = Fastify({
    logger: {
      level: logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: BODY_LIMIT_BYTES,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "request_id" }),
    trustProxy: false,
    genReqId: () => newId("request"),
    // A URL the router cannot even read (bad percent-encoding, an over-long id) still gets the envelope.
    frameworkErrors: (error, request, reply) => {
      request.requestId = request.id;
      reply.header("Svc-Request-Id", request.id).header("Svc-Version", answeredVersion);
      windowHeaders(reply);
      const answer =
        retired() ??
        (error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? new AppError("not_found", { message: "No such object: the id in the URL is too long to be one." })
          : new AppError("invalid_request", { status: 400, message: "The request URL is malformed." }));
      void chargeAnonymous(request, reply)
        .then(
          () => answer,
          (refusal: unknown) => refusal,
        )
        .then((outcome) => fail(reply, request, outcome));
    },
  });
  app.decorateRequest("requestId", "");
  app.decorateRequest("admission", null);
  // Callback hooks, not async ones: they do no I/O, and an async hook costs every request a promise.
  app.addHook("onRequest", (request, reply, done) => {
    request.requestId = request.id;
    reply.header("Svc-Request-Id", request.id);
    // Every response names a version, also those that never reach an operation
    // (unknown route, unreadable body); an operation replaces it with the version it used.
    reply.header("Svc-Version", answeredVersion);
    windowHeaders(reply);
    done();
  });
  // One line per request, written after the answer is sent; Fastify's own request logging is off.
  app.addHook("onResponse", (request, reply, done) => {
    if (!logsRequests) return done();
    app.log.info(
      requestLogFields({
        requestId: request.requestId || request.id,
        surface: surface === "legacy" ? "legacy" : "rest",
        method: request.method,
        route: documentedRoute(request.routeOptions.url),
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
        actor: request.admission?.actor,
      }),
      "request",
    );
    done();
  });

  // Only JSON is accepted (any other type is 415). Empty bodies are `{}`; unparseable JSON is 400; a
  // body too deep, with an out-of-range number or with unstorable text is refused here, before the
  // Idempotency-Key hash or anything else walks it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(
        new AppError("invalid_request", {
          status: 400,
          message: `The request body is not valid JSON: ${(error as Error).message}`,
        }),
        undefined,
      );
    }
    const problem = screenJsonValue(parsed);
    if (problem) return done(problem, undefined);
    done(null, parsed);
  });

  app.setErrorHandler((error, request, reply) => fail(reply, request, error));
  app.setNotFoundHandler(async (request, reply) => {
    try {
      await chargeAnonymous(request, reply);
      throw (
        retired() ??
        new AppError("not_found", {
          message: `Unrecognized request URL (${request.method} ${request.url.split("?")[0]}).`,
        })
      );
    } catch (error) {
      return fail(reply, request, error);
    }
  });

  const legacyOperations = legacy ? boundLegacyOperations() : [];
  // Both listeners serve every operation of the current surface, and the legacy one its version's own
  // operations too; it applies its window before admission.
  const config = {
    deps,
    surface,
    ...(legacy
      ? {
          beforeAdmission: compatibilityWindowOf(
            deps,
            legacy,
            legacyOperations.map((b) => b.definition),
          ),
        }
      : {}),
  };
  for (const bound of boundOperations()) registerOperation(app, config, bound);
  registerExportDownload(app, config);
  if (legacy) {
    for (const bound of legacyOperations) registerOperation(app, config, bound);
    registerLegacyDocsRedirect(app, legacy);
    return app;
  }

  const openApiDocument = buildOpenApiDocument(deps.publicBaseUrl);
  const openApi = JSON.stringify(openApiDocument);
  app.get("/v1/openapi.json", async (request, reply) => {
    try {
      await chargeAnonymous(request, reply);
      return reply.type("application/json; charset=utf-8").send(openApi);
    } catch (error) {
      return fail(reply, request, error);
    }
  });
  await registerDocs(app, { openApiDocument });
  return app;
}
