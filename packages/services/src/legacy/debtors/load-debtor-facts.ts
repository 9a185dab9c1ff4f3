import { addressComparisonKey, type DebtorFacts, type GraphParty } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, desc, eq, sql } from "drizzle-orm";
import { presentAssetMap } from "../../crypto/present-asset-map";
import type { PartyRow } from "../../parties/present-party";

/**
 * At most this many of the succeeded asset maps traced from the debtor's wallets are read, the most
 * recent first; the answer says when there were more (`asset_maps_read.truncated`).
 */
export const DEBTOR_ASSET_MAPS_READ = 100;

/** What the facts left out: the debtor's asset maps beyond the most recent DEBTOR_ASSET_MAPS_READ. */
export interface AssetMapsRead {
  count: number;
  limit: number;
  truncated: boolean;
}

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
): Promise<DebtorFacts & { assetMapsRead: AssetMapsRead }> {
  const p = schema.parties;
  // The maps traced from one of the debtor's wallets, compared as core compares them (0x addresses
  // without case): filtered here, so the limit counts the debtor's maps, not the matter's. (drizzle
  // renders an interpolated array as a parenthesized list of parameters.)
  const walletKeys = debtor.wallets.map((wallet) => addressComparisonKey(wallet.address));
  const tracedFromDebtor = sql`exists (
    select 1 from jsonb_array_elements(${schema.assetMaps.request} -> 'wallets') as traced
     where case when btrim(traced ->> 'address') ~ '^0x[0-9a-fA-F]{40}$'
                then lower(btrim(traced ->> 'address')) else btrim(traced ->> 'address') end
           in ${walletKeys})`;
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
    wanted.assetMaps && walletKeys.length > 0
      ? db
          .select()
          .from(m)
          .where(
            and(tenantScope(m, tenant), eq(m.matterId, debtor.matterId), eq(m.status, "succeeded"), tracedFromDebtor),
          )
          .orderBy(desc(m.id))
          .limit(DEBTOR_ASSET_MAPS_READ + 1)
      : Promise.resolve([]),
  ]);
  const read = maps.slice(0, DEBTOR_ASSET_MAPS_READ);
  return {
    debtor: graphPartyOf(debtor),
    parties: parties.map(graphPartyOf),
    judgments,
    // oldest first, as the other records
    assetMaps: read.reverse().map((row) => presentAssetMap(row)),
    assetMapsRead: { count: read.length, limit: DEBTOR_ASSET_MAPS_READ, truncated: maps.length > read.length },
  };
}
