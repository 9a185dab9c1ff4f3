import type { OperationInput, WebhookEndpoint, webhookEndpointOperations } from "@crs/contract";
import { canonicalize } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import type { WriteContext } from "../context";
import { checkEndpointInput } from "./check-endpoint-input";
import { endPendingDeliveries } from "./end-pending-deliveries";
import { lockWebhookEndpoint } from "./load-webhook-endpoint";
import { presentWebhookEndpoint } from "./present-webhook-endpoint";

export async function updateWebhookEndpoint(
  write: WriteContext,
  { params, body }: OperationInput<typeof webhookEndpointOperations.update>,
): Promise<WebhookEndpoint> {
  const { tx, actor } = write;
  const current = await lockWebhookEndpoint(tx, actor, params.webhook_endpoint_id);
  const checked = await checkEndpointInput(body, write, { defaultAllEvents: false });
  const requested = { url: checked.url, enabledEvents: checked.enabledEvents, status: body.status };
  // Only values that really change are written; a PATCH that changes nothing appends no event.
  const changes = Object.fromEntries(
    Object.entries(requested).filter(
      ([field, value]) =>
        value !== undefined && canonicalize(value) !== canonicalize(current[field as keyof typeof current]),
    ),
  );
  const before = presentWebhookEndpoint(current);
  if (Object.keys(changes).length === 0) return before;

  const now = write.clock();
  const [row] = await tx
    .update(schema.webhookEndpoints)
    .set({ ...changes, updatedAt: now })
    .where(tenantRow(schema.webhookEndpoints, actor, current.id))
    .returning();
  if (!row) throw new Error("webhook endpoint update returned nothing");
  // From this commit on the endpoint receives nothing: no new delivery is queued for it, and those
  // waiting for a retry end now (an operator can redeliver them after it is enabled again).
  if (changes.status === "disabled") await endPendingDeliveries(write, current.id, "endpoint disabled", now);
  const endpoint = presentWebhookEndpoint(row);
  write.recordEvent({
    type: "webhook_endpoint.updated",
    idField: "webhook_endpoint_id",
    object: endpoint,
    matterId: null,
    extra: { previous_attributes: previousAttributes(before, endpoint) },
  });
  return endpoint;
}

function previousAttributes(before: WebhookEndpoint, after: WebhookEndpoint): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of ["url", "enabled_events", "status"] as const) {
    if (canonicalize(before[key]) !== canonicalize(after[key])) previous[key] = before[key];
  }
  return previous;
}
