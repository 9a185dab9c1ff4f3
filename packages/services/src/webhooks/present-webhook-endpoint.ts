import type { WebhookEndpoint } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";

export type WebhookEndpointRow = typeof schema.webhookEndpoints.$inferSelect;

/** The endpoint as the API returns it and its events carry it: never its signing secret. */
export function presentWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    object: "webhook_endpoint",
    id: row.id,
    webhook_endpoint_id: row.id,
    url: row.url,
    enabled_events: [...row.enabledEvents],
    status: row.status,
    livemode: row.environment === "live",
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}
