import { notFound, type Organization } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import { schema } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { Actor, ServiceDeps } from "../context";

export async function retrieveOrganization(deps: ServiceDeps, actor: Actor): Promise<Organization> {
  const [row] = await deps.db
    .select()
    .from(schema.organizations)
    .where(eq(schema.organizations.id, actor.organizationId));
  if (!row) throw notFound("organization", actor.organizationId);
  // api_version is the calling key's pin (DECISIONS §2), not the version this request asked for.
  const [key] = await deps.db
    .select({ pinnedVersion: schema.apiKeys.pinnedVersion })
    .from(schema.apiKeys)
    .where(and(eq(schema.apiKeys.organizationId, actor.organizationId), eq(schema.apiKeys.id, actor.keyId)));
  return {
    object: "organization",
    id: row.id,
    organization_id: row.id,
    name: row.name,
    environment: row.environment,
    plan: row.plan,
    rate_limit: { per_second: row.ratePerSecond, burst: row.rateBurst },
    api_version: key?.pinnedVersion ?? actor.apiVersion,
    created_at: formatTimestamp(row.createdAt),
    webhook_fallback_url: row.webhookFallbackUrl,
  };
}
