import type { NetworkAttribution } from "@crs/contract";
import { type CorrelationSignal, correlateSignal, formatTimestamp } from "@crs/core";
import { auditOf } from "../../audit";
import type { NetworkSignalRow } from "./load-network-signals";

/** A stored signal as the correlation rule reads it. */
export function correlationSignalOf(row: NetworkSignalRow): CorrelationSignal {
  return {
    id: row.id,
    walletAddress: row.walletAddress,
    signalType: row.signalType,
    source: row.source,
    legalProcessId: row.legalProcessId,
  };
}

/**
 * The signal as the API returns it (and as its event carries it). Its confidence is weighed against
 * the matter's signals (`matterSignals`, which include it) by the same rule as correlate.
 */
export function presentNetworkAttribution(
  row: NetworkSignalRow,
  matterSignals: readonly NetworkSignalRow[],
): NetworkAttribution {
  const correlation = correlateSignal(correlationSignalOf(row), matterSignals.map(correlationSignalOf));
  return {
    object: "network_attribution",
    id: row.id,
    network_attribution_id: row.id,
    matter_id: row.matterId,
    wallet_address: row.walletAddress,
    signal_type: row.signalType,
    source: row.source,
    legal_process_id: row.legalProcessId,
    timestamp: formatTimestamp(row.observedAt),
    raw_value_redacted: row.rawValueRedacted,
    privacy_restrictions: row.privacyRestrictions,
    confidence_level: correlation.confidence_level,
    confidence_explanation: correlation.explanation,
    corroborating_signal_ids: correlation.corroborating_signal_ids,
    review_required: true,
    created_at: formatTimestamp(row.createdAt),
    audit: auditOf(row, row.matterId),
  };
}
