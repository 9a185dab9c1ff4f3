import { sweepExpiredIdempotencyRecords } from "@crs/services";
import type { WorkerTask } from "./task";

export const IDEMPOTENCY_SWEEP = "idempotency.sweep";

/**
 * Deletes idempotency records past their 24-hour retention, every 10 minutes. A missed tick is not
 * backfilled (the next one sweeps everything). The job key keeps at most one sweep queued: a tick
 * that finds the previous sweep still waiting (e.g. retrying while the database was down) replaces
 * it. On shutdown the sweep stops after its current batch and the next run continues.
 */
export const idempotencySweep: WorkerTask = {
  identifier: IDEMPOTENCY_SWEEP,
  schedule: {
    match: "*/10 * * * *",
    options: { backfillPeriod: 0, maxAttempts: 5, jobKey: IDEMPOTENCY_SWEEP, jobKeyMode: "replace" },
  },
  create: (deps) => async (_payload, helpers) => {
    const deleted = await sweepExpiredIdempotencyRecords(deps.db, deps.clock(), { signal: helpers.abortSignal });
    helpers.logger.info(`deleted ${deleted} expired idempotency records`, { deleted });
  },
};
