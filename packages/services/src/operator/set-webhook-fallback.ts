import { notFound, type OperationInput, type operatorOperations, type WebhookFallback } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, eq, isNull } from "drizzle-orm";
import type { WriteContext } from "../context";
import { createSigningSecret, fallbackSecretContext } from "../webhooks/signing-secrets";
import { vetWebhookTarget } from "../webhooks/vet-webhook-target";

/**
 * Sets or clears the organization's fallback URL: while the organization has no webhook endpoint, every
 * event is delivered there, signed with a secret of its own (a new one on every set, shown in this answer
 * only). The same target rules as endpoints apply. Clearing it ends the fallback deliveries still waiting.
 */
export async function setWebhookFallback(
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.setWebhookFallback>,
): Promise<WebhookFallback> {
  const { tx, actor } = write;
  const url = body.url === null ? null : await vetWebhookTarget(body.url, actor.environment, write.resolveHostname);
  const sealed =
    url === null
      ? null
      : createSigningSecret(write.webhookSecretKey, fallbackSecretContext(actor.organizationId, actor.environment));
  const [organization] = await tx
    .update(schema.organizations)
    .set({ webhookFallbackUrl: url, webhookFallbackSecretBox: sealed?.box ?? null })
    .where(eq(schema.organizations.id, actor.organizationId))
    .returning({ id: schema.organizations.id });
  if (!organization) throw notFound("organization", actor.organizationId);
  if (url === null) {
    const d = schema.webhookDeliveries;
    await tx
      .update(d)
      .set({ status: "dead", lastError: "fallback URL cleared", nextAttemptAt: null, updatedAt: write.clock() })
      .where(and(tenantScope(d, actor), isNull(d.webhookEndpointId), eq(d.status, "queued")));
  }
  return {
    object: "webhook_fallback",
    organization_id: actor.organizationId,
    livemode: actor.environment === "live",
    url,
    signing_secret: sealed?.secret ?? null,
  };
}
