import { signWebhookPayload, WEBHOOK_SIGNATURE_HEADER } from "@crs/core";
import { type AttemptOutcome, type ClaimedDelivery, openSigningSecret, type ServiceDeps } from "@crs/services";
import type { WebhookDeliverySettings } from "./delivery-settings";
import { sendWebhook } from "./http-sender";

export const WEBHOOK_USER_AGENT = "crs-webhooks/1";

/**
 * One attempt of a claimed delivery: the event JSON, exactly as GET /v1/events/{id} returns it, POSTed
 * with its signature (HMAC-SHA256 under the endpoint's secret, over "<t>.<body>"), `Svc-Event-Id` and
 * `Svc-Event-Type`, under the delivery environment's target rules, one deadline and no redirects.
 */
export async function attemptDelivery(
  deps: Pick<ServiceDeps, "clock" | "webhookSecretKey" | "resolveHostname">,
  delivery: ClaimedDelivery,
  settings: Pick<WebhookDeliverySettings, "timeoutMs">,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  let secret: string;
  try {
    secret = openSigningSecret(delivery.secretBox, deps.webhookSecretKey, delivery.secretContext);
  } catch {
    return {
      kind: "failed",
      statusCode: null,
      error: "the signing secret could not be opened (was WEBHOOK_SECRET_KEY changed?)",
    };
  }
  const body = JSON.stringify(delivery.event);
  const timestamp = Math.floor(deps.clock().getTime() / 1000);
  const result = await sendWebhook({
    url: delivery.url,
    body,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "User-Agent": WEBHOOK_USER_AGENT,
      [WEBHOOK_SIGNATURE_HEADER]: signWebhookPayload(secret, timestamp, body),
      "Svc-Event-Id": delivery.event.id,
      "Svc-Event-Type": delivery.event.type,
    },
    environment: delivery.environment,
    timeoutMs: settings.timeoutMs,
    resolve: deps.resolveHostname,
    ...(signal ? { signal } : {}),
  });
  if (result.ok) return { kind: "delivered", statusCode: result.status };
  if (result.failure === "aborted") return { kind: "interrupted", error: result.error };
  return { kind: "failed", statusCode: result.status, error: result.error };
}
