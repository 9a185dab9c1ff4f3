import type { ChainEvent, Environment, WebhookRetrySchedule } from "@crs/core";
import { claimDeliveryRow, type DeliveryKey } from "@crs/db";
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

export type ClaimResult =
  | { kind: "claimed"; delivery: ClaimedDelivery }
  /** the delivery ended without an attempt (its endpoint is disabled or deleted, or its window closed) */
  | { kind: "ended"; reason: string }
  /** nothing to do: already delivered or dead, claimed by a live lease, or locked by another transaction */
  | { kind: "skipped" };

export interface ClaimOptions {
  /** how long the claim holds: longer than one attempt can take (the sender's deadline plus a margin) */
  leaseMs: number;
  /** a delivery handed back after a crash past the window's end is closed rather than attempted */
  schedule: Pick<WebhookRetrySchedule, "windowMs">;
}

/**
 * Takes one delivery for an attempt: `queued` (or `delivering` whose lease lapsed) → `delivering`, with a
 * lease, `attempts` + 1 and the event and target read in the same statement. The row is taken with
 * FOR UPDATE SKIP LOCKED, so two workers holding jobs for the same delivery never both send it: the second
 * finds it locked, or already `delivering` under a live lease, and skips. The target is checked here, at
 * send time: a disabled or deleted endpoint (or a cleared fallback URL) ends the delivery as `dead`.
 */
export async function claimWebhookDelivery(
  deps: ServiceDeps,
  ref: DeliveryRef,
  options: ClaimOptions,
): Promise<ClaimResult> {
  const now = deps.clock();
  const result = await claimDeliveryRow(deps.db, ref, {
    now,
    leaseUntil: new Date(now.getTime() + options.leaseMs),
    windowMs: options.schedule.windowMs,
  });
  if (result === null) return { kind: "skipped" };
  if ("ended" in result) return { kind: "ended", reason: result.ended };
  const { claimed } = result;
  return {
    kind: "claimed",
    delivery: {
      ...ref,
      attempt: claimed.attempt,
      firstAttemptAt: claimed.firstAttemptAt,
      environment: claimed.environment,
      url: claimed.url,
      secretBox: claimed.secretBox,
      secretContext: claimed.webhookEndpointId ?? fallbackSecretContext(ref.organizationId, ref.environment),
      event: claimed.event,
    },
  };
}
