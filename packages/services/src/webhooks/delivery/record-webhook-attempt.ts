import { nextRetryAt, type WebhookDeliveryStatus, type WebhookRetrySchedule } from "@crs/core";
import { type DeliveryOutcomeRow, recordDeliveryOutcomeRows } from "@crs/db";
import type { ServiceDeps } from "../../context";
import type { ClaimedDelivery } from "./claim-webhook-delivery";

export type AttemptOutcome =
  /** the receiver answered 2xx */
  | { kind: "delivered"; statusCode: number }
  /** anything else: a non-2xx answer (statusCode), a refused target, DNS, connection or deadline failure */
  | { kind: "failed"; statusCode: number | null; error: string }
  /** the worker stopped the attempt (shutdown): not the receiver's doing, so it is tried again at once */
  | { kind: "interrupted"; error: string };

export interface RecordOptions {
  schedule: WebhookRetrySchedule;
  /** a number in [0, 1) for the retry's jitter */
  jitter: number;
}

export interface RecordedAttempt {
  claim: ClaimedDelivery;
  outcome: AttemptOutcome;
  /** a number in [0, 1) for the retry's jitter */
  jitter: number;
}

/**
 * Writes the outcomes of claimed attempts in one statement, and schedules each one's next attempt in it:
 * `delivered` (2xx only); `queued` with `next_attempt_at` and a job to run then; or `dead` when the retry
 * window has closed. Only the claim that holds a delivery writes: if its lease lapsed and another attempt
 * has claimed it since, that outcome is dropped (`null`), so a stale worker never overwrites a newer attempt.
 * The statuses come back in the order of `attempts`.
 */
export async function recordWebhookAttempts(
  deps: ServiceDeps,
  attempts: readonly RecordedAttempt[],
  options: { schedule: WebhookRetrySchedule },
): Promise<(WebhookDeliveryStatus | null)[]> {
  const now = deps.clock();
  const rows = attempts.map(({ claim, outcome, jitter }) => ({
    key: claim,
    attempt: claim.attempt,
    outcome: outcomeRow(claim, outcome, now, { schedule: options.schedule, jitter }),
  }));
  const written = await recordDeliveryOutcomeRows(deps.db, rows, now);
  return rows.map((row) => (written.has(row.key.deliveryId) ? row.outcome.status : null));
}

function outcomeRow(
  claim: ClaimedDelivery,
  outcome: AttemptOutcome,
  now: Date,
  options: RecordOptions,
): DeliveryOutcomeRow {
  if (outcome.kind === "delivered") {
    return { status: "delivered", statusCode: outcome.statusCode, error: null, nextAttemptAt: null };
  }
  if (outcome.kind === "interrupted") return { status: "queued", error: outcome.error, nextAttemptAt: now };
  const retryAt = nextRetryAt(
    { firstAttemptAt: claim.firstAttemptAt, attemptsSoFar: claim.attempt, now, jitter: options.jitter },
    options.schedule,
  );
  return {
    status: retryAt === null ? "dead" : "queued",
    statusCode: outcome.statusCode,
    error: outcome.error,
    nextAttemptAt: retryAt,
  };
}
