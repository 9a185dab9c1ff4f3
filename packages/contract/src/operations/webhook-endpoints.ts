import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_ENDPOINT_STATUSES } from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../operation";
import { ListQuery, listOf, Timestamp } from "../schemas/common";

const WebhookUrl = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(2048, "must be at most 2048 characters")
  .meta({ description: "live: an https URL whose host resolves only to public addresses; sandbox: http or https" });

const EnabledEvents = z
  .array(z.string().min(1, "must not be empty").max(100, "must be at most 100 characters"))
  .min(1, 'must list at least one event type, or "*" for all')
  .max(100, "must list at most 100 event types")
  .meta({
    description:
      'event types to receive; omitted or ["*"]: all. Version 2026-06-11 keys may also name judgment.intaken, stored as judgment.created',
  });

export const CreateWebhookEndpointBody = z.object({ url: WebhookUrl, enabled_events: EnabledEvents.optional() }).meta({
  id: "CreateWebhookEndpointBody",
  example: { url: "https://hooks.acme.example/recovery", enabled_events: ["judgment.validated", "job.completed"] },
});
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = z
  .object({
    url: WebhookUrl.optional(),
    enabled_events: EnabledEvents.optional(),
    status: z.enum(WEBHOOK_ENDPOINT_STATUSES).optional(),
  })
  .meta({ id: "UpdateWebhookEndpointBody", example: { status: "disabled" } });
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

export const WebhookEndpoint = z
  .object({
    object: z.literal("webhook_endpoint"),
    id: z.string(),
    webhook_endpoint_id: z.string(),
    url: z.string(),
    enabled_events: z.array(z.string()),
    status: z.enum(WEBHOOK_ENDPOINT_STATUSES),
    livemode: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  signing_secret: z.string().meta({
    description: "whsec_…: verifies the Svc-Signature of every delivery. Shown in this answer only, never again.",
  }),
}).meta({ id: "CreatedWebhookEndpoint" });
export type CreatedWebhookEndpoint = z.infer<typeof CreatedWebhookEndpoint>;

export const DeletedWebhookEndpoint = z
  .object({
    object: z.literal("webhook_endpoint"),
    id: z.string(),
    webhook_endpoint_id: z.string(),
    deleted: z.literal(true),
  })
  .meta({ id: "DeletedWebhookEndpoint" });
export type DeletedWebhookEndpoint = z.infer<typeof DeletedWebhookEndpoint>;

/** A delivery's record: never its payload, headers, signature or secret. */
export const WebhookDelivery = z
  .object({
    object: z.literal("webhook_delivery"),
    id: z.string(),
    webhook_endpoint_id: z
      .string()
      .nullable()
      .meta({ description: "null for a delivery to the organization's fallback URL" }),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: Timestamp,
    next_attempt_at: Timestamp.nullable(),
    delivered_at: Timestamp.nullable(),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const webhookEndpointOperations = {
  create: defineOperation({
    id: "createWebhookEndpoint",
    method: "POST",
    path: "/v1/webhook_endpoints",
    scope: "webhook_endpoints:write",
    tag: "Webhook endpoints",
    summary: "Register a webhook endpoint. The answer carries its signing_secret, shown this once.",
    successStatus: 201,
    body: CreateWebhookEndpointBody,
    response: CreatedWebhookEndpoint,
    idempotent: true,
    events: ["webhook_endpoint.created"],
    secretResponseFields: ["signing_secret"],
    alsoAnswers: {
      409: { description: "The organization already has the maximum number of webhook endpoints" },
    },
  }),
  list: defineOperation({
    id: "listWebhookEndpoints",
    method: "GET",
    path: "/v1/webhook_endpoints",
    scope: "webhook_endpoints:read",
    tag: "Webhook endpoints",
    summary: "List webhook endpoints, most recent first (never their signing secrets).",
    successStatus: 200,
    query: ListQuery,
    response: listOf(WebhookEndpoint, "WebhookEndpointList"),
    idempotent: false,
    events: [],
  }),
  get: defineOperation({
    id: "retrieveWebhookEndpoint",
    method: "GET",
    path: "/v1/webhook_endpoints/{webhook_endpoint_id}",
    scope: "webhook_endpoints:read",
    tag: "Webhook endpoints",
    summary: "Retrieve a webhook endpoint (without its signing secret).",
    successStatus: 200,
    response: WebhookEndpoint,
    idempotent: false,
    events: [],
  }),
  update: defineOperation({
    id: "updateWebhookEndpoint",
    method: "PATCH",
    path: "/v1/webhook_endpoints/{webhook_endpoint_id}",
    scope: "webhook_endpoints:write",
    tag: "Webhook endpoints",
    summary: "Change an endpoint's url, enabled_events or status; a disabled endpoint receives nothing from then on.",
    successStatus: 200,
    body: UpdateWebhookEndpointBody,
    response: WebhookEndpoint,
    idempotent: true,
    events: ["webhook_endpoint.updated"],
  }),
  delete: defineOperation({
    id: "deleteWebhookEndpoint",
    method: "DELETE",
    path: "/v1/webhook_endpoints/{webhook_endpoint_id}",
    scope: "webhook_endpoints:write",
    tag: "Webhook endpoints",
    summary: "Delete a webhook endpoint; its pending deliveries end as dead.",
    successStatus: 200,
    response: DeletedWebhookEndpoint,
    // A repeated DELETE answers 404, which a retrying client can read as done.
    idempotent: false,
    events: ["webhook_endpoint.deleted"],
  }),
  listDeliveries: defineOperation({
    id: "listWebhookDeliveries",
    method: "GET",
    path: "/v1/webhook_endpoints/{webhook_endpoint_id}/deliveries",
    scope: "webhook_endpoints:read",
    tag: "Webhook endpoints",
    summary: "List an endpoint's deliveries, most recent first (never payloads, headers, signatures or secrets).",
    successStatus: 200,
    query: ListQuery,
    response: listOf(WebhookDelivery, "WebhookDeliveryList"),
    idempotent: false,
    events: [],
  }),
};
