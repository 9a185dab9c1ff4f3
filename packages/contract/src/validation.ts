import { z } from "zod";
import { AppError } from "./errors";
import { isWrite, type OperationDefinition, type OperationInput, pathParamNames } from "./operation";

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

/** An issue of one union branch: the branch was not even the input's type. */
function isBranchTypeMismatch(issue: z.core.$ZodIssue): boolean {
  return issue.code === "invalid_type" && issue.path.length === 0;
}

/**
 * A union the input failed, seen from the one branch whose type the input has: a wallet object
 * without an address is `wallets.0.address` missing, not "wallets.0: invalid input". When no branch
 * or several fit the input's type, the union's own issue stays.
 */
function unwrapUnionIssues(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union") return [issue];
  const fitting = issue.errors.filter((branch) => !branch.every(isBranchTypeMismatch));
  const [branch] = fitting;
  if (fitting.length !== 1 || !branch) return [issue];
  return branch.flatMap((inner) => unwrapUnionIssues({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** Turns every zod issue into one error that names every bad field, each missing one in `details.missing`. */
export function toValidationError(
  error: { issues: readonly z.core.$ZodIssue[] },
  status: 400 | 422,
  source: "body" | "query",
): AppError {
  const missing: string[] = [];
  const invalid: InvalidField[] = [];
  for (const issue of error.issues.flatMap(unwrapUnionIssues)) {
    const param = paramOf(issue.path) || source;
    if (isMissingField(issue)) {
      missing.push(param);
    } else if (issue.code === "invalid_value") {
      invalid.push({ param, message: `must be one of: ${issue.values.join(", ")}`, allowed: issue.values });
    } else if (!invalid.some((field) => field.param === param && field.message === issue.message)) {
      // (one field can fail two checks that say the same, e.g. an integer's safe range and its maximum)
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

/** The input of one call as it arrived: path parameters, and the query or the body, unparsed. */
export interface RawOperationInput {
  params: Record<string, unknown>;
  query?: unknown;
  body?: unknown;
}

const paramSchemas = new WeakMap<OperationDefinition, z.ZodObject>();

function paramsSchemaOf(definition: OperationDefinition): z.ZodObject {
  let schema = paramSchemas.get(definition);
  if (!schema) {
    // Any string: an empty or malformed id is simply unknown, and the service answers 404 for it.
    const fields = pathParamNames(definition).map((name) => [name, z.string()] as const);
    schema = z.object(Object.fromEntries(fields));
    paramSchemas.set(definition, schema);
  }
  return schema;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses one call's input with its definition's schemas. A write's body is 422 when it is not a
 * JSON object or any field is bad; a read's query is 400. Path parameters are checked with the
 * same source, so one error names every bad field of the call. A read's query is screened here
 * (screenJsonValue): its unusable text is 400 like any other bad query parameter.
 */
export function parseOperationInput<D extends OperationDefinition>(
  definition: D,
  raw: RawOperationInput,
): OperationInput<D> {
  const write = isWrite(definition);
  const [status, source] = write ? ([422, "body"] as const) : ([400, "query"] as const);
  const sent = write ? raw.body : raw.query;
  const given = sent === undefined || sent === null ? {} : sent;
  if (!isPlainObject(given)) {
    throw new AppError("invalid_request", {
      status,
      message: `The request ${source} must be a JSON object.`,
      param: source,
    });
  }
  // A write's body was screened where it entered, before its Idempotency-Key was read (REST's JSON
  // parser, the tRPC procedure). A read's query has no key and, on REST, no parser: it is screened
  // here, or a free-text filter (a NUL in `owner_id=`) would reach the database.
  if (!write) {
    const unusable = screenJsonValue(given);
    if (unusable) throw unusable.withStatus(status);
  }
  const schema = write ? definition.body : definition.query;
  const params = paramsSchemaOf(definition).safeParse(raw.params, { reportInput: true });
  const fields = schema?.safeParse(given, { reportInput: true });
  const issues = [
    ...(params.success ? [] : params.error.issues),
    ...(fields?.success === false ? fields.error.issues : []),
  ];
  if (issues.length > 0) throw toValidationError({ issues }, status, source);
  return {
    params: params.data,
    ...(fields?.success ? { [source]: fields.data } : {}),
  } as OperationInput<D>;
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
        if (key === "__proto__") return reservedKey([...path, key].join("."));
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
  return null;
}

function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}

/**
 * `__proto__` as a key: every schema would drop it without a word (it names an object's prototype, not
 * a field), so what the client sent would not be what was stored. Refused by name instead.
 */
function reservedKey(param: string): AppError {
  const message = "is not a key this API accepts (__proto__ names no field)";
  return new AppError("invalid_request", {
    message: `Invalid ${param}: ${message}.`,
    param,
    details: { invalid: [{ param, message }] },
  });
}

function unstorableText(param: string): AppError {
  const message = "must not contain NUL characters or unpaired surrogates";
  return new AppError("invalid_request", {
    message: `Invalid ${param} (${message}).`,
    param,
    details: { invalid: [{ param, message }] },
  });
}
