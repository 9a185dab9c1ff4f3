import { assetKey, toResultAmount } from "./tracing/amounts";
import { compareText, labelsValidAt } from "./tracing/labels";
import { type ChainRequestSource, chainRequestSource } from "./tracing/result";
import type { AddressLabel, Transfer } from "./tracing/types";

/**
 * The 2026-06-11 synchronous crypto analyses (transaction timeline, exchange hypotheses, stablecoin
 * exposure) as rules over what the chain provider and the trace engine return: which transfers a
 * timeline lists and in what order, what its notes say, and how hypotheses and exposures are filtered.
 */

/** The scale of an exchange hypothesis's `confidence`, lowest first: `min_confidence` uses the same words. */
export const HYPOTHESIS_CONFIDENCES = ["low", "medium", "high"] as const;
export type HypothesisConfidence = (typeof HYPOTHESIS_CONFIDENCES)[number];

/** true when `confidence` is at least `minimum` on the low < medium < high scale. */
export function meetsConfidence(confidence: HypothesisConfidence, minimum: HypothesisConfidence): boolean {
  return HYPOTHESIS_CONFIDENCES.indexOf(confidence) >= HYPOTHESIS_CONFIDENCES.indexOf(minimum);
}

/** What an `assets` entry names: an asset key (`erc20:<contract>`) or a token symbol. */
export type AssetSelector = { kind: "asset"; key: string } | { kind: "symbol"; symbol: string };

const EVM_ASSET_KEY = /^erc20:0x[0-9a-fA-F]{40}$/;
const TRON_ASSET_KEY = /^erc20:T[1-9A-HJ-NP-Za-km-z]{33}$/;
const SYMBOL = /^[A-Za-z][A-Za-z0-9.]{0,15}$/;

/**
 * Reads an `assets` entry: `erc20:<contract>` (an EVM contract, compared lower-case, or a TRON one)
 * or a token symbol (compared case-insensitively). Any other form is null: the caller refuses it.
 */
export function parseAssetSelector(text: string): AssetSelector | null {
  if (EVM_ASSET_KEY.test(text)) return { kind: "asset", key: text.toLowerCase() };
  if (TRON_ASSET_KEY.test(text)) return { kind: "asset", key: text };
  if (SYMBOL.test(text)) return { kind: "symbol", symbol: text.toLowerCase() };
  return null;
}

/** true when the exposure's asset key or symbol is one the selector names. */
export function selectsAsset(selector: AssetSelector, exposure: { asset: string; symbol: string | null }): boolean {
  if (selector.kind === "asset") return exposure.asset.toLowerCase() === selector.key.toLowerCase();
  return exposure.symbol !== null && exposure.symbol.toLowerCase() === selector.symbol;
}

export type TimelineDirection = "outgoing" | "incoming" | "between_wallets";

/** One transfer of a timeline, before its time is formatted (the engine keeps block times in unix seconds). */
export interface TimelineEntry {
  transaction_hash: string;
  /** log index; -1 for the transaction's own native value */
  event_index: number;
  block: string;
  tx_index: number;
  /** unix seconds of the block */
  block_time: number;
  from_address: string;
  to_address: string;
  /** `native` or `erc20:<contract>` */
  asset: string;
  symbol: string | null;
  /** exact decimal in whole units; null when the token's decimals are unknown */
  amount: string | null;
  base_units: string;
  direction: TimelineDirection;
  /** the given wallet the transfer touches (the sender for a transfer between two given wallets) */
  wallet: string;
  notes: string;
  /** the source_id of the provider request the transfer was read from (an entry of the timeline's sources) */
  source_refs: string[];
}

export interface TimelineInput {
  /** the given wallets, in the network's normal form */
  wallets: readonly string[];
  /** every transfer read for those wallets (a transfer between two of them may come twice) */
  transfers: readonly Transfer[];
  /** the window, inclusive, in milliseconds since the epoch */
  fromMs: number;
  toMs: number;
  /** every label known for an address (the trace's lookup); only those valid at the transfer's time count */
  labelsOf: (address: string) => readonly AddressLabel[];
  /** at most this many entries are listed (the earliest); the rest are counted */
  maxEvents: number;
}

export interface Timeline {
  /** in time order: block, then transaction, then log */
  events: TimelineEntry[];
  /** the provider requests the listed transfers were read from, each once, in order of first use */
  sources: ChainRequestSource[];
  /** transfers in the window, listed or not */
  matched: number;
}

function compareTransfers(a: Transfer, b: Transfer): number {
  if (a.block !== b.block) return a.block < b.block ? -1 : 1;
  return a.tx_index - b.tx_index || a.event_index - b.event_index || compareText(a.tx_hash, b.tx_hash);
}

/** The labels of an address valid at `time`, once each, in a fixed order. */
function describeLabels(labels: readonly AddressLabel[], time: number): string | null {
  const seen = new Set<string>();
  const parts: string[] = [];
  const valid = labelsValidAt(labels, time).sort(
    (a, b) => b.confidence - a.confidence || compareText(a.entity, b.entity) || compareText(a.category, b.category),
  );
  for (const label of valid) {
    const key = `${label.entity}|${label.category}`;
    if (seen.has(key)) continue;
    seen.add(key);
    parts.push(`${label.entity} (${label.category}, label confidence ${label.confidence}, ${label.source.dataset})`);
  }
  return parts.length === 0 ? null : parts.join("; ");
}

function notesOf(direction: TimelineDirection, counterparty: string, labels: string | null, wallet: string): string {
  const side =
    direction === "outgoing"
      ? `Sent by ${wallet} to ${counterparty}`
      : direction === "incoming"
        ? `Received by ${wallet} from ${counterparty}`
        : `Between two of the given wallets, from ${wallet} to ${counterparty}`;
  return labels === null
    ? `${side}; the counterparty has no label.`
    : `${side}; the counterparty is labelled ${labels}.`;
}

/**
 * The transfers touching the given wallets within [fromMs, toMs] (block time, inclusive), each once,
 * in time order, with a note naming the counterparty's labels at the transfer's time. Amounts are
 * exact: base units as an integer string, and the decimal amount when the token's decimals are known.
 */
export function buildTimeline(input: TimelineInput): Timeline {
  const wallets = new Set(input.wallets);
  const seen = new Set<string>();
  const inWindow: Transfer[] = [];
  for (const transfer of input.transfers) {
    const ms = transfer.block_time * 1000;
    if (ms < input.fromMs || ms > input.toMs) continue;
    if (!wallets.has(transfer.from) && !wallets.has(transfer.to)) continue;
    const key = `${transfer.tx_hash}:${transfer.event_index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inWindow.push(transfer);
  }
  inWindow.sort(compareTransfers);
  const sources = new Map<string, ChainRequestSource>();
  const events = inWindow.slice(0, Math.max(0, input.maxEvents)).map((transfer): TimelineEntry => {
    const fromGiven = wallets.has(transfer.from);
    const toGiven = wallets.has(transfer.to);
    const direction: TimelineDirection = fromGiven && toGiven ? "between_wallets" : fromGiven ? "outgoing" : "incoming";
    const wallet = fromGiven ? transfer.from : transfer.to;
    const counterparty = fromGiven ? transfer.to : transfer.from;
    const labels = describeLabels(input.labelsOf(counterparty), transfer.block_time);
    const source = chainRequestSource(transfer.source_ref);
    if (!sources.has(source.source_id)) sources.set(source.source_id, source);
    return {
      transaction_hash: transfer.tx_hash,
      event_index: transfer.event_index,
      block: transfer.block.toString(),
      tx_index: transfer.tx_index,
      block_time: transfer.block_time,
      from_address: transfer.from,
      to_address: transfer.to,
      asset: assetKey(transfer.asset),
      symbol: transfer.asset.symbol,
      ...toResultAmount(transfer.amount, transfer.asset),
      direction,
      wallet,
      notes: notesOf(direction, counterparty, labels, wallet),
      source_refs: [source.source_id],
    };
  });
  return { events, sources: [...sources.values()], matched: inWindow.length };
}
