import type { OperationInput, WebhookEndpoint, webhookEndpointOperations } from "@crs/contract";
import type { ReadContext } from "../context";
import { loadWebhookEndpoint } from "./load-webhook-endpoint";
import { presentWebhookEndpoint } from "./present-webhook-endpoint";

export async function retrieveWebhookEndpoint(
  read: ReadContext,
  { params }: OperationInput<typeof webhookEndpointOperations.get>,
): Promise<WebhookEndpoint> {
  return presentWebhookEndpoint(await loadWebhookEndpoint(read.db, read.actor, params.webhook_endpoint_id));
}
