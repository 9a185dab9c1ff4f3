import {
  AppError,
  type CreatedWebhookEndpoint,
  type OperationInput,
  type webhookEndpointOperations,
} from "@crs/contract";
import { MAX_WEBHOOK_ENDPOINTS } from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, count, isNull, sql } from "drizzle-orm";
import type { WriteContext } from "../context";
import { checkEndpointInput } from "./check-endpoint-input";
import { presentWebhookEndpoint } from "./present-webhook-endpoint";
import { createSigningSecret } from "./signing-secrets";

export async function createWebhookEndpoint(
  write: WriteContext,
  { body }: OperationInput<typeof webhookEndpointOperations.create>,
): Promise<CreatedWebhookEndpoint> {
  const { tx, actor } = write;
  const checked = await checkEndpointInput(body, write, { defaultAllEvents: true });
  const e = schema.webhookEndpoints;
  // Creates of one organization and environment serialize here, so the count below is exact.
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${actor.organizationId}:${actor.environment}`}, 0))`,
  );
  const [existing] = await tx
    .select({ n: count() })
    .from(e)
    .where(and(tenantScope(e, actor), isNull(e.deletedAt)));
  if ((existing?.n ?? 0) >= MAX_WEBHOOK_ENDPOINTS) {
    throw new AppError("conflict", {
      message: `An organization may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`,
    });
  }

  const id = write.newId("webhookEndpoint");
  const { secret, box } = createSigningSecret(write.webhookSecretKey, id);
  const now = write.clock();
  const [row] = await tx
    .insert(e)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id,
      url: checked.url ?? body.url,
      enabledEvents: checked.enabledEvents ?? ["*"],
      status: "enabled",
      signingSecretBox: box,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("webhook endpoint insert returned nothing");
  const endpoint = presentWebhookEndpoint(row);
  // The event carries the endpoint as GET returns it: without the secret.
  write.recordEvent({
    type: "webhook_endpoint.created",
    idField: "webhook_endpoint_id",
    object: endpoint,
    matterId: null,
  });
  return { ...endpoint, signing_secret: secret };
}
