import type { webhookEndpointOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { createWebhookEndpoint } from "./create-webhook-endpoint";
import { deleteWebhookEndpoint } from "./delete-webhook-endpoint";
import { listWebhookDeliveries } from "./list-webhook-deliveries";
import { listWebhookEndpoints } from "./list-webhook-endpoints";
import { retrieveWebhookEndpoint } from "./retrieve-webhook-endpoint";
import { updateWebhookEndpoint } from "./update-webhook-endpoint";

export const webhookEndpointHandlers = {
  create: createWebhookEndpoint,
  list: listWebhookEndpoints,
  get: retrieveWebhookEndpoint,
  update: updateWebhookEndpoint,
  delete: deleteWebhookEndpoint,
  listDeliveries: listWebhookDeliveries,
} satisfies GroupHandlers<typeof webhookEndpointOperations>;
