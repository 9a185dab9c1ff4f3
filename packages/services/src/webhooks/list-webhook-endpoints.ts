import type { OperationInput, webhookEndpointOperations } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, isNull } from "drizzle-orm";
import type { ReadContext } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { presentWebhookEndpoint } from "./present-webhook-endpoint";

export async function listWebhookEndpoints(
  read: ReadContext,
  { query }: OperationInput<typeof webhookEndpointOperations.list>,
) {
  const e = schema.webhookEndpoints;
  const window = pageWindow(e.id, query);
  const rows = await read.db
    .select()
    .from(e)
    .where(and(tenantScope(e, read.actor), isNull(e.deletedAt), window.cursor))
    .orderBy(window.orderBy)
    .limit(window.fetch);
  return listEnvelope("/v1/webhook_endpoints", window.page(rows.map(presentWebhookEndpoint)));
}
