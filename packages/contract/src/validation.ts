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
  const unstorable = findUnstorableText(input, []);
  if (unstorable) {
    throw new AppError("invalid_request", {
      message: `Invalid ${unstorable} (must not contain NUL characters or unpaired surrogates).`,
      param: unstorable,
      details: { invalid: [{ param: unstorable, message: "must not contain NUL characters or unpaired surrogates" }] },
    });
  }
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw toValidationError(result.error, 422, "body");
  return result.data;
}

/** Text Postgres cannot store (NUL) or JCS cannot hash (lone surrogates) is refused up front, never a 5xx. */
function findUnstorableText(value: unknown, path: string[]): string | null {
  if (typeof value === "string")
    return value.includes("\u0000") || !value.isWellFormed() ? path.join(".") || "body" : null;
  if (typeof value !== "object" || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = findUnstorableText(key, [...path, key]) ?? findUnstorableText(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Parses query parameters: bad values are 400 (DECISIONS §5). */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query ?? {}, { reportInput: true });
  if (!result.success) throw toValidationError(result.error, 400, "query");
  return result.data;
}
