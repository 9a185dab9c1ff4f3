import type { DeletedWebhookEndpoint, OperationInput, webhookEndpointOperations } from "@crs/contract";
import { schema, tenantRow } from "@crs/db";
import type { WriteContext } from "../context";
import { endPendingDeliveries } from "./end-pending-deliveries";
import { lockWebhookEndpoint } from "./load-webhook-endpoint";
import { presentWebhookEndpoint } from "./present-webhook-endpoint";

/**
 * Deletes an endpoint: it becomes unknown (404) to every operation, its signing secret is erased, and its
 * deliveries waiting for an attempt end as `dead` ("endpoint deleted"). The row is kept, since its
 * deliveries name it.
 */
export async function deleteWebhookEndpoint(
  write: WriteContext,
  { params }: OperationInput<typeof webhookEndpointOperations.delete>,
): Promise<DeletedWebhookEndpoint> {
  const { tx, actor } = write;
  const current = await lockWebhookEndpoint(tx, actor, params.webhook_endpoint_id);
  const now = write.clock();
  await tx
    .update(schema.webhookEndpoints)
    .set({ deletedAt: now, signingSecretBox: null, updatedAt: now })
    .where(tenantRow(schema.webhookEndpoints, actor, current.id));
  await endPendingDeliveries(write, current.id, "endpoint deleted", now);
  write.recordEvent({
    type: "webhook_endpoint.deleted",
    idField: "webhook_endpoint_id",
    object: presentWebhookEndpoint(current),
    matterId: null,
    extra: { deleted: true },
  });
  return { object: "webhook_endpoint", id: current.id, webhook_endpoint_id: current.id, deleted: true };
}
