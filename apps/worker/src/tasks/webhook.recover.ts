import { recoverWebhookDeliveries } from "@crs/services";
import type { WorkerTask } from "./task";

export const WEBHOOK_RECOVERY = "webhook.recover";

/**
 * Every minute (and once when a worker starts): hands back to the queue the deliveries a dead or stalled
 * worker left `delivering` past their lease, and re-adds the job of any `queued` delivery that lost it.
 * In production a delivery interrupted by a crash is retried within lease (deadline 10 s + margin 5 s)
 * plus at most one minute, or at once when a worker starts after the lease lapsed.
 */
export const webhookRecover: WorkerTask = {
  identifier: WEBHOOK_RECOVERY,
  schedule: {
    match: "* * * * *",
    options: { backfillPeriod: 0, maxAttempts: 5, jobKey: WEBHOOK_RECOVERY, jobKeyMode: "replace" },
  },
  create: (deps) => async (_payload, helpers) => {
    const settings = deps.webhookDelivery;
    // A job locked longer than it can wait in a local queue plus one attempt's lease, with its delivery
    // still queued, was taken by a worker that died before it claimed the delivery.
    const recovered = await recoverWebhookDeliveries(deps.db, deps.clock(), {
      staleLockMs: deps.jobLockHoldMs + settings.timeoutMs + settings.leaseMarginMs,
    });
    if (recovered.leasesExpired + recovered.jobsRestored > 0) {
      helpers.logger.info("recovered webhook deliveries", {
        leases_expired: recovered.leasesExpired,
        jobs_restored: recovered.jobsRestored,
      });
    }
  },
};
