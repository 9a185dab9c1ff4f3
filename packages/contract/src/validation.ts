import type { z } from "zod";
import { AppError } from "./errors";

interface InvalidField {
  param: string;
  message: string;
  allowed?: readonly unknown[];
}

function paramOf(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/**
 * A required field the caller left out. Zod reports an absent field as a failure of whatever the
 * field's type is: invalid_type for strings and numbers, invalid_value for enums and literals,
 * invalid_union for unions, each with undefined input (when the input was reported).
 */
function isMissingField(issue: z.core.$ZodIssue): boolean {
  if (issue.code !== "invalid_type" && issue.code !== "invalid_value" && issue.code !== "invalid_union") return false;
  return "input" in issue ? issue.input === undefined : issue.code === "invalid_type";
}

/** Turns every zod issue into one error that names every bad field (DECISIONS §4). */
export function toValidationError(error: z.ZodError, status: 400 | 422, source: "body" | "query"): AppError {
  const missing: string[] = [];
  const invalid: InvalidField[] = [];
  for (const issue of error.issues) {
    const param = paramOf(issue.path) || source;
    if (isMissingField(issue)) {
      missing.push(param);
    } else if (issue.code === "invalid_value") {
      invalid.push({ param, message: `must be one of: ${issue.values.join(", ")}`, allowed: issue.values });
    } else {
      invalid.push({ param, message: issue.message });
    }
  }
  const parts: string[] = [];
  if (missing.length) parts.push(`Missing required field${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}.`);
  if (invalid.length) parts.push(`Invalid ${invalid.map((f) => `${f.param} (${f.message})`).join("; ")}.`);
  const details: Record<string, unknown> = {};
  if (missing.length) details.missing = missing;
  if (invalid.length) details.invalid = invalid;
  const enumErrors = invalid.filter((f) => f.allowed);
  if (enumErrors.length === 1 && enumErrors[0]?.allowed) details.allowed = enumErrors[0].allowed;
  return new AppError("invalid_request", {
    status,
    message: parts.join(" "),
    param: missing[0] ?? invalid[0]?.param ?? source,
    details,
  });
}

/** Parses a JSON body: not an object → 422; bad fields → 422 naming each one. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const input = body === undefined || body === null ? {} : body;
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new AppError("invalid_request", { message: "The request body must be a JSON object.", param: "body" });
  }
  // screenJsonValue already ran where the body entered (REST's JSON parser, tRPC's middleware).
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw toValidationError(result.error, 422, "body");
  return result.data;
}

export const MAX_JSON_DEPTH = 64;

/**
 * Refuses, before anything else reads a body, what would otherwise surface as a 5xx deeper
 * down: nesting past MAX_JSON_DEPTH (400; recursive walkers would overflow the stack), numbers
 * JSON.parse turned into Infinity (400, e.g. 1e400), and text Postgres cannot store (NUL) or
 * RFC 8785 cannot hash (unpaired surrogates) (422 naming the field). Iterative, so any depth is safe.
 */
export function screenJsonValue(value: unknown): AppError | null {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: item, path } = stack.pop() as { value: unknown; path: string[] };
    const param = path.join(".") || "body";
    if (path.length > MAX_JSON_DEPTH) {
      return new AppError("invalid_request", {
        status: 400,
        message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
        param,
      });
    }
    if (typeof item === "number" && !Number.isFinite(item)) {
      return new AppError("invalid_request", {
        status: 400,
        message: `Invalid ${param}: the number is out of range.`,
        param,
      });
    }
    if (typeof item === "string" && !isStorableText(item)) return unstorableText(param);
    if (typeof item === "object" && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) return unstorableText([...path, key].join("."));
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
  return null;
}

function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}

function unstorableText(param: string): AppError {
  const message = "must not contain NUL characters or unpaired surrogates";
  return new AppError("invalid_request", {
    message: `Invalid ${param} (${message}).`,
    param,
    details: { invalid: [{ param, message }] },
  });
}

/** Parses query parameters: bad values are 400 (DECISIONS §5). */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query ?? {}, { reportInput: true });
  if (!result.success) throw toValidationError(result.error, 400, "query");
  return result.data;
}
