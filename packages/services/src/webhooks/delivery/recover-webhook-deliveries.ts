import { type Database, type RecoveredDeliveries, recoverDeliveryRows } from "@crs/db";

export type { RecoveredDeliveries } from "@crs/db";

/**
 * The recovery sweep: what a dead worker left behind is handed back to the queue without waiting for
 * graphile-worker's 4-hour stale-lock expiry. A delivery whose lease lapsed is queued again to run now; a
 * queued delivery whose job is gone, or locked for longer than `staleLockMs` by a worker that never ran
 * it, gets its job again.
 */
export function recoverWebhookDeliveries(
  db: Database,
  now: Date,
  options: { staleLockMs: number; batchSize?: number },
): Promise<RecoveredDeliveries> {
  return recoverDeliveryRows(db, now, options);
}
