import type { DebtorFacts, GraphParty } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, desc, eq } from "drizzle-orm";
import { presentAssetMap } from "../../crypto/present-asset-map";
import type { PartyRow } from "../../parties/present-party";

/** At most this many of the matter's succeeded asset maps are read, the most recent first. */
export const DEBTOR_ASSET_MAPS_READ = 100;

function graphPartyOf(row: PartyRow): GraphParty {
  return {
    id: row.id,
    matter_id: row.matterId,
    role: row.role,
    name: row.name,
    legal_name: row.legalName,
    aliases: row.aliases,
    identifiers: row.identifiers,
    wallets: row.wallets,
  };
}

/**
 * What the case record holds about a debtor (a party with role debtor, already loaded): its
 * matter's parties and judgments, in creation order, and its matter's succeeded asset maps. Which
 * of them concern the debtor is core's rule (`buildDebtorGraph`, `deriveAssetHypotheses`).
 */
export async function loadDebtorFacts(
  db: Queryable,
  tenant: Tenant,
  debtor: PartyRow,
  wanted: { judgments: boolean; assetMaps: boolean },
): Promise<DebtorFacts> {
  const p = schema.parties;
  const j = schema.judgments;
  const m = schema.assetMaps;
  const [parties, judgments, maps] = await Promise.all([
    db
      .select()
      .from(p)
      .where(and(tenantScope(p, tenant), eq(p.matterId, debtor.matterId)))
      .orderBy(p.id),
    wanted.judgments
      ? db
          .select({
            id: j.id,
            matter_id: j.matterId,
            court: j.court,
            case_number: j.caseNumber,
            creditor: j.creditor,
            debtor: j.debtor,
          })
          .from(j)
          .where(and(tenantScope(j, tenant), eq(j.matterId, debtor.matterId)))
          .orderBy(j.id)
      : Promise.resolve([]),
    wanted.assetMaps
      ? db
          .select()
          .from(m)
          .where(and(tenantScope(m, tenant), eq(m.matterId, debtor.matterId), eq(m.status, "succeeded")))
          .orderBy(desc(m.id))
          .limit(DEBTOR_ASSET_MAPS_READ)
      : Promise.resolve([]),
  ]);
  return {
    debtor: graphPartyOf(debtor),
    parties: parties.map(graphPartyOf),
    judgments,
    // oldest first, as the other records
    assetMaps: maps.reverse().map((row) => presentAssetMap(row)),
  };
}
