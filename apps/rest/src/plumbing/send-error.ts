import { AppError, bodyTooLarge, toErrorBody } from "@crs/contract";
import type { FastifyReply, FastifyRequest } from "fastify";

/** Maps anything thrown to the one error envelope; unknown errors are logged and become internal_error. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as { code?: string; statusCode?: number; message?: string };
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return bodyTooLarge();
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError("invalid_request", {
        status: 415,
        message: "Send request bodies as application/json.",
        param: "Content-Type",
      });
  }
  // Unreadable JSON never gets here as a Fastify error: app.ts's own parser answers it as an AppError.
  if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError("invalid_request", {
      status: fastifyError.statusCode,
      message: fastifyError.message ?? "Bad request.",
    });
  }
  request.log.error({ err: error }, "unexpected error");
  return new AppError("internal_error", {
    message: "An unexpected error occurred. Quote the request id when you report it.",
  });
}

/** The error envelope; an answer stored under an Idempotency-Key goes out as it was first sent. */
export function sendError(reply: FastifyReply, request: FastifyRequest, error: unknown, publicBaseUrl: string) {
  const appError = toAppError(error, request);
  for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
  reply.code(appError.status).type("application/json; charset=utf-8");
  if (appError.replay) {
    reply.header("Idempotent-Replayed", "true");
    reply.header("Svc-Request-Id", appError.replay.requestId);
    return reply.send(appError.replay.bodyText);
  }
  return reply.send(JSON.stringify(toErrorBody(appError, request.requestId, publicBaseUrl)));
}
