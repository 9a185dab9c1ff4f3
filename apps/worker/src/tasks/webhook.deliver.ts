import { ENVIRONMENTS } from "@crs/core";
import { WEBHOOK_DELIVERY_TASK } from "@crs/db";
import { claimWebhookDelivery, recordWebhookAttempt } from "@crs/services";
import { z } from "zod";
import { attemptDelivery } from "../webhooks/attempt-delivery";
import type { WorkerTask } from "./task";

const DeliveryJob = z.object({
  organization_id: z.string(),
  environment: z.enum(ENVIRONMENTS),
  webhook_delivery_id: z.string(),
});

/**
 * Sends one webhook delivery: claim it (a lease, so no other worker sends it meanwhile), POST it, record
 * the outcome and, on failure, queue the next attempt on the delivery's schedule. The job itself fails
 * only when the database does; graphile-worker then retries it, and a claim it left behind is recovered
 * by `webhook.recover` once its lease lapses. Nothing of the payload, headers or secret is logged.
 */
export const webhookDeliver: WorkerTask = {
  identifier: WEBHOOK_DELIVERY_TASK,
  create: (deps) => async (payload, helpers) => {
    const job = DeliveryJob.parse(payload);
    const ref = {
      organizationId: job.organization_id,
      environment: job.environment,
      deliveryId: job.webhook_delivery_id,
    };
    const settings = deps.webhookDelivery;
    const claim = await claimWebhookDelivery(deps, ref, {
      leaseMs: settings.timeoutMs + settings.leaseMarginMs,
      schedule: settings.retrySchedule,
    });
    const meta = { webhook_delivery_id: ref.deliveryId, organization_id: ref.organizationId };
    if (claim.kind === "skipped") return;
    if (claim.kind === "ended") {
      helpers.logger.info(`webhook delivery ended without an attempt: ${claim.reason}`, meta);
      return;
    }
    const delivery = claim.delivery;
    const outcome = await attemptDelivery(deps, delivery, settings, helpers.abortSignal);
    const status = await recordWebhookAttempt(deps, delivery, outcome, {
      schedule: settings.retrySchedule,
      jitter: settings.jitter(),
    });
    const details = {
      ...meta,
      attempt: delivery.attempt,
      status: status ?? "superseded by a later attempt",
      ...(outcome.kind === "delivered" ? { status_code: outcome.statusCode } : { error: outcome.error }),
    };
    if (outcome.kind === "delivered") helpers.logger.debug("webhook delivered", details);
    else helpers.logger.info("webhook attempt failed", details);
  },
};
