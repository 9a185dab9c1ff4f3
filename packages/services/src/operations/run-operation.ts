import {
  type ApiVersion,
  asLegacyError,
  isWrite,
  type OperationDefinition,
  parseOperationInput,
  type RawOperationInput,
} from "@crs/contract";
import { canonicalize, sha256Hex } from "@crs/core";
import type { Actor, PublicContext, ReadContext, ServiceDeps, Surface, WriteContext } from "../context";
import { runIdempotentWrite, runWrite, type WriteAnswer } from "../write/run-write";

/** A service function bound to an operation, seen without its types (the registry keeps them). */
export type ErasedHandler = (context: never, input: never) => Promise<unknown>;

export interface OperationCall {
  /** from admission; null only for an operation that needs no key, called without one */
  actor: Actor | null;
  /** the request id of this call (the actor carries it too) */
  requestId: string;
  surface: Surface;
  /** the version whose response shape the caller reads */
  version: ApiVersion;
  input: RawOperationInput;
  /** the Idempotency-Key header, for operations whose definition takes one */
  idempotencyKey?: string | undefined;
}

export interface OperationAnswer {
  status: number;
  /** the response body for the call's version (without audit_ref: each surface adds its own framing) */
  body: unknown;
  /** the request the answer belongs to: the original one on an idempotent replay */
  requestId: string;
  replayed: boolean;
}

function shapeFor(definition: OperationDefinition, version: ApiVersion, body: unknown): unknown {
  const older = definition.versions?.[version];
  return older ? older.fromCurrent(body as never) : body;
}

function statusFor(definition: OperationDefinition, body: unknown): number {
  return definition.statusOf ? definition.statusOf(body as never) : definition.successStatus;
}

/**
 * Runs one operation for any surface: parses the input with the definition's schemas, runs its
 * service function and shapes the answer for the caller's version. A read runs on the pool; an
 * operation that needs no key (health, sandbox-key minting) has no tenant and runs on the pool too;
 * a write runs through runWrite, under the Idempotency-Key when the definition takes one. Input
 * parsing of a write happens inside the write path, so a 422 is stored and replayed like any answer.
 * On the legacy listener an error leaves with that listener's status for its code (`asLegacyError`).
 */
export async function runOperation(
  deps: ServiceDeps,
  definition: OperationDefinition,
  handler: ErasedHandler,
  call: OperationCall,
): Promise<OperationAnswer> {
  if (call.surface !== "legacy") return runOnSurface(deps, definition, handler, call);
  try {
    return await runOnSurface(deps, definition, handler, call);
  } catch (error) {
    throw asLegacyError(error);
  }
}

async function runOnSurface(
  deps: ServiceDeps,
  definition: OperationDefinition,
  handler: ErasedHandler,
  call: OperationCall,
): Promise<OperationAnswer> {
  const run = handler as (context: unknown, input: unknown) => Promise<unknown>;
  const answer = (body: unknown): OperationAnswer => ({
    status: statusFor(definition, body),
    body: shapeFor(definition, call.version, body),
    requestId: call.requestId,
    replayed: false,
  });

  if (definition.scope === "none") {
    const context: PublicContext = { ...deps, actor: call.actor, surface: call.surface };
    return answer(await run(context, parseOperationInput(definition, call.input)));
  }
  const actor = call.actor;
  if (!actor) throw new Error(`${definition.id} reached without an authenticated caller`);
  if (!isWrite(definition)) {
    const context: ReadContext = { ...deps, actor, surface: call.surface };
    return answer(await run(context, parseOperationInput(definition, call.input)));
  }

  // The write path keeps the current version's answer (an Idempotency-Key replays it to any version
  // and either surface); it is shaped for the caller's version on the way out.
  const execute = async (write: WriteContext): Promise<WriteAnswer> => {
    const body = await run(write, parseOperationInput(definition, call.input));
    return { status: statusFor(definition, body), body };
  };
  const options = { events: definition.events, secretResponseFields: definition.secretResponseFields ?? [] };
  const key = definition.idempotent ? call.idempotencyKey : undefined;
  const outcome =
    key === undefined
      ? { ...(await runWrite(deps, actor, execute, options)), requestId: actor.requestId, replayed: false }
      : await runIdempotentWrite(
          deps,
          actor,
          {
            key,
            operation: definition.id,
            requestHash: sha256Hex(canonicalize({ params: call.input.params, body: call.input.body ?? {} })),
          },
          execute,
          options,
        );
  return { ...outcome, body: shapeFor(definition, call.version, outcome.body) };
}
