import { notFound } from "@crs/contract";
import { ID_PREFIXES, isIdOf } from "@crs/core";
import { type Queryable, schema, type Tenant, type Transaction, tenantRow } from "@crs/db";
import { lockMatterOf } from "../../matters/load-matter";
import type { MatterRow } from "../../matters/present-matter";

export type CampaignRow = typeof schema.clawCampaigns.$inferSelect;

/** The caller's campaign, or 404 (naming `param` when a body field gave the id). */
export async function loadCampaign(
  db: Queryable,
  tenant: Tenant,
  campaignId: string,
  param?: string,
): Promise<CampaignRow> {
  if (!isIdOf(ID_PREFIXES.clawCampaign, campaignId)) throw notFound("campaign", campaignId, param);
  const [row] = await db
    .select()
    .from(schema.clawCampaigns)
    .where(tenantRow(schema.clawCampaigns, tenant, campaignId));
  if (!row) throw notFound("campaign", campaignId, param);
  return row;
}

/**
 * For a write to a campaign: reads its matter id, locks the matter row (as every write to a matter's
 * children does), refuses a closed matter, then reads the campaign again under the lock. Concurrent
 * writes to one campaign therefore run one after another, each seeing what the previous one committed.
 */
export async function lockCampaignForWrite(
  tx: Transaction,
  tenant: Tenant,
  campaignId: string,
): Promise<{ matter: MatterRow; campaign: CampaignRow }> {
  const { matter, row } = await lockMatterOf(tx, tenant, (db) => loadCampaign(db, tenant, campaignId));
  return { matter, campaign: row };
}
