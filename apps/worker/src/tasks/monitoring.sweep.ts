import { MONITORING_SWEEP_TASK, sweepMonitoring } from "@crs/services";
import type { WorkerTask } from "./task";

export { MONITORING_SWEEP_TASK } from "@crs/services";

/**
 * Every 5 minutes: the monitoring sweep (2026-06-11 watchlists). Reads each active watchlist's addresses
 * through the organization's chain provider from where it last stopped, and the matter's case record, and
 * raises the alerts the rules find. At most one sweep queued (the job key); a missed tick is not
 * backfilled, since the next sweep reads from each address's stored cursor. A sweep stopped by shutdown
 * keeps what it committed, watchlist by watchlist, and the next one continues.
 */
export const monitoringSweep: WorkerTask = {
  identifier: MONITORING_SWEEP_TASK,
  schedule: {
    match: "*/5 * * * *",
    options: { backfillPeriod: 0, maxAttempts: 3, jobKey: MONITORING_SWEEP_TASK, jobKeyMode: "replace" },
  },
  create: (deps) => async (_payload, helpers) => {
    const swept = await sweepMonitoring(deps, deps.traceProviders, {
      ...(helpers.abortSignal ? { signal: helpers.abortSignal } : {}),
    });
    const raised = swept.reduce((sum, sweep) => sum + sweep.alerts_raised, 0);
    const skipped = swept.filter((sweep) => sweep.skipped !== null);
    helpers.logger.info(`monitoring sweep: ${swept.length} watchlists, ${raised} alerts raised`, {
      watchlists: swept.length,
      alerts_raised: raised,
      skipped: skipped.map((sweep) => ({ watchlist_id: sweep.watchlist_id, reason: sweep.skipped })),
    });
  },
};
