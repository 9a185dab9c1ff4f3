import { hashCanonical } from "../../../src/hashing";
import { assetKey, type ResultAmount, toResultAmount, valueInUsd } from "../../../src/tracing/amounts";
import type { TraceComputation } from "../../../src/tracing/computation";
import { readHeldStablecoins } from "../../../src/tracing/held-stablecoins";
import {
  assessReadiness,
  type Confidence,
  checkDepositSweep,
  type HypothesisBasis,
  type PacketReadiness,
  scoreHypothesis,
} from "../../../src/tracing/hypotheses";
import {
  describeFreezeCapability,
  type IssuerControls,
  type IssuerRegistry,
} from "../../../src/tracing/issuer-registry";
import { compareText, labelsValidAt } from "../../../src/tracing/labels";
import { endsTrace } from "../../../src/tracing/sweep";
import type { TaintModel } from "../../../src/tracing/taint";
import { amountOf, decodeSub } from "../../../src/tracing/transfer-graph";
import type {
  AddressLabel,
  AssetRef,
  ChainProvider,
  ChainRequestRef,
  LabelCategory,
  Network,
} from "../../../src/tracing/types";
import { NODE_EXPANDED, NODE_HUB, NODE_SKIPPED, NODE_SUBJECT, UNREACHED } from "./discovery";

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
  /** `retained`: still held by an expanded address; `received`: arrived at an address that was not expanded. */
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
  basis: "retained" | "received" | "held";
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
  /** Subject holdings at the incident block plus everything the subjects received after. */
  subject_taint: ResultAmount;
  to_terminals: ResultAmount;
  retained: ResultAmount;
  /** Reached a wallet at max_hops whose outflows were not followed. */
  at_hop_limit: ResultAmount;
  dust_dropped: ResultAmount & { edges: number };
  /** Reached addresses a budget or the deadline left unexpanded. */
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
  truncation: Array<{ reason: string; detail: string }>;
  sources: SourceEntry[];
}

const MODEL_DESCRIPTIONS: Record<TaintModel, string> = {
  fifo: "first in, first out per address and asset; the opening balance leaves first",
  haircut: "each outflow carries the address's tainted share of its balance",
  poison: "every outflow after taint arrives counts as tainted: reach only, amounts over-count",
};

function shortHash(value: unknown): string {
  return hashCanonical(value).slice(0, 20);
}

function byAsset(amounts: AssetAmount[]): AssetAmount[] {
  return amounts.sort((a, b) => compareText(a.asset, b.asset));
}

function isoFromUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

async function inBatches<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    out.push(...(await Promise.all(items.slice(start, start + size).map(run))));
  }
  return out;
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
    const id = `src_${shortHash({ provider: ref.provider, request_hash: ref.request_hash })}`;
    if (!sources.has(id)) {
      sources.set(id, {
        source_id: id,
        source_type: "chain_request",
        title: `${ref.provider} ${ref.method}${ref.block_range ? ` blocks ${ref.block_range[0]}-${ref.block_range[1]}` : ""}`,
        uri: ref.uri,
        hash: ref.request_hash,
        provider: ref.provider,
        method: ref.method,
        block_range: ref.block_range,
        fetched_at: ref.fetched_at,
        finalized: ref.finalized,
      });
    }
    return id;
  };
  const graphSourceIds = graph.sources.map((ref) => chainSource(ref));
  sources.clear();
  const usedGraphSource = (index: number): string => {
    const ref = graph.sources[index]!;
    chainSource(ref);
    return graphSourceIds[index]!;
  };
  const labelSource = (label: AddressLabel): string => {
    const id = `src_${shortHash({ label: [label.network, label.address, label.entity, label.category, label.source] })}`;
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
  const issuerSource = (controls: IssuerControls): string => {
    const id = `src_${shortHash({ issuer: [controls.network, controls.contract, controls.source] })}`;
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
  const keyOf = (asset: number) => assetKey(assetInfo[asset]!);
  const amountIn = (asset: number, units: bigint): AssetAmount => ({
    asset: keyOf(asset),
    symbol: assetInfo[asset]!.symbol,
    ...toResultAmount(units, assetInfo[asset]!),
  });

  // Edges, in time order (graph event ids are time-ordered).
  const edgeOrder = Array.from({ length: sweep.edgeEvent.length }, (_, i) => i).sort(
    (a, b) => sweep.edgeEvent[a]! - sweep.edgeEvent[b]! || a - b,
  );
  const edgeIdOf = new Array<string>(sweep.edgeEvent.length);
  const edges: TraceEdge[] = [];
  const edgeFinal = new Array<boolean>(sweep.edgeEvent.length);
  for (const i of edgeOrder) {
    const e = sweep.edgeEvent[i]!;
    const { tx_index, event_index } = decodeSub(graph.sub[e]!);
    const txHash = graph.txHashOf(e);
    const sourceIndex = graph.sourceOf(e);
    // An event is final once its block is at or below the finalized block, whatever range the request covered.
    const finalized = graph.block[e]! <= computation.finalizedBlock;
    const edgeId = `${txHash}:${event_index}`;
    edgeIdOf[i] = edgeId;
    edgeFinal[i] = finalized;
    const asset = assetInfo[graph.asset[e]!]!;
    edges.push({
      edge_id: edgeId,
      tx_hash: txHash,
      event_index,
      tx_index,
      block: String(graph.block[e]!),
      block_time: isoFromUnix(graph.time[e]!),
      from: graph.addressOf(graph.from[e]!),
      to: graph.addressOf(graph.to[e]!),
      asset: assetKey(asset),
      amount: toResultAmount(amountOf(graph, e), asset),
      tainted: toResultAmount(sweep.edgeTaint[i]!, asset),
      hop: sweep.edgeHop[i]!,
      finalized,
      source_refs: [usedGraphSource(sourceIndex)],
    });
  }

  // Flows: edges grouped by (from, to, asset).
  const flowMap = new Map<string, { flow: TraceFlow; amount: bigint; tainted: bigint; asset: number }>();
  for (const i of edgeOrder) {
    const e = sweep.edgeEvent[i]!;
    const a = graph.asset[e]!;
    const key = `${graph.from[e]}|${graph.to[e]}|${a}`;
    let entry = flowMap.get(key);
    if (!entry) {
      entry = {
        flow: {
          from: graph.addressOf(graph.from[e]!),
          to: graph.addressOf(graph.to[e]!),
          asset: keyOf(a),
          edge_count: 0,
          amount: { base_units: "0", amount: null },
          tainted: { base_units: "0", amount: null },
          first_block: String(graph.block[e]!),
          last_block: String(graph.block[e]!),
          hop: sweep.edgeHop[i]!,
          edge_ids: [],
        },
        amount: 0n,
        tainted: 0n,
        asset: a,
      };
      flowMap.set(key, entry);
    }
    entry.flow.edge_count++;
    entry.amount += amountOf(graph, e);
    entry.tainted += sweep.edgeTaint[i]!;
    entry.flow.last_block = String(graph.block[e]!);
    entry.flow.hop = Math.min(entry.flow.hop, sweep.edgeHop[i]!);
    entry.flow.edge_ids.push(edgeIdOf[i]!);
  }
  const flows = [...flowMap.values()].map(({ flow, amount, tainted, asset }) => ({
    ...flow,
    amount: toResultAmount(amount, assetInfo[asset]!),
    tainted: toResultAmount(tainted, assetInfo[asset]!),
  }));
  flows.sort(
    (a, b) => a.hop - b.hop || compareText(a.from, b.from) || compareText(a.to, b.to) || compareText(a.asset, b.asset),
  );

  // Edges into each address (for source refs and terminal evidence).
  const edgesInto = new Map<number, number[]>();
  for (const i of edgeOrder) {
    const t = graph.to[sweep.edgeEvent[i]!]!;
    const list = edgesInto.get(t);
    if (list) list.push(i);
    else edgesInto.set(t, [i]);
  }
  // A rule fixed since this copy was taken, applied here as in the engine: a path runs forward in time.
  const pathEndingWith = (last: number): number[] => {
    const path: number[] = [];
    let edge = last;
    while (edge >= 0) {
      path.push(edge);
      const hop = sweep.edgeHop[edge]!;
      if (hop <= 1) break;
      const event = sweep.edgeEvent[edge]!;
      const into = edgesInto.get(graph.from[event]!) ?? [];
      edge = into.find((earlier) => sweep.edgeHop[earlier] === hop - 1 && sweep.edgeEvent[earlier]! < event) ?? -1;
    }
    return path.reverse();
  };
  const pathTo = (node: number): number[] => pathEndingWith(sweep.parentEdge[node]!);
  /**
   * An address's ledger is open when the trace followed its funds: a subject discovery expanded, or an
   * address taint reached at fewer hops than the limit (the sweep's rule), from the edge that reached it.
   */
  const isOpen = (node: number): boolean =>
    (state.flags[node]! & NODE_SUBJECT) !== 0 ? (state.flags[node]! & NODE_EXPANDED) !== 0 : sweep.openEdge[node]! >= 0;
  /** When the trace first met a wallet (its labels are read as of then): the edge that opened it, else the first edge into it. */
  // Labels as of the first tainted edge into a wallet, a subject's as of the trace (the rule since labels
  // can hold for a time only; see decideLabel in sweep.ts).
  const tracedAt = Math.floor(Date.parse(request.traced_at) / 1000);
  const metAt = (node: number): number => {
    if ((state.flags[node]! & NODE_SUBJECT) !== 0) return tracedAt;
    const first = edgesInto.get(node)?.[0];
    return first === undefined ? tracedAt : graph.time[sweep.edgeEvent[first]!]!;
  };
  const edgeSourceIds = (indices: number[]): string[] =>
    [...new Set(indices.map((i) => usedGraphSource(graph.sourceOf(sweep.edgeEvent[i]!))))].sort();

  // Per-node received and retained amounts.
  const assetCount = Math.max(1, assetInfo.length);
  const receivedOf = (node: number): AssetAmount[] => {
    const out: AssetAmount[] = [];
    const totals = new Map<number, bigint>();
    for (const i of edgesInto.get(node) ?? []) {
      const a = graph.asset[sweep.edgeEvent[i]!]!;
      totals.set(a, (totals.get(a) ?? 0n) + sweep.edgeTaint[i]!);
    }
    for (const [a, units] of totals) out.push(amountIn(a, units));
    return byAsset(out);
  };
  const entriesOf = new Map<number, Array<[number, number]>>();
  for (const [node, a, id] of sweep.entries) {
    const list = entriesOf.get(node);
    if (list) list.push([a, id]);
    else entriesOf.set(node, [[a, id]]);
  }
  for (const list of entriesOf.values()) list.sort((x, y) => compareText(keyOf(x[0]), keyOf(y[0])));
  // (a rule added since this copy was taken: opening balances read from a provider are cited)
  const openingSourceIds = (node: number): string[] =>
    (entriesOf.get(node) ?? []).flatMap(([a]) => {
      const ref = computation.openingSourceOf?.(node, a);
      return ref ? [chainSource(ref)] : [];
    });

  // Exchange hypotheses and which addresses are deposit addresses.
  const depositOf = new Map<number, string>();
  type Draft = Omit<ExchangeHypothesis, "hypothesis_id"> & { node: number };
  const drafts: Draft[] = [];
  const terminals: TraceTerminal[] = [];
  const terminalNodes: number[] = [];
  for (let node = 0; node < graph.nodeCount; node++) {
    if (endsTrace(state.flags[node]!, sweep.hopNow[node]!, request.max_hops) && sweep.hopNow[node] !== UNREACHED)
      terminalNodes.push(node);
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
                return entry === undefined ? null : (sweep.opening[entry] ?? null);
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
      const existing = drafts.find((d) => d.node === sender && d.basis === "deposit_address_sweep");
      if (existing) continue;
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
  const walletNodes: number[] = [];
  const subjectSet = new Set(request.subjects.map((s) => s.address));
  for (let node = 0; node < graph.nodeCount; node++) {
    const f = state.flags[node]!;
    if (endsTrace(f, sweep.hopNow[node]!, request.max_hops)) continue;
    if ((f & NODE_SUBJECT) !== 0 || sweep.hopNow[node] !== UNREACHED) walletNodes.push(node);
  }
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
    const entries = open ? (entriesOf.get(node) ?? []) : [];
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
    const caseRefs = isSubject
      ? request.subjects.find((s) => s.address === address)!.source_refs.map((ref) => ref.source_id)
      : [];
    let retainedReason: string | null = null;
    if (!open) {
      retainedReason =
        role === "frontier"
          ? `not expanded: reached at the hop limit (${maxHops})`
          : isSubject && (state.flags[node]! & NODE_SKIPPED) === 0 && !state.truncation.has("deadline")
            ? "no transfers of the subject were read in the window"
            : "not expanded: a budget or the deadline ended the trace first";
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
      opening_balance_unknown: entries.filter(([, id]) => sweep.opening[id] === null).map(([a]) => keyOf(a)),
      shortfall: entries
        .map(([a, id]): [number, bigint] => [a, ledger.shortfallOf(id)])
        .filter(([, units]) => units > 0n)
        .map(([a, units]) => amountIn(a, units)),
      source_refs: [...new Set([...caseRefs, ...edgeSourceIds(into), ...openingSourceIds(node)])].sort(),
    });
  }
  for (const subject of request.subjects) {
    if (graph.nodeOf(subject.address) !== undefined && walletNodes.includes(graph.nodeOf(subject.address)!)) continue;
    const node = graph.nodeOf(subject.address);
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
      retained_reason:
        node !== undefined && ((state.flags[node]! & NODE_SKIPPED) !== 0 || state.truncation.has("deadline"))
          ? "not expanded: a budget or the deadline ended the trace first"
          : "no transfers of the subject were read in the window",
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
  const holdings: Array<{ node: number; asset: number; units: bigint; basis: "retained" | "received" }> = [];
  // Rules fixed since this copy was taken, applied here as in the engine: an expanded wallet's holdings
  // include taint no ledger took, a subject's cite its case documents and what it sent, a subject a
  // budget left out says so, and a subject's received lists what other subjects sent it.
  for (const node of walletNodes) {
    if (isOpen(node)) {
      for (const [a, units] of retainedOf.get(node)!) holdings.push({ node, asset: a, units, basis: "retained" });
    }
    for (let a = 0; a < assetCount; a++) {
      const units = sweep.receivedBy.get(node * assetCount + a);
      if (units !== undefined && units > 0n) holdings.push({ node, asset: a, units, basis: "received" });
    }
  }
  holdings.sort(
    (x, y) =>
      compareText(graph.addressOf(x.node), graph.addressOf(y.node)) ||
      compareText(keyOf(x.asset), keyOf(y.asset)) ||
      compareText(x.basis, y.basis),
  );
  const holdingSourceIds = (node: number): string[] => {
    const refs = [...edgeSourceIds(edgesInto.get(node) ?? []), ...openingSourceIds(node)];
    if ((state.flags[node]! & NODE_SUBJECT) === 0) return [...new Set(refs)].sort();
    const address = graph.addressOf(node);
    const caseRefs = request.subjects.find((s) => s.address === address)?.source_refs.map((ref) => ref.source_id) ?? [];
    const sent = edgeOrder.filter((i) => graph.from[sweep.edgeEvent[i]!] === node);
    return [...new Set([...refs, ...edgeSourceIds(sent), ...caseRefs])].sort();
  };
  const tokenExposures: TokenExposure[] = holdings.map(({ node, asset, units, basis }) => {
    const info = assetInfo[asset]!;
    const price = request.prices[keyOf(asset)];
    const refs = holdingSourceIds(node);
    const usd =
      price && info.decimals !== null
        ? { usd_value: valueInUsd(units, info.decimals, price), usd_value_reason: null }
        : {
            usd_value: null,
            usd_value_reason: price ? "the token's decimals are unknown" : "no price source was given for this asset",
          };
    return {
      asset: keyOf(asset),
      symbol: info.symbol,
      network,
      wallet: graph.addressOf(node),
      amount: toResultAmount(units, info),
      basis,
      ...usd,
      source_refs: refs,
    };
  });

  const lastBlock = BigInt(computation.toBlock);
  /** What an exposure says of the issuer's hold on a holding: the live freeze read and the controls. */
  const issuerHoldOf = async (controls: IssuerControls, address: string) => {
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
      frozen,
      frozen_reason: frozenReason,
      frozen_source_refs: frozenRefs,
      freeze_capability_notes: describeFreezeCapability(controls),
      remediation_candidates: controls.remediation.map((action) => ({ action, review_required: true as const })),
      review_required: true as const,
    };
  };
  const stableHoldings = request.include_stablecoins
    ? holdings.flatMap((holding) => {
        const info = assetInfo[holding.asset]!;
        const controls = info.contract === null ? null : issuers.controlsFor(network, info.contract);
        return controls ? [{ ...holding, controls }] : [];
      })
    : [];
  const stablecoinExposures: StablecoinExposure[] = await inBatches(
    stableHoldings,
    context.fetchConcurrency,
    async (holding) => {
      signal?.throwIfAborted();
      const { node, asset, units, basis, controls } = holding;
      const info = assetInfo[asset]!;
      const address = graph.addressOf(node);
      let balance: StablecoinExposure["balance"] = null;
      let balanceReason: string | null = null;
      if (provider.balanceAt) {
        // (a rule added since this copy was taken: a read below zero is no balance)
        const read = await provider.balanceAt(address, info, lastBlock, signal);
        const fact = read && read.amount >= 0n ? read : null;
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
      return {
        issuer: controls.issuer,
        asset: keyOf(asset),
        symbol: controls.symbol,
        network,
        wallet: address,
        amount: toResultAmount(units, info),
        basis,
        balance,
        balance_reason: balanceReason,
        ...(await issuerHoldOf(controls, address)),
        source_refs: [...new Set([...holdingSourceIds(node), issuerSource(controls)])].sort(),
      } satisfies StablecoinExposure;
    },
  );

  // (a rule added since this copy was taken: what a subject the trace read holds of an issuer's token it
  // did not move is read from the chain and listed as `held`)
  const heldReads = request.include_stablecoins
    ? await readHeldStablecoins({
        provider,
        issuers,
        network,
        subjects: request.subjects
          .map((subject) => subject.address)
          .filter((address) => {
            const node = graph.nodeOf(address);
            if (node !== undefined && isOpen(node)) return true;
            const skipped = node !== undefined && (state.flags[node]! & NODE_SKIPPED) !== 0;
            return !skipped && !state.truncation.has("deadline");
          }),
        traced: (address, contract) =>
          sweep.entries.some(([node, a]) => node === graph.nodeOf(address) && assetInfo[a]!.contract === contract) ||
          [...sweep.receivedBy].some(
            ([key, units]) =>
              units > 0n &&
              Math.floor(key / assetCount) === graph.nodeOf(address) &&
              assetInfo[key % assetCount]!.contract === contract,
          ),
        knownAssets: assetInfo,
        lastBlock,
        concurrency: context.fetchConcurrency,
        signal,
      })
    : [];
  const heldAssets: AssetRef[] = [];
  for (const { address, asset: info, controls, fact } of heldReads) {
    heldAssets.push(info);
    const read = chainSource(fact.source_ref);
    const caseRefs = request.subjects.find((s) => s.address === address)!.source_refs.map((ref) => ref.source_id);
    const refs = [...new Set([...caseRefs, read])].sort();
    const price = request.prices[assetKey(info)];
    tokenExposures.push({
      asset: assetKey(info),
      symbol: info.symbol,
      network,
      wallet: address,
      amount: toResultAmount(fact.amount, info),
      basis: "held",
      ...(price && info.decimals !== null
        ? { usd_value: valueInUsd(fact.amount, info.decimals, price), usd_value_reason: null }
        : {
            usd_value: null,
            usd_value_reason: price ? "the token's decimals are unknown" : "no price source was given for this asset",
          }),
      source_refs: refs,
    });
    stablecoinExposures.push({
      issuer: controls.issuer,
      asset: assetKey(info),
      symbol: controls.symbol,
      network,
      wallet: address,
      amount: toResultAmount(fact.amount, info),
      basis: "held",
      balance: { amount: toResultAmount(fact.amount, info), block: lastBlock.toString(), source_refs: [read] },
      balance_reason: null,
      ...(await issuerHoldOf(controls, address)),
      source_refs: [...new Set([...refs, issuerSource(controls)])].sort(),
    });
  }
  const byHolding = (x: TokenExposure | StablecoinExposure, y: TokenExposure | StablecoinExposure) =>
    compareText(x.wallet, y.wallet) || compareText(x.asset, y.asset) || compareText(x.basis, y.basis);
  tokenExposures.sort(byHolding);
  stablecoinExposures.sort(byHolding);

  // Conservation ledger per asset.
  const retainedTotals = new Array<bigint>(assetCount).fill(0n);
  for (const [, a, id] of sweep.entries) retainedTotals[a]! += ledger.taintHeld(id);
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

  const referencedAssets = new Set<number>();
  for (const e of sweep.edgeEvent) referencedAssets.add(graph.asset[e]!);
  for (const h of holdings) referencedAssets.add(h.asset);
  for (const t of totals) referencedAssets.add(assetInfo.findIndex((info) => assetKey(info) === t.asset));
  const assets: TraceAsset[] = [...referencedAssets]
    .filter((a) => a >= 0)
    .map((a) => {
      const info = assetInfo[a]!;
      return {
        asset: keyOf(a),
        kind: info.kind,
        contract: info.contract,
        symbol: info.symbol,
        decimals: info.decimals,
      };
    })
    .sort((x, y) => compareText(x.asset, y.asset));
  for (const info of heldAssets) {
    if (assets.some((listed) => listed.asset === assetKey(info))) continue;
    const { kind, contract, symbol, decimals } = info;
    assets.push({ asset: assetKey(info), kind, contract, symbol, decimals });
    assets.sort((x, y) => compareText(x.asset, y.asset));
  }

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
