import { notFound, type Organization } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { eq } from "drizzle-orm";
import type { ReadContext } from "../context";

export async function retrieveOrganization(read: ReadContext): Promise<Organization> {
  const { actor } = read;
  const [row] = await read.db
    .select()
    .from(schema.organizations)
    .where(eq(schema.organizations.id, actor.organizationId));
  if (!row) throw notFound("organization", actor.organizationId);
  // api_version is the calling key's pin, not the version this request asked for.
  const [key] = await read.db
    .select({ pinnedVersion: schema.apiKeys.pinnedVersion })
    .from(schema.apiKeys)
    .where(tenantRow(schema.apiKeys, actor, actor.keyId));
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
