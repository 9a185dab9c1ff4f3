import { LIMB, limbsToBigint } from "./limb-ledger";

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
  readonly edgeEvent: number[] = [];
  readonly edgeHop: number[] = [];
  private readonly edgeTaintH: number[] = [];
  private readonly edgeTaintL: number[] = [];
  private readonly sumH: Float64Array;
  private readonly sumL: Float64Array;
  private readonly dustEdges: number[];
  private readonly receivedSlot = new Map<number, number>();
  private recvH = new Float64Array(64);
  private recvL = new Float64Array(64);
  overflow = false;

  constructor(private readonly assetCount: number) {
    this.sumH = new Float64Array(assetCount * BUCKETS);
    this.sumL = new Float64Array(assetCount * BUCKETS);
    this.dustEdges = new Array<number>(assetCount).fill(0);
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
        const nh = new Float64Array(this.recvH.length * 2);
        nh.set(this.recvH);
        this.recvH = nh;
        const nl = new Float64Array(this.recvL.length * 2);
        nl.set(this.recvL);
        this.recvL = nl;
      }
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

  /** Emits a trace edge; returns its index. */
  emit(event: number, h: number, l: number, hop: number): number {
    const edge = this.edgeEvent.length;
    this.edgeEvent.push(event);
    this.edgeTaintH.push(h);
    this.edgeTaintL.push(l);
    this.edgeHop.push(hop);
    return edge;
  }

  /** The edges' taint, the taint received per (node × assetCount + asset) and the totals per asset, as bigint. */
  settle(): { edgeTaint: bigint[]; receivedBy: Map<number, bigint>; totals: SweepTotals[] } {
    const { edgeTaintH, edgeTaintL, sumH, sumL } = this;
    const edgeTaint: bigint[] = new Array(edgeTaintH.length);
    for (let i = 0; i < edgeTaintH.length; i++) edgeTaint[i] = limbsToBigint(edgeTaintH[i]!, edgeTaintL[i]!);
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
    return { edgeTaint, receivedBy, totals };
  }
}
