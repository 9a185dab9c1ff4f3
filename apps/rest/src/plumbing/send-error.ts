import { AppError, toErrorBody } from "@crs/contract";
import type { FastifyReply, FastifyRequest } from "fastify";

/** Maps anything thrown to the one error envelope; unknown errors are logged and become internal_error. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as { code?: string; statusCode?: number; message?: string };
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new AppError("invalid_request", { status: 413, message: "The request body exceeds 1 MiB." });
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
  request.log.error({ err: error, request_id: request.requestId }, "unexpected error");
  return new AppError("internal_error", {
    message: "An unexpected error occurred. Quote the request id when you report it.",
  });
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: unknown) {
  const appError = toAppError(error, request);
  for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
  return reply
    .code(appError.status)
    .type("application/json; charset=utf-8")
    .send(JSON.stringify(toErrorBody(appError, request.requestId)));
}
