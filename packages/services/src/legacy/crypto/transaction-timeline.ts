import type { legacyCryptoOperations, OperationInput, TransactionTimeline } from "@crs/contract";
import {
  type AddressLabel,
  buildTimeline,
  builtInLabels,
  formatTimestamp,
  normalizeAddress,
  type Transfer,
} from "@crs/core";
import type { WriteContext } from "../../context";
import type { TraceSource } from "../../crypto/trace-providers";
import { ANALYSIS_LIMITS, analysisInput, analysisSource, readAnalysisMatter } from "./analysis-trace";

/** A timeline lists at most this many transfers (the earliest in the window); `matched_count` counts them all. */
export const TIMELINE_MAX_EVENTS = 1_000;

/**
 * Every label the trace engine sees for an address (its `labelsLookup`): the graph's own, the label
 * store's, then the built-in ones.
 */
function labelLookup(source: TraceSource, chain: string): (address: string) => readonly AddressLabel[] {
  return (address) => {
    const node = source.graph?.nodeLabels ? source.graph.nodeOf(address) : undefined;
    const own = node === undefined ? [] : (source.graph?.nodeLabels?.(node) ?? []);
    const stored = source.labels ? source.labels.labelsFor(chain, address) : [];
    return [...own, ...stored, ...builtInLabels(chain, address)];
  };
}

/**
 * The transfers in and out of the wallets within [from, to], from the chain provider an asset map's
 * trace reads: each wallet's transfers from its incident_block to the head, at most `max_edges` of
 * them and within the time budget; what a limit cut off is named in `truncation`. Records nothing.
 */
export async function transactionTimeline(
  write: WriteContext,
  { body }: OperationInput<typeof legacyCryptoOperations.transactionTimeline>,
): Promise<TransactionTimeline> {
  const matter = await readAnalysisMatter(write, body.matter_id);
  const input = analysisInput(write, body);
  const source = analysisSource(write, input);
  const chain = input.chains[0];
  const { provider } = source;
  const started = Date.now();
  const deadlineReached = () => Date.now() - started > ANALYSIS_LIMITS.time_budget_ms;
  const head = await provider.head();
  const wallets = input.wallets.map((wallet) => ({ ...wallet, address: normalizeAddress(chain, wallet.address) }));

  const transfers: Transfer[] = [];
  const truncation: TransactionTimeline["truncation"] = [];
  reading: for (const wallet of wallets) {
    let cursor: string | null = null;
    do {
      if (transfers.length >= ANALYSIS_LIMITS.max_edges) {
        truncation.push({
          reason: "max_edges",
          detail: `stopped reading after ${ANALYSIS_LIMITS.max_edges} transfer events`,
        });
        break reading;
      }
      if (deadlineReached()) {
        truncation.push({ reason: "deadline", detail: "the time budget passed before every transfer was read" });
        break reading;
      }
      const page = await provider.transfers({
        address: wallet.address,
        fromBlock: BigInt(wallet.incident_block),
        toBlock: head.number,
        cursor,
      });
      transfers.push(...page.items);
      cursor = page.next;
    } while (cursor !== null);
  }

  const fromMs = Date.parse(body.from);
  const toMs = Date.parse(body.to);
  const timeline = buildTimeline({
    wallets: wallets.map((wallet) => wallet.address),
    transfers,
    fromMs,
    toMs,
    labelsOf: labelLookup(source, chain),
    maxEvents: TIMELINE_MAX_EVENTS,
  });
  if (timeline.matched > timeline.events.length) {
    truncation.push({
      reason: "max_events",
      detail: `${timeline.matched} transfers are in the window; the earliest ${TIMELINE_MAX_EVENTS} are listed`,
    });
  }
  const timelineId = write.newId("timeline");
  const earliest = Math.min(...wallets.map((wallet) => wallet.incident_block));
  return {
    object: "crypto_transaction_timeline",
    id: timelineId,
    timeline_id: timelineId,
    matter_id: matter.id,
    livemode: matter.environment === "live",
    chain,
    source: provider.kind,
    provider: provider.name,
    wallets: wallets.map((wallet) => wallet.address),
    from: formatTimestamp(new Date(fromMs)),
    to: formatTimestamp(new Date(toMs)),
    block_range: { from: String(earliest), to: head.number.toString() },
    events: timeline.events.map(({ block_time, ...event }) => ({
      transaction_hash: event.transaction_hash,
      event_index: event.event_index,
      block: event.block,
      tx_index: event.tx_index,
      timestamp: formatTimestamp(new Date(block_time * 1000)),
      from_address: event.from_address,
      to_address: event.to_address,
      asset: event.asset,
      symbol: event.symbol,
      amount: event.amount,
      base_units: event.base_units,
      direction: event.direction,
      wallet: event.wallet,
      notes: event.notes,
      source_refs: event.source_refs,
    })),
    matched_count: timeline.matched,
    limits: {
      max_events: TIMELINE_MAX_EVENTS,
      max_edges: ANALYSIS_LIMITS.max_edges,
      time_budget_ms: ANALYSIS_LIMITS.time_budget_ms,
    },
    truncated: truncation.length > 0,
    truncation,
    source_manifest: timeline.sources,
    traced_at: formatTimestamp(write.clock()),
  };
}
