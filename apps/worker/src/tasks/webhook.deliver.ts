import { setMaxListeners } from "node:events";
import { ENVIRONMENTS, type WebhookDeliveryStatus } from "@crs/core";
import { WEBHOOK_DELIVERY_TASK } from "@crs/db";
import { claimWebhookDeliveries, type RecordedAttempt, recordWebhookAttempts } from "@crs/services";
import { z } from "zod";
import { attemptDelivery } from "../webhooks/attempt-delivery";
import { createGroupWriter } from "../webhooks/outcome-writer";
import type { WorkerTask } from "./task";

const DeliveryJob = z.object({
  organization_id: z.string(),
  environment: z.enum(ENVIRONMENTS),
  webhook_delivery_id: z.string(),
});

/** Outcomes written per statement at most: one statement stays short however far behind the writes fall. */
const MAX_OUTCOMES_PER_STATEMENT = 100;

/**
 * Sends webhook deliveries: claims the job's own delivery and up to `batchSize - 1` others already due (one
 * statement; a lease on each, so no other worker sends them meanwhile, and their own jobs removed), POSTs
 * them all at once, each under its own deadline, and records each outcome as soon as it is known (outcomes
 * that finish together share a statement), queueing the next attempt of a failed one on its schedule. The
 * job itself fails only when the database does; graphile-worker then retries it, and a claim it left behind
 * is recovered by `webhook.recover` once its lease lapses. Nothing of the payload, headers or secret is logged.
 */
export const webhookDeliver: WorkerTask = {
  identifier: WEBHOOK_DELIVERY_TASK,
  create: (deps) => {
    const settings = deps.webhookDelivery;
    // One writer per worker process: the outcomes of every job running here are grouped.
    const outcomes = createGroupWriter<RecordedAttempt, WebhookDeliveryStatus | null>(
      (attempts) => recordWebhookAttempts(deps, attempts, { schedule: settings.retrySchedule }),
      MAX_OUTCOMES_PER_STATEMENT,
    );
    return async (payload, helpers) => {
      const job = DeliveryJob.parse(payload);
      const claims = await claimWebhookDeliveries(
        deps,
        { organizationId: job.organization_id, environment: job.environment, deliveryId: job.webhook_delivery_id },
        {
          leaseMs: settings.timeoutMs + settings.leaseMarginMs,
          schedule: settings.retrySchedule,
          batchSize: settings.batchSize,
        },
      );
      // One signal for this job's attempts (each sender listens to it), following the worker's shutdown.
      const stop = new AbortController();
      setMaxListeners(claims.length + 1, stop.signal);
      const forwardAbort = () => stop.abort(helpers.abortSignal?.reason);
      if (helpers.abortSignal?.aborted) forwardAbort();
      else helpers.abortSignal?.addEventListener("abort", forwardAbort, { once: true });
      const results = await Promise.allSettled(
        claims.map(async (claim) => {
          if (claim.kind === "ended") {
            helpers.logger.info(`webhook delivery ended without an attempt: ${claim.reason}`, {
              webhook_delivery_id: claim.ref.deliveryId,
              organization_id: claim.ref.organizationId,
            });
            return;
          }
          const delivery = claim.delivery;
          const outcome = await attemptDelivery(deps, delivery, settings, stop.signal);
          const status = await outcomes.write({ claim: delivery, outcome, jitter: settings.jitter() });
          const details = {
            webhook_delivery_id: delivery.deliveryId,
            organization_id: delivery.organizationId,
            attempt: delivery.attempt,
            status: status ?? "superseded by a later attempt",
            ...(outcome.kind === "delivered" ? { status_code: outcome.statusCode } : { error: outcome.error }),
          };
          if (outcome.kind === "delivered") helpers.logger.debug("webhook delivered", details);
          else helpers.logger.info("webhook attempt failed", details);
        }),
      );
      helpers.abortSignal?.removeEventListener("abort", forwardAbort);
      // Every attempt ran to its end before the job fails: an outcome that could not be written leaves its
      // delivery under its lease, for the sweep to hand back.
      const failure = results.find((result) => result.status === "rejected");
      if (failure) throw failure.reason;
    };
  },
};
