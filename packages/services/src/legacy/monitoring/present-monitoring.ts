import type { Alert, Watchlist } from "@crs/contract";
import { alertRulesFromThresholds, formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";

export type WatchlistRow = typeof schema.watchlists.$inferSelect;
export type WatchlistAddressRow = typeof schema.watchlistAddresses.$inferSelect;
export type AlertRow = typeof schema.alerts.$inferSelect;

/** A watchlist as the API shows it: its alert rules are computed from its thresholds on every read. */
export function presentWatchlist(row: WatchlistRow, addresses: readonly WatchlistAddressRow[]): Watchlist {
  return {
    object: "watchlist",
    id: row.id,
    watchlist_id: row.id,
    matter_id: row.matterId,
    name: row.name,
    chains: [row.chain],
    addresses: addresses.map((address) => ({
      address: address.address,
      network: row.chain,
      reason: address.reason,
      source_refs: address.sourceRefs,
      added_at: formatTimestamp(address.addedAt),
      swept_to_block: address.sweptToBlock === null ? null : address.sweptToBlock.toString(),
    })),
    status: row.status,
    thresholds: row.thresholds,
    alert_rules: alertRulesFromThresholds(row.thresholds),
    last_swept_at: row.lastSweptAt ? formatTimestamp(row.lastSweptAt) : null,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}

export function presentAlert(row: AlertRow): Alert {
  return {
    object: "alert",
    id: row.id,
    alert_id: row.id,
    matter_id: row.matterId,
    watchlist_id: row.watchlistId,
    type: row.type,
    severity: row.severity,
    status: row.status,
    target: row.target,
    reason: row.reason,
    fact: row.fact,
    triage: {
      notes: row.triageNotes,
      triaged_at: row.triagedAt ? formatTimestamp(row.triagedAt) : null,
      packet_id: row.packetId,
      action_id: row.actionId,
    },
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}
