import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Database, schema, type Tenant, type Transaction, tenantRow } from "@crs/db";
import { and, isNull } from "drizzle-orm";
import type { WebhookEndpointRow } from "./present-webhook-endpoint";

const unknownEndpoint = (id: string) => notFound("webhook_endpoint", id);

function liveEndpoint(tenant: Tenant, id: string) {
  return and(tenantRow(schema.webhookEndpoints, tenant, id), isNull(schema.webhookEndpoints.deletedAt));
}

/** The caller's endpoint, or 404: another organization's, another environment's or a deleted one is unknown. */
export async function loadWebhookEndpoint(db: Database, tenant: Tenant, id: string): Promise<WebhookEndpointRow> {
  if (!isIdOf("we", id)) throw unknownEndpoint(id);
  const [row] = await db.select().from(schema.webhookEndpoints).where(liveEndpoint(tenant, id));
  if (!row) throw unknownEndpoint(id);
  return row;
}

/** Same, locking the row until the transaction ends, so concurrent changes to one endpoint serialize. */
export async function lockWebhookEndpoint(tx: Transaction, tenant: Tenant, id: string): Promise<WebhookEndpointRow> {
  if (!isIdOf("we", id)) throw unknownEndpoint(id);
  const [row] = await tx.select().from(schema.webhookEndpoints).where(liveEndpoint(tenant, id)).for("update");
  if (!row) throw unknownEndpoint(id);
  return row;
}
