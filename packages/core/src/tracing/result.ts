import { hashCanonical } from "../hashing";
import { assetKey, type ResultAmount, toResultAmount, usableBalance, valueInUsd } from "./amounts";
import { inBatches } from "./batches";
import type { TraceComputation } from "./computation";
import { NODE_EXPANDED, NODE_HUB, NODE_SKIPPED, NODE_SUBJECT, type TruncationReason, UNREACHED } from "./discovery";
import { readHeldStablecoins } from "./held-stablecoins";
import {
  assessReadiness,
  type Confidence,
  checkDepositSweep,
  type HypothesisBasis,
  type PacketReadiness,
  scoreHypothesis,
} from "./hypotheses";
import { describeFreezeCapability, type IssuerControls, type IssuerRegistry } from "./issuer-registry";
import { compareText, labelsValidAt } from "./labels";
import { endsTrace, type NumberColumn } from "./sweep";
import type { TaintModel } from "./taint";
import { amountOf, decodeSub } from "./transfer-graph";
import type {
  AddressLabel,
  AmountFact,
  AssetRef,
  ChainProvider,
  ChainRequestRef,
  LabelCategory,
  Network,
} from "./types";

/**
 * One entry of the source manifest. Every fact in the result names the entries it rests on by
 * `source_id`. The first five fields are those of a source_ref; the rest depend on the type.
 */
export type SourceEntry =
  | ({ source_type: "chain_request" } & SourceCommon & Omit<ChainRequestRef, "uri" | "request_hash">)
  | ({ source_type: "label" } & SourceCommon & {
        dataset: string;
        license: string | null;
        as_of: string | null;
        retrieved_at: string | null;
        confidence: number;
        confidence_basis: string;
      })
  | ({ source_type: "issuer_registry" } & SourceCommon & { as_of: string })
  | ({ source_type: "case_document" } & SourceCommon);

interface SourceCommon {
  source_id: string;
  title: string;
  uri: string | null;
  hash: string | null;
}

export interface AssetAmount extends ResultAmount {
  asset: string;
  symbol: string | null;
}

export interface TraceAsset {
  asset: string;
  kind: AssetRef["kind"];
  contract: string | null;
  symbol: string | null;
  decimals: number | null;
}

export interface TraceEdge {
  edge_id: string;
  tx_hash: string;
  /** Log index; −1 for the transaction's own native value. */
  event_index: number;
  tx_index: number;
  block: string;
  block_time: string;
  from: string;
  to: string;
  asset: string;
  amount: ResultAmount;
  /** The part of `amount` the taint model attributes to the subjects. */
  tainted: ResultAmount;
  hop: number;
  finalized: boolean;
  source_refs: string[];
}

export interface TraceFlow {
  from: string;
  to: string;
  asset: string;
  edge_count: number;
  amount: ResultAmount;
  tainted: ResultAmount;
  first_block: string;
  last_block: string;
  hop: number;
  edge_ids: string[];
}

export type WalletRole = "subject" | "intermediary" | "exchange_deposit" | "frontier" | "unexplored";

export interface WalletLabel {
  entity: string;
  category: LabelCategory;
  confidence: number;
  source_refs: string[];
}

export interface TraceWallet {
  wallet_id: string;
  address: string;
  network: Network;
  role: WalletRole;
  hop: number;
  confidence: Confidence;
  path_confidence: number;
  /** Labels that do not stop the trace (e.g. sanctioned). */
  labels: WalletLabel[];
  received: AssetAmount[];
  /** Tainted value still held at the end of the window; null with `retained_reason` when the address was not expanded. */
  retained: AssetAmount[] | null;
  retained_reason: string | null;
  /** Assets whose opening balance the provider could not give (FIFO/haircut then assume zero, which over-attributes taint). */
  opening_balance_unknown: string[];
  /** Value that left the address beyond what the trace saw arrive or knew it held (gas, internal calls, unknown opening balance). */
  shortfall: AssetAmount[];
  source_refs: string[];
}

export interface TraceTerminal {
  address: string;
  category: LabelCategory | "unlabeled_hub";
  entity: string | null;
  label_confidence: number | null;
  hop: number;
  received: AssetAmount[];
  edge_ids: string[];
  source_refs: string[];
}

export interface ExchangeHypothesis {
  hypothesis_id: string;
  /** null for a behavioural guess with no attribution. */
  exchange: string | null;
  /** The address to name to the exchange: the deposit address when the sweep rule holds, else the labelled address. */
  wallet: string;
  basis: HypothesisBasis;
  confidence: Confidence;
  packet_readiness: PacketReadiness;
  readiness_reasons: string[];
  label_confidence: number | null;
  path_confidence: number;
  received: AssetAmount[];
  /** Edges from a subject to `wallet` (one shortest path), then, for a sweep, the sweep transfers. */
  path_edge_ids: string[];
  sweep: {
    swept_to: string[];
    assets: Array<{
      asset: string;
      inflows: number;
      outflows: number;
      received: ResultAmount;
      swept: ResultAmount;
      exact: boolean;
      longest_delay_seconds: number;
    }>;
    gas_funded_by_exchange: boolean | null;
  } | null;
  source_refs: string[];
}

export interface TokenExposure {
  asset: string;
  symbol: string | null;
  network: Network;
  wallet: string;
  amount: ResultAmount;
  /**
   * `retained`: still held by an expanded address; `received`: arrived at an address that was not
   * expanded; `held`: a subject's balance at the last block of an issuer's token it did not move in the
   * window, read from the chain (no transfer of it was traced, so no taint model applies).
   */
  basis: "retained" | "received" | "held";
  usd_value: string | null;
  usd_value_reason: string | null;
  source_refs: string[];
}

export interface StablecoinExposure {
  issuer: string;
  asset: string;
  symbol: string;
  network: Network;
  wallet: string;
  amount: ResultAmount;
  basis: TokenExposure["basis"];
  /** The address's whole balance at the trace's last block, from the provider; null with a reason when unavailable. */
  balance: { amount: ResultAmount; block: string; source_refs: string[] } | null;
  balance_reason: string | null;
  /** Live freeze-list read at the trace's last block; null with a reason when it could not be read. */
  frozen: boolean | null;
  frozen_reason: string | null;
  frozen_source_refs: string[];
  freeze_capability_notes: string;
  remediation_candidates: Array<{ action: string; review_required: true }>;
  review_required: true;
  source_refs: string[];
}

export interface AssetTotals {
  asset: string;
  symbol: string | null;
  /**
   * Subject holdings at the incident block plus everything the subjects received after; a holding
   * counts only beyond what other subjects had sent it, which is theirs already.
   */
  subject_taint: ResultAmount;
  to_terminals: ResultAmount;
  retained: ResultAmount;
  /** Reached a wallet at max_hops whose outflows were not followed. */
  at_hop_limit: ResultAmount;
  dust_dropped: ResultAmount & { edges: number };
  /**
   * Reached addresses a budget or the deadline left unexpanded, or was passed on by a subject before its
   * incident block after another subject sent it (what it still held then counts once, as the sender's).
   */
  unexplored: ResultAmount;
  /** true for fifo and haircut: the five buckets add up to subject_taint exactly. */
  conserved: boolean;
}

export interface TraceResult {
  object: "crypto_trace";
  chain: Network;
  source: ChainProvider["kind"];
  provider: string;
  traced_at: string;
  block_range: { from: string; to: string; finalized_through: string };
  hops: number;
  max_hops: number;
  subjects: string[];
  wallets: TraceWallet[];
  edges: TraceEdge[];
  flows: TraceFlow[];
  terminals: TraceTerminal[];
  edge_count: number;
  node_count: number;
  exchange_hypotheses: ExchangeHypothesis[];
  token_exposures: TokenExposure[];
  stablecoin_exposures: StablecoinExposure[];
  assets: TraceAsset[];
  totals: AssetTotals[];
  taint_model: {
    name: TaintModel;
    subject_taint: "all_holdings";
    amounts: "conserved" | "reach_only";
    description: string;
  };
  min_value: { default: string; per_asset: Record<string, string> };
  budget: {
    max_expansions: number;
    max_edges: number;
    hub_event_limit: number;
    expansions: number;
    edges_read: number;
  };
  truncated: boolean;
  truncation: Array<{ reason: TruncationReason; detail: string }>;
  sources: SourceEntry[];
}

const MODEL_DESCRIPTIONS: Record<TaintModel, string> = {
  fifo: "first in, first out per address and asset; the opening balance leaves first",
  haircut: "each outflow carries the address's tainted share of its balance",
  poison: "every outflow after taint arrives counts as tainted: reach only, amounts over-count",
};

/** A provider request as a source manifest entry, named as an asset map's manifest names it. */
export interface ChainRequestSource {
  source_id: string;
  source_type: "chain_request";
  title: string;
  uri: string | null;
  hash: string;
  provider: string;
  method: string;
  block_range: [string, string] | null;
  fetched_at: string;
  finalized: boolean;
}

/** `src_` and 20 hex characters of the request's hash: the same id an asset map gives the same request. */
export function chainRequestSource(ref: ChainRequestRef): ChainRequestSource {
  return {
    source_id: `src_${shortHash({ provider: ref.provider, request_hash: ref.request_hash })}`,
    source_type: "chain_request",
    title: `${ref.provider} ${ref.method}${ref.block_range ? ` blocks ${ref.block_range[0]}-${ref.block_range[1]}` : ""}`,
    uri: ref.uri,
    hash: ref.request_hash,
    provider: ref.provider,
    method: ref.method,
    block_range: ref.block_range,
    fetched_at: ref.fetched_at,
    finalized: ref.finalized,
  };
}

/** An address a budget or the deadline left unexpanded. */
const CUT_OFF_REASON = "not expanded: a budget or the deadline ended the trace first";

function shortHash(value: unknown): string {
  return hashCanonical(value).slice(0, 20);
}

/**
 * The form of the source ids a trace gives what it cites itself (chain requests, labels, issuer notes).
 * A case document under such an id would take that entry's place in the manifest, and every fact citing
 * it would seem to rest on the document, so a request may not name one.
 */
const TRACE_SOURCE_ID = /^src_[0-9a-f]{20}$/;

export function isTraceSourceId(sourceId: string): boolean {
  return TRACE_SOURCE_ID.test(sourceId);
}

function byAsset(amounts: AssetAmount[]): AssetAmount[] {
  return amounts.sort((a, b) => compareText(a.asset, b.asset));
}

function isoFromUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** Indices of `events` in ascending event order, equal events in index order. */
function timeOrderOf(events: NumberColumn): number[] {
  const count = events.length;
  // One number per edge (event · count + index) sorts without a comparator when it stays exact.
  if (count > 0 && 2 ** 32 * count <= Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(count);
    for (let i = 0; i < count; i++) keys[i] = events[i]! * count + i;
    keys.sort();
    const order = new Array<number>(count);
    for (let k = 0; k < count; k++) order[k] = keys[k]! % count;
    return order;
  }
  return Array.from({ length: count }, (_, i) => i).sort((a, b) => events[a]! - events[b]! || a - b);
}

/** Builds the result from the computation; reads holdings and freeze status from the provider where it can. */
export async function assembleTraceResult(
  computation: TraceComputation,
  context: {
    provider: ChainProvider;
    issuers: IssuerRegistry;
    signal: AbortSignal | undefined;
    fetchConcurrency: number;
  },
): Promise<TraceResult> {
  const { graph, state, ledger, sweep, request, labelsOf } = computation;
  const { provider, issuers, signal } = context;
  const network = request.network;
  const maxHops = request.max_hops;

  const sources = new Map<string, SourceEntry>();
  const chainSource = (ref: ChainRequestRef): string => {
    const source = chainRequestSource(ref);
    if (!sources.has(source.source_id)) sources.set(source.source_id, source);
    return source.source_id;
  };
  const graphSourceIds = graph.sources.map((ref) => chainSource(ref));
  sources.clear();
  // A graph source enters the manifest the first time a fact uses it (hashing it once, not per use).
  const graphSourceUsed = new Uint8Array(graph.sources.length);
  const usedGraphSource = (index: number): string => {
    if (graphSourceUsed[index] === 0) {
      graphSourceUsed[index] = 1;
      chainSource(graph.sources[index]!);
    }
    return graphSourceIds[index]!;
  };
  // Labels and issuer entries are hashed once per object, not on every fact that cites them.
  const labelSourceIds = new Map<AddressLabel, string>();
  const labelSource = (label: AddressLabel): string => {
    const known = labelSourceIds.get(label);
    if (known !== undefined) return known;
    const id = `src_${shortHash({ label: [label.network, label.address, label.entity, label.category, label.source] })}`;
    labelSourceIds.set(label, id);
    if (!sources.has(id)) {
      sources.set(id, {
        source_id: id,
        source_type: "label",
        title: `${label.entity} (${label.category}) from ${label.source.dataset}${label.note ? `: ${label.note}` : ""}`,
        uri: label.source.uri,
        hash: null,
        dataset: label.source.dataset,
        license: label.source.license,
        as_of: label.source.as_of,
        retrieved_at: label.source.retrieved_at,
        confidence: label.confidence,
        confidence_basis: label.confidence_basis,
      });
    }
    return id;
  };
  const issuerSourceIds = new Map<IssuerControls, string>();
  const issuerSource = (controls: IssuerControls): string => {
    const known = issuerSourceIds.get(controls);
    if (known !== undefined) return known;
    const id = `src_${shortHash({ issuer: [controls.network, controls.contract, controls.source] })}`;
    issuerSourceIds.set(controls, id);
    if (!sources.has(id)) {
      sources.set(id, {
        source_id: id,
        source_type: "issuer_registry",
        title: controls.source.title,
        uri: controls.source.uri,
        hash: null,
        as_of: controls.source.as_of,
      });
    }
    return id;
  };
  for (const subject of request.subjects) {
    for (const ref of subject.source_refs) {
      if (!sources.has(ref.source_id)) sources.set(ref.source_id, { ...ref, source_type: "case_document" });
    }
  }

  const assetInfo = graph.assets;
  const assetKeys = assetInfo.map((info) => assetKey(info));
  const keyOf = (asset: number) => assetKeys[asset]!;
  const amountIn = (asset: number, units: bigint): AssetAmount => ({
    asset: keyOf(asset),
    symbol: assetInfo[asset]!.symbol,
    ...toResultAmount(units, assetInfo[asset]!),
  });

  // Edges, in time order (graph event ids are time-ordered).
  const edgeOrder = timeOrderOf(sweep.edgeEvent);
  const edgeIdOf = new Array<string>(sweep.edgeEvent.length);
  const edges: TraceEdge[] = [];
  const edgeFinal = new Array<boolean>(sweep.edgeEvent.length);
  // Edges come in time order, so neighbours often share a block: its texts are made once per run of them.
  let textBlock = -1;
  let blockText = "";
  let textTime = -1;
  let timeText = "";
  for (const i of edgeOrder) {
    const e = sweep.edgeEvent[i]!;
    const { tx_index, event_index } = decodeSub(graph.sub[e]!);
    const txHash = graph.txHashOf(e);
    const sourceIndex = graph.sourceOf(e);
    const b = graph.block[e]!;
    if (b !== textBlock) {
      textBlock = b;
      blockText = String(b);
    }
    const t = graph.time[e]!;
    if (t !== textTime) {
      textTime = t;
      timeText = isoFromUnix(t);
    }
    // An event is final once its block is at or below the finalized block, whatever range the request covered.
    const finalized = b <= computation.finalizedBlock;
    const edgeId = `${txHash}:${event_index}`;
    edgeIdOf[i] = edgeId;
    edgeFinal[i] = finalized;
    const a = graph.asset[e]!;
    const asset = assetInfo[a]!;
    const units = amountOf(graph, e);
    const taintUnits = sweep.edgeTaint[i]!;
    const amount = toResultAmount(units, asset);
    edges.push({
      edge_id: edgeId,
      tx_hash: txHash,
      event_index,
      tx_index,
      block: blockText,
      block_time: timeText,
      from: graph.addressOf(graph.from[e]!),
      to: graph.addressOf(graph.to[e]!),
      asset: keyOf(a),
      amount,
      // Most edges are wholly tainted: the same texts, in an object of its own.
      tainted:
        taintUnits === units
          ? { base_units: amount.base_units, amount: amount.amount }
          : toResultAmount(taintUnits, asset),
      hop: sweep.edgeHop[i]!,
      finalized,
      source_refs: [usedGraphSource(sourceIndex)],
    });
  }

  // Flows: edges grouped by (from, to, asset).
  // Keyed by a number when (from, to, asset) fits in one exactly, else by text.
  const flowKeyIsNumber = graph.nodeCount * graph.nodeCount * Math.max(1, assetInfo.length) <= Number.MAX_SAFE_INTEGER;
  const flowMap = new Map<
    number | string,
    {
      from: number;
      to: number;
      asset: number;
      edgeCount: number;
      firstBlock: number;
      lastBlock: number;
      hop: number;
      edgeIds: string[];
      amount: bigint;
      tainted: bigint;
    }
  >();
  for (let k = 0; k < edgeOrder.length; k++) {
    const i = edgeOrder[k]!;
    const e = sweep.edgeEvent[i]!;
    const a = graph.asset[e]!;
    const from = graph.from[e]!;
    const to = graph.to[e]!;
    const key = flowKeyIsNumber ? (from * graph.nodeCount + to) * assetInfo.length + a : `${from}|${to}|${a}`;
    let entry = flowMap.get(key);
    if (!entry) {
      entry = {
        from,
        to,
        asset: a,
        edgeCount: 0,
        firstBlock: graph.block[e]!,
        lastBlock: graph.block[e]!,
        hop: sweep.edgeHop[i]!,
        edgeIds: [],
        amount: 0n,
        tainted: 0n,
      };
      flowMap.set(key, entry);
    }
    entry.edgeCount++;
    entry.amount += amountOf(graph, e);
    entry.tainted += sweep.edgeTaint[i]!;
    entry.lastBlock = graph.block[e]!;
    entry.hop = Math.min(entry.hop, sweep.edgeHop[i]!);
    entry.edgeIds.push(edgeIdOf[i]!);
  }
  const flows: TraceFlow[] = [];
  for (const entry of flowMap.values()) {
    const info = assetInfo[entry.asset]!;
    flows.push({
      from: graph.addressOf(entry.from),
      to: graph.addressOf(entry.to),
      asset: keyOf(entry.asset),
      edge_count: entry.edgeCount,
      amount: toResultAmount(entry.amount, info),
      tainted: toResultAmount(entry.tainted, info),
      first_block: String(entry.firstBlock),
      last_block: String(entry.lastBlock),
      hop: entry.hop,
      edge_ids: entry.edgeIds,
    });
  }
  flows.sort(
    (a, b) => a.hop - b.hop || compareText(a.from, b.from) || compareText(a.to, b.to) || compareText(a.asset, b.asset),
  );

  // Edges into each address (for source refs and terminal evidence).
  const edgesInto = new Map<number, number[]>();
  const edgesFrom = new Map<number, number[]>();
  for (const i of edgeOrder) {
    const e = sweep.edgeEvent[i]!;
    const t = graph.to[e]!;
    const list = edgesInto.get(t);
    if (list) list.push(i);
    else edgesInto.set(t, [i]);
    const f = graph.from[e]!;
    if ((state.flags[f]! & NODE_SUBJECT) === 0) continue;
    const sent = edgesFrom.get(f);
    if (sent) sent.push(i);
    else edgesFrom.set(f, [i]);
  }
  /**
   * The edges that brought taint from a subject to edge `last`, and `last`. Each edge's sender is
   * reached by the first edge into it at one hop fewer that came before it, so the path runs forward
   * in time: an address's fewest hops can fall after it sent funds on, and its own fewest-hop edge would
   * then explain an earlier transfer with a later one. `pathTo(node)` ends with the edge that gave the
   * node its fewest hops.
   */
  const pathEndingWith = (last: number): number[] => {
    const path: number[] = [];
    let edge = last;
    while (edge >= 0) {
      path.push(edge);
      const hop = sweep.edgeHop[edge]!;
      if (hop <= 1) break;
      const event = sweep.edgeEvent[edge]!;
      // Edges into an address come in time order: if its first at one hop fewer is not earlier, none is.
      const earliest = firstIntoAtHop(graph.from[event]!)[hop - 1]!;
      edge = earliest >= 0 && sweep.edgeEvent[earliest]! < event ? earliest : -1;
    }
    return path.reverse();
  };
  /** The first edge into `node` at each hop (−1 for none), built when a path first passes through it. */
  const firstIntoByHop = new Map<number, Int32Array>();
  const firstIntoAtHop = (node: number): Int32Array => {
    let first = firstIntoByHop.get(node);
    if (!first) {
      first = new Int32Array(maxHops + 1).fill(-1);
      for (const edge of edgesInto.get(node) ?? []) {
        const hop = sweep.edgeHop[edge]!;
        if (first[hop] === -1) first[hop] = edge;
      }
      firstIntoByHop.set(node, first);
    }
    return first;
  };
  const pathTo = (node: number): number[] => pathEndingWith(sweep.parentEdge[node]!);
  /**
   * An address's ledger is open when the trace followed its funds: a subject discovery expanded, or an
   * address taint reached at fewer hops than the limit (the sweep's rule), from the edge that reached it.
   */
  const isOpen = (node: number): boolean =>
    (state.flags[node]! & NODE_SUBJECT) !== 0 ? (state.flags[node]! & NODE_EXPANDED) !== 0 : sweep.openEdge[node]! >= 0;
  /**
   * When the trace met a wallet, and its labels are read as of: the first tainted edge into it, the
   * moment both engines decide what it is (`decideLabel`); a subject, when it was traced.
   */
  const tracedAt = Math.floor(Date.parse(request.traced_at) / 1000);
  const metAt = (node: number): number => {
    if ((state.flags[node]! & NODE_SUBJECT) !== 0) return tracedAt;
    const first = edgesInto.get(node)?.[0];
    return first === undefined ? tracedAt : graph.time[sweep.edgeEvent[first]!]!;
  };
  const edgeSourceIds = (indices: number[]): string[] =>
    [...new Set(indices.map((i) => usedGraphSource(graph.sourceOf(sweep.edgeEvent[i]!))))].sort();
  /** The case documents the request named for a subject, by source id. */
  const caseRefsOf = (address: string): string[] =>
    request.subjects.find((s) => s.address === address)?.source_refs.map((ref) => ref.source_id) ?? [];
  /** Whether a budget or the deadline cut the trace off before it read a subject. */
  const subjectCutOff = (node: number | undefined): boolean =>
    node === undefined
      ? state.truncation.has("deadline")
      : !isOpen(node) && ((state.flags[node]! & NODE_SKIPPED) !== 0 || state.truncation.has("deadline"));
  /** Why a subject has no ledger: a budget or the deadline cut the trace first, or it had nothing to read. */
  const unexpandedSubjectReason = (node: number | undefined): string =>
    node !== undefined && subjectCutOff(node) ? CUT_OFF_REASON : "no transfers of the subject were read in the window";

  // Per-node received and retained amounts.
  const assetCount = Math.max(1, assetInfo.length);
  const receivedSums = new Array<bigint | undefined>(assetCount);
  const receivedOf = (node: number): AssetAmount[] => {
    const out: AssetAmount[] = [];
    receivedSums.fill(undefined);
    for (const i of edgesInto.get(node) ?? []) {
      const a = graph.asset[sweep.edgeEvent[i]!]!;
      receivedSums[a] = (receivedSums[a] ?? 0n) + sweep.edgeTaint[i]!;
    }
    for (let a = 0; a < assetCount; a++) {
      const units = receivedSums[a];
      if (units !== undefined) out.push(amountIn(a, units));
    }
    return byAsset(out);
  };
  // Ledger entries of a wallet as [asset, entry id] by asset key (each (address, asset) has at most one).
  const assetsByKey = assetInfo.map((_, a) => a).sort((x, y) => compareText(keyOf(x), keyOf(y)));
  const entriesOf = (node: number): Array<[number, number]> => {
    const entries: Array<[number, number]> = [];
    for (const a of assetsByKey) {
      const id = sweep.entryOf(node, a);
      if (id !== undefined) entries.push([a, id]);
    }
    return entries;
  };
  /** The provider reads that gave a wallet's ledger entries their opening balances (a provider's trace). */
  const openingSourceIds = (node: number): string[] => {
    const openingSourceOf = computation.openingSourceOf;
    if (!openingSourceOf) return [];
    return entriesOf(node).flatMap(([a]) => {
      const ref = openingSourceOf(node, a);
      return ref ? [chainSource(ref)] : [];
    });
  };

  // Exchange hypotheses and which addresses are deposit addresses.
  const depositOf = new Map<number, string>();
  type Draft = Omit<ExchangeHypothesis, "hypothesis_id"> & { node: number };
  const drafts: Draft[] = [];
  /** Deposit addresses that already have a deposit_address_sweep draft. */
  const sweepDrafted = new Set<number>();
  const terminals: TraceTerminal[] = [];
  // Addresses taint reached (hopNow set: the subjects and every edge's receiver), in node order.
  const reachedNodes: number[] = [];
  for (const subject of request.subjects) {
    const node = graph.nodeOf(subject.address);
    if (node !== undefined && sweep.hopNow[node] !== UNREACHED) reachedNodes.push(node);
  }
  for (const e of sweep.edgeEvent) reachedNodes.push(graph.to[e]!);
  reachedNodes.sort((a, b) => a - b);
  const terminalNodes: number[] = [];
  const walletNodes: number[] = [];
  for (let i = 0; i < reachedNodes.length; i++) {
    const node = reachedNodes[i]!;
    if (i > 0 && node === reachedNodes[i - 1]) continue;
    if (endsTrace(state.flags[node]!, sweep.hopNow[node]!, maxHops)) terminalNodes.push(node);
    else walletNodes.push(node);
  }
  for (const node of terminalNodes) {
    const label = state.labelOf.get(node) ?? null;
    const into = edgesInto.get(node) ?? [];
    const isHub = (state.flags[node]! & NODE_HUB) !== 0;
    const received: AssetAmount[] = [];
    for (let a = 0; a < assetCount; a++) {
      const units = sweep.receivedBy.get(node * assetCount + a);
      if (units !== undefined) received.push(amountIn(a, units));
    }
    const refs = [...edgeSourceIds(into), ...(label && !isHub ? [labelSource(label)] : [])].sort();
    terminals.push({
      address: graph.addressOf(node),
      category: isHub ? "unlabeled_hub" : label!.category,
      entity: isHub ? null : label!.entity,
      label_confidence: isHub ? null : label!.confidence,
      hop: sweep.hopNow[node]!,
      received: byAsset(received),
      edge_ids: into.map((i) => edgeIdOf[i]!),
      source_refs: refs,
    });
    if (!request.include_exchanges) continue;
    if (isHub) {
      const path = pathTo(node);
      drafts.push({
        node,
        exchange: null,
        wallet: graph.addressOf(node),
        basis: "behavioral_only",
        confidence: "low",
        packet_readiness: "insufficient",
        readiness_reasons: [],
        label_confidence: null,
        path_confidence: 1,
        received: byAsset(received),
        path_edge_ids: path.map((i) => edgeIdOf[i]!),
        sweep: null,
        source_refs: edgeSourceIds(path),
      });
      continue;
    }
    if (label!.category !== "exchange" && label!.category !== "exchange_deposit") continue;
    const direct: number[] = [];
    const bySender = new Map<number, number[]>();
    for (const i of into) {
      const sender = graph.from[sweep.edgeEvent[i]!]!;
      const list = bySender.get(sender);
      if (list) list.push(i);
      else bySender.set(sender, [i]);
    }
    for (const [sender, list] of bySender) {
      const senderIsPlain =
        (state.flags[sender]! & NODE_SUBJECT) === 0 &&
        isOpen(sender) &&
        labelsValidAt(labelsOf(sender), metAt(sender)).length === 0;
      const evidence =
        senderIsPlain && label!.category === "exchange"
          ? checkDepositSweep({
              graph,
              node: sender,
              fromEvent: sweep.edgeEvent[sweep.openEdge[sender]!]!,
              entity: label!.entity,
              labelsOf,
              openingOf: (a) => {
                const entry = sweep.entryOf(sender, a);
                return entry === undefined ? null : sweep.openingOf(entry);
              },
              windowSeconds: request.sweep_window_seconds,
              nativeGasAllowance: request.native_gas_allowance,
              lastBlock: computation.toBlock,
            })
          : null;
      if (!evidence) {
        direct.push(...list);
        continue;
      }
      depositOf.set(sender, label!.entity);
      if (sweepDrafted.has(sender)) continue;
      sweepDrafted.add(sender);
      // To the transfer the sweep rule was read from, so the sweeps that follow come after it.
      const path = pathEndingWith(sweep.openEdge[sender]!);
      const sweepEdgeIds = evidence.sweep_events.map((e) => {
        const { event_index } = decodeSub(graph.sub[e]!);
        return `${graph.txHashOf(e)}:${event_index}`;
      });
      const sweepSources = [...new Set(evidence.sweep_events.map((e) => usedGraphSource(graph.sourceOf(e))))];
      const exact = evidence.assets.every((asset) => asset.exact);
      const sweptTo = [...new Set(evidence.sweep_events.map((e) => graph.addressOf(graph.to[e]!)))].sort();
      const confidence = scoreHypothesis("deposit_address_sweep", label!.confidence, 1, exact);
      const pathFinal =
        path.every((i) => edgeFinal[i]) &&
        evidence.sweep_events.every((e) => graph.block[e]! <= computation.finalizedBlock);
      const readiness = assessReadiness({
        basis: "deposit_address_sweep",
        confidence,
        pathFinal,
        label,
        providerKind: provider.kind,
      });
      drafts.push({
        node: sender,
        exchange: label!.entity,
        wallet: graph.addressOf(sender),
        basis: "deposit_address_sweep",
        confidence,
        packet_readiness: readiness.readiness,
        readiness_reasons: readiness.reasons,
        label_confidence: label!.confidence,
        path_confidence: 1,
        received: receivedOf(sender),
        path_edge_ids: [...path.map((i) => edgeIdOf[i]!), ...sweepEdgeIds],
        sweep: {
          swept_to: sweptTo,
          assets: evidence.assets
            .map((asset) => ({
              asset: keyOf(asset.asset),
              inflows: asset.inflows,
              outflows: asset.outflows,
              received: toResultAmount(asset.received, assetInfo[asset.asset]!),
              swept: toResultAmount(asset.swept, assetInfo[asset.asset]!),
              exact: asset.exact,
              longest_delay_seconds: asset.longest_delay_seconds,
            }))
            .sort((a, b) => compareText(a.asset, b.asset)),
          gas_funded_by_exchange: evidence.gas_funded_by_exchange,
        },
        source_refs: [...new Set([...edgeSourceIds(path), ...sweepSources, labelSource(label!)])].sort(),
      });
    }
    if (direct.length > 0) {
      const path = pathTo(node);
      const confidence = scoreHypothesis("labeled_service_address", label!.confidence, 1, true);
      const readiness = assessReadiness({
        basis: "labeled_service_address",
        confidence,
        pathFinal: path.every((i) => edgeFinal[i]) && direct.every((i) => edgeFinal[i]),
        label,
        providerKind: provider.kind,
      });
      const directReceived = new Map<number, bigint>();
      for (const i of direct) {
        const a = graph.asset[sweep.edgeEvent[i]!]!;
        directReceived.set(a, (directReceived.get(a) ?? 0n) + sweep.edgeTaint[i]!);
      }
      drafts.push({
        node,
        exchange: label!.entity,
        wallet: graph.addressOf(node),
        basis: "labeled_service_address",
        confidence,
        packet_readiness: readiness.readiness,
        readiness_reasons: readiness.reasons,
        label_confidence: label!.confidence,
        path_confidence: 1,
        received: byAsset([...directReceived].map(([a, units]) => amountIn(a, units))),
        path_edge_ids: path.map((i) => edgeIdOf[i]!),
        sweep: null,
        source_refs: [...new Set([...edgeSourceIds([...path, ...direct]), labelSource(label!)])].sort(),
      });
    }
  }
  const basisRank: Record<HypothesisBasis, number> = {
    labeled_service_address: 0,
    deposit_address_sweep: 1,
    behavioral_only: 2,
  };
  const exchangeHypotheses: ExchangeHypothesis[] = drafts
    .sort(
      (a, b) =>
        basisRank[a.basis] - basisRank[b.basis] ||
        compareText(a.exchange ?? "", b.exchange ?? "") ||
        compareText(a.wallet, b.wallet),
    )
    .map(({ node: _node, ...draft }) => ({
      hypothesis_id: `hyp_${shortHash({ network, basis: draft.basis, exchange: draft.exchange, wallet: draft.wallet })}`,
      ...draft,
    }));

  // Wallets: subjects, then every non-terminal address taint reached.
  const wallets: TraceWallet[] = [];
  const subjectSet = new Set(request.subjects.map((s) => s.address));
  const retainedOf = new Map<number, Array<[number, bigint]>>();
  for (const node of walletNodes) {
    const address = graph.addressOf(node);
    const f = state.flags[node]!;
    const isSubject = (f & NODE_SUBJECT) !== 0;
    const open = isOpen(node);
    const role: WalletRole = isSubject
      ? "subject"
      : depositOf.has(node)
        ? "exchange_deposit"
        : open
          ? "intermediary"
          : sweep.hopNow[node]! >= maxHops
            ? "frontier"
            : "unexplored";
    const entries = open ? entriesOf(node) : [];
    const retainedList: Array<[number, bigint]> = entries
      .map(([a, id]): [number, bigint] => [a, ledger.taintHeld(id)])
      .filter(([, units]) => units > 0n);
    retainedOf.set(node, retainedList);
    const into = edgesInto.get(node) ?? [];
    const labels = labelsValidAt(labelsOf(node), metAt(node))
      .map((label) => ({
        entity: label.entity,
        category: label.category,
        confidence: label.confidence,
        source_refs: [labelSource(label)],
      }))
      .sort((a, b) => compareText(a.category, b.category) || compareText(a.entity, b.entity));
    const caseRefs = isSubject ? caseRefsOf(address) : [];
    let retainedReason: string | null = null;
    if (!open) {
      retainedReason =
        role === "frontier"
          ? `not expanded: reached at the hop limit (${maxHops})`
          : isSubject
            ? unexpandedSubjectReason(node)
            : CUT_OFF_REASON;
    }
    wallets.push({
      wallet_id: `wal_${shortHash({ network, address })}`,
      address,
      network,
      role,
      hop: isSubject ? 0 : sweep.hopNow[node]!,
      confidence: "high",
      path_confidence: 1,
      labels,
      received: receivedOf(node),
      retained: open ? retainedList.map(([a, units]) => amountIn(a, units)) : null,
      retained_reason: retainedReason,
      opening_balance_unknown: entries.filter(([, id]) => sweep.openingOf(id) === null).map(([a]) => keyOf(a)),
      shortfall: entries
        .map(([a, id]): [number, bigint] => [a, ledger.shortfallOf(id)])
        .filter(([, units]) => units > 0n)
        .map(([a, units]) => amountIn(a, units)),
      source_refs: [...new Set([...caseRefs, ...edgeSourceIds(into), ...openingSourceIds(node)])].sort(),
    });
  }
  const walletSet = new Set(walletNodes);
  for (const subject of request.subjects) {
    const node = graph.nodeOf(subject.address);
    if (node !== undefined && walletSet.has(node)) continue;
    wallets.push({
      wallet_id: `wal_${shortHash({ network, address: subject.address })}`,
      address: subject.address,
      network,
      role: "subject",
      hop: 0,
      confidence: "high",
      path_confidence: 1,
      labels: [],
      received: [],
      retained: null,
      retained_reason: unexpandedSubjectReason(node),
      opening_balance_unknown: [],
      shortfall: [],
      source_refs: subject.source_refs.map((ref) => ref.source_id).sort(),
    });
  }
  const roleRank: Record<WalletRole, number> = {
    subject: 0,
    intermediary: 1,
    exchange_deposit: 1,
    frontier: 2,
    unexplored: 3,
  };
  wallets.sort((a, b) => a.hop - b.hop || roleRank[a.role] - roleRank[b.role] || compareText(a.address, b.address));
  terminals.sort((a, b) => a.hop - b.hop || compareText(a.address, b.address));

  // Exposures: tainted value retained by expanded wallets, or received by wallets not expanded.
  const traced: Array<{ node: number; asset: number; units: bigint; basis: "retained" | "received" }> = [];
  for (const node of walletNodes) {
    if (isOpen(node)) {
      for (const [a, units] of retainedOf.get(node)!) traced.push({ node, asset: a, units, basis: "retained" });
    }
    // Taint no ledger of the wallet took: all it received if it was not expanded, and, if it was, what
    // reached it before (at the hop limit, or as a subject before its incident block).
    for (let a = 0; a < assetCount; a++) {
      const units = sweep.receivedBy.get(node * assetCount + a);
      if (units !== undefined && units > 0n) traced.push({ node, asset: a, units, basis: "received" });
    }
  }
  /**
   * What a holding rests on: the transfers that brought taint to the wallet, and for a subject its case
   * documents and the transfers it sent on (a subject's holding is counted from its incident block, so
   * what it sent out is what shows it was read).
   */
  const holdingSourceIds = (node: number): string[] => {
    const refs = [...edgeSourceIds(edgesInto.get(node) ?? []), ...openingSourceIds(node)];
    if ((state.flags[node]! & NODE_SUBJECT) === 0) return [...new Set(refs)].sort();
    const sent = edgeSourceIds(edgesFrom.get(node) ?? []);
    return [...new Set([...refs, ...sent, ...caseRefsOf(graph.addressOf(node))])].sort();
  };
  const lastBlock = BigInt(computation.toBlock);
  // And what each subject the trace read holds of an issuer's token the trace did not follow: read from the chain.
  const assetIndexOf = new Map(assetInfo.map((info, a) => [info.contract, a]));
  const held = request.include_stablecoins
    ? await readHeldStablecoins({
        provider,
        issuers,
        network,
        subjects: request.subjects
          .map((subject) => subject.address)
          .filter((address) => !subjectCutOff(graph.nodeOf(address))),
        traced: (address, contract) => {
          const node = graph.nodeOf(address);
          const a = assetIndexOf.get(contract);
          if (node === undefined || a === undefined) return false;
          return sweep.entryOf(node, a) !== undefined || (sweep.receivedBy.get(node * assetCount + a) ?? 0n) > 0n;
        },
        knownAssets: assetInfo,
        lastBlock,
        concurrency: context.fetchConcurrency,
        signal,
      })
    : [];
  const holdings: Array<{
    wallet: string;
    info: AssetRef;
    units: bigint;
    basis: TokenExposure["basis"];
    sourceIds: () => string[];
    /** The balance read at the last block a `held` holding is, read once. */
    read?: AmountFact;
  }> = [
    ...traced.map(({ node, asset, units, basis }) => ({
      wallet: graph.addressOf(node),
      info: assetInfo[asset]!,
      units,
      basis,
      sourceIds: () => holdingSourceIds(node),
    })),
    ...held.map(({ address, asset, fact }) => ({
      wallet: address,
      info: asset,
      units: fact.amount,
      basis: "held" as const,
      sourceIds: () => [...new Set([...caseRefsOf(address), chainSource(fact.source_ref)])].sort(),
      read: fact,
    })),
  ];
  holdings.sort(
    (x, y) =>
      compareText(x.wallet, y.wallet) ||
      compareText(assetKey(x.info), assetKey(y.info)) ||
      compareText(x.basis, y.basis),
  );
  const tokenExposures: TokenExposure[] = holdings.map(({ wallet, info, units, basis, sourceIds }) => {
    const key = assetKey(info);
    const price = request.prices[key];
    const usd =
      price && info.decimals !== null
        ? { usd_value: valueInUsd(units, info.decimals, price), usd_value_reason: null }
        : {
            usd_value: null,
            usd_value_reason: price ? "the token's decimals are unknown" : "no price source was given for this asset",
          };
    return {
      asset: key,
      symbol: info.symbol,
      network,
      wallet,
      amount: toResultAmount(units, info),
      basis,
      ...usd,
      source_refs: sourceIds(),
    };
  });

  const stableHoldings = request.include_stablecoins
    ? holdings.flatMap((holding) => {
        const { contract } = holding.info;
        const controls = contract === null ? null : issuers.controlsFor(network, contract);
        return controls ? [{ ...holding, controls }] : [];
      })
    : [];
  const stablecoinExposures = await inBatches(stableHoldings, context.fetchConcurrency, async (holding) => {
    signal?.throwIfAborted();
    const { wallet: address, info, units, basis, controls } = holding;
    let balance: StablecoinExposure["balance"] = null;
    let balanceReason: string | null = null;
    if (provider.balanceAt) {
      const read = holding.read ?? (await provider.balanceAt(address, info, lastBlock, signal));
      const fact = usableBalance(read);
      if (fact) {
        balance = {
          amount: toResultAmount(fact.amount, info),
          block: lastBlock.toString(),
          source_refs: [chainSource(fact.source_ref)],
        };
      } else if (read)
        balanceReason = "the provider read a balance below zero at the last block, which no address holds";
      else balanceReason = "the provider could not read the balance at the last block";
    } else balanceReason = "the provider does not read balances";
    let frozen: boolean | null = null;
    let frozenReason: string | null = null;
    let frozenRefs: string[] = [];
    if (controls.freeze_check === null) frozenReason = "the token has no on-chain freeze list";
    else if (!provider.freezeStatus) frozenReason = "the provider cannot read freeze lists";
    else {
      const fact = await provider.freezeStatus(controls.contract, address, controls.freeze_check, lastBlock, signal);
      frozen = fact.frozen;
      frozenReason = fact.reason;
      frozenRefs = [chainSource(fact.source_ref)];
    }
    return {
      issuer: controls.issuer,
      asset: assetKey(info),
      symbol: controls.symbol,
      network,
      wallet: address,
      amount: toResultAmount(units, info),
      basis,
      balance,
      balance_reason: balanceReason,
      frozen,
      frozen_reason: frozenReason,
      frozen_source_refs: frozenRefs,
      freeze_capability_notes: describeFreezeCapability(controls),
      remediation_candidates: controls.remediation.map((action) => ({ action, review_required: true as const })),
      review_required: true as const,
      source_refs: [...new Set([...holding.sourceIds(), issuerSource(controls)])].sort(),
    } satisfies StablecoinExposure;
  });

  // Conservation ledger per asset.
  const retainedTotals = new Array<bigint>(assetCount).fill(0n);
  for (let id = 0; id < sweep.entryAsset.length; id++) retainedTotals[sweep.entryAsset[id]!]! += ledger.taintHeld(id);
  const conserved = request.taint_model !== "poison";
  const totals: AssetTotals[] = sweep.totals
    .map((t, a) => ({ t, a }))
    .filter(({ a }) => a < assetInfo.length)
    .filter(({ t, a }) => t.subjectTaint > 0n || retainedTotals[a]! > 0n || t.toTerminals > 0n)
    .map(({ t, a }) => {
      const info = assetInfo[a]!;
      return {
        asset: keyOf(a),
        symbol: info.symbol,
        subject_taint: toResultAmount(t.subjectTaint, info),
        to_terminals: toResultAmount(t.toTerminals, info),
        retained: toResultAmount(retainedTotals[a]!, info),
        at_hop_limit: toResultAmount(t.atHopLimit, info),
        dust_dropped: { ...toResultAmount(t.dust, info), edges: t.dustEdges },
        unexplored: toResultAmount(t.unexplored, info),
        conserved,
      };
    })
    .sort((x, y) => compareText(x.asset, y.asset));

  const referencedAssets = new Map<string, AssetRef>();
  const refer = (info: AssetRef) => referencedAssets.set(assetKey(info), info);
  for (const e of sweep.edgeEvent) refer(assetInfo[graph.asset[e]!]!);
  for (const h of holdings) refer(h.info);
  for (const t of totals) {
    const info = assetInfo.find((candidate) => assetKey(candidate) === t.asset);
    if (info) refer(info);
  }
  const assets: TraceAsset[] = [...referencedAssets]
    .map(([asset, info]) => ({
      asset,
      kind: info.kind,
      contract: info.contract,
      symbol: info.symbol,
      decimals: info.decimals,
    }))
    .sort((x, y) => compareText(x.asset, y.asset));

  const fromBlock = Math.min(...request.subjects.map((s) => s.incident_block));
  return {
    object: "crypto_trace",
    chain: network,
    source: provider.kind,
    provider: provider.name,
    traced_at: request.traced_at,
    block_range: {
      from: String(fromBlock),
      to: String(computation.toBlock),
      finalized_through: String(Math.min(computation.finalizedBlock, computation.toBlock)),
    },
    hops: edges.reduce((max, edge) => Math.max(max, edge.hop), 0),
    max_hops: maxHops,
    subjects: [...subjectSet].sort(),
    wallets,
    edges,
    flows,
    terminals,
    edge_count: edges.length,
    node_count: wallets.length + terminals.length,
    exchange_hypotheses: exchangeHypotheses,
    token_exposures: tokenExposures,
    stablecoin_exposures: stablecoinExposures,
    assets,
    totals,
    taint_model: {
      name: request.taint_model,
      subject_taint: "all_holdings",
      amounts: conserved ? "conserved" : "reach_only",
      description: MODEL_DESCRIPTIONS[request.taint_model],
    },
    min_value: {
      default: request.min_value_default.toString(),
      per_asset: Object.fromEntries(
        Object.entries(request.min_value_per_asset)
          .sort(([a], [b]) => compareText(a, b))
          .map(([key, value]) => [key, value.toString()]),
      ),
    },
    budget: {
      ...computation.budget,
      expansions: state.expansions,
      edges_read: state.edgesAdmitted,
    },
    truncated: computation.truncation.length > 0,
    truncation: computation.truncation,
    sources: [...sources.values()].sort((a, b) => compareText(a.source_id, b.source_id)),
  };
}
