import { type DiscoveryState, NODE_EXPANDED, NODE_HUB, NODE_SUBJECT, NODE_TERMINAL, UNREACHED } from "./discovery";
import { isTerminalCategory, pickDecidingLabel } from "./labels";
import { bigintToLimbs, LIMB, LimbLedger } from "./limb-ledger";
import { HOP_LIMIT, LimbTally, SUBJECT, type SweepTotals, TERMINALS, UNEXPLORED } from "./limb-tally";
import type { NodeList } from "./node-list";

export type { SweepTotals } from "./limb-tally";

import type { TaintLedger } from "./taint";
import {
  AMOUNT_HI_WORD,
  AMOUNT_LO_WORD,
  AMOUNT_OVERFLOW,
  amountOf,
  amountWords,
  firstIncidentFromBlock,
  type TransferGraph,
  timeIndexOf,
} from "./transfer-graph";
import type { AddressLabel } from "./types";

/**
 * The sweep: replays, in global time order, every event of every address discovery opened, and
 * moves taint through the ledger. Exact for cycles and fan-in (no re-runs needed), because every
 * address sees its inflows and outflows in the order they happened.
 *
 * When an address's ledger opens (the rule every engine path shares): a subject's at the start of its
 * incident block; any other address's when taint first reaches it over an emitted edge at fewer than
 * `maxHops` hops, with the balance it held just before that transfer. Discovery only says which
 * addresses may open and from when their events must be followed; until its ledger opens, an address's
 * events move a running balance. So a path's taint never depends on how early discovery reached an
 * address, and the event-order engine (event-order.ts), which opens addresses as it meets them, gives
 * the same ledgers.
 *
 * An outflow's tainted part is emitted as a trace edge when it reaches the asset's minimum; otherwise
 * it is counted as dust and the receiver gets it as clean value. Taint reaching an address at the
 * hop limit is counted there and the address stays closed. Every unit of subject taint ends in
 * exactly one bucket: terminals, retained by an open address, at the hop limit, dust, or unexplored
 * (budget).
 */

/** A column of numbers: an array, or a typed array kept for reuse by the engine that filled it. */
export type NumberColumn = ArrayLike<number> & Iterable<number>;

export interface SweepResult {
  /** Emitted edges: graph event id, tainted amount, hop (1 = sent by a subject). */
  edgeEvent: NumberColumn;
  edgeTaint: bigint[];
  edgeHop: NumberColumn;
  /** Fewest hops at which taint reached each address (UNREACHED if it never did). */
  hopNow: Uint8Array;
  /** Index of the edge that first gave the address its `hopNow`, or −1. */
  parentEdge: Int32Array;
  /** Index of the edge over which the address's ledger opened, or −1 (never opened, or a subject). */
  openEdge: Int32Array;
  /** Ledger entry of (node, asset), or undefined. */
  entryOf: (node: number, asset: number) => number | undefined;
  /**
   * Node and asset of each ledger entry, by entry id (ids count up in the order entries were opened).
   * These, `openingOf` and the views below may read the engine's pooled columns: for a computation
   * from `computeTraceOnGraph`, read them before `releaseTraceComputation`.
   */
  entryNode: ArrayLike<number>;
  entryAsset: ArrayLike<number>;
  /** Opening balance of entry `id` (null = unknown, treated as zero). */
  openingOf: (id: number) => bigint | null;
  /** Open entries in the order they were opened: [node, asset, entry]. A view built on first read. */
  readonly entries: Array<[number, number, number]>;
  /** Tainted value received by addresses without a ledger entry (terminals, frontier, unexplored). */
  receivedBy: Map<number, bigint>;
  totals: SweepTotals[];
  /** Opening balance of each entry (null = unknown, treated as zero). A view built on first read. */
  readonly opening: Array<bigint | null>;
}

/** Addresses a sweep may loop over more than once (not a one-pass iterator). */
type AddressList = NodeList | readonly number[];

/** What the sweep reads of discovery's state. */
export type SweepState = Pick<DiscoveryState, "flags" | "minHop" | "arrivalBlock" | "labelOf"> & {
  /** Expanded addresses (read more than once); when absent they are found by scanning `flags`. */
  readonly expanded?: AddressList;
  /** Addresses discovery touched (a superset of the subjects); when absent, found by scanning `flags`. */
  readonly touched?: AddressList;
};

/**
 * The sweep's per-address tables, at their defaults. A sweep allocates them unless given a set, which
 * it leaves for `resetSweepTables` to restore: reusing one set across sweeps over a large graph spares
 * each trace an allocation and fill proportional to the whole graph.
 */
export interface SweepTables {
  /** Block from which an address's events are replayed (Infinity: never); read for every event. */
  readonly openBlock: Float64Array;
  /**
   * A record of `stride` doubles per address: its ledger id + 1 for each asset (0: none), then for each
   * asset a running balance as a limb pair; all zero (as allocated) outside a sweep. The sweep
   * reads both for an address it opens, so they share a cache line. Null when that would exceed 2^23
   * doubles: ledger ids then go to a Map and running balances to an array of the sweep's own.
   */
  readonly pairRec: Float64Array | null;
  readonly stride: number;
  readonly hopNow: Uint8Array;
  readonly parentEdge: Int32Array;
  readonly openEdge: Int32Array;
  /** First ledger slot of an address the event-order walk opened (one per asset follows), or −1. */
  readonly ledgerSlot: Int32Array;
}

/**
 * Decides what an address is when taint first reaches it, over the edge of event time `time`: its
 * deciding label then (`pickDecidingLabel`: labels can hold for a time only), kept in `labelOf`, and
 * whether that makes it a terminal. Both engines decide here, at the same moment, so discovery only
 * has to make sure it read every address that could turn out not to be a terminal.
 */
export function decideLabel(
  state: Pick<DiscoveryState, "flags" | "labelOf">,
  labels: readonly AddressLabel[],
  node: number,
  time: number,
): void {
  if (labels.length === 0) {
    // Most addresses: nothing to read, and nothing was kept for them (labels are only kept from here).
    state.flags[node]! &= ~NODE_TERMINAL;
    return;
  }
  const label = pickDecidingLabel(labels, time);
  if (label) state.labelOf.set(node, label);
  else state.labelOf.delete(node);
  if (label && isTerminalCategory(label.category)) state.flags[node]! |= NODE_TERMINAL;
  else state.flags[node]! &= ~NODE_TERMINAL;
}

/**
 * Whether taint reaching an address stops there: a terminal; or a hub (an unlabelled address with too
 * many events to expand), once taint reaches it below the hop limit. Discovery flags hubs over its
 * fewest-hop over-approximation; an address taint reaches only at the hop limit is frontier, as it is
 * for the event-order walk, which only tests for a hub when taint could open the address.
 */
export function endsTrace(flags: number, hop: number, maxHops: number): boolean {
  return (flags & NODE_TERMINAL) !== 0 || ((flags & NODE_HUB) !== 0 && hop < maxHops);
}

export function createSweepTables(nodeCount: number, assetCount: number): SweepTables {
  const assets = Math.max(1, assetCount);
  const stride = 3 * assets;
  const pairRec = nodeCount * stride <= 1 << 23 ? new Float64Array(nodeCount * stride) : null;
  return {
    openBlock: new Float64Array(nodeCount).fill(Number.POSITIVE_INFINITY),
    pairRec,
    stride,
    hopNow: new Uint8Array(nodeCount).fill(UNREACHED),
    parentEdge: new Int32Array(nodeCount).fill(-1),
    openEdge: new Int32Array(nodeCount).fill(-1),
    ledgerSlot: new Int32Array(nodeCount).fill(-1),
  };
}

/** Restores the defaults a sweep over `state` wrote (edges `edgeEvent`, ledger entries by node and asset). */
export function resetSweepTables(
  tables: SweepTables,
  graph: TransferGraph,
  state: SweepState,
  edgeEvent: NumberColumn,
  entryNode: ArrayLike<number>,
  entryAsset: ArrayLike<number>,
): void {
  const { openBlock, pairRec, stride } = tables;
  for (const node of expandedNodes(state, graph.nodeCount)) {
    openBlock[node] = Number.POSITIVE_INFINITY;
    // running balances (only addresses the sweep opens have one)
    if (pairRec) for (let i = node * stride + stride / 3; i < (node + 1) * stride; i++) pairRec[i] = 0;
  }
  if (pairRec) {
    for (let id = 0; id < entryNode.length; id++) pairRec[entryNode[id]! * stride + entryAsset[id]!] = 0;
  }
  for (const node of touchedNodes(state, graph.nodeCount)) {
    tables.hopNow[node] = UNREACHED;
    tables.parentEdge[node] = -1;
    tables.openEdge[node] = -1;
  }
  for (const e of edgeEvent) {
    const t = graph.to[e]!;
    tables.hopNow[t] = UNREACHED;
    tables.parentEdge[t] = -1;
    tables.openEdge[t] = -1;
  }
}

function expandedNodes(state: SweepState, nodeCount: number): AddressList {
  if (state.expanded) return state.expanded;
  const nodes: number[] = [];
  for (let n = 0; n < nodeCount; n++) if ((state.flags[n]! & NODE_EXPANDED) !== 0) nodes.push(n);
  return nodes;
}

function touchedNodes(state: SweepState, nodeCount: number): AddressList {
  if (state.touched) return state.touched;
  const nodes: number[] = [];
  for (let n = 0; n < nodeCount; n++) if (state.minHop[n] !== UNREACHED) nodes.push(n);
  return nodes;
}

export interface SweepInput {
  graph: TransferGraph;
  state: SweepState;
  /** Per-address tables at their defaults to use instead of allocating them (see `SweepTables`). */
  tables?: SweepTables;
  ledger: TaintLedger;
  maxHops: number;
  minValueOf: (asset: number) => bigint;
  /** Balance of (node, asset) at the end of the block before the address was opened; null if unknown. */
  openingBalance: (node: number, asset: number, beforeBlock: number) => bigint | null;
  signal: AbortSignal | undefined;
  /** Last block of the trace window; later events are ignored. */
  lastBlock: number;
  /** Every label of an address; the sweep reads them when taint first reaches it (`decideLabel`). */
  labelsOf: (node: number) => readonly AddressLabel[];
  /**
   * Genesis allocation of (node, asset), for a graph that holds every event from genesis. When the
   * sweep scans every event anyway, it keeps running balances and takes opening balances from
   * them instead of asking `openingBalance` per address.
   */
  genesisBalance?: (node: number, asset: number) => bigint;
  /**
   * The same allocations as limb pairs (`TransferGraph.genesisLimbs`), read instead of `genesisBalance`
   * by the sweep over limbs when given: converting a bigint per opened address costs more than the rest
   * of opening it. Asked for only by a sweep that replays every event (a graph may build them then).
   */
  genesisLimbs?: () => Float64Array | undefined;
}

/** Below this share of all events, the sweep sorts the relevant events instead of scanning all. */
const GATHER_RATIO = 0.125;

/**
 * Runs the sweep over fixed-width integers in typed arrays (`LimbLedger`); if a value ever leaves
 * their exact range (beyond about 2^99 base units), runs it again over bigint. Both give the same
 * result; the first is what keeps a trace over millions of events fast.
 */
export function runSweep(input: SweepInput): SweepResult {
  const fast = runSweepOverLimbs(input);
  if (fast !== null) return fast;
  return runSweepOverBigint(input);
}

/** Events the sweep replays (in time order), or null for every event of the graph. */
function sweepOrder(graph: TransferGraph, expanded: AddressList, state: SweepState, tables: SweepTables) {
  const { openBlock } = tables;
  const { incidentOffset, incident } = graph;
  const index = timeIndexOf(graph);
  const enough = graph.eventCount * GATHER_RATIO;
  let relevant = 0;
  for (const n of expanded) {
    const open = state.arrivalBlock[n]!;
    openBlock[n] = open;
    // Once the sweep will scan every event anyway, the count no longer matters.
    if (relevant < enough) relevant += incidentOffset[n + 1]! - firstIncidentFromBlock(graph, index, n, open);
  }
  if (relevant >= enough) return null;
  const gathered = new Uint32Array(relevant);
  let k = 0;
  for (const n of expanded) {
    const end = incidentOffset[n + 1]!;
    for (let i = firstIncidentFromBlock(graph, index, n, openBlock[n]!); i < end; i++) {
      gathered[k++] = incident[i]!;
    }
  }
  gathered.sort();
  let unique = 0;
  for (let i = 0; i < gathered.length; i++) {
    if (i === 0 || gathered[i] !== gathered[i - 1]) gathered[unique++] = gathered[i]!;
  }
  return gathered.subarray(0, unique);
}

function runSweepOverLimbs(input: SweepInput): SweepResult | null {
  const { graph, state, ledger: target, maxHops, minValueOf, signal, lastBlock } = input;
  const { from, to, block, asset, amountHigh } = graph;
  const words = amountWords(graph);
  const nodeCount = graph.nodeCount;
  const assetCount = Math.max(1, graph.assets.length);
  const flags = state.flags;
  const ledger = new LimbLedger(target.model);
  const fifo = ledger.model === "fifo";
  const scratch = { h: 0, l: 0 };

  const tables = input.tables ?? createSweepTables(nodeCount, assetCount);
  const { openBlock, pairRec, stride, hopNow, parentEdge, openEdge } = tables;
  const order = sweepOrder(graph, expandedNodes(state, nodeCount), state, tables);
  for (const n of touchedNodes(state, nodeCount)) if ((flags[n]! & NODE_SUBJECT) !== 0) hopNow[n] = 0;

  // Minimum followable taint per asset as limbs; one beyond their range is never reached.
  const minH = new Float64Array(assetCount);
  const minL = new Float64Array(assetCount);
  for (let a = 0; a < assetCount; a++) {
    if (bigintToLimbs(minValueOf(a), scratch)) {
      minH[a] = scratch.h;
      minL[a] = scratch.l;
    } else minH[a] = Number.POSITIVE_INFINITY;
  }

  const index = createEntryIndex(tables, assetCount);
  const ids = pairRec;
  // The ledger keeps each entry's address, asset and opening balance; an opening read from
  // `openingBalance` is also kept as given, since it can be unknown (null).
  const openValue: Array<bigint | null> = [];
  const tally = new LimbTally(assetCount);

  // Running balances (limbs) of the addresses the sweep follows, until their ledgers open: over a graph
  // holding every event from genesis, what they received minus what they sent since genesis (the
  // opening is the genesis allocation plus it); otherwise the change since they were first followed
  // (the opening is the provider's balance before that block plus it).
  const genesisBalance = order === null ? input.genesisBalance : undefined;
  const offered = genesisBalance ? input.genesisLimbs?.() : undefined;
  const genesisLimbs = offered?.length === 2 * nodeCount * assetCount ? offered : undefined;
  // Limb pairs side by side, in the address records when they have room (see `SweepTables`).
  const run = pairRec ?? new Float64Array(2 * nodeCount * assetCount);
  const runStride = pairRec ? stride : 2 * assetCount;
  const runOffset = pairRec ? assetCount : 0;

  const entryFor = (node: number, a: number): number => {
    const key = node * assetCount + a;
    const known = index.get(node, a);
    if (known >= 0) return known;
    const isSubject = (flags[node]! & NODE_SUBJECT) !== 0;
    const at = node * runStride + runOffset + 2 * a;
    let h = run[at]!;
    let l = run[at + 1]!;
    let id: number;
    if (genesisBalance) {
      if (genesisLimbs) {
        h += genesisLimbs[2 * key]!;
        l += genesisLimbs[2 * key + 1]!;
      } else if (bigintToLimbs(genesisBalance(node, a), scratch)) {
        h += scratch.h;
        l += scratch.l;
      } else ledger.overflow = true;
      if (l >= LIMB) {
        l -= LIMB;
        h += 1;
      }
      id = ledger.open(isSubject, h, l, node, a);
    } else {
      const balance = input.openingBalance(node, a, openBlock[node]! - 1);
      if (balance !== null) {
        if (bigintToLimbs(balance, scratch)) {
          h += scratch.h;
          l += scratch.l;
          if (l >= LIMB) {
            l -= LIMB;
            h += 1;
          }
        } else ledger.overflow = true;
      }
      // Below zero, the entry opens at zero (what was sent since beyond the balance is shortfall).
      id = ledger.open(isSubject, h, l, node, a);
      openValue[id] = balance === null ? null : ledger.openingOf(id);
    }
    if (isSubject) tally.subjectOpens(node, a, h, l);
    index.set(node, a, id);
    return id;
  };

  const count = order ? order.length : graph.eventCount;
  // Beyond the limbs' range: restore the caller's tables for the bigint sweep that runs instead.
  const abandon = (): null => {
    if (input.tables) {
      resetSweepTables(tables, graph, state, tally.edgeEvents(), ledger.entryNodes(), ledger.entryAssets());
    }
    return null;
  };
  for (let k = 0; k < count; k++) {
    if (ledger.overflow || tally.overflow) return abandon();
    const e = order ? order[k]! : k;
    const f = from[e]!;
    const t = to[e]!;
    const b = block[e]!;
    if (b > lastBlock) break;
    const fOpenBlock = openBlock[f]!;
    const tOpenBlock = openBlock[t]!;
    const fFollowed = b >= fOpenBlock;
    const tFollowed = b >= tOpenBlock;
    // Over a complete history, balances run from genesis; otherwise from when the address is followed.
    const fRuns = genesisBalance ? fOpenBlock !== Number.POSITIVE_INFINITY : fFollowed;
    const tRuns = genesisBalance ? tOpenBlock !== Number.POSITIVE_INFINITY : tFollowed;
    if (!fRuns && !tRuns) continue;
    // A terminal's transfers may have been read (labels that hold for a time: see `decideLabel`), never followed.
    const fOpen = fFollowed && hopNow[f]! < maxHops && (flags[f]! & NODE_TERMINAL) === 0;
    // The amount as limbs: high word's top 16 bits are the upper limb.
    let ah: number;
    let al: number;
    const hiWord = words[2 * e + AMOUNT_HI_WORD]!;
    const loWord = words[2 * e + AMOUNT_LO_WORD]!;
    if (hiWord === 0xffff_ffff && loWord === 0xffff_ffff) {
      if (!bigintToLimbs(amountHigh.get(e) ?? AMOUNT_OVERFLOW, scratch)) return abandon();
      ah = scratch.h;
      al = scratch.l;
    } else {
      ah = hiWord >>> 16;
      al = (hiWord & 0xffff) * 2 ** 32 + loWord;
    }
    const a = asset[e]!;
    if ((k & 0xffff) === 0) signal?.throwIfAborted();
    if (f === t) {
      // A transfer to itself moves nothing: not the balance, the taint held, or the order of fifo's lots.
      if (fOpen) entryFor(f, a);
      continue;
    }
    let th = 0;
    let tl = 0;
    let delivered = false;
    if (fOpen) {
      let fe = ids ? ids[f * stride + a]! - 1 : -1;
      if (fe < 0) fe = entryFor(f, a);
      ledger.debit(fe, ah, al);
      th = ledger.outH;
      tl = ledger.outL;
      if (ledger.newH !== 0 || ledger.newL !== 0) tally.add(a, SUBJECT, ledger.newH, ledger.newL);
      if (th > 0 || (th === 0 && tl > 0)) {
        const senderHop = hopNow[f]!;
        if ((flags[t]! & NODE_SUBJECT) !== 0) {
          tally.emit(e, th, tl, senderHop + 1);
          // A subject not followed yet (before its incident block, or left out by a budget) does not
          // take it: its holdings count once it is, less what other subjects sent it (`subjectOpens`).
          if (tFollowed && hopNow[t]! < maxHops && (flags[t]! & NODE_TERMINAL) === 0) delivered = true;
          else tally.holdForSubject(t, a, th, tl);
        } else if (th < minH[a]! || (th === minH[a]! && tl < minL[a]!)) {
          tally.dust(a, th, tl);
        } else {
          const hop = senderHop + 1;
          const edge = tally.emit(e, th, tl, hop);
          if (hopNow[t] === UNREACHED) decideLabel(state, input.labelsOf(t), t, graph.time[e]!);
          if (hop < hopNow[t]!) {
            if (tFollowed && (flags[t]! & NODE_TERMINAL) === 0 && hop < maxHops && hopNow[t]! >= maxHops) {
              openEdge[t] = edge;
            }
            hopNow[t] = hop;
            parentEdge[t] = edge;
          }
          if (endsTrace(flags[t]!, hopNow[t]!, maxHops)) {
            tally.receive(t, a, TERMINALS, th, tl);
          } else if (tFollowed && hopNow[t]! < maxHops) {
            delivered = true;
          } else {
            tally.receive(t, a, hopNow[t]! >= maxHops ? HOP_LIMIT : UNEXPLORED, th, tl);
          }
        }
      }
    } else if (fRuns) {
      const at = f * runStride + runOffset + 2 * a;
      let nh = run[at]! - ah;
      let nl = run[at + 1]! - al;
      if (nl < 0) {
        nl += LIMB;
        nh -= 1;
      }
      if (nh < -(2 ** 51)) return abandon();
      run[at] = nh;
      run[at + 1] = nl;
    }
    if (tFollowed && hopNow[t]! < maxHops && (flags[t]! & NODE_TERMINAL) === 0) {
      let te = ids ? ids[t * stride + a]! - 1 : -1;
      if (te < 0) te = entryFor(t, a);
      if (delivered) ledger.credit(te, ah, al, th, tl, fifo);
      else ledger.credit(te, ah, al, 0, 0, false);
      if (ledger.newH !== 0 || ledger.newL !== 0) tally.add(a, SUBJECT, ledger.newH, ledger.newL);
    } else if (tRuns) {
      const at = t * runStride + runOffset + 2 * a;
      let nh = run[at]! + ah;
      let nl = run[at + 1]! + al;
      if (nl >= LIMB) {
        nl -= LIMB;
        nh += 1;
      }
      if (nh > 2 ** 51) return abandon();
      run[at] = nh;
      run[at + 1] = nl;
    }
  }
  if (ledger.overflow || tally.overflow) return abandon();

  target.adopt(ledger);
  const { edgeEvent, edgeHop, edgeTaint, receivedBy, totals } = tally.settle();
  const openingOf = genesisBalance
    ? (id: number): bigint | null => ledger.openingOf(id)
    : (id: number): bigint | null => openValue[id]!;
  return sweepResult({
    edgeEvent,
    edgeTaint,
    edgeHop,
    hopNow,
    parentEdge,
    openEdge,
    entryOf: index.entryOf,
    entryNode: ledger.entryNodes(),
    entryAsset: ledger.entryAssets(),
    openingOf,
    receivedBy,
    totals,
  });
}

/** A sweep's result with `entries` and `opening` as views over its entry columns, built on first read. */
export function sweepResult(fields: Omit<SweepResult, "entries" | "opening">): SweepResult {
  let entries: Array<[number, number, number]> | undefined;
  let opening: Array<bigint | null> | undefined;
  const { entryNode, entryAsset, openingOf } = fields;
  return {
    ...fields,
    get entries() {
      entries ??= Array.from({ length: entryNode.length }, (_, id) => [entryNode[id]!, entryAsset[id]!, id]);
      return entries;
    },
    get opening() {
      opening ??= Array.from({ length: entryNode.length }, (_, id) => openingOf(id));
      return opening;
    },
  };
}

/** The same sweep over bigint: any amount, any sum. */
/**
 * The sweep over bigint: exact for any amount, and the reference the limb sweep must agree with
 * (exported for that comparison in the engine's tests; `runSweep` is what callers use).
 */
export function runSweepOverBigint(input: SweepInput): SweepResult {
  const { graph, state, ledger, maxHops, minValueOf, signal, lastBlock } = input;
  const { from, to, block, asset } = graph;
  const nodeCount = graph.nodeCount;
  const assetCount = Math.max(1, graph.assets.length);
  const flags = state.flags;

  const tables = input.tables ?? createSweepTables(nodeCount, assetCount);
  const { openBlock, hopNow, parentEdge, openEdge } = tables;
  const order = sweepOrder(graph, expandedNodes(state, nodeCount), state, tables);
  for (const n of touchedNodes(state, nodeCount)) if ((flags[n]! & NODE_SUBJECT) !== 0) hopNow[n] = 0;

  const index = createEntryIndex(tables, assetCount);
  const entryNode: number[] = [];
  const entryAsset: number[] = [];
  const opening: Array<bigint | null> = [];
  const totals: SweepTotals[] = Array.from({ length: assetCount }, () => ({
    subjectTaint: 0n,
    toTerminals: 0n,
    atHopLimit: 0n,
    dust: 0n,
    dustEdges: 0,
    unexplored: 0n,
  }));
  const receivedBy = new Map<number, bigint>();
  /** Taint other subjects sent a subject before its entry of the asset opened (see LimbTally.holdForSubject). */
  const heldForSubject = new Map<number, bigint>();
  const edgeEvent: number[] = [];
  const edgeTaint: bigint[] = [];
  const edgeHop: number[] = [];

  const genesisBalance = order === null ? input.genesisBalance : undefined;
  /** Running balance of a followed address until its ledger opens (see the limb sweep). */
  const running: Array<bigint | undefined> = new Array(nodeCount * assetCount);
  const runningOf = (key: number): bigint => running[key] ?? 0n;

  const entryFor = (node: number, a: number): number => {
    const key = node * assetCount + a;
    const known = index.get(node, a);
    if (known >= 0) return known;
    const isSubject = (flags[node]! & NODE_SUBJECT) !== 0;
    let balance: bigint | null;
    if (genesisBalance) balance = genesisBalance(node, a) + runningOf(key);
    else {
      const base = input.openingBalance(node, a, openBlock[node]! - 1);
      balance = base === null ? null : base + runningOf(key);
    }
    // Below zero, the entry opens at zero (what was sent since beyond the balance is shortfall).
    const id = ledger.open(isSubject, balance ?? runningOf(key));
    opening[id] = balance === null ? null : ledger.balanceHeld(id);
    // A subject's holding is its own taint, less what other subjects sent it before, as far as it covers
    // that; the rest of that left before the entry opened, untraced (see LimbTally.subjectOpens).
    const own = ledger.openingTaint(id);
    const held = (isSubject ? heldForSubject.get(key) : undefined) ?? 0n;
    heldForSubject.delete(key);
    const covered = own < held ? own : held;
    totals[a]!.subjectTaint += own - covered;
    if (held > covered) {
      totals[a]!.unexplored += held - covered;
      receive(node, a, held - covered);
    }
    index.set(node, a, id);
    entryNode.push(node);
    entryAsset.push(a);
    return id;
  };

  const receive = (node: number, a: number, amount: bigint): void => {
    const key = node * assetCount + a;
    receivedBy.set(key, (receivedBy.get(key) ?? 0n) + amount);
  };

  const count = order ? order.length : graph.eventCount;
  for (let k = 0; k < count; k++) {
    const e = order ? order[k]! : k;
    const f = from[e]!;
    const t = to[e]!;
    const b = block[e]!;
    if (b > lastBlock) break;
    const fFollowed = b >= openBlock[f]!;
    const tFollowed = b >= openBlock[t]!;
    const fRuns = genesisBalance ? openBlock[f] !== Number.POSITIVE_INFINITY : fFollowed;
    const tRuns = genesisBalance ? openBlock[t] !== Number.POSITIVE_INFINITY : tFollowed;
    if (!fRuns && !tRuns) continue;
    if ((k & 0xffff) === 0) signal?.throwIfAborted();
    const a = asset[e]!;
    if (f === t) {
      // A transfer to itself moves nothing (see the sweep over limbs).
      if (fFollowed && hopNow[f]! < maxHops && (flags[f]! & NODE_TERMINAL) === 0) entryFor(f, a);
      continue;
    }
    const amount = amountOf(graph, e);
    let tainted = 0n;
    let delivered = false;
    if (fFollowed && hopNow[f]! < maxHops && (flags[f]! & NODE_TERMINAL) === 0) {
      const fe = entryFor(f, a);
      tainted = ledger.debit(fe, amount);
      totals[a]!.subjectTaint += ledger.newSubjectTaint;
      if (tainted > 0n) {
        const sum = totals[a]!;
        const senderHop = hopNow[f]!;
        if ((flags[t]! & NODE_SUBJECT) !== 0) {
          edgeEvent.push(e);
          edgeTaint.push(tainted);
          edgeHop.push(senderHop + 1);
          // (see the sweep over limbs)
          if (tFollowed && hopNow[t]! < maxHops && (flags[t]! & NODE_TERMINAL) === 0) delivered = true;
          else heldForSubject.set(t * assetCount + a, (heldForSubject.get(t * assetCount + a) ?? 0n) + tainted);
        } else if (tainted < minValueOf(a)) {
          sum.dust += tainted;
          sum.dustEdges++;
        } else {
          const hop = senderHop + 1;
          const edge = edgeEvent.length;
          edgeEvent.push(e);
          edgeTaint.push(tainted);
          edgeHop.push(hop);
          if (hopNow[t] === UNREACHED) decideLabel(state, input.labelsOf(t), t, graph.time[e]!);
          if (hop < hopNow[t]!) {
            if (tFollowed && (flags[t]! & NODE_TERMINAL) === 0 && hop < maxHops && hopNow[t]! >= maxHops) {
              openEdge[t] = edge;
            }
            hopNow[t] = hop;
            parentEdge[t] = edge;
          }
          if (endsTrace(flags[t]!, hopNow[t]!, maxHops)) {
            sum.toTerminals += tainted;
            receive(t, a, tainted);
          } else if (tFollowed && hopNow[t]! < maxHops) {
            delivered = true;
          } else if (hopNow[t]! >= maxHops) {
            sum.atHopLimit += tainted;
            receive(t, a, tainted);
          } else {
            sum.unexplored += tainted;
            receive(t, a, tainted);
          }
        }
      }
    } else if (fRuns) {
      running[f * assetCount + a] = runningOf(f * assetCount + a) - amount;
    }
    if (tFollowed && hopNow[t]! < maxHops && (flags[t]! & NODE_TERMINAL) === 0) {
      const te = entryFor(t, a);
      ledger.credit(te, amount, delivered ? tainted : 0n, delivered && ledger.model === "fifo");
      totals[a]!.subjectTaint += ledger.newSubjectTaint;
    } else if (tRuns) {
      running[t * assetCount + a] = runningOf(t * assetCount + a) + amount;
    }
  }
  for (const [key, held] of heldForSubject) {
    totals[key % assetCount]!.unexplored += held;
    receive(Math.floor(key / assetCount), key % assetCount, held);
  }

  return sweepResult({
    edgeEvent,
    edgeTaint,
    edgeHop,
    hopNow,
    parentEdge,
    openEdge,
    entryOf: index.entryOf,
    entryNode,
    entryAsset,
    openingOf: (id) => opening[id]!,
    receivedBy,
    totals,
  });
}

/**
 * Ledger ids by (node, asset), -1 when none: in the address records of `SweepTables` while they have
 * room, in a Map keyed node × assetCount + asset beyond (a graph too large to give every pair a slot).
 */
function createEntryIndex(tables: SweepTables, assetCount: number) {
  const { pairRec, stride } = tables;
  const map = pairRec ? null : new Map<number, number>();
  const get = (node: number, asset: number): number =>
    pairRec ? pairRec[node * stride + asset]! - 1 : (map!.get(node * assetCount + asset) ?? -1);
  return {
    get,
    set(node: number, asset: number, id: number): void {
      if (pairRec) pairRec[node * stride + asset] = id + 1;
      else map!.set(node * assetCount + asset, id);
    },
    entryOf(node: number, asset: number): number | undefined {
      const id = get(node, asset);
      return id >= 0 ? id : undefined;
    },
  };
}
