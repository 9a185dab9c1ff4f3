import type { SanctionsHit } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";

export type SanctionsHitRow = typeof schema.sanctionsHits.$inferSelect;

/** A sanctions hit as the API returns it (on its party, and in the events that record it). */
export function presentSanctionsHit(row: SanctionsHitRow): SanctionsHit {
  return {
    object: "sanctions_hit",
    id: row.id,
    hit_id: row.id,
    matter_id: row.matterId,
    party_id: row.partyId,
    screen_id: row.screenId,
    subject: row.subject,
    status: row.status,
    matched: {
      field: row.matchedField,
      value: row.matchedValue,
      network: row.matchedNetwork,
      path: row.matchedPath,
    },
    list_entry: {
      kind: row.entryKind,
      value: row.entryValue,
      network: row.entryNetwork,
      program: row.entryProgram,
      source: row.entrySource,
    },
    created_at: formatTimestamp(row.createdAt),
    cleared_at: row.clearedAt ? formatTimestamp(row.clearedAt) : null,
    clear_notes: row.clearNotes,
  };
}
