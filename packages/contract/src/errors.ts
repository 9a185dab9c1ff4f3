/** The one code table: each error code's default status and error type. */
export const ERROR_CODES = {
  invalid_request: { status: 422, type: "invalid_request_error" },
  unauthenticated: { status: 401, type: "authentication_error" },
  insufficient_scope: { status: 403, type: "permission_error" },
  not_found: { status: 404, type: "invalid_request_error" },
  conflict: { status: 409, type: "invalid_request_error" },
  authority_required: { status: 409, type: "gate_error" },
  sanctions_gate: { status: 409, type: "gate_error" },
  stay_in_effect: { status: 409, type: "gate_error" },
  endpoint_retired: { status: 410, type: "invalid_request_error" },
  rate_limited: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const DOC_BASE_URL = "/docs#errors";

/** Where an error code is explained; absolute when the service's public base URL is given. */
export function docUrlFor(code: ErrorCode, publicBaseUrl = ""): string {
  return `${publicBaseUrl}${DOC_BASE_URL}-${code.replaceAll("_", "-")}`;
}

export interface AppErrorOptions {
  message: string;
  param?: string;
  details?: Record<string, unknown>;
  /** Overrides the table's status where the contract allows two (400 vs 422, 413). */
  status?: number;
  headers?: Record<string, string>;
  /** The stored answer this error replays (an Idempotency-Key seen before): sent as it was. */
  replay?: StoredAnswer;
  /** Where `doc_url` points instead of the code's entry (a retired operation: its successor's). */
  docUrl?: string;
}

/** An answer kept for an Idempotency-Key: its status, its JSON text and the request it belonged to. */
export interface StoredAnswer {
  status: number;
  bodyText: string;
  requestId: string;
}

/** The one error type services throw; each app turns it into its wire envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;
  readonly replay: StoredAnswer | undefined;
  readonly docUrl: string | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions) {
    super(options.message);
    this.name = "AppError";
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.param = options.param;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.replay = options.replay;
    this.docUrl = options.docUrl;
  }

  /** The same error answered with another status (what a listener answers in its own version's form). */
  withStatus(status: number): AppError {
    return new AppError(this.code, {
      message: this.message,
      status,
      ...(this.param !== undefined ? { param: this.param } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
      headers: this.headers,
      ...(this.replay ? { replay: this.replay } : {}),
      ...(this.docUrl !== undefined ? { docUrl: this.docUrl } : {}),
    });
  }

  /** The error a stored 4xx answer stands for, carrying the answer itself for a byte-identical replay. */
  static fromStoredAnswer(answer: StoredAnswer): AppError {
    const envelope = JSON.parse(answer.bodyText) as ErrorBody;
    return new AppError(envelope.error.code, {
      status: answer.status,
      message: envelope.error.message,
      ...(envelope.error.param !== undefined ? { param: envelope.error.param } : {}),
      ...(envelope.error.details !== undefined ? { details: envelope.error.details } : {}),
      replay: answer,
    });
  }
}

export function notFound(resource: string, id: string, param?: string): AppError {
  return new AppError("not_found", { message: `No such ${resource}: '${id}'.`, ...(param ? { param } : {}) });
}

export function badRequest(message: string, param?: string): AppError {
  return new AppError("invalid_request", { status: 400, message, ...(param ? { param } : {}) });
}

export interface ErrorBody {
  error: {
    type: string;
    code: ErrorCode;
    message: string;
    param?: string;
    details?: Record<string, unknown>;
    doc_url: string;
    request_id: string;
  };
  audit_ref: string;
}

export function toErrorBody(error: AppError, requestId: string, publicBaseUrl = ""): ErrorBody {
  return {
    error: {
      type: ERROR_CODES[error.code].type,
      code: error.code,
      message: error.message,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
      doc_url: error.docUrl ?? docUrlFor(error.code, publicBaseUrl),
      request_id: requestId,
    },
    audit_ref: requestId,
  };
}

/** `error.data` of a failed tRPC call: the REST envelope's `error` and `audit_ref`, beside tRPC's own fields. */
export interface RpcErrorData {
  code: string;
  httpStatus: number;
  path?: string;
  error: ErrorBody["error"];
  audit_ref: string;
}

export function bodyTooLarge(): AppError {
  return new AppError("invalid_request", { status: 413, message: "The request body exceeds 1 MiB." });
}
