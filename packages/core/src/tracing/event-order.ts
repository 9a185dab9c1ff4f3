import {
  type DiscoveryState,
  NODE_EXPANDED,
  NODE_HUB,
  NODE_SKIPPED,
  NODE_SUBJECT,
  NODE_TERMINAL,
  UNREACHED,
} from "./discovery";
import { bigintToLimbs, LIMB, LimbLedger } from "./limb-ledger";
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
  /** At their defaults (the walk writes only the reach columns and `ledgerSlot`). */
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
  /**
   * Where the receiver's transfers of the event's block begin in its incidence list: budgets count an
   * address's transfers from there (see `open`), read beside `toPos` instead of searched for per open.
   */
  readonly toBlockStart: Uint32Array;
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
  const toBlockStart = new Uint32Array(graph.eventCount);
  const { block } = graph;
  let index: BalanceIndex | null = { senderBefore, receiverBefore, toPos, toBlockStart };
  build: for (let node = 0; node < graph.nodeCount; node++) {
    for (let a = 0; a < assetCount; a++) {
      runH[a] = genesis[2 * (node * assetCount + a)]!;
      runL[a] = genesis[2 * (node * assetCount + a) + 1]!;
    }
    const end = incidentOffset[node + 1]!;
    let runBlock = -1;
    let runStart = 0;
    for (let i = incidentOffset[node]!; i < end; i++) {
      const e = incident[i]!;
      const a = asset[e]!;
      if (block[e] !== runBlock) {
        runBlock = block[e]!;
        runStart = i;
      }
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
        toBlockStart[e] = runStart;
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
  const { hopNow, parentEdge, openEdge, ledgerSlot } = tables;
  for (const node of state.touched) {
    hopNow[node] = UNREACHED;
    parentEdge[node] = -1;
    openEdge[node] = -1;
    ledgerSlot[node] = -1;
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
  const assetCount = Math.max(1, input.graph.assets.length);
  const balances = balanceIndexOf(input.graph, input.genesisLimbs, assetCount);
  if (!balances) return null;
  return new EventOrderWalk(input, balances, assetCount).run();
}

/**
 * One trace's walk. Its steps are methods of one class, not closures made per trace: a process runs
 * many traces, and code V8 optimized for one trace's closures is thrown away at the next (a new
 * function at every call site), which left each trace's first events to the interpreter.
 */
class EventOrderWalk {
  private readonly graph: TransferGraph;
  private readonly input: EventOrderInput;
  private readonly state: DiscoveryState;
  private readonly tables: SweepTables;
  private readonly from: Uint32Array;
  private readonly to: Uint32Array;
  private readonly time: ArrayLike<number>;
  private readonly asset: ArrayLike<number>;
  private readonly incident: Uint32Array;
  private readonly incidentOffset: Uint32Array;
  private readonly words: Uint32Array;
  private readonly flags: Uint8Array;
  private readonly minHop: Uint8Array;
  private readonly hopNow: Uint8Array;
  private readonly parentEdge: Int32Array;
  private readonly openEdge: Int32Array;
  private readonly ledgerSlot: Int32Array;
  private readonly senderBefore: Float64Array;
  private readonly receiverBefore: Float64Array;
  private readonly toPos: Uint32Array;
  private readonly toBlockStart: Uint32Array;
  private readonly ledger: LimbLedger;
  private readonly tally: LimbTally;
  private readonly assetCount: number;
  private readonly maxHops: number;
  private readonly fifo: boolean;
  private readonly scanRatio: number;
  /** Minimum followable taint per asset as limbs; one beyond their range is never reached. */
  private readonly minH: Float64Array;
  private readonly minL: Float64Array;
  /** Events after the window are never read: they end here. */
  private readonly endEvent: number;
  private readonly wholeGraph: boolean;
  /** The current event's amount as limbs (`amountLimbs`). */
  private ah = 0;
  private al = 0;
  // The merging walk's cursors: a min-heap by event id of (position, end) in incidence lists.
  private heapKey = new Float64Array(64);
  private heapPos = new Uint32Array(64);
  private heapEnd = new Uint32Array(64);
  private heapSize = 0;
  /** Events left in the open addresses' lists (an event in two lists counts twice). */
  private listed = 0;
  private scanning = false;
  private overflow = false;
  private stopped = false;
  // Subjects waiting to open, by their first event.
  private readonly pendingNode: number[] = [];
  private readonly pendingPos: number[] = [];
  private readonly pendingEnd: number[] = [];
  private pendingOrder = new Uint32Array(0);
  private nextPending = 0;

  constructor(input: EventOrderInput, balances: BalanceIndex, assetCount: number) {
    const { graph, state, tables } = input;
    this.graph = graph;
    this.input = input;
    this.state = state;
    this.tables = tables;
    this.from = graph.from;
    this.to = graph.to;
    this.time = graph.time;
    this.asset = graph.asset;
    this.incident = graph.incident;
    this.incidentOffset = graph.incidentOffset;
    this.words = amountWords(graph);
    this.flags = state.flags;
    this.minHop = state.minHop;
    this.hopNow = tables.hopNow;
    this.parentEdge = tables.parentEdge;
    this.openEdge = tables.openEdge;
    this.ledgerSlot = tables.ledgerSlot;
    this.senderBefore = balances.senderBefore;
    this.receiverBefore = balances.receiverBefore;
    this.toPos = balances.toPos;
    this.toBlockStart = balances.toBlockStart;
    const ledger = input.limbLedger ?? new LimbLedger(input.ledger.model);
    ledger.reset(input.ledger.model);
    this.ledger = ledger;
    this.fifo = ledger.model === "fifo";
    const tally = input.tally ?? new LimbTally(assetCount);
    tally.reset(assetCount);
    this.tally = tally;
    this.assetCount = assetCount;
    this.maxHops = input.maxHops;
    this.scanRatio = input.scanRatio ?? SCAN_RATIO;
    const limbs = { h: 0, l: 0 };
    this.minH = new Float64Array(assetCount);
    this.minL = new Float64Array(assetCount);
    for (let a = 0; a < assetCount; a++) {
      if (bigintToLimbs(input.minValueOf(a), limbs)) {
        this.minH[a] = limbs.h;
        this.minL[a] = limbs.l;
      } else this.minH[a] = Number.POSITIVE_INFINITY;
    }
    const { block } = graph;
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
    this.endEvent = endEvent;
    this.wholeGraph = endEvent === graph.eventCount;
  }

  run(): SweepResult | null {
    this.checkClock();
    this.admitSubjects();
    const scanFrom = this.merge();
    if (scanFrom < 0) return this.abandon();
    if (scanFrom < this.endEvent && !this.scan(scanFrom)) return this.abandon();
    return this.result();
  }

  private endOf(node: number): number {
    return this.wholeGraph ? this.incidentOffset[node + 1]! : incidentPositionOf(this.graph, node, this.endEvent);
  }

  /**
   * Slot of the ledger entry of (node, asset), opening it at event e (of asset a) with the balance just
   * before it if it is not open yet (`before`: the index's column for the node's side of e).
   */
  private entryFor(node: number, a: number, before: Float64Array, e: number): number {
    // An open address's entries sit at its claimed slots, one per asset: the walk finds an entry and its
    // state in one record, with no id lookup first.
    const slot = this.ledgerSlot[node]! + a;
    if (this.ledger.entryAt(slot) >= 0) return slot;
    const h = before[2 * e]!;
    const l = before[2 * e + 1]!;
    const isSubject = (this.flags[node]! & NODE_SUBJECT) !== 0;
    this.ledger.openAt(slot, isSubject, h, l, node, a);
    if (isSubject) this.tally.subjectOpens(node, a, h, l);
    return slot;
  }

  /** Event e's amount as limbs in `ah/al`; false when beyond their range. */
  private amountLimbs(e: number): boolean {
    const hiWord = this.words[2 * e + AMOUNT_HI_WORD]!;
    const loWord = this.words[2 * e + AMOUNT_LO_WORD]!;
    if (hiWord === 0xffff_ffff && loWord === 0xffff_ffff) {
      const limbs = { h: 0, l: 0 };
      if (!bigintToLimbs(this.graph.amountHigh.get(e) ?? AMOUNT_OVERFLOW, limbs)) return false;
      this.ah = limbs.h;
      this.al = limbs.l;
      return true;
    }
    this.ah = hiWord >>> 16;
    this.al = (hiWord & 0xffff) * 2 ** 32 + loWord;
    return true;
  }

  private siftDown(start: number): void {
    const { heapKey, heapPos, heapEnd, heapSize } = this;
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

  private pushCursor(pos: number, end: number): void {
    if (pos >= end) return;
    this.listed += end - pos;
    if (this.heapSize === this.heapKey.length) {
      const size = this.heapSize * 2;
      const key = new Float64Array(size);
      key.set(this.heapKey);
      this.heapKey = key;
      const position = new Uint32Array(size);
      position.set(this.heapPos);
      this.heapPos = position;
      const ending = new Uint32Array(size);
      ending.set(this.heapEnd);
      this.heapEnd = ending;
    }
    const { heapKey, heapPos, heapEnd } = this;
    let i = this.heapSize++;
    const key = this.incident[pos]!;
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

  private checkClock(): void {
    this.input.signal?.throwIfAborted();
    if (!this.stopped && this.input.deadlineReached()) {
      this.stopped = true;
      this.state.truncation.add("deadline");
    }
  }

  /**
   * Subjects: admitted first, in the order given, as discovery does; each opens at its first event
   * from its incident block on. A deadline already passed admits nothing.
   */
  private admitSubjects(): void {
    const { state, flags, graph } = this;
    for (const node of [...state.touched]) {
      if ((flags[node]! & NODE_SUBJECT) === 0) continue;
      this.hopNow[node] = 0;
      if (this.stopped) continue;
      const pos = firstIncidentAtOrAfter(graph, node, state.arrivalBlock[node]!, Number.NEGATIVE_INFINITY);
      const end = Math.max(pos, this.endOf(node));
      if (state.expansions >= this.input.maxExpansions) {
        flags[node]! |= NODE_SKIPPED;
        state.truncation.add("max_expansions");
        continue;
      }
      if (state.edgesAdmitted + (end - pos) > this.input.maxEdges) {
        flags[node]! |= NODE_SKIPPED;
        state.truncation.add("max_edges");
        continue;
      }
      state.edgesAdmitted += end - pos;
      state.expansions++;
      flags[node]! |= NODE_EXPANDED;
      state.expanded.push(node);
      if (pos < end) {
        this.pendingNode.push(node);
        this.pendingPos.push(pos);
        this.pendingEnd.push(end);
      }
    }
    const { incident, pendingPos } = this;
    this.pendingOrder = Uint32Array.from(this.pendingNode, (_, i) => i).sort(
      (x, y) => incident[pendingPos[x]!]! - incident[pendingPos[y]!]!,
    );
  }

  private nextSubjectEvent(): number {
    return this.nextPending < this.pendingOrder.length
      ? this.incident[this.pendingPos[this.pendingOrder[this.nextPending]!]!]!
      : Number.POSITIVE_INFINITY;
  }

  private openNextSubject(): void {
    const i = this.pendingOrder[this.nextPending++]!;
    const node = this.pendingNode[i]!;
    this.flags[node]! |= LEDGER_OPEN;
    this.ledgerSlot[node] = this.ledger.claimSlots(this.assetCount);
    if (!this.scanning) this.pushCursor(this.pendingPos[i]!, this.pendingEnd[i]!);
  }

  /** Opens non-subject `node`, the receiver of event e, if the budgets allow; may flag it a hub or skipped instead. */
  private open(node: number, e: number): boolean {
    if (this.stopped) return false;
    const { state, flags, input } = this;
    if (state.expansions >= input.maxExpansions) {
      flags[node]! |= NODE_SKIPPED;
      state.truncation.add("max_expansions");
      return false;
    }
    const pos = this.toPos[e]!;
    const end = this.endOf(node);
    // Budgets and the hub limit count the address's transfers from the start of the block taint reached
    // it in, as discovery (which reads by block) does.
    const count = end - this.toBlockStart[e]!;
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
    this.ledgerSlot[node] = this.ledger.claimSlots(this.assetCount);
    state.expanded.push(node);
    if (!this.scanning) this.pushCursor(pos + 1, end);
    return true;
  }

  /**
   * A transfer to itself moves nothing: not the balance, the taint held, or the order of fifo's lots. Its
   * address's entry opens as at any other event. (Kept out of `step`, which V8 inlines into the loops.)
   */
  private stepSelf(e: number): void {
    const node = this.from[e]!;
    if ((this.flags[node]! & LEDGER_OPEN) !== 0) this.entryFor(node, this.asset[e]!, this.senderBefore, e);
  }

  /** Moves event e (not a transfer to itself) through the ledgers of its open ends (at least one is open). */
  private step(e: number): void {
    const { flags, hopNow, ledger, tally } = this;
    const f = this.from[e]!;
    const t = this.to[e]!;
    const fOpen = (flags[f]! & LEDGER_OPEN) !== 0;
    let tOpen = (flags[t]! & LEDGER_OPEN) !== 0;
    if (!this.amountLimbs(e)) {
      this.overflow = true;
      return;
    }
    const ah = this.ah;
    const al = this.al;
    const a = this.asset[e]!;
    let th = 0;
    let tl = 0;
    let delivered = false;
    if (fOpen) {
      ledger.debit(this.entryFor(f, a, this.senderBefore, e), ah, al);
      th = ledger.outH;
      tl = ledger.outL;
      if (ledger.newH !== 0 || ledger.newL !== 0) tally.add(a, SUBJECT, ledger.newH, ledger.newL);
      if (th > 0 || (th === 0 && tl > 0)) {
        const senderHop = hopNow[f]!;
        if ((flags[t]! & NODE_SUBJECT) !== 0) {
          tally.emit(e, th, tl, senderHop + 1);
          // A subject not open yet (before its incident block, or left out by a budget) does not take it:
          // its holdings count once it opens, less what other subjects sent it (`subjectOpens`).
          if (tOpen) delivered = true;
          else tally.holdForSubject(t, a, th, tl);
        } else if (th < this.minH[a]! || (th === this.minH[a]! && tl < this.minL[a]!)) {
          tally.dust(a, th, tl);
        } else {
          const hop = senderHop + 1;
          const edge = tally.emit(e, th, tl, hop);
          if (this.minHop[t] === UNREACHED) {
            this.state.touched.push(t);
            this.minHop[t] = hop;
            decideLabel(this.state, this.input.labelsOf(t), t, this.time[e]!);
          }
          if (hop < hopNow[t]!) {
            hopNow[t] = hop;
            this.parentEdge[t] = edge;
            this.minHop[t] = hop;
          }
          if ((flags[t]! & (NODE_TERMINAL | NODE_HUB)) !== 0) {
            tally.receive(t, a, TERMINALS, th, tl);
          } else if (tOpen) {
            delivered = true;
          } else if (hop < this.maxHops && (flags[t]! & NODE_SKIPPED) === 0 && this.open(t, e)) {
            delivered = true;
            tOpen = true;
            this.openEdge[t] = edge;
          } else if ((flags[t]! & NODE_HUB) !== 0) {
            tally.receive(t, a, TERMINALS, th, tl);
          } else {
            tally.receive(t, a, hopNow[t]! >= this.maxHops ? HOP_LIMIT : UNEXPLORED, th, tl);
          }
        }
      }
    }
    if (tOpen) {
      const te = this.entryFor(t, a, this.receiverBefore, e);
      if (delivered) ledger.credit(te, ah, al, th, tl, this.fifo);
      else ledger.credit(te, ah, al, 0, 0, false);
      if (ledger.newH !== 0 || ledger.newL !== 0) tally.add(a, SUBJECT, ledger.newH, ledger.newL);
    }
  }

  private failed(): boolean {
    return this.overflow || this.ledger.overflow || this.tally.overflow;
  }

  /**
   * The merging walk, until the open addresses' events are a large share of what is left: returns the
   * event the scan goes on from (the end when the lists ran out first), or −1 when a value left the limbs' range.
   */
  private merge(): number {
    const { incident } = this;
    let done = 0;
    let last = -1;
    for (;;) {
      const top = this.heapSize > 0 ? this.heapKey[0]! : Number.POSITIVE_INFINITY;
      if (this.nextPending < this.pendingOrder.length && this.nextSubjectEvent() <= top) {
        this.openNextSubject();
        continue;
      }
      if (this.heapSize === 0) return this.endEvent;
      const pos = this.heapPos[0]! + 1;
      this.listed--;
      if (pos < this.heapEnd[0]!) {
        this.heapKey[0] = incident[pos]!;
        this.heapPos[0] = pos;
      } else {
        this.heapSize--;
        this.heapKey[0] = this.heapKey[this.heapSize]!;
        this.heapPos[0] = this.heapPos[this.heapSize]!;
        this.heapEnd[0] = this.heapEnd[this.heapSize]!;
      }
      if (this.heapSize > 0) this.siftDown(0);
      // An event between two open addresses sits in both lists.
      if (top === last) continue;
      last = top;
      if (this.from[top] === this.to[top]) this.stepSelf(top);
      else this.step(top);
      if (this.failed()) return -1;
      if ((++done & 4095) === 0) this.checkClock();
      if (this.listed > (this.endEvent - top) * this.scanRatio) return top + 1;
    }
  }

  /** Every event from `scanFrom` on, in order; false when a value left the limbs' range. */
  private scan(scanFrom: number): boolean {
    this.scanning = true;
    const { from, to, flags, endEvent } = this;
    let upcoming = this.nextSubjectEvent();
    for (let e = scanFrom; e < endEvent; e++) {
      if (upcoming <= e) {
        while (this.nextSubjectEvent() <= e) this.openNextSubject();
        upcoming = this.nextSubjectEvent();
      }
      if ((e & 4095) === 0) this.checkClock();
      const f = from[e]!;
      const t = to[e]!;
      if (((flags[f]! | flags[t]!) & LEDGER_OPEN) === 0) continue;
      if (f === t) this.stepSelf(e);
      else this.step(e);
      if (this.failed()) return false;
    }
    return true;
  }

  private abandon(): null {
    resetWalkTables(this.tables, this.state);
    return null;
  }

  private result(): SweepResult {
    const { ledger, ledgerSlot } = this;
    this.input.ledger.adopt(ledger);
    const { edgeEvent, edgeHop, edgeTaint, receivedBy, totals } = this.tally.settle();
    return sweepResult({
      edgeEvent,
      edgeTaint,
      edgeHop,
      hopNow: this.hopNow,
      parentEdge: this.parentEdge,
      openEdge: this.openEdge,
      entryOf: (node, a) => {
        const id = ledgerSlot[node]! >= 0 ? ledger.entryAt(ledgerSlot[node]! + a) : -1;
        return id >= 0 ? id : undefined;
      },
      entryNode: ledger.entryNodes(),
      entryAsset: ledger.entryAssets(),
      openingOf: (id) => ledger.openingOf(id),
      receivedBy,
      totals,
    });
  }
}
