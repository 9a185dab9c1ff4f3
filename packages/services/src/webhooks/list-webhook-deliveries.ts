import type { OperationInput, webhookEndpointOperations } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { ReadContext } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { loadWebhookEndpoint } from "./load-webhook-endpoint";
import { presentWebhookDelivery } from "./present-webhook-delivery";

/** An endpoint's deliveries, most recent first (delivery ids follow their events' time). */
export async function listWebhookDeliveries(
  read: ReadContext,
  { params, query }: OperationInput<typeof webhookEndpointOperations.listDeliveries>,
) {
  const endpoint = await loadWebhookEndpoint(read.db, read.actor, params.webhook_endpoint_id);
  const d = schema.webhookDeliveries;
  const window = pageWindow(d.id, query);
  const rows = await read.db
    .select()
    .from(d)
    .where(and(tenantScope(d, read.actor), eq(d.webhookEndpointId, endpoint.id), window.cursor))
    .orderBy(window.orderBy)
    .limit(window.fetch);
  return listEnvelope(`/v1/webhook_endpoints/${endpoint.id}/deliveries`, window.page(rows.map(presentWebhookDelivery)));
}
