import {
  type DiscoveryState,
  NODE_EXPANDED,
  NODE_HUB,
  NODE_SKIPPED,
  NODE_SUBJECT,
  NODE_TERMINAL,
  UNREACHED,
} from "./discovery";
import { bigintToLimbs, LIMB, LimbLedger, limbsToBigint } from "./limb-ledger";
import { HOP_LIMIT, LimbTally, SUBJECT, TERMINALS, UNEXPLORED } from "./limb-tally";
import { decideLabel, type SweepResult, type SweepTables, sweepResult } from "./sweep";
import type { TaintLedger } from "./taint";
import {
  AMOUNT_HI_WORD,
  AMOUNT_LO_WORD,
  AMOUNT_OVERFLOW,
  amountWords,
  firstIncidentAtOrAfter,
  incidentPositionOf,
  type TransferGraph,
} from "./transfer-graph";
import type { AddressLabel } from "./types";

/**
 * The event-order engine, for a graph that holds every event from genesis (a preloaded chain):
 * discovery and the sweep in one walk over the events in time order. An address opens when taint
 * first reaches it at fewer hops than the limit, with the balance it held just before, and its
 * events move taint through its ledger from then on: the sweep's rules (sweep.ts), so with no budget
 * binding it gives the same edges, ledgers and totals as discovery followed by the sweep, while
 * reading each event at most once instead of expanding addresses one by one first.
 *
 * The walk takes one of two forms, with identical outcomes:
 * - merging the event lists of the open addresses (a heap of cursors), which costs what the trace
 *   touches, so a small trace over a large graph stays cheap; an address opened this way sums its
 *   earlier events for its opening balance;
 * - once the open addresses' events are a large share of the events left, scanning every event:
 *   running balances of every address are caught up once and then kept, and an address opens with its
 *   running balance.
 *
 * Budgets are charged in time order, as addresses open: subjects first (as discovery does), then each
 * address when taint first reaches it; the hub limit counts its events from then to the window's end.
 */
export interface EventOrderInput {
  graph: TransferGraph;
  /** Fresh but for the subjects (`addSubject`). */
  state: DiscoveryState;
  /** At their defaults; must have address records (`pairRec`). */
  tables: SweepTables;
  /** Receives the final ledger state. */
  ledger: TaintLedger;
  /** A ledger over limbs and a tally to reuse (reset first), as a trace's pooled arrays are. */
  limbLedger?: LimbLedger;
  tally?: LimbTally;
  /** `TransferGraph.genesisLimbs`. */
  genesisLimbs: Float64Array;
  maxHops: number;
  minValueOf: (asset: number) => bigint;
  labelsOf: (node: number) => readonly AddressLabel[];
  hubEventLimit: number;
  maxExpansions: number;
  maxEdges: number;
  deadlineReached: () => boolean;
  signal: AbortSignal | undefined;
  /** Last block of the trace window; later events are ignored. */
  lastBlock: number;
  /**
   * The walk scans every event once the open addresses' events left exceed this share of the events
   * left (default SCAN_RATIO). 0 scans from the first event on, Infinity never: both forms give the same
   * outcome, and the engine's tests hold them to it.
   */
  scanRatio?: number;
}

interface BalanceIndex {
  /**
   * Each event's sender's and receiver's balance of the event's asset just before it, as limbs at
   * [2e] (high) and [2e + 1] (low): an address opens at one of its events, so its opening balance is
   * read beside the event the walk is on (in event order, mostly from memory it is already reading)
   * instead of searched for in its history.
   */
  readonly senderBefore: Float64Array;
  readonly receiverBefore: Float64Array;
  /** Where each event sits in its receiver's incidence list (a binary search spared per open). */
  readonly toPos: Uint32Array;
}
const balanceIndexCache = new WeakMap<TransferGraph, BalanceIndex | null>();

/**
 * Every address's balance before each of its events, built once per graph (a graph holding every
 * event from genesis): an address the walk opens takes its opening balance from here instead of the
 * walk keeping a running balance of every address. Null when a balance leaves the limbs' exact range.
 */
function balanceIndexOf(graph: TransferGraph, genesis: Float64Array, assetCount: number): BalanceIndex | null {
  const cached = balanceIndexCache.get(graph);
  if (cached !== undefined) return cached;
  const { from, to, asset, amountHigh, incident, incidentOffset } = graph;
  const words = amountWords(graph);
  const senderBefore = new Float64Array(2 * graph.eventCount);
  const receiverBefore = new Float64Array(2 * graph.eventCount);
  const runH = new Float64Array(assetCount);
  const runL = new Float64Array(assetCount);
  const split = { h: 0, l: 0 };
  const toPos = new Uint32Array(graph.eventCount);
  let index: BalanceIndex | null = { senderBefore, receiverBefore, toPos };
  build: for (let node = 0; node < graph.nodeCount; node++) {
    for (let a = 0; a < assetCount; a++) {
      runH[a] = genesis[2 * (node * assetCount + a)]!;
      runL[a] = genesis[2 * (node * assetCount + a) + 1]!;
    }
    const end = incidentOffset[node + 1]!;
    for (let i = incidentOffset[node]!; i < end; i++) {
      const e = incident[i]!;
      const a = asset[e]!;
      const hiWord = words[2 * e + AMOUNT_HI_WORD]!;
      const loWord = words[2 * e + AMOUNT_LO_WORD]!;
      let ah: number;
      let al: number;
      if (hiWord === 0xffff_ffff && loWord === 0xffff_ffff) {
        if (!bigintToLimbs(amountHigh.get(e) ?? AMOUNT_OVERFLOW, split)) {
          index = null;
          break build;
        }
        ah = split.h;
        al = split.l;
      } else {
        ah = hiWord >>> 16;
        al = (hiWord & 0xffff) * 2 ** 32 + loWord;
      }
      let h = runH[a]!;
      let l = runL[a]!;
      if (from[e] === node) {
        senderBefore[2 * e] = h;
        senderBefore[2 * e + 1] = l;
      }
      if (to[e] === node) {
        toPos[e] = i;
        receiverBefore[2 * e] = h;
        receiverBefore[2 * e + 1] = l;
        h += ah;
        l += al;
        if (l >= LIMB) {
          l -= LIMB;
          h += 1;
        }
      }
      if (from[e] === node) {
        h -= ah;
        l -= al;
        if (l < 0) {
          l += LIMB;
          h -= 1;
        }
      }
      if (h > 2 ** 51 || h < -(2 ** 51)) {
        index = null;
        break build;
      }
      runH[a] = h;
      runL[a] = l;
    }
  }
  balanceIndexCache.set(graph, index);
  return index;
}

/**
 * Restores the tables a walk over `state` wrote: it writes only the reach columns (hops, parent and
 * opening edges), and only at addresses it touched.
 */
export function resetWalkTables(tables: SweepTables, state: Pick<DiscoveryState, "touched">): void {
  const { hopNow, parentEdge, openEdge } = tables;
  for (const node of state.touched) {
    hopNow[node] = UNREACHED;
    parentEdge[node] = -1;
    openEdge[node] = -1;
  }
}

/** An open address's ledger takes its events (for a subject, from its incident block on). */
const LEDGER_OPEN = 32;
/** See `EventOrderInput.scanRatio`. */
export const SCAN_RATIO = 0.125;

/**
 * Runs the trace; null when a value left the limbs' exact range (the caller then traces with the
 * bigint sweep), in which case the tables are back at their defaults and `state` must be reset.
 */
export function runEventOrderTrace(input: EventOrderInput): SweepResult | null {
  const { graph, state, tables, maxHops, signal, genesisLimbs: genesis } = input;
  const { from, to, block, time, asset, amountHigh, incident, incidentOffset } = graph;
  const { hopNow, parentEdge, openEdge } = tables;
  const words = amountWords(graph);
  const assetCount = Math.max(1, graph.assets.length);
  const balances = balanceIndexOf(graph, genesis, assetCount);
  if (!balances) return null;
  const { senderBefore, receiverBefore, toPos } = balances;
  const { flags, minHop } = state;
  const ledger = input.limbLedger ?? new LimbLedger(input.ledger.model);
  ledger.reset(input.ledger.model);
  // Entries live at slot node × assetCount + asset: the walk finds an address's entry and its state in one record.
  ledger.reserve(graph.nodeCount * assetCount);
  const fifo = ledger.model === "fifo";
  const tally = input.tally ?? new LimbTally(assetCount);
  tally.reset(assetCount);
  const scanRatio = input.scanRatio ?? SCAN_RATIO;
  const scratch = { h: 0, l: 0 };

  const minH = new Float64Array(assetCount);
  const minL = new Float64Array(assetCount);
  for (let a = 0; a < assetCount; a++) {
    if (bigintToLimbs(input.minValueOf(a), scratch)) {
      minH[a] = scratch.h;
      minL[a] = scratch.l;
    } else minH[a] = Number.POSITIVE_INFINITY;
  }

  // Events after the window are never read: they end at `endEvent`.
  let endEvent = graph.eventCount;
  if (endEvent > 0 && input.lastBlock < block[endEvent - 1]!) {
    let lo = 0;
    let hi = endEvent;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (block[mid]! <= input.lastBlock) lo = mid + 1;
      else hi = mid;
    }
    endEvent = lo;
  }
  const wholeGraph = endEvent === graph.eventCount;
  const endOf = (node: number): number =>
    wholeGraph ? incidentOffset[node + 1]! : incidentPositionOf(graph, node, endEvent);

  const entryNode: number[] = [];
  const entryAsset: number[] = [];
  const openH: number[] = [];
  const openL: number[] = [];
  /**
   * Slot of the ledger entry of (node, asset), opening it at event e (of asset a) with the balance just
   * before it if it is not open yet (`before`: the index's column for the node's side of e).
   */
  function entryFor(node: number, a: number, before: Float64Array, e: number): number {
    const slot = node * assetCount + a;
    if (ledger.entryAt(slot) >= 0) return slot;
    const h = before[2 * e]!;
    const l = before[2 * e + 1]!;
    const isSubject = (flags[node]! & NODE_SUBJECT) !== 0;
    const id = ledger.openAt(slot, isSubject, h, l);
    openH[id] = h;
    openL[id] = l;
    if (isSubject) tally.add(a, SUBJECT, h, l);
    entryNode.push(node);
    entryAsset.push(a);
    return slot;
  }

  /** Event e's amount as limbs in `scratch`; false when beyond their range. */
  function amountLimbs(e: number): boolean {
    const hiWord = words[2 * e + AMOUNT_HI_WORD]!;
    const loWord = words[2 * e + AMOUNT_LO_WORD]!;
    if (hiWord === 0xffff_ffff && loWord === 0xffff_ffff) {
      return bigintToLimbs(amountHigh.get(e) ?? AMOUNT_OVERFLOW, scratch);
    }
    scratch.h = hiWord >>> 16;
    scratch.l = (hiWord & 0xffff) * 2 ** 32 + loWord;
    return true;
  }
  // The merging walk's cursors: a min-heap by event id of (position, end) in incidence lists.
  let heapKey = new Float64Array(64);
  let heapPos = new Uint32Array(64);
  let heapEnd = new Uint32Array(64);
  let heapSize = 0;
  /** Events left in the open addresses' lists (an event in two lists counts twice). */
  let listed = 0;
  function siftDown(start: number): void {
    let i = start;
    const key = heapKey[i]!;
    const pos = heapPos[i]!;
    const end = heapEnd[i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= heapSize) break;
      if (child + 1 < heapSize && heapKey[child + 1]! < heapKey[child]!) child++;
      if (heapKey[child]! >= key) break;
      heapKey[i] = heapKey[child]!;
      heapPos[i] = heapPos[child]!;
      heapEnd[i] = heapEnd[child]!;
      i = child;
    }
    heapKey[i] = key;
    heapPos[i] = pos;
    heapEnd[i] = end;
  }
  function pushCursor(pos: number, end: number): void {
    if (pos >= end) return;
    listed += end - pos;
    if (heapSize === heapKey.length) {
      const key = new Float64Array(heapSize * 2);
      key.set(heapKey);
      heapKey = key;
      const position = new Uint32Array(heapSize * 2);
      position.set(heapPos);
      heapPos = position;
      const ending = new Uint32Array(heapSize * 2);
      ending.set(heapEnd);
      heapEnd = ending;
    }
    let i = heapSize++;
    const key = incident[pos]!;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (heapKey[parent]! <= key) break;
      heapKey[i] = heapKey[parent]!;
      heapPos[i] = heapPos[parent]!;
      heapEnd[i] = heapEnd[parent]!;
      i = parent;
    }
    heapKey[i] = key;
    heapPos[i] = pos;
    heapEnd[i] = end;
  }
  let scanning = false;
  let overflow = false;

  let stopped = false;
  function checkClock(): void {
    signal?.throwIfAborted();
    if (!stopped && input.deadlineReached()) {
      stopped = true;
      state.truncation.add("deadline");
    }
  }
  // Subjects: admitted first, in the order given, as discovery does; each opens at its first event
  // from its incident block on. A deadline already passed admits nothing.
  checkClock();
  const pendingNode: number[] = [];
  const pendingPos: number[] = [];
  const pendingEnd: number[] = [];
  for (const node of [...state.touched]) {
    if ((flags[node]! & NODE_SUBJECT) === 0) continue;
    hopNow[node] = 0;
    if (stopped) continue;
    const pos = firstIncidentAtOrAfter(graph, node, state.arrivalBlock[node]!, Number.NEGATIVE_INFINITY);
    const end = Math.max(pos, endOf(node));
    if (state.expansions >= input.maxExpansions) {
      flags[node]! |= NODE_SKIPPED;
      state.truncation.add("max_expansions");
      continue;
    }
    if (state.edgesAdmitted + (end - pos) > input.maxEdges) {
      flags[node]! |= NODE_SKIPPED;
      state.truncation.add("max_edges");
      continue;
    }
    state.edgesAdmitted += end - pos;
    state.expansions++;
    flags[node]! |= NODE_EXPANDED;
    state.expanded.push(node);
    if (pos < end) {
      pendingNode.push(node);
      pendingPos.push(pos);
      pendingEnd.push(end);
    }
  }
  const pendingOrder = pendingNode
    .map((_, i) => i)
    .sort((x, y) => incident[pendingPos[x]!]! - incident[pendingPos[y]!]!);
  let nextPending = 0;
  const nextSubjectEvent = (): number =>
    nextPending < pendingOrder.length ? incident[pendingPos[pendingOrder[nextPending]!]!]! : Number.POSITIVE_INFINITY;
  function openNextSubject(): void {
    const i = pendingOrder[nextPending++]!;
    const node = pendingNode[i]!;
    flags[node]! |= LEDGER_OPEN;
    if (!scanning) pushCursor(pendingPos[i]!, pendingEnd[i]!);
  }

  /** Opens non-subject `node`, the receiver of event e, if the budgets allow; may flag it a hub or skipped instead. */
  function open(node: number, e: number): boolean {
    if (stopped) return false;
    if (state.expansions >= input.maxExpansions) {
      flags[node]! |= NODE_SKIPPED;
      state.truncation.add("max_expansions");
      return false;
    }
    const pos = toPos[e]!;
    const end = endOf(node);
    const count = end - pos;
    if (count > input.hubEventLimit && input.labelsOf(node).length === 0) {
      flags[node]! |= NODE_HUB;
      return false;
    }
    if (state.edgesAdmitted + count > input.maxEdges) {
      flags[node]! |= NODE_SKIPPED;
      state.truncation.add("max_edges");
      return false;
    }
    state.edgesAdmitted += count;
    state.expansions++;
    flags[node]! |= NODE_EXPANDED | LEDGER_OPEN;
    state.expanded.push(node);
    if (!scanning) pushCursor(pos + 1, end);
    return true;
  }

  /** Moves event e through the ledgers of its open ends (at least one is open). */
  function step(e: number): void {
    const f = from[e]!;
    const t = to[e]!;
    const fOpen = (flags[f]! & LEDGER_OPEN) !== 0;
    let tOpen = (flags[t]! & LEDGER_OPEN) !== 0;
    if (!amountLimbs(e)) {
      overflow = true;
      return;
    }
    const ah = scratch.h;
    const al = scratch.l;
    const a = asset[e]!;
    let th = 0;
    let tl = 0;
    let delivered = false;
    if (fOpen) {
      ledger.debit(entryFor(f, a, senderBefore, e), ah, al);
      th = ledger.outH;
      tl = ledger.outL;
      if (ledger.newH !== 0 || ledger.newL !== 0) tally.add(a, SUBJECT, ledger.newH, ledger.newL);
      if (th > 0 || (th === 0 && tl > 0)) {
        const senderHop = hopNow[f]!;
        if (t === f) {
          delivered = true;
        } else if ((flags[t]! & NODE_SUBJECT) !== 0) {
          delivered = true;
          tally.emit(e, th, tl, senderHop + 1);
        } else if (th < minH[a]! || (th === minH[a]! && tl < minL[a]!)) {
          tally.dust(a, th, tl);
        } else {
          const hop = senderHop + 1;
          const edge = tally.emit(e, th, tl, hop);
          if (minHop[t] === UNREACHED) {
            state.touched.push(t);
            minHop[t] = hop;
            decideLabel(state, input.labelsOf(t), t, time[e]!);
          }
          if (hop < hopNow[t]!) {
            hopNow[t] = hop;
            parentEdge[t] = edge;
            minHop[t] = hop;
          }
          if ((flags[t]! & (NODE_TERMINAL | NODE_HUB)) !== 0) {
            tally.receive(t, a, TERMINALS, th, tl);
          } else if (tOpen) {
            delivered = true;
          } else if (hop < maxHops && (flags[t]! & NODE_SKIPPED) === 0 && open(t, e)) {
            delivered = true;
            tOpen = true;
            openEdge[t] = edge;
          } else if ((flags[t]! & NODE_HUB) !== 0) {
            tally.receive(t, a, TERMINALS, th, tl);
          } else {
            tally.receive(t, a, hopNow[t]! >= maxHops ? HOP_LIMIT : UNEXPLORED, th, tl);
          }
        }
      }
    }
    if (tOpen) {
      const te = entryFor(t, a, receiverBefore, e);
      if (delivered) ledger.credit(te, ah, al, th, tl, fifo);
      else ledger.credit(te, ah, al, 0, 0, false);
      if (ledger.newH !== 0 || ledger.newL !== 0) tally.add(a, SUBJECT, ledger.newH, ledger.newL);
    }
  }

  const failed = (): boolean => overflow || ledger.overflow || tally.overflow;

  // The merging walk, until the open addresses' events are a large share of what is left.
  let done = 0;
  let scanFrom = endEvent;
  let last = -1;
  for (;;) {
    const top = heapSize > 0 ? heapKey[0]! : Number.POSITIVE_INFINITY;
    if (nextPending < pendingOrder.length && nextSubjectEvent() <= top) {
      openNextSubject();
      continue;
    }
    if (heapSize === 0) break;
    const pos = heapPos[0]! + 1;
    listed--;
    if (pos < heapEnd[0]!) {
      heapKey[0] = incident[pos]!;
      heapPos[0] = pos;
    } else {
      heapSize--;
      heapKey[0] = heapKey[heapSize]!;
      heapPos[0] = heapPos[heapSize]!;
      heapEnd[0] = heapEnd[heapSize]!;
    }
    if (heapSize > 0) siftDown(0);
    // An event between two open addresses sits in both lists.
    if (top === last) continue;
    last = top;
    step(top);
    if (failed()) return abandon();
    if ((++done & 4095) === 0) checkClock();
    if (listed > (endEvent - top) * scanRatio) {
      scanFrom = top + 1;
      break;
    }
  }

  if (scanFrom < endEvent) {
    scanning = true;
    let upcoming = nextSubjectEvent();
    for (let e = scanFrom; e < endEvent; e++) {
      if (upcoming <= e) {
        while (nextSubjectEvent() <= e) openNextSubject();
        upcoming = nextSubjectEvent();
      }
      if ((e & 4095) === 0) checkClock();
      if (((flags[from[e]!]! | flags[to[e]!]!) & LEDGER_OPEN) === 0) continue;
      step(e);
      if (failed()) return abandon();
    }
  }

  function abandon(): null {
    resetWalkTables(tables, state);
    return null;
  }

  input.ledger.adopt(ledger);
  const { edgeEvent, edgeHop, edgeTaint, receivedBy, totals } = tally.settle();
  return sweepResult({
    edgeEvent,
    edgeTaint,
    edgeHop,
    hopNow,
    parentEdge,
    openEdge,
    entryOf: (node, a) => {
      const id = ledger.entryAt(node * assetCount + a);
      return id >= 0 ? id : undefined;
    },
    entryNode,
    entryAsset,
    openingOf: (id) => limbsToBigint(openH[id]!, openL[id]!),
    receivedBy,
    totals,
  });
}
