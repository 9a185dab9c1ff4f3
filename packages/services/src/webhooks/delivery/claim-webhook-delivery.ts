import type { ChainEvent, Environment, WebhookRetrySchedule } from "@crs/core";
import { claimDeliveryRows, type DeliveryKey } from "@crs/db";
import type { ServiceDeps } from "../../context";
import { fallbackSecretContext } from "../signing-secrets";

export type DeliveryRef = DeliveryKey;

export interface ClaimedDelivery extends DeliveryRef {
  /** the attempt this claim is, counting from 1: the claim's token (a later claim has a higher one) */
  attempt: number;
  firstAttemptAt: Date;
  environment: Environment;
  url: string;
  /** the signing secret's box and the associated data it opens with */
  secretBox: string;
  secretContext: string;
  /** the signed event, exactly as GET /v1/events/{id} returns it */
  event: ChainEvent;
}

/** A delivery a claim took: to attempt now, or ended without an attempt (its endpoint is disabled or deleted, or its window closed). */
export type ClaimResult =
  | { kind: "claimed"; delivery: ClaimedDelivery }
  | { kind: "ended"; ref: DeliveryRef; reason: string };

export interface ClaimOptions {
  /** how long the claim holds: longer than one attempt can take (the sender's deadline plus a margin) */
  leaseMs: number;
  /** a delivery handed back after a crash past the window's end is closed rather than attempted */
  schedule: Pick<WebhookRetrySchedule, "windowMs">;
  /** how many deliveries one claim may take: the named one and up to batchSize - 1 others that are due */
  batchSize: number;
}

/**
 * Takes the named delivery, and up to `batchSize - 1` other due ones, for an attempt each, in one statement:
 * `queued` (or, for the named one, `delivering` whose lease lapsed) → `delivering`, with a lease, `attempts`
 * + 1 and the event and target read in the same statement. Rows are taken FOR UPDATE SKIP LOCKED, so two
 * claims never take the same delivery: the second finds it locked, or already `delivering` under a live
 * lease, and leaves it. The target is checked here, at send time: a disabled or deleted endpoint (or a cleared
 * fallback URL) ends the delivery as `dead`. An empty list: nothing to do (the named delivery is delivered,
 * dead or held, and nothing else is due).
 */
export async function claimWebhookDeliveries(
  deps: ServiceDeps,
  ref: DeliveryRef,
  options: ClaimOptions,
): Promise<ClaimResult[]> {
  const now = deps.clock();
  const rows = await claimDeliveryRows(deps.db, ref, {
    now,
    leaseUntil: new Date(now.getTime() + options.leaseMs),
    windowMs: options.schedule.windowMs,
    alsoDue: Math.max(0, options.batchSize - 1),
  });
  return rows.map((row): ClaimResult => {
    const taken = { organizationId: row.organizationId, environment: row.environment, deliveryId: row.deliveryId };
    if ("ended" in row) return { kind: "ended", ref: taken, reason: row.ended };
    const { claimed } = row;
    return {
      kind: "claimed",
      delivery: {
        ...taken,
        attempt: claimed.attempt,
        firstAttemptAt: claimed.firstAttemptAt,
        environment: claimed.environment,
        url: claimed.url,
        secretBox: claimed.secretBox,
        secretContext: claimed.webhookEndpointId ?? fallbackSecretContext(taken.organizationId, taken.environment),
        event: claimed.event,
      },
    };
  });
}
