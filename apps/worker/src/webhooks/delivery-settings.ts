import { WEBHOOK_RETRY_SCHEDULE, type WebhookRetrySchedule } from "@crs/core";
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from "./http-sender";

/** How the worker delivers webhooks. Production uses the defaults; tests shrink the schedule and the deadline. */
export interface WebhookDeliverySettings {
  /** when failed attempts are retried, and for how long (production: about 1 min doubling, capped at 6 h, for 72 h) */
  retrySchedule: WebhookRetrySchedule;
  /** one attempt's deadline: resolution, connection, request and the receiver's answer (production: 10 s) */
  timeoutMs: number;
  /**
   * How long a claim outlives the attempt's deadline before the recovery sweep may hand the delivery to
   * another worker: room for the outcome to be written after a slow answer.
   */
  leaseMarginMs: number;
  /** a number in [0, 1) for each retry's jitter */
  jitter: () => number;
  /**
   * How many deliveries one `webhook.deliver` job claims and sends at once: its own and up to batchSize - 1
   * others already due (one claim statement for all of them). 1 sends only the job's own delivery.
   * Production: 32. Each delivery beyond the first saves a share of graphile-worker's fetch and completion
   * and of the claim; bench/webhooks.bench.ts measured PostgreSQL CPU per delivery at about 0.5 ms with 8,
   * 0.43 with 16 and 0.32 with 32. A slow receiver holds its job's slot until its deadline whatever the batch
   * size, so larger batches put no more slots behind slow receivers (each slow delivery holds one slot at most).
   */
  batchSize: number;
}

export const DEFAULT_WEBHOOK_DELIVERY_SETTINGS: WebhookDeliverySettings = Object.freeze({
  retrySchedule: WEBHOOK_RETRY_SCHEDULE,
  timeoutMs: DEFAULT_WEBHOOK_TIMEOUT_MS,
  leaseMarginMs: 5_000,
  jitter: Math.random,
  batchSize: 32,
});
