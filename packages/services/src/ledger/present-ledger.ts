import type { RecoveryEvent, RemittanceEvent } from "@crs/contract";
import { FIAT_DECIMALS, formatTimestamp, fromMinorUnits, parseMinorUnits } from "@crs/core";
import type { schema } from "@crs/db";
import { auditOf } from "../audit";

export type RecoveryEventRow = typeof schema.recoveryEvents.$inferSelect;
export type RemittanceEventRow = typeof schema.remittanceEvents.$inferSelect;

/** A numeric(15,2) column's exact text as integer cents. */
export const centsOf = (text: string): bigint => parseMinorUnits(text, FIAT_DECIMALS);
/** Integer cents as the JSON number the API carries (at most two decimals, exact below 2^53 cents). */
export const numberOfCents = (cents: bigint): number => fromMinorUnits(cents, FIAT_DECIMALS);

export function presentRecoveryEvent(row: RecoveryEventRow): RecoveryEvent {
  const amount = numberOfCents(centsOf(row.grossAmount));
  return {
    object: "recovery_event",
    id: row.id,
    recovery_event_id: row.id,
    matter_id: row.matterId,
    livemode: row.environment === "live",
    event_type: row.eventType,
    asset: row.asset,
    gross_amount: amount,
    usd_value: amount,
    currency: row.currency,
    network: row.network,
    source: row.source,
    description: row.description,
    packet_id: row.packetId,
    status: row.status,
    created_at: formatTimestamp(row.createdAt),
    audit: auditOf(row, row.matterId),
  };
}

export function presentRemittanceEvent(row: RemittanceEventRow): RemittanceEvent {
  return {
    object: "remittance_event",
    id: row.id,
    remittance_event_id: row.id,
    matter_id: row.matterId,
    livemode: row.environment === "live",
    destination: row.destination,
    asset: row.asset,
    amount: numberOfCents(centsOf(row.amount)),
    currency: row.currency,
    waterfall_id: row.waterfallId,
    source_recovery_event_id: row.sourceRecoveryEventId,
    status: row.status,
    created_at: formatTimestamp(row.createdAt),
    audit: auditOf(row, row.matterId),
  };
}
