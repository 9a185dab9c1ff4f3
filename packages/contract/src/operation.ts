import type { z } from "zod";
import type { EventType } from "./schemas/events";
import { type AnyScope, LEGACY_SCOPES } from "./scopes";
import type { ApiVersion } from "./versions";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** A response shape an older version keeps, and how it is made from the current one. */
export interface VersionedResponse {
  response: z.ZodType;
  fromCurrent: (current: never) => unknown;
}

/**
 * Everything about one operation, written once: REST registers it, tRPC builds its procedure
 * from it, the OpenAPI document and the security suite read it.
 */
export interface OperationDefinition {
  /** OpenAPI operationId, and the name GET /v1/capabilities lists */
  id: string;
  /** GET is a read; POST, PATCH and DELETE are writes (one transaction, events, Idempotency-Key) */
  method: HttpMethod;
  /** REST path template (`/v1/matters/{matter_id}`); an operation without one is served on tRPC only */
  path?: string;
  /** `false`: REST only (no tRPC procedure) */
  rpc?: false;
  /** `none`: no key needed (a key, if sent, must be valid); `any`: any valid key */
  scope: AnyScope | "none" | "any";
  tag: string;
  summary: string;
  successStatus: number;
  /** the status of a successful answer when it depends on the body (health: 503 when degraded) */
  statusOf?: (body: never) => number;
  query?: z.ZodObject;
  body?: z.ZodObject;
  /** the current version's response */
  response: z.ZodType;
  /** the shapes older versions keep, keyed by version */
  versions?: Partial<Record<ApiVersion, VersionedResponse>>;
  /** takes an Idempotency-Key (every write that creates or changes a record) */
  idempotent: boolean;
  /** the event types a successful call appends, and no others */
  events: readonly EventType[];
  /**
   * Top-level response fields that hold a secret shown once (a signing secret): an answer kept for an
   * Idempotency-Key stores them encrypted, and a replay shows them again to the caller retrying.
   */
  secretResponseFields?: readonly string[];
  /** `sandbox-key-mint`: always draws on the per-IP minting bucket, key or no key */
  rateLimit?: "sandbox-key-mint";
  /** statuses this operation answers beyond the common ones, with why */
  alsoAnswers?: Record<number, { description: string; schema?: z.ZodType }>;
  /** the success answer is a file in one of these content types, not a JSON object (export downloads) */
  fileResponse?: readonly string[];
  /**
   * Answered on the legacy (2026-06-11) listener whatever its compatibility window (the health
   * check). Every other operation is served there only inside the window, and retired after it.
   */
  outlivesLegacyWindow?: true;
  /**
   * `legacy`: an operation of the 2026-06-11 version's own groups, served only on the legacy listener,
   * inside its window, over REST (no tRPC procedure, not in the current reference).
   */
  surface?: "legacy";
  /** a legacy operation's replacement: its `Link: rel="successor-version"` and its 410's `doc_url` */
  successor?: LegacySuccessor;
}

/** What replaces a legacy route: an operation of the current surface, or a part of the reference. */
export type LegacySuccessor = { operation: string; note?: string } | { tag: string; note: string };

type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

export type ParamsOf<D extends OperationDefinition> = D extends { path: infer Path extends string }
  ? { [Name in PathParamNames<Path>]: string }
  : Record<never, string>;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
type Sent<S> = S extends z.ZodType ? z.input<S> : Record<never, never>;

/** What a service function receives: path parameters, and the query or body as the definition parsed them. */
export type OperationInput<D extends OperationDefinition> = { params: ParamsOf<D> } & (D["query"] extends z.ZodType
  ? { query: Parsed<D["query"]> }
  : unknown) &
  (D["body"] extends z.ZodType ? { body: Parsed<D["body"]> } : unknown);

/** What a service function returns: the current version's response. */
export type OperationOutput<D extends OperationDefinition> = z.output<D["response"]>;

type Flatten<T> = { [K in keyof T]: T[K] } & {};
type RpcFields<D extends OperationDefinition> = Flatten<ParamsOf<D> & Sent<D["query"]> & Sent<D["body"]>>;

/** A tRPC procedure's input: path parameters and body (or query) fields side by side; optional when nothing is required. */
export type RpcInput<D extends OperationDefinition> =
  Record<never, never> extends RpcFields<D> ? RpcFields<D> | undefined : RpcFields<D>;

export type OperationGroup = Record<string, OperationDefinition>;

export function isWrite(definition: OperationDefinition): boolean {
  return definition.method !== "GET";
}

export function pathParamNames(definition: OperationDefinition): string[] {
  return [...(definition.path ?? "").matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

/**
 * Checks a definition once, where it is written: what the type system cannot see would otherwise
 * surface as a wrong answer on one surface only.
 */
export function defineOperation<const D extends OperationDefinition>(definition: D): D {
  const problems: string[] = [];
  const params = pathParamNames(definition);
  const fields = Object.keys({ ...definition.body?.shape, ...definition.query?.shape });
  for (const clash of fields.filter((field) => params.includes(field))) {
    problems.push(`field '${clash}' is also a path parameter (tRPC input puts both side by side)`);
  }
  if (!isWrite(definition) && (definition.idempotent || definition.body)) {
    problems.push("a GET takes neither a body nor an Idempotency-Key");
  }
  if (isWrite(definition) && definition.query) problems.push("a write takes a body, not a query");
  if (!isWrite(definition) && definition.events.length > 0) problems.push("a read appends no events");
  if (!definition.path && definition.rpc === false) problems.push("an operation needs a REST path or a tRPC procedure");
  if (definition.scope === "none" && (definition.idempotent || definition.events.length > 0)) {
    problems.push(
      "an operation that needs no key has no tenant: it can neither take an Idempotency-Key nor append events",
    );
  }
  const legacyScope = (LEGACY_SCOPES as readonly string[]).includes(definition.scope);
  if (definition.surface === "legacy") {
    if (definition.rpc !== false || !definition.path || !definition.successor) {
      problems.push("a legacy operation is served over REST only (rpc: false, a path) and names its successor");
    }
    if (!legacyScope) problems.push("a legacy operation requires a legacy scope, which only legacy keys hold");
    if (definition.outlivesLegacyWindow) problems.push("a legacy operation is retired with the legacy window");
  } else {
    if (definition.successor) problems.push("only a legacy operation has a successor");
    if (legacyScope) problems.push("a legacy scope is held by legacy keys only, which the current surface refuses");
  }
  if (problems.length > 0) throw new Error(`Operation ${definition.id}: ${problems.join("; ")}.`);
  return definition;
}

export interface ListedOperation {
  /** the tRPC procedure path, `<group>.<name>` */
  procedure: string;
  definition: OperationDefinition;
}

/**
 * Every operation of a set of groups, in definition order. Each must belong to the surface the groups
 * are listed for: a legacy definition among the current groups would be served on the current listener.
 */
export function listOperations(
  groups: Record<string, OperationGroup>,
  surface: "current" | "legacy",
): ListedOperation[] {
  return Object.entries(groups).flatMap(([group, operations]) =>
    Object.entries(operations).map(([name, definition]) => {
      if ((definition.surface ?? "current") !== surface) {
        throw new Error(`Operation ${definition.id} is not of the ${surface} surface but is listed in its groups.`);
      }
      return { procedure: `${group}.${name}`, definition };
    }),
  );
}
