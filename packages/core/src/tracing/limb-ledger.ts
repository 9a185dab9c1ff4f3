import type { TaintModel } from "./taint";

/**
 * The taint ledger of `taint.ts` over fixed-width integers held in typed arrays, for the sweep's hot
 * loop: the same rules, the same results, without a heap-allocated bigint per operation.
 *
 * A value is a pair of doubles (h, l) meaning h · 2^48 + l, with 0 ≤ l < 2^48 and h an integer. Both
 * parts stay exact while |h| < 2^53; the ledger flags `overflow` as soon as any |h| passes 2^51
 * (values beyond about 2^99 base units), and the sweep then falls back to the bigint ledger, so
 * no result ever depends on a rounded value. Only haircut's share (held · amount / balance) goes
 * through bigint, and only when it is not one of the exact shortcuts (nothing held, all held,
 * whole balance).
 */
export const LIMB = 2 ** 48;
const LIMIT = 2 ** 51;
const LIMB_BIG = 1n << 48n;
const LIMIT_BIG = BigInt(LIMIT);
/** h·2^48 + l with 0 ≤ h < SAFE_H and 0 ≤ l < 2^48 is below 2^53. */
const SAFE_H = 2 ** 5;

/** Offsets within an entry's record. */
const BAL_H = 0;
const BAL_L = 1;
const TAINT_H = 2;
const TAINT_L = 3;
const SHORT_H = 4;
const SHORT_L = 5;
const LOT_HEAD = 6;
const LOT_TAIL = 7;
const REC = 8;
/** A fifo lot: amount as limbs, tainted (1) or clean (0), next lot of the entry (−1: none). */
const LOT_H = 0;
const LOT_L = 1;
const LOT_TAINTED = 2;
const LOT_NEXT = 3;
const LOT = 4;

/**
 * A 64-bit scratch word seen both as one unsigned bigint and as two 32-bit halves: values below 2^64
 * cross between bigint and limbs through it without bigint arithmetic (a heap value per operation).
 */
const WORD64 = new BigUint64Array(1);
const WORD32 = new Uint32Array(WORD64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LO32 = LITTLE_ENDIAN ? 0 : 1;
const HI32 = LITTLE_ENDIAN ? 1 : 0;
/** Below 2^63 as a double means below 2^64 as an integer (the conversion errs by far less than 2^63). */
const BELOW_WORD64 = 2 ** 63;

export function limbsToBigint(h: number, l: number): bigint {
  // Below 2^53 the value is a safe integer in double arithmetic: one conversion.
  if (h >= 0 && h < SAFE_H) return BigInt(h * LIMB + l);
  if (h >= 0 && h < 2 ** 16) {
    // Below 2^64: the high word is h·2^16 plus the top 16 bits of l.
    const top = Math.floor(l / 2 ** 32);
    WORD32[HI32] = h * 2 ** 16 + top;
    WORD32[LO32] = l - top * 2 ** 32;
    return WORD64[0]!;
  }
  return BigInt(h) * LIMB_BIG + BigInt(l);
}

/** Splits `value` into limbs; false when it is beyond the range the limbs hold exactly. */
export function bigintToLimbs(value: bigint, out: { h: number; l: number }): boolean {
  // Number() rounds monotonically and 2^53 is a double, so a result within the safe range means the
  // value was a safe integer and converted exactly; it then splits exactly in double arithmetic. This
  // spares the bigint comparisons, which cost more than the conversion.
  const n = Number(value);
  if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
    const h = Math.floor(n / LIMB);
    out.h = h;
    out.l = n - h * LIMB;
    return true;
  }
  if (n >= 0 && n < BELOW_WORD64) {
    WORD64[0] = value;
    const hi = WORD32[HI32]!;
    out.h = hi >>> 16;
    out.l = (hi & 0xffff) * 2 ** 32 + WORD32[LO32]!;
    return true;
  }
  const h = value >> 48n;
  if (h > LIMIT_BIG || h < -LIMIT_BIG) return false;
  out.h = Number(h);
  // value mod 2^48, the same as value − h·2^48 for h = floor(value / 2^48), also below zero
  out.l = Number(BigInt.asUintN(48, value));
  return true;
}

function grow(array: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> {
  if (size <= array.length) return array;
  const next = new Float64Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

function growByte(array: Uint8Array<ArrayBuffer>, size: number): Uint8Array<ArrayBuffer> {
  if (size <= array.length) return array;
  const next = new Uint8Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

export class LimbLedger {
  model: TaintModel;
  private fifo: boolean;
  private haircut: boolean;
  private poison: boolean;
  size = 0;
  /** Set once any value left the exact range; the caller must then discard the ledger's results. */
  overflow = false;
  /**
   * Each entry's state in one record of REC doubles (balance, taint, shortfall as limb pairs, then the
   * head and tail of its fifo lots): an operation touches one or two cache lines instead of one per
   * column, which on a sweep over hundreds of thousands of entries is most of its cost.
   */
  private rec = new Float64Array(64 * REC);
  private subject = new Uint8Array(64);
  private poisoned = new Uint8Array(64);
  // fifo: each entry's lots are a linked list in a shared pool (head first); consumed lots are reused.
  private lots = new Float64Array(256 * LOT);
  private lotCount = 0;
  private freeLot = -1;
  // Pieces consumed by the last fifo debit, in order (merged when adjacent pieces share the flag).
  private pieceH = new Float64Array(16);
  private pieceL = new Float64Array(16);
  private pieceTainted = new Uint8Array(16);
  private pieceCount = 0;
  private readonly split = { h: 0, l: 0 };
  /** Output of `debit`: the tainted part of the outflow. */
  outH = 0;
  outL = 0;
  /** Taint that came into being at a subject during the last operation. */
  newH = 0;
  newL = 0;

  constructor(model: TaintModel) {
    this.model = model;
    this.fifo = model === "fifo";
    this.haircut = model === "haircut";
    this.poison = model === "poison";
  }

  /**
   * Empty again, for a new sweep under `model`, keeping its arrays: a ledger reused across traces over a
   * large graph spares each one growing (and the system zeroing) megabytes of records. Entries and lots
   * are written whole when opened, so nothing of the last sweep shows through.
   */
  reset(model: TaintModel): void {
    this.model = model;
    this.fifo = model === "fifo";
    this.haircut = model === "haircut";
    this.poison = model === "poison";
    this.size = 0;
    this.overflow = false;
    this.lotCount = 0;
    this.freeLot = -1;
    this.pieceCount = 0;
    this.outH = 0;
    this.outL = 0;
    this.newH = 0;
    this.newL = 0;
  }

  private check(h: number): void {
    if (h > LIMIT || h < -LIMIT) this.overflow = true;
  }

  /** Opens an entry with an opening balance (unknown = zero, as in `TaintLedger.open`). */
  open(isSubject: boolean, openH: number, openL: number): number {
    const id = this.size++;
    if (id >= this.subject.length) {
      const size = id + 1;
      this.rec = grow(this.rec, size * REC);
      this.subject = growByte(this.subject, size);
      this.poisoned = growByte(this.poisoned, size);
    }
    this.check(openH);
    this.rec[id * REC + BAL_H] = openH;
    this.rec[id * REC + BAL_L] = openL;
    this.subject[id] = isSubject ? 1 : 0;
    this.poisoned[id] = isSubject ? 1 : 0;
    this.rec[id * REC + TAINT_H] = isSubject ? openH : 0;
    this.rec[id * REC + TAINT_L] = isSubject ? openL : 0;
    this.rec[id * REC + SHORT_H] = 0;
    this.rec[id * REC + SHORT_L] = 0;
    this.rec[id * REC + LOT_HEAD] = -1;
    this.rec[id * REC + LOT_TAIL] = -1;
    if (this.fifo && (openH > 0 || (openH === 0 && openL > 0))) this.appendLot(id, openH, openL, isSubject ? 1 : 0);
    return id;
  }

  /** Tainted part of an outflow of (ah, al) into `outH/outL`; sets `newH/newL`. Same rules as `TaintLedger.debit`. */
  debit(id: number, ah: number, al: number): void {
    this.newH = 0;
    this.newL = 0;
    const bh = this.rec[id * REC + BAL_H]!;
    const bl = this.rec[id * REC + BAL_L]!;
    // missing = amount > balance ? amount − balance : 0
    let mh = 0;
    let ml = 0;
    if (ah > bh || (ah === bh && al > bl)) {
      mh = ah - bh;
      ml = al - bl;
      if (ml < 0) {
        ml += LIMB;
        mh -= 1;
      }
      let sl = this.rec[id * REC + SHORT_L]! + ml;
      let sh = this.rec[id * REC + SHORT_H]! + mh;
      if (sl >= LIMB) {
        sl -= LIMB;
        sh += 1;
      }
      this.check(sh);
      this.rec[id * REC + SHORT_H] = sh;
      this.rec[id * REC + SHORT_L] = sl;
    }
    const missing = mh !== 0 || ml !== 0;
    const isSubject = this.subject[id] === 1;
    let th = 0;
    let tl = 0;
    if (this.fifo) {
      // consume amount − missing
      let ch = ah - mh;
      let cl = al - ml;
      if (cl < 0) {
        cl += LIMB;
        ch -= 1;
      }
      this.consumeLots(id, ch, cl);
      th = this.outH;
      tl = this.outL;
      if (missing) this.pushPiece(mh, ml, isSubject ? 1 : 0);
      if (isSubject) {
        tl += ml;
        th += mh;
        if (tl >= LIMB) {
          tl -= LIMB;
          th += 1;
        }
      }
    } else if (this.haircut) {
      const hh = this.rec[id * REC + TAINT_H]!;
      const hl = this.rec[id * REC + TAINT_L]!;
      if (missing) {
        th = hh;
        tl = hl;
      } else if (bh === 0 && bl === 0) {
        th = 0;
        tl = 0;
      } else if ((hh === 0 && hl === 0) || (ah === bh && al === bl)) {
        // nothing held: 0; the whole balance leaves: all of it (held · balance / balance)
        th = hh === 0 && hl === 0 ? 0 : hh;
        tl = hh === 0 && hl === 0 ? 0 : hl;
      } else if (hh === bh && hl === bl) {
        // all held is tainted: the whole amount (balance · amount / balance)
        th = ah;
        tl = al;
      } else {
        const share = (limbsToBigint(hh, hl) * limbsToBigint(ah, al)) / limbsToBigint(bh, bl);
        // share ≤ held, which the limbs hold exactly
        if (!bigintToLimbs(share, this.split)) this.overflow = true;
        th = this.split.h;
        tl = this.split.l;
      }
      let rh = hh - th;
      let rl = hl - tl;
      if (rl < 0) {
        rl += LIMB;
        rh -= 1;
      }
      this.rec[id * REC + TAINT_H] = rh;
      this.rec[id * REC + TAINT_L] = rl;
      if (isSubject) {
        tl += ml;
        th += mh;
        if (tl >= LIMB) {
          tl -= LIMB;
          th += 1;
        }
      }
    } else if (this.poisoned[id] === 1) {
      th = ah;
      tl = al;
    }
    if (isSubject) {
      this.newH = mh;
      this.newL = ml;
    }
    // balance − amount + missing
    let nh = bh - ah + mh;
    let nl = bl - al + ml;
    if (nl < 0) {
      nl += LIMB;
      nh -= 1;
    } else if (nl >= LIMB) {
      nl -= LIMB;
      nh += 1;
    }
    this.check(nh);
    this.rec[id * REC + BAL_H] = nh;
    this.rec[id * REC + BAL_L] = nl;
    if (this.poison) {
      if (this.poisoned[id] === 1) {
        this.rec[id * REC + TAINT_H] = nh;
        this.rec[id * REC + TAINT_L] = nl;
      } else {
        this.rec[id * REC + TAINT_H] = 0;
        this.rec[id * REC + TAINT_L] = 0;
      }
    }
    this.check(th);
    this.outH = th;
    this.outL = tl;
  }

  /** Credits an inflow (ah, al) whose tainted part is (th, tl); same rules as `TaintLedger.credit`. */
  credit(id: number, ah: number, al: number, th: number, tl: number, ordered: boolean): void {
    this.newH = 0;
    this.newL = 0;
    if (this.subject[id] === 1) {
      let nh = ah - th;
      let nl = al - tl;
      if (nl < 0) {
        nl += LIMB;
        nh -= 1;
      }
      this.newH = nh;
      this.newL = nl;
      th = ah;
      tl = al;
    }
    let bl = this.rec[id * REC + BAL_L]! + al;
    let bh = this.rec[id * REC + BAL_H]! + ah;
    if (bl >= LIMB) {
      bl -= LIMB;
      bh += 1;
    }
    this.check(bh);
    this.rec[id * REC + BAL_H] = bh;
    this.rec[id * REC + BAL_L] = bl;
    const taintedPositive = th > 0 || (th === 0 && tl > 0);
    if (this.fifo) {
      if (this.subject[id] === 1 || !taintedPositive || !ordered) {
        if (taintedPositive && (th < ah || (th === ah && tl < al))) {
          this.appendLot(id, th, tl, 1);
          let ch = ah - th;
          let cl = al - tl;
          if (cl < 0) {
            cl += LIMB;
            ch -= 1;
          }
          this.appendLot(id, ch, cl, 0);
        } else {
          this.appendLot(id, ah, al, taintedPositive ? 1 : 0);
        }
      } else {
        for (let i = 0; i < this.pieceCount; i++) {
          this.appendLot(id, this.pieceH[i]!, this.pieceL[i]!, this.pieceTainted[i]!);
        }
      }
      this.addTaint(id, th, tl);
    } else if (this.haircut) {
      this.addTaint(id, th, tl);
    } else {
      if (taintedPositive) this.poisoned[id] = 1;
      if (this.poisoned[id] === 1) {
        this.rec[id * REC + TAINT_H] = bh;
        this.rec[id * REC + TAINT_L] = bl;
      } else {
        this.rec[id * REC + TAINT_H] = 0;
        this.rec[id * REC + TAINT_L] = 0;
      }
    }
  }

  private addTaint(id: number, th: number, tl: number): void {
    let l = this.rec[id * REC + TAINT_L]! + tl;
    let h = this.rec[id * REC + TAINT_H]! + th;
    if (l >= LIMB) {
      l -= LIMB;
      h += 1;
    }
    this.check(h);
    this.rec[id * REC + TAINT_H] = h;
    this.rec[id * REC + TAINT_L] = l;
  }

  taintHeld(id: number): bigint {
    return limbsToBigint(this.rec[id * REC + TAINT_H]!, this.rec[id * REC + TAINT_L]!);
  }

  balanceHeld(id: number): bigint {
    return limbsToBigint(this.rec[id * REC + BAL_H]!, this.rec[id * REC + BAL_L]!);
  }

  shortfallOf(id: number): bigint {
    return limbsToBigint(this.rec[id * REC + SHORT_H]!, this.rec[id * REC + SHORT_L]!);
  }

  isTainted(id: number): boolean {
    if (this.poison) return this.poisoned[id] === 1;
    const h = this.rec[id * REC + TAINT_H]!;
    return h > 0 || (h === 0 && this.rec[id * REC + TAINT_L]! > 0);
  }

  isSubject(id: number): boolean {
    return this.subject[id] === 1;
  }

  /** Consumes (ch, cl) from the head of the entry's lots; the tainted total goes to `outH/outL`. */
  private consumeLots(id: number, ch: number, cl: number): void {
    this.pieceCount = 0;
    let lh = ch;
    let ll = cl;
    let th = 0;
    let tl = 0;
    let head = this.rec[id * REC + LOT_HEAD]!;
    while (lh > 0 || (lh === 0 && ll > 0)) {
      const xh = this.lots[head * LOT + LOT_H]!;
      const xl = this.lots[head * LOT + LOT_L]!;
      const isTainted = this.lots[head * LOT + LOT_TAINTED]!;
      // take = min(lot, left)
      const lotSmaller = xh < lh || (xh === lh && xl < ll);
      const kh = lotSmaller ? xh : lh;
      const kl = lotSmaller ? xl : ll;
      this.pushPiece(kh, kl, isTainted);
      if (isTainted === 1) {
        tl += kl;
        th += kh;
        if (tl >= LIMB) {
          tl -= LIMB;
          th += 1;
        }
      }
      lh -= kh;
      ll -= kl;
      if (ll < 0) {
        ll += LIMB;
        lh -= 1;
      }
      if (kh === xh && kl === xl) {
        const next = this.lots[head * LOT + LOT_NEXT]!;
        this.lots[head * LOT + LOT_NEXT] = this.freeLot;
        this.freeLot = head;
        head = next;
      } else {
        let rh = xh - kh;
        let rl = xl - kl;
        if (rl < 0) {
          rl += LIMB;
          rh -= 1;
        }
        this.lots[head * LOT + LOT_H] = rh;
        this.lots[head * LOT + LOT_L] = rl;
      }
    }
    this.rec[id * REC + LOT_HEAD] = head;
    if (head === -1) this.rec[id * REC + LOT_TAIL] = -1;
    let rh = this.rec[id * REC + TAINT_H]! - th;
    let rl = this.rec[id * REC + TAINT_L]! - tl;
    if (rl < 0) {
      rl += LIMB;
      rh -= 1;
    }
    this.rec[id * REC + TAINT_H] = rh;
    this.rec[id * REC + TAINT_L] = rl;
    this.outH = th;
    this.outL = tl;
  }

  private pushPiece(h: number, l: number, isTainted: number): void {
    const last = this.pieceCount - 1;
    if (last >= 0 && this.pieceTainted[last] === isTainted) {
      let nl = this.pieceL[last]! + l;
      let nh = this.pieceH[last]! + h;
      if (nl >= LIMB) {
        nl -= LIMB;
        nh += 1;
      }
      this.pieceH[last] = nh;
      this.pieceL[last] = nl;
    } else {
      const i = this.pieceCount++;
      if (i >= this.pieceH.length) {
        this.pieceH = grow(this.pieceH, i + 1);
        this.pieceL = grow(this.pieceL, i + 1);
        this.pieceTainted = growByte(this.pieceTainted, i + 1);
      }
      this.pieceH[i] = h;
      this.pieceL[i] = l;
      this.pieceTainted[i] = isTainted;
    }
  }

  private appendLot(id: number, h: number, l: number, isTainted: number): void {
    if (h === 0 && l === 0) return;
    const tail = this.rec[id * REC + LOT_TAIL]!;
    if (tail !== -1 && this.lots[tail * LOT + LOT_TAINTED] === isTainted) {
      let nl = this.lots[tail * LOT + LOT_L]! + l;
      let nh = this.lots[tail * LOT + LOT_H]! + h;
      if (nl >= LIMB) {
        nl -= LIMB;
        nh += 1;
      }
      this.check(nh);
      this.lots[tail * LOT + LOT_H] = nh;
      this.lots[tail * LOT + LOT_L] = nl;
      return;
    }
    let lot = this.freeLot;
    if (lot !== -1) this.freeLot = this.lots[lot * LOT + LOT_NEXT]!;
    else {
      lot = this.lotCount++;
      this.lots = grow(this.lots, (lot + 1) * LOT);
    }
    this.lots[lot * LOT + LOT_H] = h;
    this.lots[lot * LOT + LOT_L] = l;
    this.lots[lot * LOT + LOT_TAINTED] = isTainted;
    this.lots[lot * LOT + LOT_NEXT] = -1;
    if (tail === -1) this.rec[id * REC + LOT_HEAD] = lot;
    else this.lots[tail * LOT + LOT_NEXT] = lot;
    this.rec[id * REC + LOT_TAIL] = lot;
  }
}
