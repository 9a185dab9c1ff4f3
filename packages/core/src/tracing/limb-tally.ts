import { LIMB, limbsToBigint } from "./limb-ledger";
import { growFloat64, growUint8, growUint32 } from "./typed-growth";

/** (h, l) − (h2, l2) as limbs, for values the limbs hold. */
function minus(h: number, l: number, h2: number, l2: number): [number, number] {
  const dl = l - l2;
  return dl < 0 ? [h - h2 - 1, dl + LIMB] : [h - h2, dl];
}

/** Where a unit of taint ends, per asset (see `SweepTotals`). */
export const SUBJECT = 0;
export const TERMINALS = 1;
export const HOP_LIMIT = 2;
export const DUST = 3;
export const UNEXPLORED = 4;
const BUCKETS = 5;

export interface SweepTotals {
  subjectTaint: bigint;
  toTerminals: bigint;
  atHopLimit: bigint;
  dust: bigint;
  dustEdges: number;
  unexplored: bigint;
}

/**
 * What a sweep over limbs emits and counts: the trace edges with their taint, the sums per asset and
 * bucket, and the taint received by addresses without a ledger. Values are limb pairs (see
 * limb-ledger.ts); `overflow` is set once a sum leaves their exact range, and the caller then
 * discards the tally.
 */
export class LimbTally {
  /** Emitted edges: event, hop and taint (limbs) in columns that grow by doubling and are kept across `reset`. */
  private events = new Uint32Array(1024);
  private hops = new Uint8Array(1024);
  private taintH = new Float64Array(1024);
  private taintL = new Float64Array(1024);
  edgeCount = 0;
  private assetCount = 1;
  private sumH = new Float64Array(BUCKETS);
  private sumL = new Float64Array(BUCKETS);
  private dustEdges: number[] = [0];
  private readonly receivedSlot = new Map<number, number>();
  private recvH = new Float64Array(64);
  private recvL = new Float64Array(64);
  /** Taint other subjects sent a subject before its entry of the asset opened, by node × assetCount + asset. */
  private readonly heldForSubject = new Map<number, { h: number; l: number }>();
  overflow = false;

  constructor(assetCount: number) {
    this.reset(assetCount);
  }

  /**
   * Empty again for a sweep over `assetCount` assets, keeping its columns: a tally reused across
   * traces spares each one growing them again. Views a previous `settle` gave out are overwritten.
   */
  reset(assetCount: number): void {
    this.assetCount = assetCount;
    this.edgeCount = 0;
    this.sumH = new Float64Array(assetCount * BUCKETS);
    this.sumL = new Float64Array(assetCount * BUCKETS);
    this.dustEdges = new Array<number>(assetCount).fill(0);
    this.receivedSlot.clear();
    this.heldForSubject.clear();
    this.overflow = false;
  }

  /** The emitted edges' events so far (a view, valid until the next `reset`). */
  edgeEvents(): Uint32Array {
    return this.events.subarray(0, this.edgeCount);
  }

  /** Adds (h, l) to `bucket` of asset `a`. */
  add(a: number, bucket: number, h: number, l: number): void {
    const slot = a * BUCKETS + bucket;
    let nl = this.sumL[slot]! + l;
    let nh = this.sumH[slot]! + h;
    if (nl >= LIMB) {
      nl -= LIMB;
      nh += 1;
    }
    if (nh > 2 ** 51 || nh < -(2 ** 51)) this.overflow = true;
    this.sumH[slot] = nh;
    this.sumL[slot] = nl;
  }

  dust(a: number, h: number, l: number): void {
    this.add(a, DUST, h, l);
    this.dustEdges[a]!++;
  }

  /** Counts taint that reached `node` without entering a ledger (a terminal, the hop limit, a budget), in `bucket`. */
  receive(node: number, a: number, bucket: number, h: number, l: number): void {
    this.add(a, bucket, h, l);
    const key = node * this.assetCount + a;
    let slot = this.receivedSlot.get(key);
    if (slot === undefined) {
      slot = this.receivedSlot.size;
      this.receivedSlot.set(key, slot);
      if (slot >= this.recvH.length) {
        this.recvH = growFloat64(this.recvH, slot + 1);
        this.recvL = growFloat64(this.recvL, slot + 1);
      }
      // A slot of an earlier sweep's may still hold its sum.
      this.recvH[slot] = 0;
      this.recvL[slot] = 0;
    }
    let nl = this.recvL[slot]! + l;
    let nh = this.recvH[slot]! + h;
    if (nl >= LIMB) {
      nl -= LIMB;
      nh += 1;
    }
    if (nh > 2 ** 51 || nh < -(2 ** 51)) this.overflow = true;
    this.recvH[slot] = nh;
    this.recvL[slot] = nl;
  }

  /**
   * Taint another subject sent subject `node` before its entry of asset `a` opened: it is counted when
   * the entry opens (`subjectOpens`), or as unexplored at `settle` if it never does.
   */
  holdForSubject(node: number, a: number, h: number, l: number): void {
    const key = node * this.assetCount + a;
    const held = this.heldForSubject.get(key);
    if (!held) {
      this.heldForSubject.set(key, { h, l });
      return;
    }
    held.l += l;
    held.h += h;
    if (held.l >= LIMB) {
      held.l -= LIMB;
      held.h += 1;
    }
    if (held.h > 2 ** 51) this.overflow = true;
  }

  /**
   * Subject `node`'s entry of asset `a` opened holding (h, l), its own taint: less what other subjects
   * had sent it, which is theirs already, as far as the holding covers it. What it does not cover left
   * the subject before its entry opened, untraced: unexplored. A holding below zero is none, as the
   * ledger opens it (`LimbLedger.openAt`).
   */
  subjectOpens(node: number, a: number, holdingH: number, holdingL: number): void {
    const below = holdingH < 0;
    const h = below ? 0 : holdingH;
    const l = below ? 0 : holdingL;
    const key = node * this.assetCount + a;
    const held = this.heldForSubject.get(key);
    if (!held) {
      this.add(a, SUBJECT, h, l);
      return;
    }
    this.heldForSubject.delete(key);
    // covered = min(held, holding)
    const covers = h > held.h || (h === held.h && l >= held.l);
    const [ch, cl] = covers ? [held.h, held.l] : [h, l];
    const [sh, sl] = minus(h, l, ch, cl);
    this.add(a, SUBJECT, sh, sl);
    if (!covers) {
      const [uh, ul] = minus(held.h, held.l, ch, cl);
      this.receive(node, a, UNEXPLORED, uh, ul);
    }
  }

  /** Emits a trace edge; returns its index. */
  emit(event: number, h: number, l: number, hop: number): number {
    const edge = this.edgeCount++;
    if (edge === this.events.length) {
      this.events = growUint32(this.events, edge + 1);
      this.hops = growUint8(this.hops, edge + 1);
      this.taintH = growFloat64(this.taintH, edge + 1);
      this.taintL = growFloat64(this.taintL, edge + 1);
    }
    this.events[edge] = event;
    this.hops[edge] = hop;
    this.taintH[edge] = h;
    this.taintL[edge] = l;
    return edge;
  }

  /**
   * The edges (views valid until the next `reset`) with their taint as bigint, the taint received per
   * (node × assetCount + asset) and the totals per asset.
   */
  settle(): {
    edgeEvent: Uint32Array;
    edgeHop: Uint8Array;
    edgeTaint: bigint[];
    receivedBy: Map<number, bigint>;
    totals: SweepTotals[];
  } {
    for (const [key, held] of this.heldForSubject) {
      this.receive(Math.floor(key / this.assetCount), key % this.assetCount, UNEXPLORED, held.h, held.l);
    }
    this.heldForSubject.clear();
    const { taintH, taintL, sumH, sumL, edgeCount } = this;
    const edgeTaint: bigint[] = new Array(edgeCount);
    for (let i = 0; i < edgeCount; i++) edgeTaint[i] = limbsToBigint(taintH[i]!, taintL[i]!);
    const receivedBy = new Map<number, bigint>();
    for (const [key, slot] of this.receivedSlot) {
      receivedBy.set(key, limbsToBigint(this.recvH[slot]!, this.recvL[slot]!));
    }
    const total = (a: number, bucket: number) =>
      limbsToBigint(sumH[a * BUCKETS + bucket]!, sumL[a * BUCKETS + bucket]!);
    const totals: SweepTotals[] = Array.from({ length: this.assetCount }, (_, a) => ({
      subjectTaint: total(a, SUBJECT),
      toTerminals: total(a, TERMINALS),
      atHopLimit: total(a, HOP_LIMIT),
      dust: total(a, DUST),
      dustEdges: this.dustEdges[a]!,
      unexplored: total(a, UNEXPLORED),
    }));
    return {
      edgeEvent: this.events.subarray(0, edgeCount),
      edgeHop: this.hops.subarray(0, edgeCount),
      edgeTaint,
      receivedBy,
      totals,
    };
  }
}
