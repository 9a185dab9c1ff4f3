import {
  AppError,
  bodyTooLarge,
  CURRENT_VERSION,
  type ErrorBody,
  isPlainObject,
  isWrite,
  pathParamNames,
  type RpcErrorData,
  screenJsonValue,
  toErrorBody,
} from "@crs/contract";
import { admitRequest, type BoundOperation, runOperation, type ServiceDeps } from "@crs/services";
import { initTRPC, type TRPC_ERROR_CODE_KEY, TRPCError } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { requestScope } from "./request-scope";

export interface TrpcContext {
  deps: ServiceDeps;
  requestId: string;
  authorization: string | undefined;
  /** the Idempotency-Key header; it names one call, so a batch of several calls may not carry one */
  idempotencyKey: string | undefined;
  calls: number;
  clientAddress: string;
  /** sets a response header (rate limits, Retry-After, Idempotent-Replayed), as REST does */
  setHeader: (name: string, value: string) => void;
}

type TrpcCode = TRPCError["code"];

const CODE_BY_STATUS: Record<number, TrpcCode> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  410: "PRECONDITION_FAILED",
  405: "METHOD_NOT_SUPPORTED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
};

/** The AppError behind any tRPC error: ours as the cause, or tRPC's own (transport: body, path, method). */
function appErrorOf(error: TRPCError): AppError {
  const cause = error.cause;
  if (cause instanceof AppError) return cause;
  if (error.code === "PARSE_ERROR") return new AppError("invalid_request", { status: 400, message: error.message });
  if (error.code === "NOT_FOUND") return new AppError("not_found", { message: error.message });
  if (error.code === "PAYLOAD_TOO_LARGE") return bodyTooLarge();
  if (error.code === "UNSUPPORTED_MEDIA_TYPE") {
    return new AppError("invalid_request", { status: 415, message: error.message, param: "Content-Type" });
  }
  if (error.code === "METHOD_NOT_SUPPORTED") {
    return new AppError("invalid_request", { status: 405, message: error.message });
  }
  if (error.code === "INTERNAL_SERVER_ERROR") {
    return new AppError("internal_error", {
      message: "An unexpected error occurred. Quote the request id when you report it.",
    });
  }
  return new AppError("invalid_request", { status: 400, message: error.message });
}

/** A failed call as tRPC clients read it: tRPC's own fields, and `data` carrying the REST envelope. */
export function rpcErrorPayload(appError: AppError, envelope: ErrorBody, path?: string) {
  const code: TRPC_ERROR_CODE_KEY = CODE_BY_STATUS[appError.status] ?? "INTERNAL_SERVER_ERROR";
  const data: RpcErrorData = {
    code,
    httpStatus: appError.status,
    ...(path ? { path } : {}),
    error: envelope.error,
    audit_ref: envelope.audit_ref,
  };
  return { message: appError.message, code: TRPC_ERROR_CODES_BY_KEY[code], data };
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ error, ctx, path }) {
    const appError = appErrorOf(error);
    const scope = requestScope.getStore();
    const requestId = ctx?.requestId ?? scope?.requestId ?? "";
    if (appError.code === "internal_error") {
      const cause = error.cause ?? error;
      if (scope) scope.logger.error({ err: cause }, "unexpected error");
      else console.error(`[trpc] ${requestId}`, cause);
    }
    // A stored answer replayed for an Idempotency-Key carries its original envelope.
    const envelope = appError.replay
      ? (JSON.parse(appError.replay.bodyText) as ErrorBody)
      : toErrorBody(appError, requestId, scope?.publicBaseUrl);
    return rpcErrorPayload(appError, envelope, path);
  },
});

export const router = t.router;

/** The one place an AppError becomes a tRPC error (the formatter turns it back into the envelope). */
function toTrpcError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  return new TRPCError({ code: CODE_BY_STATUS[error.status] ?? "BAD_REQUEST", message: error.message, cause: error });
}

/** A stored answer goes out under the request id it was first given, as on REST. */
function markReplayed(ctx: TrpcContext, originalRequestId: string): void {
  ctx.setHeader("Idempotent-Replayed", "true");
  ctx.setHeader("Svc-Request-Id", originalRequestId);
}

/**
 * A tRPC input is one object: the operation's path parameters beside its body (or query) fields.
 * Split here so the operation sees what REST gives it; anything that is not an object is the
 * body's problem, and the operation's parser names it.
 */
function splitInput(bound: BoundOperation, input: unknown) {
  const write = isWrite(bound.definition);
  if (!isPlainObject(input)) return { params: {}, [write ? "body" : "query"]: input };
  const names = pathParamNames(bound.definition);
  const params = Object.fromEntries(names.filter((name) => name in input).map((name) => [name, input[name]]));
  const rest = Object.fromEntries(Object.entries(input).filter(([name]) => !names.includes(name)));
  return { params, [write ? "body" : "query"]: rest };
}

/**
 * The procedure of one operation: the same admission, the same operation runner and the same
 * error envelope as REST. Input is not parsed by tRPC: the runner parses it with the definition,
 * inside the write path, so a refused body is stored under an Idempotency-Key like any answer.
 * Procedures answer in the current version's shape (the typed client is built from it).
 */
export function procedureFor(bound: BoundOperation) {
  const { definition, handler } = bound;
  const resolve = async ({ ctx, input }: { ctx: TrpcContext; input: unknown }) => {
    try {
      const admission = await admitRequest(
        ctx.deps,
        {
          operation: definition,
          surface: "current",
          requestId: ctx.requestId,
          authorization: ctx.authorization,
          // Procedures answer the current version's shape: the typed client is built from it.
          versionHeader: CURRENT_VERSION,
          clientAddress: ctx.clientAddress,
        },
        ctx.setHeader,
      );
      const scope = requestScope.getStore();
      if (scope) scope.actor = admission.actor;
      // A write's input is screened before its Idempotency-Key is read, as REST's JSON parser screens a
      // body; a query's is screened with its other checks (parseOperationInput), like a REST query string.
      if (isWrite(definition)) {
        const problem = screenJsonValue(input);
        if (problem) throw problem;
      }
      // A write's request id is its events' audit_ref and its Idempotency-Key names one call:
      // each write comes in a request of its own (the typed client sends them so).
      if (isWrite(definition) && ctx.calls > 1) {
        throw new AppError("invalid_request", {
          status: 400,
          message: "Send each write (mutation) in a request of its own, not in a batch.",
          ...(ctx.idempotencyKey !== undefined ? { param: "Idempotency-Key" } : {}),
        });
      }
      const answer = await runOperation(ctx.deps, definition, handler, {
        actor: admission.actor,
        requestId: ctx.requestId,
        surface: "current",
        version: admission.version,
        input: splitInput(bound, input),
        idempotencyKey: ctx.idempotencyKey,
      });
      if (answer.replayed) markReplayed(ctx, answer.requestId);
      return answer.body;
    } catch (error) {
      if (error instanceof AppError) {
        for (const [name, value] of Object.entries(error.headers)) ctx.setHeader(name, value);
        if (error.replay) markReplayed(ctx, error.replay.requestId);
      }
      throw toTrpcError(error);
    }
  };
  const procedure = t.procedure.input((raw: unknown) => raw);
  return isWrite(definition) ? procedure.mutation(resolve) : procedure.query(resolve);
}
