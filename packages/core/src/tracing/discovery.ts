import { isTerminalFrom } from "./labels";
import { NodeList } from "./node-list";
import {
  AMOUNT_HI_WORD,
  AMOUNT_LO_WORD,
  AMOUNT_OVERFLOW,
  amountOf,
  amountWords,
  bitLength,
  firstIncidentFromBlock,
  firstOutEdgeFromRank,
  type TransferGraph,
  timeIndexOf,
  timeRankOf,
} from "./transfer-graph";
import type { AddressLabel } from "./types";

/**
 * Discovery: which addresses the trace must read, by a hop-limited, time-respecting expansion.
 *
 * A transfer u → v can carry funds from u only if it comes after funds reached u, so each address
 * keeps its earliest arrival (block, sub) and its fewest hops from a subject. Both only ever
 * decrease; an address whose arrival moves earlier is scanned again over the newly eligible part,
 * which makes cycles and fan-in terminate at a fixed point. Taking the two minima independently
 * over-approximates the exact reach (the exact amounts come from the sweep that follows); every
 * address the sweep can credit with taint is discovered here.
 *
 * Outflows below the asset's minimum value are not followed (they cannot carry followable taint).
 * Addresses labelled with a terminal category, and unlabelled addresses with more events than the
 * hub limit, are reached but never expanded.
 */
export const UNREACHED = 255;

export const NODE_SUBJECT = 1;
export const NODE_TERMINAL = 2;
export const NODE_HUB = 4;
export const NODE_EXPANDED = 8;
export const NODE_SKIPPED = 16;

export type TruncationReason = "max_expansions" | "max_edges" | "deadline";

export interface DiscoveryLimits {
  maxHops: number;
  /** Minimum followable amount per asset id of the graph (base units). */
  minValueOf: (asset: number) => bigint;
  hubEventLimit: number;
  maxExpansions: number;
  maxEdges: number;
  /** Injected deadline check; true once the caller's time budget is spent. */
  deadlineReached: () => boolean;
  signal: AbortSignal | undefined;
  /** The graph holds every event of every address (a preloaded chain), so nothing is fetched. */
  complete: boolean;
  /** Last block of the trace window; later events are ignored. */
  lastBlock: number;
}

export class DiscoveryState {
  capacity = 0;
  minHop = new Uint8Array(0);
  arrivalBlock = new Float64Array(0);
  arrivalSub = new Float64Array(0);
  arrivalTime = new Float64Array(0);
  scannedHop = new Uint8Array(0);
  scanBlock = new Float64Array(0);
  scanSub = new Float64Array(0);
  /** Events of the address are held from this block on (Infinity: none fetched). */
  loadedFrom = new Float64Array(0);
  /** Events counted against the edge budget from this block on. */
  admittedFrom = new Float64Array(0);
  flags = new Uint8Array(0);
  queuedAt = new Uint8Array(0);
  /**
   * `arrival` and `scan` (block, sub) as time ranks of `rankGraph` (see `timeRankOf`), so the hot loop
   * compares one number instead of two per side. Valid only for `rankGraph`: a new graph snapshot (or a
   * subject added since) makes `runDiscovery` recompute them from the (block, sub) pairs.
   */
  arrivalRank = new Float64Array(0);
  scanRank = new Float64Array(0);
  rankGraph: TransferGraph | null = null;
  readonly labelOf = new Map<number, AddressLabel>();
  expansions = 0;
  edgesAdmitted = 0;
  readonly truncation = new Set<TruncationReason>();
  stopped = false;
  /**
   * Whether `runDiscovery` ran since the last reset. If not (the event-order walk), only the hops and
   * flags of the touched addresses and the arrival and queue mark of the subjects differ from the
   * defaults, and `reset` restores only those.
   */
  discovered = false;
  /** Every address whose entries differ from the defaults (subjects and every address reached), for `reset`. */
  readonly touched = new NodeList();
  /** Addresses flagged NODE_EXPANDED, in the order they were expanded. */
  readonly expanded = new NodeList();
  queues: number[][];
  cursor: number[];

  constructor(maxHops: number) {
    this.queues = Array.from({ length: maxHops + 1 }, () => []);
    this.cursor = new Array(maxHops + 1).fill(0);
  }

  /**
   * Back to a fresh state for a new trace, keeping the arrays: only the addresses the last trace
   * touched are restored, so reusing a state over a large graph costs what that trace reached.
   */
  reset(maxHops: number): void {
    if (!this.discovered) {
      for (const node of this.touched) {
        if ((this.flags[node]! & NODE_SUBJECT) !== 0) {
          this.queuedAt[node] = 0;
          this.arrivalBlock[node] = Number.POSITIVE_INFINITY;
          this.arrivalSub[node] = Number.POSITIVE_INFINITY;
        }
        this.minHop[node] = UNREACHED;
        this.flags[node] = 0;
      }
    } else {
      for (const node of this.touched) {
        this.minHop[node] = UNREACHED;
        this.scannedHop[node] = UNREACHED;
        this.flags[node] = 0;
        this.queuedAt[node] = 0;
        this.arrivalBlock[node] = Number.POSITIVE_INFINITY;
        this.arrivalSub[node] = Number.POSITIVE_INFINITY;
        this.arrivalTime[node] = Number.POSITIVE_INFINITY;
        this.scanBlock[node] = Number.POSITIVE_INFINITY;
        this.scanSub[node] = Number.POSITIVE_INFINITY;
        this.loadedFrom[node] = Number.POSITIVE_INFINITY;
        this.admittedFrom[node] = Number.POSITIVE_INFINITY;
        this.arrivalRank[node] = Number.POSITIVE_INFINITY;
        this.scanRank[node] = Number.POSITIVE_INFINITY;
      }
    }
    this.discovered = false;
    this.rankGraph = null;
    this.touched.clear();
    this.expanded.clear();
    this.labelOf.clear();
    this.queues = Array.from({ length: maxHops + 1 }, () => []);
    this.cursor = new Array(maxHops + 1).fill(0);
    this.expansions = 0;
    this.edgesAdmitted = 0;
    this.truncation.clear();
    this.stopped = false;
  }

  ensureCapacity(nodeCount: number): void {
    if (nodeCount <= this.capacity) return;
    const size = Math.max(nodeCount, this.capacity * 2, 64);
    const grow8 = (old: Uint8Array, fill: number) => {
      const next = new Uint8Array(size).fill(fill);
      next.set(old);
      return next;
    };
    const grow64 = (old: Float64Array, fill: number) => {
      const next = new Float64Array(size).fill(fill);
      next.set(old);
      return next;
    };
    this.minHop = grow8(this.minHop, UNREACHED);
    this.scannedHop = grow8(this.scannedHop, UNREACHED);
    this.flags = grow8(this.flags, 0);
    this.queuedAt = grow8(this.queuedAt, 0);
    this.arrivalBlock = grow64(this.arrivalBlock, Number.POSITIVE_INFINITY);
    this.arrivalSub = grow64(this.arrivalSub, Number.POSITIVE_INFINITY);
    this.arrivalTime = grow64(this.arrivalTime, Number.POSITIVE_INFINITY);
    this.scanBlock = grow64(this.scanBlock, Number.POSITIVE_INFINITY);
    this.scanSub = grow64(this.scanSub, Number.POSITIVE_INFINITY);
    this.loadedFrom = grow64(this.loadedFrom, Number.POSITIVE_INFINITY);
    this.admittedFrom = grow64(this.admittedFrom, Number.POSITIVE_INFINITY);
    this.arrivalRank = grow64(this.arrivalRank, Number.POSITIVE_INFINITY);
    this.scanRank = grow64(this.scanRank, Number.POSITIVE_INFINITY);
    this.capacity = size;
  }

  /** A subject: hop 0, funds present from the start of its incident block. */
  addSubject(node: number, incidentBlock: number): void {
    this.ensureCapacity(node + 1);
    if (this.minHop[node] === UNREACHED) this.touched.push(node);
    this.flags[node]! |= NODE_SUBJECT;
    this.minHop[node] = 0;
    if (incidentBlock < this.arrivalBlock[node]!) {
      this.arrivalBlock[node] = incidentBlock;
      this.arrivalSub[node] = -1;
      this.rankGraph = null;
    }
    this.push(node, 0);
  }

  push(node: number, level: number): void {
    if (this.queuedAt[node] === level + 1) return;
    this.queuedAt[node] = level + 1;
    this.queues[level]!.push(node);
  }

  /** Recomputes the time ranks of every touched address for `graph` (see `arrivalRank`). */
  rankFor(graph: TransferGraph): void {
    if (this.rankGraph === graph) return;
    for (const node of this.touched) {
      this.arrivalRank[node] = timeRankOf(graph, this.arrivalBlock[node]!, this.arrivalSub[node]!);
      this.scanRank[node] = timeRankOf(graph, this.scanBlock[node]!, this.scanSub[node]!);
    }
    this.rankGraph = graph;
  }

  /** Addresses whose events the sweep reads: subjects and expanded intermediaries. */
  isOpen(node: number): boolean {
    return (this.flags[node]! & NODE_EXPANDED) !== 0;
  }
}

/** An address whose events must be fetched from `fromBlock` to `toBlock` before it can be expanded. */
export interface FetchRequest {
  node: number;
  fromBlock: number;
  /** Inclusive; Infinity = up to the trace's last block. */
  toBlock: number;
  /** Stop fetching after this many events (hub limit or edge budget reached). */
  maxEvents: number;
}

/**
 * Runs discovery until it reaches a fixed point or needs events it does not hold. Returns the
 * fetches needed to continue (empty when done). Resumable: call again after the fetches are added.
 */
export function runDiscovery(
  graph: TransferGraph,
  state: DiscoveryState,
  limits: DiscoveryLimits,
  labelsOf: (node: number) => readonly AddressLabel[],
): FetchRequest[] {
  state.ensureCapacity(graph.nodeCount);
  state.discovered = true;
  state.rankFor(graph);
  const maxHops = limits.maxHops;
  const { block, sub, time, incidentOffset } = graph;
  const index = timeIndexOf(graph);
  const { outOffset, outEvent, outTo, outRank, outAsset, outBits } = index;
  const windowIsWholeGraph = graph.eventCount === 0 || limits.lastBlock >= graph.block[graph.eventCount - 1]!;
  // Outflows from this rank on are after the window.
  const windowEndRank = windowIsWholeGraph
    ? Number.POSITIVE_INFINITY
    : timeRankOf(graph, limits.lastBlock + 1, Number.NEGATIVE_INFINITY);
  const { minHop, arrivalBlock, arrivalSub, arrivalTime, arrivalRank, flags } = state;
  let ticks = 0;
  // Minimum values per asset by bit length, then as 32-bit words, so the scan compares amounts without a
  // bigint per event: an outflow whose amount is shorter than the minimum is below it, a longer one is
  // not, and only equal lengths compare the words. A minimum at or above the overflow sentinel is
  // compared exactly (`minExact`).
  const words = amountWords(graph);
  const assetCount = graph.assets.length;
  const minBits = new Uint8Array(assetCount);
  const minHi = new Float64Array(assetCount);
  const minLo = new Float64Array(assetCount);
  const minExact = new Uint8Array(assetCount);
  for (let a = 0; a < assetCount; a++) {
    const min = limits.minValueOf(a);
    if (min >= AMOUNT_OVERFLOW) minExact[a] = 1;
    else if (min > 0n) {
      minBits[a] = bitLength(min);
      minHi[a] = Number(min >> 32n);
      minLo[a] = Number(min & 0xffff_ffffn);
    }
  }
  /** Whether out-edge i carries less than its asset's minimum. */
  const belowMin = (i: number): boolean => {
    const a = outAsset[i]!;
    if (a >= assetCount || minExact[a] === 1) return amountOf(graph, outEvent[i]!) < limits.minValueOf(a);
    const bits = outBits[i]!;
    const mb = minBits[a]!;
    if (bits !== mb) return bits < mb;
    const e = outEvent[i]!;
    const hi = words[2 * e + AMOUNT_HI_WORD]!;
    const mh = minHi[a]!;
    return hi !== mh ? hi < mh : words[2 * e + AMOUNT_LO_WORD]! < minLo[a]!;
  };

  /** Funds reach v over out-edge i, at `hop` hops. */
  const relax = (v: number, hop: number, i: number, level: number): void => {
    if ((flags[v]! & NODE_SUBJECT) !== 0) return;
    let changed = false;
    if (minHop[v] === UNREACHED) state.touched.push(v);
    if (hop < minHop[v]!) {
      minHop[v] = hop;
      changed = true;
    }
    const rank = outRank[i]!;
    if (rank < arrivalRank[v]!) {
      const e = outEvent[i]!;
      arrivalRank[v] = rank;
      arrivalBlock[v] = block[e]!;
      arrivalSub[v] = sub[e]!;
      arrivalTime[v] = time[e]!;
      changed = true;
      const labels = labelsOf(v);
      // Most addresses carry no label. Whether v is a terminal is decided when taint first reaches it
      // (sweep.ts, `decideLabel`); discovery stops at v only if it is one whenever that happens.
      if (labels.length > 0) {
        if (isTerminalFrom(labels, arrivalTime[v]!)) flags[v]! |= NODE_TERMINAL;
        else flags[v]! &= ~NODE_TERMINAL;
      }
    }
    if (changed && (flags[v]! & (NODE_TERMINAL | NODE_HUB | NODE_SKIPPED)) === 0 && minHop[v]! < maxHops) {
      state.push(v, Math.max(minHop[v]!, level));
    }
  };

  for (let level = 0; level < maxHops && !state.stopped; level++) {
    const queue = state.queues[level]!;
    const pending: FetchRequest[] = [];
    for (; state.cursor[level]! < queue.length; state.cursor[level]!++) {
      const u = queue[state.cursor[level]!]!;
      if (state.queuedAt[u] === level + 1) state.queuedAt[u] = 0;
      if ((ticks++ & 63) === 0) {
        limits.signal?.throwIfAborted();
        if (limits.deadlineReached()) {
          state.truncation.add("deadline");
          state.stopped = true;
          return [];
        }
      }
      const f = flags[u]!;
      if ((f & (NODE_TERMINAL | NODE_HUB | NODE_SKIPPED)) !== 0 || minHop[u]! >= maxHops) continue;
      const isSubject = (f & NODE_SUBJECT) !== 0;
      const openBlock = arrivalBlock[u]!;

      if (!limits.complete && state.loadedFrom[u]! > openBlock) {
        const unlabeled = !isSubject && labelsOf(u).length === 0;
        const budgetLeft = Math.max(0, limits.maxEdges - state.edgesAdmitted) + 1;
        pending.push({
          node: u,
          fromBlock: openBlock,
          toBlock:
            state.loadedFrom[u]! === Number.POSITIVE_INFINITY ? Number.POSITIVE_INFINITY : state.loadedFrom[u]! - 1,
          maxEvents: unlabeled ? Math.min(budgetLeft, limits.hubEventLimit + 1) : budgetLeft,
        });
        continue;
      }

      if (state.admittedFrom[u]! > openBlock) {
        const end = windowIsWholeGraph
          ? incidentOffset[u + 1]!
          : firstIncidentFromBlock(graph, index, u, limits.lastBlock + 1);
        const admitStart = firstIncidentFromBlock(graph, index, u, openBlock);
        const admitEnd =
          state.admittedFrom[u]! === Number.POSITIVE_INFINITY
            ? end
            : firstIncidentFromBlock(graph, index, u, state.admittedFrom[u]!);
        // A subject whose incident block is after the window has nothing in it to admit.
        const count = Math.max(0, admitEnd - admitStart);
        if ((f & NODE_EXPANDED) === 0) {
          if (state.expansions >= limits.maxExpansions) {
            flags[u]! |= NODE_SKIPPED;
            state.truncation.add("max_expansions");
            continue;
          }
          if (!isSubject && count > limits.hubEventLimit && labelsOf(u).length === 0) {
            flags[u]! |= NODE_HUB;
            continue;
          }
        }
        if (state.edgesAdmitted + count > limits.maxEdges) {
          if ((f & NODE_EXPANDED) === 0) flags[u]! |= NODE_SKIPPED;
          state.truncation.add("max_edges");
          continue;
        }
        state.edgesAdmitted += count;
        state.admittedFrom[u] = openBlock;
        if ((f & NODE_EXPANDED) === 0) {
          state.expansions++;
          flags[u]! |= NODE_EXPANDED;
          state.expanded.push(u);
        }
      }

      const hop = minHop[u]!;
      const openRank = arrivalRank[u]!;
      // Outflows after the arrival, up to where the last scan at this hop began (it covered the rest).
      const scanStart = firstOutEdgeFromRank(index, u, openRank, true);
      const scanEnd =
        state.scannedHop[u] !== hop || state.scanRank[u]! === Number.POSITIVE_INFINITY
          ? windowIsWholeGraph
            ? outOffset[u + 1]!
            : firstOutEdgeFromRank(index, u, windowEndRank, false)
          : firstOutEdgeFromRank(index, u, state.scanRank[u]!, false);
      const nextHop = hop + 1;
      for (let i = scanStart; i < scanEnd; i++) {
        const v = outTo[i]!;
        if (v === u) continue;
        if (belowMin(i)) continue;
        relax(v, nextHop, i, level);
      }
      state.scannedHop[u] = hop;
      state.scanBlock[u] = openBlock;
      state.scanSub[u] = arrivalSub[u]!;
      state.scanRank[u] = openRank;
    }
    if (pending.length > 0) {
      for (const request of pending) state.push(request.node, level);
      return pending;
    }
  }
  return [];
}
