import type { Party } from "@crs/contract";
import { formatTimestamp, parseMinorUnits, type ScreenableParty, SHARE_DECIMALS, unitsToShare } from "@crs/core";
import type { schema } from "@crs/db";
import { auditOf } from "../audit";
import { presentSanctionsHit, type SanctionsHitRow } from "../sanctions/present-sanctions-hit";

export type PartyRow = typeof schema.parties.$inferSelect;

/** The share column's exact text (`0.600000`) as the number the API carries. */
export function shareOf(row: Pick<PartyRow, "share">): number | null {
  return row.share === null ? null : unitsToShare(parseMinorUnits(row.share, SHARE_DECIMALS));
}

/** The party as the API returns it (and as its events carry it), with every sanctions hit recorded for it, by id. */
export function presentParty(row: PartyRow, hits: readonly SanctionsHitRow[]): Party {
  return {
    object: "party",
    id: row.id,
    party_id: row.id,
    matter_id: row.matterId,
    livemode: row.environment === "live",
    role: row.role,
    name: row.name,
    legal_name: row.legalName,
    type: row.type,
    aliases: row.aliases,
    identifiers: row.identifiers,
    wallets: row.wallets,
    economics: row.economics,
    contact: row.contact,
    notes: row.notes,
    share: shareOf(row),
    status: row.status,
    sanctions_hits: [...hits].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(presentSanctionsHit),
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    audit: auditOf(row, row.matterId),
  };
}

/** What the sanctions screening reads of a party: its names, identifiers and wallets. */
export function screenablePartyOf(row: PartyRow): ScreenableParty {
  return {
    party_id: row.id,
    name: row.name,
    legal_name: row.legalName,
    aliases: row.aliases,
    identifiers: row.identifiers,
    wallets: row.wallets,
  };
}
