import { type AnyScope, AppError, screenJsonValue, toErrorBody, toValidationError } from "@crs/contract";
import {
  type Actor,
  authenticateKey,
  consumeToken,
  readBearerToken,
  requireScope,
  type ServiceDeps,
} from "@crs/services";
import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError } from "zod";

export interface TrpcContext {
  deps: ServiceDeps;
  requestId: string;
  authorization: string | undefined;
  /** sets a response header (rate limits, Retry-After), as REST does */
  setHeader: (name: string, value: string) => void;
}

export interface ProcedureMeta {
  /** the scope the procedure needs, the same as its REST operation's */
  scope: AnyScope | "any";
}

type TrpcCode = TRPCError["code"];

const CODE_BY_STATUS: Record<number, TrpcCode> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  410: "PRECONDITION_FAILED",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
};

/** The same AppError the REST app answers with, carried as a tRPC error with the REST envelope in data. */
function toAppError(error: TRPCError): AppError {
  const cause = error.cause;
  if (cause instanceof AppError) return cause;
  if (cause instanceof ZodError) return toValidationError(cause, 422, "body");
  if (error.code === "PARSE_ERROR") return new AppError("invalid_request", { status: 400, message: error.message });
  if (error.code === "NOT_FOUND") return new AppError("not_found", { message: error.message });
  if (error.code === "INTERNAL_SERVER_ERROR") {
    return new AppError("internal_error", {
      message: "An unexpected error occurred. Quote the request id when you report it.",
    });
  }
  return new AppError("invalid_request", { status: 400, message: error.message });
}

const t = initTRPC
  .context<TrpcContext>()
  .meta<ProcedureMeta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const appError = toAppError(error);
      if (appError.code === "internal_error") console.error(`[trpc] ${ctx?.requestId}`, error.cause ?? error);
      const envelope = toErrorBody(appError, ctx?.requestId ?? "");
      return {
        message: appError.message,
        code: shape.code,
        data: {
          code: CODE_BY_STATUS[appError.status] ?? shape.data.code,
          httpStatus: appError.status,
          path: shape.data.path,
          error: envelope.error,
          audit_ref: envelope.audit_ref,
        },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;

/** Same keys, same shared rate-limit buckets, same scopes as REST. */
export const authedProcedure = t.procedure.use(async ({ ctx, meta, next, getRawInput }) => {
  const run = async (): Promise<Actor> => {
    const token = readBearerToken(ctx.authorization);
    if (!token) {
      throw new AppError("unauthenticated", {
        message: "No API key provided. Send 'Authorization: Bearer <API key>'.",
      });
    }
    const key = await authenticateKey(ctx.deps, token, "current");
    const decision = await consumeToken(ctx.deps.sql, `key:${key.keyId}`, key.rateLimit);
    ctx.setHeader("Svc-RateLimit-Limit", String(decision.limit));
    ctx.setHeader("Svc-RateLimit-Remaining", String(decision.remaining));
    if (!decision.admitted) {
      ctx.setHeader("Retry-After", String(decision.retryAfterSeconds));
      throw new AppError("rate_limited", {
        message: `Too many requests: retry after ${decision.retryAfterSeconds} s.`,
      });
    }
    requireScope(key.scopes, meta?.scope ?? "any");
    // The same screen as REST's body parser: nothing too deep, out of range or unstorable reaches a service.
    const problem = screenJsonValue(await getRawInput());
    if (problem) throw problem;
    return {
      organizationId: key.organizationId,
      environment: key.environment,
      keyId: key.keyId,
      scopes: key.scopes,
      apiVersion: key.pinnedVersion,
      requestId: ctx.requestId,
    };
  };
  try {
    const actor = await run();
    return next({ ctx: { ...ctx, actor } });
  } catch (error) {
    if (error instanceof AppError) {
      throw new TRPCError({
        code: CODE_BY_STATUS[error.status] ?? "BAD_REQUEST",
        message: error.message,
        cause: error,
      });
    }
    throw error;
  }
});

/** Turns a service's AppError into the matching tRPC error, keeping the AppError as the cause. */
export async function callService<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) {
      throw new TRPCError({
        code: CODE_BY_STATUS[error.status] ?? "INTERNAL_SERVER_ERROR",
        message: error.message,
        cause: error,
      });
    }
    throw error;
  }
}
