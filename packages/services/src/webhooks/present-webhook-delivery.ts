import type { WebhookDelivery } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";

export type WebhookDeliveryRow = typeof schema.webhookDeliveries.$inferSelect;

/** A delivery's record: state and counters only. The payload, headers and signature are never stored here. */
export function presentWebhookDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    object: "webhook_delivery",
    id: row.id,
    webhook_endpoint_id: row.webhookEndpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: formatTimestamp(row.createdAt),
    next_attempt_at: row.nextAttemptAt ? formatTimestamp(row.nextAttemptAt) : null,
    delivered_at: row.deliveredAt ? formatTimestamp(row.deliveredAt) : null,
  };
}
