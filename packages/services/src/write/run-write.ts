import { AppError, badRequest, type EventType, toErrorBody } from "@crs/contract";
import {
  appendEvent,
  type EventSealing,
  enqueueJob,
  findIdempotencyRecord,
  type NewEvent,
  type PreparedEventData,
  prepareEventData,
  storeIdempotencyRecord,
  type Transaction,
} from "@crs/db";
import { sql } from "drizzle-orm";
import { type Actor, type ServiceDeps, sanctionsListFor, type WriteContext } from "../context";
import { createTraceProviders } from "../crypto/trace-providers";
import { postgresArtifactStore } from "../packets/artifact-store";
import { openStoredAnswer, sealStoredAnswer } from "./sealed-answers";

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface WriteOptions {
  /** the event types this write may append (an operation's definition); any other is a bug */
  events?: readonly EventType[];
  /** response fields kept encrypted in a stored idempotent answer (an operation's definition) */
  secretResponseFields?: readonly string[];
}

function sealingOf(deps: ServiceDeps): EventSealing {
  return {
    signingKey: deps.eventSigningKey,
    newEventId: () => deps.newId("event"),
    newDeliveryId: () => deps.newId("webhookDelivery"),
    clock: deps.clock,
  };
}

/**
 * A write's events wait in `recorded` and are appended when the write's own statements are done, just
 * before it commits: the organization's chain head stays locked from the append to the commit, so the
 * lock covers two statements instead of everything the write did after its first event.
 */
function createWriteContext(
  tx: Transaction,
  deps: ServiceDeps,
  actor: Actor,
  options: WriteOptions,
  recorded: NewEvent[],
): WriteContext {
  return {
    tx,
    actor,
    clock: deps.clock,
    newId: deps.newId,
    publicBaseUrl: deps.publicBaseUrl,
    sanctionsList: sanctionsListFor(deps.sanctionsLists, actor.environment),
    webhookSecretKey: deps.webhookSecretKey,
    resolveHostname: deps.resolveHostname,
    eventSigningKey: deps.eventSigningKey,
    artifactStore: deps.artifactStore ?? postgresArtifactStore,
    traceProviders: deps.traceProviders ?? createTraceProviders(),
    recordEvent(input) {
      if (options.events && !options.events.includes(input.type)) {
        throw new Error(`this write may append ${options.events.join(", ") || "no events"}, not ${input.type}`);
      }
      const resourceId = input.resourceId ?? input.object.id;
      if (resourceId === undefined) throw new Error(`a ${input.type} event needs the resource's id`);
      // data holds the resource's id fields, its status, the audit_ref and the resource as returned.
      const data: Record<string, unknown> = {
        [input.idField]: resourceId,
        matter_id: input.matterId,
        ...(input.object.status !== undefined ? { status: input.object.status } : {}),
        audit_ref: actor.requestId,
        object: input.object,
        ...input.extra,
      };
      recorded.push({
        organizationId: actor.organizationId,
        environment: actor.environment,
        type: input.type,
        apiVersion: actor.apiVersion,
        auditRef: actor.requestId,
        matterId: input.matterId,
        // As JSON will read it back, and as it is now: the write may change its objects after recording.
        data: JSON.parse(JSON.stringify(data)) as Record<string, unknown>,
      });
    },
    enqueue: (task, payload, enqueueOptions) => enqueueJob(tx, task, payload, enqueueOptions),
  };
}

async function appendRecorded(tx: Transaction, deps: ServiceDeps, recorded: readonly NewEvent[]): Promise<void> {
  if (recorded.length === 0) return;
  const sealing = sealingOf(deps);
  // All before the first append takes the chain head: it stays locked only while the events are hashed and written.
  const prepared: Array<[NewEvent, PreparedEventData]> = [];
  for (const event of recorded) prepared.push([event, await prepareEventData(tx, event)]);
  for (const [event, data] of prepared) await appendEvent(tx, event, sealing, data);
}

/**
 * The one write path: a transaction holding the write, its events and its jobs, for REST, tRPC
 * and worker tasks alike. What `execute` does commits together or not at all.
 */
export function runWrite<T>(
  deps: ServiceDeps,
  actor: Actor,
  execute: (write: WriteContext) => Promise<T>,
  options: WriteOptions = {},
): Promise<T> {
  return deps.db.transaction(async (tx) => {
    const recorded: NewEvent[] = [];
    const result = await execute(createWriteContext(tx, deps, actor, options, recorded));
    await appendRecorded(tx, deps, recorded);
    return result;
  });
}

export interface IdempotentRequest {
  /** the caller's Idempotency-Key */
  key: string;
  /** the operation id: the same key may not be reused for another operation */
  operation: string;
  /** sha256 of the canonical parameters and body: nor for another target or body */
  requestHash: string;
}

export interface WriteAnswer {
  status: number;
  body: unknown;
}

export interface IdempotentOutcome extends WriteAnswer {
  /** the request the answer belongs to: the original one on a replay */
  requestId: string;
  replayed: boolean;
}

/** The lock a request holds while its Idempotency-Key is in flight. */
export function idempotencyLockSql(organizationId: string, environment: string, key: string) {
  return sql`hashtextextended(${`idem:${organizationId}:${environment}:${key}`}, 0)`;
}

/**
 * runWrite under an Idempotency-Key. One transaction holds a transaction-scoped advisory lock on
 * (organization, environment, key): a duplicate that arrives while the first is in flight fails to
 * take it and gets 409; one that arrives later finds the committed record and gets its answer
 * again. The record commits in the same transaction as the write it describes. A 4xx (a body the
 * definition refuses, an unknown id, a closed matter) rolls back to a savepoint, is stored and
 * replayed the same way; a 5xx rolls everything back and is not stored.
 */
export async function runIdempotentWrite(
  deps: ServiceDeps,
  actor: Actor,
  request: IdempotentRequest,
  execute: (write: WriteContext) => Promise<WriteAnswer>,
  options: WriteOptions = {},
): Promise<IdempotentOutcome> {
  const { key } = request;
  if (key.length < 1 || key.length > 255) {
    throw badRequest("Idempotency-Key must be 1 to 255 characters.", "Idempotency-Key");
  }
  const secretFields = options.secretResponseFields ?? [];
  const sealContext = `idempotency:${actor.organizationId}:${actor.environment}:${key}`;
  const outcome = await deps.db.transaction(async (tx) => {
    const [lock] = await tx.execute<{ locked: boolean }>(
      sql`select pg_try_advisory_xact_lock(${idempotencyLockSql(actor.organizationId, actor.environment, key)}) as locked`,
    );
    if (!lock?.locked) {
      throw new AppError("conflict", {
        message: "A request with this Idempotency-Key is still in progress; retry after it completes.",
        param: "Idempotency-Key",
      });
    }
    const now = deps.clock();
    const tenant = { organizationId: actor.organizationId, environment: actor.environment };
    const [existing] = await findIdempotencyRecord(tx, { ...tenant, key, now: now.toISOString() });
    if (existing) {
      if (existing.operation !== request.operation || existing.request_hash !== request.requestHash) {
        throw new AppError("conflict", {
          message:
            existing.operation !== request.operation
              ? "This Idempotency-Key was used for another operation."
              : "This Idempotency-Key was used with a different request (another body or another object).",
          param: "Idempotency-Key",
        });
      }
      const stored = {
        status: existing.response_status,
        bodyText: openStoredAnswer(existing.response_body, secretFields, deps.webhookSecretKey, sealContext),
        requestId: existing.response_request_id,
      };
      return { stored, replayed: true, failure: null };
    }

    let answer: WriteAnswer;
    let failure: AppError | null = null;
    const recorded: NewEvent[] = [];
    try {
      answer = await tx.transaction((savepoint) =>
        execute(createWriteContext(savepoint, deps, actor, options, recorded)),
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      // Rolled back to the savepoint: what the write did is gone, and so are the events it recorded.
      recorded.length = 0;
      failure = error;
      answer = { status: error.status, body: toErrorBody(error, actor.requestId, deps.publicBaseUrl) };
    }
    const bodyText = JSON.stringify(answer.body);
    await storeIdempotencyRecord(tx, {
      ...tenant,
      key,
      operation: request.operation,
      requestHash: request.requestHash,
      responseStatus: answer.status,
      // A secret the answer shows once is kept encrypted; a replay decrypts it for the caller retrying.
      responseBody: sealStoredAnswer(bodyText, secretFields, deps.webhookSecretKey, sealContext),
      responseRequestId: actor.requestId,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString(),
    });
    await appendRecorded(tx, deps, recorded);
    const stored = { status: answer.status, bodyText, requestId: actor.requestId };
    return { stored, replayed: false, failure };
  });
  if (outcome.failure) throw outcome.failure;
  const { stored, replayed } = outcome;
  if (stored.status >= 400) throw AppError.fromStoredAnswer(stored);
  return { status: stored.status, body: JSON.parse(stored.bodyText), requestId: stored.requestId, replayed };
}
