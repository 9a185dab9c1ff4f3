import { AppError, badRequest, toErrorBody } from "@crs/contract";
import { canonicalize, sha256Hex } from "@crs/core";
import { schema, type Transaction } from "@crs/db";
import { and, eq, gt, sql } from "drizzle-orm";
import type { Actor, ServiceDeps } from "../context";

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface WriteRequest {
  idempotencyKey: string | undefined;
  /** method and concrete path, e.g. `POST /v1/matters/matter_…/close` */
  route: string;
  body: unknown;
}

export interface WriteResult {
  status: number;
  body: unknown;
}

export interface WriteResponse {
  status: number;
  /** the serialized JSON body, byte-for-byte what a replay returns */
  bodyText: string;
  replayed: boolean;
  /** the request id the body belongs to (the original one on a replay) */
  requestId: string;
}

/** The lock that makes a concurrent duplicate fail fast instead of writing twice. */
export function idempotencyLockSql(organizationId: string, environment: string, key: string) {
  return sql`hashtextextended(${`idem:${organizationId}:${environment}:${key}`}, 0)`;
}

/**
 * Runs a write under DECISIONS §5. With an Idempotency-Key, one transaction holds a
 * transaction-scoped advisory lock on (organization, environment, key): a duplicate that
 * arrives while the first is in flight fails to take it and gets 409; one that arrives after
 * sees the committed record and replays it. The record is inserted in the same transaction as
 * the write it describes, so a stored response always matches a committed write. A 4xx is
 * stored too (after rolling back to a savepoint, so nothing of the failed write remains);
 * a 5xx rolls everything back and is not stored.
 */
export async function performWrite(
  deps: ServiceDeps,
  actor: Actor,
  request: WriteRequest,
  execute: (tx: Transaction) => Promise<WriteResult>,
): Promise<WriteResponse> {
  const key = request.idempotencyKey;
  if (key === undefined) {
    const result = await deps.db.transaction(execute);
    return {
      status: result.status,
      bodyText: JSON.stringify(result.body),
      replayed: false,
      requestId: actor.requestId,
    };
  }
  if (key.length < 1 || key.length > 255) {
    throw badRequest("Idempotency-Key must be 1 to 255 characters.", "Idempotency-Key");
  }
  const requestHash = sha256Hex(canonicalize(request.body ?? {}));
  return deps.db.transaction(async (tx) => {
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
    const t = schema.idempotencyRecords;
    const [existing] = await tx
      .select()
      .from(t)
      .where(
        and(
          eq(t.organizationId, actor.organizationId),
          eq(t.environment, actor.environment),
          eq(t.key, key),
          gt(t.expiresAt, now),
        ),
      );
    if (existing) {
      if (existing.route !== request.route || existing.requestHash !== requestHash) {
        throw new AppError("conflict", {
          message:
            existing.route !== request.route
              ? `This Idempotency-Key was used for another request (${existing.route}).`
              : "This Idempotency-Key was used with a different request body.",
          param: "Idempotency-Key",
        });
      }
      return {
        status: existing.responseStatus,
        bodyText: existing.responseBody,
        replayed: true,
        requestId: existing.responseRequestId,
      };
    }

    let result: WriteResult;
    try {
      result = await tx.transaction(execute);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      result = { status: error.status, body: toErrorBody(error, actor.requestId) };
    }
    const bodyText = JSON.stringify(result.body);
    const record = {
      organizationId: actor.organizationId,
      environment: actor.environment,
      key,
      route: request.route,
      requestHash,
      responseStatus: result.status,
      responseBody: bodyText,
      responseRequestId: actor.requestId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    };
    // An expired record of the same key is overwritten: after 24 hours the key is free again.
    await tx
      .insert(t)
      .values(record)
      .onConflictDoUpdate({ target: [t.organizationId, t.environment, t.key], set: record });
    return { status: result.status, bodyText, replayed: false, requestId: actor.requestId };
  });
}
