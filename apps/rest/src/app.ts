import { AppError, buildOpenApiDocument, CURRENT_VERSION, screenJsonValue } from "@crs/contract";
import { newId } from "@crs/db";
import type { ServiceDeps, Surface } from "@crs/services";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { registerDocs } from "./docs/register-docs";
import { chargeAnonymous } from "./plumbing/register-operation";
import { sendError } from "./plumbing/send-error";
import { registerCurrentRoutes } from "./routes";

declare module "fastify" {
  interface FastifyRequest {
    requestId: string;
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface BuildRestAppOptions {
  deps: ServiceDeps;
  baseUrl: string;
  surface?: Surface;
  logLevel?: string;
}

export async function buildRestApp(options: BuildRestAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: options.logLevel ?? "info" },
    bodyLimit: BODY_LIMIT_BYTES,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: false,
    genReqId: () => newId("request"),
    // A URL the router cannot even read (bad percent-encoding, an over-long id) still gets the envelope.
    frameworkErrors: (error, request, reply) => {
      request.requestId = request.id;
      reply.header("Svc-Request-Id", request.id).header("Svc-Version", CURRENT_VERSION);
      const answer =
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? new AppError("not_found", { message: "No such object: the id in the URL is too long to be one." })
          : new AppError("invalid_request", { status: 400, message: "The request URL is malformed." });
      void chargeAnonymous(options.deps, request, reply)
        .then(
          () => answer,
          (refusal: unknown) => refusal,
        )
        .then((outcome) => sendError(reply, request, outcome));
    },
  });
  app.decorateRequest("requestId", "");
  app.decorateRequest("admission", null);
  app.addHook("onRequest", async (request, reply) => {
    request.requestId = request.id;
    reply.header("Svc-Request-Id", request.id);
    // Every response names a version (DECISIONS §3), also those that never reach an operation
    // (unknown route, unreadable body); an operation replaces it with the version it used.
    reply.header("Svc-Version", CURRENT_VERSION);
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

  app.setErrorHandler((error, request, reply) => sendError(reply, request, error));
  app.setNotFoundHandler(async (request, reply) => {
    try {
      await chargeAnonymous(options.deps, request, reply);
      throw new AppError("not_found", {
        message: `Unrecognized request URL (${request.method} ${request.url.split("?")[0]}).`,
      });
    } catch (error) {
      return sendError(reply, request, error);
    }
  });

  const config = { deps: options.deps, surface: options.surface ?? "current", baseUrl: options.baseUrl } as const;
  registerCurrentRoutes(app, config);

  const openApiDocument = buildOpenApiDocument(options.baseUrl);
  const openApi = JSON.stringify(openApiDocument);
  app.get("/v1/openapi.json", async (request, reply) => {
    try {
      await chargeAnonymous(options.deps, request, reply);
      return reply.type("application/json; charset=utf-8").send(openApi);
    } catch (error) {
      return sendError(reply, request, error);
    }
  });
  await registerDocs(app, { openApiDocument });
  return app;
}
