import { AppError, notFound } from "@crs/contract";
import type { DebtorFacts, GraphAssetMap } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { PartyRow } from "../../parties/present-party";
import { loadDebtorFacts } from "../debtors/load-debtor-facts";
import type { CampaignRow } from "./load-campaign";

/**
 * Checks a target set against the campaign's matter: each party must be one of its parties (404 naming
 * `target_set.party_ids.<i>`) and not a claimant, who is the creditor's side (422 naming it).
 */
export async function assertTargetSet(db: Queryable, tenant: Tenant, matterId: string, partyIds: readonly string[]) {
  if (partyIds.length === 0) return;
  const p = schema.parties;
  const rows = await db
    .select({ id: p.id, role: p.role })
    .from(p)
    .where(and(tenantScope(p, tenant), eq(p.matterId, matterId), inArray(p.id, [...partyIds])));
  const roleOf = new Map(rows.map((row) => [row.id, row.role]));
  partyIds.forEach((partyId, index) => {
    const param = `target_set.party_ids.${index}`;
    const role = roleOf.get(partyId);
    if (role === undefined) throw notFound("party on this matter", partyId, param);
    if (role === "claimant") {
      const message = "must be a debtor or counterparty of the matter: a claimant is the creditor's side";
      throw new AppError("invalid_request", {
        status: 422,
        message: `Invalid ${param} (${message}).`,
        param,
        details: { invalid: [{ param, message }] },
      });
    }
  });
}

/** The parties a campaign pursues, in id order: its target set, or (when that names none) the matter's debtors. */
export async function loadPursuedParties(db: Queryable, tenant: Tenant, campaign: CampaignRow): Promise<PartyRow[]> {
  const p = schema.parties;
  const named = campaign.targetSet.party_ids;
  return db
    .select()
    .from(p)
    .where(
      and(
        tenantScope(p, tenant),
        eq(p.matterId, campaign.matterId),
        named.length > 0 ? inArray(p.id, named) : eq(p.role, "debtor"),
      ),
    )
    .orderBy(asc(p.id));
}

/**
 * What the record holds about each pursued party, read as a debtor's graph reads it (its matter's
 * parties, judgments and the succeeded asset maps traced from its wallets).
 */
export async function loadPursuedFacts(
  db: Queryable,
  tenant: Tenant,
  campaign: CampaignRow,
  wanted: { judgments: boolean },
): Promise<DebtorFacts[]> {
  const parties = await loadPursuedParties(db, tenant, campaign);
  const facts: DebtorFacts[] = [];
  for (const party of parties) {
    facts.push(await loadDebtorFacts(db, tenant, party, { judgments: wanted.judgments, assetMaps: true }));
  }
  return facts;
}

/** The asset maps the pursued parties' facts name, each once, oldest first. */
export function assetMapsOf(facts: readonly DebtorFacts[]): GraphAssetMap[] {
  const maps = new Map<string, GraphAssetMap>();
  for (const entry of facts) for (const map of entry.assetMaps) maps.set(map.id, map);
  return [...maps.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
