import { AppError, notFound, type OperationInput, type operatorOperations, type WebhookDelivery } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { schema, tenantRow, WEBHOOK_DELIVERY_TASK, type WebhookDeliveryJob } from "@crs/db";
import { eq } from "drizzle-orm";
import type { WriteContext } from "../context";
import { presentWebhookDelivery } from "../webhooks/present-webhook-delivery";

/**
 * Sends a dead delivery again: back to `queued` with a new job, its attempts counted from 0 in a new
 * 72-hour window. Only a dead delivery qualifies (one already delivered is never sent again), and only
 * while its target can receive it.
 */
export async function redeliverWebhook(
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.redeliverWebhook>,
): Promise<WebhookDelivery> {
  const { tx, actor } = write;
  const id = body.webhook_delivery_id;
  const unknown = () => notFound("webhook_delivery", id, "webhook_delivery_id");
  if (!isIdOf("whd", id)) throw unknown();
  const d = schema.webhookDeliveries;
  const [delivery] = await tx
    .select()
    .from(d)
    .where(tenantRow(d, actor, id))
    .for("update");
  if (!delivery) throw unknown();
  if (delivery.status !== "dead") {
    throw new AppError("conflict", {
      message: `Only a dead delivery can be redelivered; this one is ${delivery.status}.`,
      param: "webhook_delivery_id",
    });
  }
  await assertTargetCanReceive(write, delivery.webhookEndpointId);

  const now = write.clock();
  const [row] = await tx
    .update(d)
    .set({ status: "queued", attempts: 0, firstAttemptAt: null, nextAttemptAt: now, updatedAt: now })
    .where(tenantRow(d, actor, id))
    .returning();
  if (!row) throw new Error("webhook delivery update returned nothing");
  const job: WebhookDeliveryJob = {
    organization_id: actor.organizationId,
    environment: actor.environment,
    webhook_delivery_id: id,
  };
  await write.enqueue(WEBHOOK_DELIVERY_TASK, job, { jobKey: id });
  return presentWebhookDelivery(row);
}

async function assertTargetCanReceive(write: WriteContext, endpointId: string | null): Promise<void> {
  const refuse = (message: string) => new AppError("conflict", { message, param: "webhook_delivery_id" });
  if (endpointId === null) {
    const [organization] = await write.tx
      .select({ url: schema.organizations.webhookFallbackUrl })
      .from(schema.organizations)
      .where(eq(schema.organizations.id, write.actor.organizationId));
    if (!organization?.url) throw refuse("The organization's fallback URL has been cleared; set it first.");
    return;
  }
  const [endpoint] = await write.tx
    .select({ status: schema.webhookEndpoints.status, deletedAt: schema.webhookEndpoints.deletedAt })
    .from(schema.webhookEndpoints)
    .where(tenantRow(schema.webhookEndpoints, write.actor, endpointId));
  if (!endpoint || endpoint.deletedAt) throw refuse("The delivery's webhook endpoint has been deleted.");
  if (endpoint.status !== "enabled") throw refuse("The delivery's webhook endpoint is disabled; enable it first.");
}
