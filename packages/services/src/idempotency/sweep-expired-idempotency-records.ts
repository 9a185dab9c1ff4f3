import { type Database, schema } from "@crs/db";
import { and, lte, sql } from "drizzle-orm";

/** Rows deleted per statement: small enough that one statement never holds its locks for long. */
export const IDEMPOTENCY_SWEEP_BATCH_SIZE = 10_000;

/**
 * Deletes every idempotency record that expired at or before `now`, and returns how many it deleted.
 *
 * The work is split into statements of at most `batchSize` rows, each its own short transaction,
 * so a large backlog never holds one long lock. Each batch picks its rows with
 * `FOR UPDATE SKIP LOCKED`: a record a concurrent request has locked is left for the next sweep,
 * and two sweepers running at once (several worker processes) share the backlog instead of
 * waiting on each other. A batch smaller than `batchSize` means nothing deletable is left.
 *
 * With `signal`, an abort stops the loop between batches (never inside one) and returns the count
 * so far: what was deleted stays deleted, and the next sweep picks up the rest.
 */
export async function sweepExpiredIdempotencyRecords(
  db: Database,
  now: Date,
  options: { batchSize?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? IDEMPOTENCY_SWEEP_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  const t = schema.idempotencyRecords;
  let total = 0;
  for (;;) {
    const batch = db
      .select({ organizationId: t.organizationId, environment: t.environment, key: t.key })
      .from(t)
      .where(lte(t.expiresAt, now))
      .limit(batchSize)
      .for("update", { skipLocked: true });
    const result = await db.delete(t).where(
      and(
        sql`(${t.organizationId}, ${t.environment}, ${t.key}) in ${batch}`,
        // Re-checked on the locked row version (the subquery already filters; this guards any change).
        lte(t.expiresAt, now),
      ),
    );
    total += result.count;
    if (result.count < batchSize || options.signal?.aborted) return total;
  }
}
