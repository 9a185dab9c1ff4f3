import type { TaintModel } from "./taint";
import { growFloat64, growInt32, growUint8 } from "./typed-growth";

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
const LOT_HEAD = 4;
const LOT_TAIL = 5;
/** Entry id + 1; 0: no entry opened at this slot. */
const ENTRY = 6;
/** CLEAN, POISONED or SUBJECT (a subject's entry is poisoned from the start). */
const KIND = 7;
const REC = 8;
const CLEAN = 0;
const POISONED = 1;
const SUBJECT = 2;
/**
 * LOT_HEAD of a fifo entry whose lots are one run of its whole balance, tainted if it holds taint (all of
 * it then is): kept in the record instead of the lot pool, as most entries' lots are most of the time.
 */
const ONE_RUN = -2;
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

export class LimbLedger {
  model: TaintModel;
  private fifo: boolean;
  private haircut: boolean;
  private poison: boolean;
  size = 0;
  /** Slots handed out by `claimSlots` since the last reset. */
  private claimed = 0;
  /** Set once any value left the exact range; the caller must then discard the ledger's results. */
  overflow = false;
  /**
   * Each entry's state in one record of REC doubles (balance and taint as limb pairs, the head and
   * tail of its fifo lots, its id and kind) at the entry's slot: its id (`open`), or a slot the caller
   * chose (`openAt`), such as address × assets + asset. An operation touches one or two cache lines
   * instead of one per column, and a caller that addresses entries by slot finds whether one is open
   * in the same line as its state, with no id lookup first.
   */
  private rec = new Float64Array(64 * REC);
  /** Slot of each entry, by id. */
  private slotOf = new Int32Array(64);
  /** Shortfall of each entry as a limb pair, by id (written only by outflows beyond the balance). */
  private short = new Float64Array(2 * 64);
  /**
   * Each entry's address, asset and opening balance as a limb pair, by id: written in id
   * order as entries open, in columns kept across `reset` (a trace opening 100k entries would
   * otherwise grow four arrays of its own, and collect them after).
   */
  private entryNode = new Int32Array(64);
  private entryAsset = new Int32Array(64);
  private openLimbs = new Float64Array(2 * 64);
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
  /** Output of `overdraw`: the part of an outflow beyond the balance. */
  private missH = 0;
  private missL = 0;

  constructor(model: TaintModel) {
    this.model = model;
    this.fifo = model === "fifo";
    this.haircut = model === "haircut";
    this.poison = model === "poison";
  }

  /**
   * Empty again, for a new sweep under `model`, keeping its arrays: a ledger reused across traces over a
   * large graph spares each one growing (and the system zeroing) megabytes of records. The slots the last
   * sweep opened are marked unopened; entries and lots are written whole when opened, so nothing else of
   * the last sweep shows through.
   */
  reset(model: TaintModel): void {
    for (let id = 0; id < this.size; id++) this.rec[this.slotOf[id]! * REC + ENTRY] = 0;
    this.model = model;
    this.fifo = model === "fifo";
    this.haircut = model === "haircut";
    this.poison = model === "poison";
    this.size = 0;
    this.claimed = 0;
    this.overflow = false;
    this.lotCount = 0;
    this.freeLot = -1;
    this.pieceCount = 0;
    this.outH = 0;
    this.outL = 0;
    this.newH = 0;
    this.newL = 0;
  }

  /**
   * `count` adjacent slots, unopened, after every slot claimed since the last reset, for entries the
   * caller opens with `openAt`: an address's entries for each asset side by side, with records only for
   * the addresses a trace opens, so its working set is what it touches rather than the whole graph's.
   */
  claimSlots(count: number): number {
    const first = this.claimed;
    this.claimed += count;
    this.rec = growFloat64(this.rec, this.claimed * REC);
    return first;
  }

  private check(h: number): void {
    if (h > LIMIT || h < -LIMIT) this.overflow = true;
  }

  /**
   * Opens the entry of (node, asset) with an opening balance (an unknown one is given as zero or as
   * what the caller knows of it, as in `TaintLedger.open`; one below zero opens at zero, the rest counted
   * as shortfall); its slot is its id.
   */
  open(isSubject: boolean, openH: number, openL: number, node: number, asset: number): number {
    return this.openAt(this.size, isSubject, openH, openL, node, asset);
  }

  /** Opens the entry of (node, asset) at `slot` (not yet open); returns its id. Operations then address it by slot. */
  openAt(slot: number, isSubject: boolean, openH: number, openL: number, node: number, asset: number): number {
    const id = this.size++;
    if (id >= this.slotOf.length) {
      this.slotOf = growInt32(this.slotOf, id + 1);
      this.short = growFloat64(this.short, 2 * this.slotOf.length);
      this.entryNode = growInt32(this.entryNode, this.slotOf.length);
      this.entryAsset = growInt32(this.entryAsset, this.slotOf.length);
      this.openLimbs = growFloat64(this.openLimbs, 2 * this.slotOf.length);
    }
    this.rec = growFloat64(this.rec, (slot + 1) * REC);
    this.slotOf[id] = slot;
    this.check(openH);
    if (openH < 0) {
      // No address holds less than nothing: what took the balance below zero left beyond what the
      // trace saw arrive or knew was held (as in `TaintLedger.open`).
      this.short[2 * id] = openL === 0 ? -openH : -openH - 1;
      this.short[2 * id + 1] = openL === 0 ? 0 : LIMB - openL;
      openH = 0;
      openL = 0;
    } else {
      this.short[2 * id] = 0;
      this.short[2 * id + 1] = 0;
    }
    this.entryNode[id] = node;
    this.entryAsset[id] = asset;
    this.openLimbs[2 * id] = openH;
    this.openLimbs[2 * id + 1] = openL;
    const r = slot * REC;
    const rec = this.rec;
    rec[r + BAL_H] = openH;
    rec[r + BAL_L] = openL;
    rec[r + TAINT_H] = isSubject ? openH : 0;
    rec[r + TAINT_L] = isSubject ? openL : 0;
    rec[r + LOT_HEAD] = ONE_RUN;
    rec[r + LOT_TAIL] = -1;
    rec[r + ENTRY] = id + 1;
    rec[r + KIND] = isSubject ? SUBJECT : CLEAN;
    return id;
  }

  /** Id of the entry at `slot`, or −1 if none is open there. */
  entryAt(slot: number): number {
    const r = slot * REC + ENTRY;
    return r < this.rec.length ? this.rec[r]! - 1 : -1;
  }

  /**
   * Tainted part of an outflow of (ah, al) from the entry at `slot` into `outH/outL`; sets `newH/newL`.
   * Same rules as `TaintLedger.debit`. One small body per model, so the walk's call inlines the one it runs.
   */
  debit(slot: number, ah: number, al: number): void {
    if (this.fifo) this.debitFifo(slot * REC, ah, al);
    else if (this.haircut) this.debitHaircut(slot * REC, ah, al);
    else this.debitPoison(slot * REC, ah, al);
  }

  /**
   * The part of an outflow of (ah, al) beyond the balance (bh, bl) of the entry at record `r`, into
   * `missH/missL` (zero when the balance covers it), added to the entry's shortfall.
   */
  private overdraw(r: number, ah: number, al: number, bh: number, bl: number): void {
    if (ah < bh || (ah === bh && al <= bl)) {
      this.missH = 0;
      this.missL = 0;
      return;
    }
    let mh = ah - bh;
    let ml = al - bl;
    if (ml < 0) {
      ml += LIMB;
      mh -= 1;
    }
    const s = 2 * (this.rec[r + ENTRY]! - 1);
    let sl = this.short[s + 1]! + ml;
    let sh = this.short[s]! + mh;
    if (sl >= LIMB) {
      sl -= LIMB;
      sh += 1;
    }
    this.check(sh);
    this.short[s] = sh;
    this.short[s + 1] = sl;
    this.missH = mh;
    this.missL = ml;
  }

  /**
   * What every model does after its taint rule: the balance less the outflow (never below zero), and the
   * outputs. At a subject, the part of the outflow beyond the balance is new taint, and (`missingTainted`)
   * leaves as taint on top of what the rule found.
   */
  private settleDebit(
    r: number,
    ah: number,
    al: number,
    th: number,
    tl: number,
    isSubject: boolean,
    missingTainted: boolean,
  ): void {
    const mh = this.missH;
    const ml = this.missL;
    this.newH = isSubject ? mh : 0;
    this.newL = isSubject ? ml : 0;
    if (isSubject && missingTainted) {
      tl += ml;
      th += mh;
      if (tl >= LIMB) {
        tl -= LIMB;
        th += 1;
      }
    }
    // balance − amount + missing
    let nh = this.rec[r + BAL_H]! - ah + mh;
    let nl = this.rec[r + BAL_L]! - al + ml;
    if (nl < 0) {
      nl += LIMB;
      nh -= 1;
    } else if (nl >= LIMB) {
      nl -= LIMB;
      nh += 1;
    }
    this.check(nh);
    this.rec[r + BAL_H] = nh;
    this.rec[r + BAL_L] = nl;
    this.check(th);
    this.outH = th;
    this.outL = tl;
  }

  /** Poison: all of an outflow from a poisoned entry is tainted; the taint held is then the whole balance. */
  private debitPoison(r: number, ah: number, al: number): void {
    const rec = this.rec;
    this.overdraw(r, ah, al, rec[r + BAL_H]!, rec[r + BAL_L]!);
    const kind = rec[r + KIND]!;
    const isSubject = kind === SUBJECT;
    // (all of a subject's outflow is taint already)
    this.settleDebit(r, ah, al, kind !== CLEAN ? ah : 0, kind !== CLEAN ? al : 0, isSubject, false);
    rec[r + TAINT_H] = kind !== CLEAN ? rec[r + BAL_H]! : 0;
    rec[r + TAINT_L] = kind !== CLEAN ? rec[r + BAL_L]! : 0;
  }

  /** Haircut: an outflow carries the taint held in proportion to its share of the balance. */
  private debitHaircut(r: number, ah: number, al: number): void {
    const rec = this.rec;
    const bh = rec[r + BAL_H]!;
    const bl = rec[r + BAL_L]!;
    this.overdraw(r, ah, al, bh, bl);
    const mh = this.missH;
    const ml = this.missL;
    const isSubject = rec[r + KIND] === SUBJECT;
    const hh = rec[r + TAINT_H]!;
    const hl = rec[r + TAINT_L]!;
    let th: number;
    let tl: number;
    if (mh !== 0 || ml !== 0) {
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
    rec[r + TAINT_H] = rh;
    rec[r + TAINT_L] = rl;
    this.settleDebit(r, ah, al, th, tl, isSubject, true);
  }

  /** Fifo: an outflow takes the oldest lots first; its taint is that of the lots it takes. */
  private debitFifo(r: number, ah: number, al: number): void {
    const rec = this.rec;
    this.overdraw(r, ah, al, rec[r + BAL_H]!, rec[r + BAL_L]!);
    const mh = this.missH;
    const ml = this.missL;
    const isSubject = rec[r + KIND] === SUBJECT;
    // consume amount − missing
    let ch = ah - mh;
    let cl = al - ml;
    if (cl < 0) {
      cl += LIMB;
      ch -= 1;
    }
    this.consumeLots(r, ch, cl);
    const th = this.outH;
    const tl = this.outL;
    if (mh !== 0 || ml !== 0) this.pushPiece(mh, ml, isSubject ? 1 : 0);
    this.settleDebit(r, ah, al, th, tl, isSubject, true);
    if (rec[r + LOT_HEAD] !== ONE_RUN && rec[r + LOT_HEAD] === rec[r + LOT_TAIL]) this.toOneRun(r);
  }

  /**
   * Credits an inflow (ah, al) whose tainted part is (th, tl) to the entry at `slot`; same rules as
   * `TaintLedger.credit`. One small body per model, as for `debit`.
   */
  credit(slot: number, ah: number, al: number, th: number, tl: number, ordered: boolean): void {
    if (this.fifo) this.creditFifo(slot * REC, ah, al, th, tl, ordered);
    else if (this.haircut) this.creditHaircut(slot * REC, ah, al, th, tl);
    else this.creditPoison(slot * REC, ah, al, th, tl);
  }

  /**
   * What every model does first: the balance plus the inflow, and a subject's taint (all it receives is
   * tainted; what was not yet is new taint, in `newH/newL`).
   */
  private creditBalance(r: number, ah: number, al: number, isSubject: boolean, th: number, tl: number): void {
    this.newH = 0;
    this.newL = 0;
    if (isSubject) {
      let nh = ah - th;
      let nl = al - tl;
      if (nl < 0) {
        nl += LIMB;
        nh -= 1;
      }
      this.newH = nh;
      this.newL = nl;
    }
    let bl = this.rec[r + BAL_L]! + al;
    let bh = this.rec[r + BAL_H]! + ah;
    if (bl >= LIMB) {
      bl -= LIMB;
      bh += 1;
    }
    this.check(bh);
    this.rec[r + BAL_H] = bh;
    this.rec[r + BAL_L] = bl;
  }

  /** Poison: a tainted inflow poisons the entry for good; a poisoned entry's whole balance is taint. */
  private creditPoison(r: number, ah: number, al: number, th: number, tl: number): void {
    const rec = this.rec;
    let kind = rec[r + KIND]!;
    this.creditBalance(r, ah, al, kind === SUBJECT, th, tl);
    if (kind === CLEAN && (th > 0 || (th === 0 && tl > 0))) {
      kind = POISONED;
      rec[r + KIND] = POISONED;
    }
    rec[r + TAINT_H] = kind !== CLEAN ? rec[r + BAL_H]! : 0;
    rec[r + TAINT_L] = kind !== CLEAN ? rec[r + BAL_L]! : 0;
  }

  /** Haircut: the taint held grows by the inflow's tainted part (all of it at a subject). */
  private creditHaircut(r: number, ah: number, al: number, th: number, tl: number): void {
    const isSubject = this.rec[r + KIND] === SUBJECT;
    this.creditBalance(r, ah, al, isSubject, th, tl);
    if (isSubject) this.addTaint(r, ah, al);
    else this.addTaint(r, th, tl);
  }

  /**
   * Fifo: the inflow joins the entry's lots, tainted and clean parts in the order they were sent
   * (`ordered`: the pieces of the debit that sent it), merged into the entry's run when of one kind.
   */
  private creditFifo(r: number, ah: number, al: number, th: number, tl: number, ordered: boolean): void {
    const rec = this.rec;
    const kind = rec[r + KIND]!;
    // The balance and whether it held taint before the inflow: a fifo entry's run of lots (ONE_RUN).
    const oh = rec[r + BAL_H]!;
    const ol = rec[r + BAL_L]!;
    const heldTaint = rec[r + TAINT_H]! > 0 || (rec[r + TAINT_H] === 0 && rec[r + TAINT_L]! > 0);
    this.creditBalance(r, ah, al, kind === SUBJECT, th, tl);
    if (kind === SUBJECT) {
      th = ah;
      tl = al;
    }
    const taintedPositive = th > 0 || (th === 0 && tl > 0);
    const oneRun = rec[r + LOT_HEAD] === ONE_RUN;
    // The inflow extends the run when it is of one kind and the run is of that kind or empty.
    const runEmpty = oh === 0 && ol === 0;
    if (kind === SUBJECT || !taintedPositive || !ordered) {
      if (taintedPositive && (th < ah || (th === ah && tl < al))) {
        if (oneRun) this.spillRun(r, oh, ol, heldTaint);
        this.appendLot(r, th, tl, 1);
        let ch = ah - th;
        let cl = al - tl;
        if (cl < 0) {
          cl += LIMB;
          ch -= 1;
        }
        this.appendLot(r, ch, cl, 0);
      } else if (!oneRun || (!runEmpty && heldTaint !== taintedPositive)) {
        if (oneRun) this.spillRun(r, oh, ol, heldTaint);
        this.appendLot(r, ah, al, taintedPositive ? 1 : 0);
      }
    } else if (!oneRun || this.pieceCount > 1 || (!runEmpty && (this.pieceTainted[0] === 1) !== heldTaint)) {
      // (adjacent pieces of one kind are merged: a single piece is an inflow of one kind)
      if (oneRun) this.spillRun(r, oh, ol, heldTaint);
      for (let i = 0; i < this.pieceCount; i++) {
        this.appendLot(r, this.pieceH[i]!, this.pieceL[i]!, this.pieceTainted[i]!);
      }
    }
    this.addTaint(r, th, tl);
  }

  private addTaint(r: number, th: number, tl: number): void {
    let l = this.rec[r + TAINT_L]! + tl;
    let h = this.rec[r + TAINT_H]! + th;
    if (l >= LIMB) {
      l -= LIMB;
      h += 1;
    }
    this.check(h);
    this.rec[r + TAINT_H] = h;
    this.rec[r + TAINT_L] = l;
  }

  taintHeld(id: number): bigint {
    const r = this.slotOf[id]! * REC;
    return limbsToBigint(this.rec[r + TAINT_H]!, this.rec[r + TAINT_L]!);
  }

  balanceHeld(id: number): bigint {
    const r = this.slotOf[id]! * REC;
    return limbsToBigint(this.rec[r + BAL_H]!, this.rec[r + BAL_L]!);
  }

  /**
   * Address of each entry by id: a view of a column the ledger keeps, so it holds until the next
   * `reset` (for a pooled ledger, until the trace that used it is released).
   */
  entryNodes(): Int32Array {
    return this.entryNode.subarray(0, this.size);
  }

  /** Asset of each entry by id: a view, valid as `entryNodes`' is. */
  entryAssets(): Int32Array {
    return this.entryAsset.subarray(0, this.size);
  }

  /** The balance entry `id` (0 ≤ id < size) was opened with. */
  openingOf(id: number): bigint {
    // The column outlives the entries: past `size` it still holds an earlier sweep's.
    if (!(id >= 0 && id < this.size)) throw new RangeError(`no ledger entry ${id} (${this.size} open)`);
    return limbsToBigint(this.openLimbs[2 * id]!, this.openLimbs[2 * id + 1]!);
  }

  shortfallOf(id: number): bigint {
    return limbsToBigint(this.short[2 * id]!, this.short[2 * id + 1]!);
  }

  isTainted(id: number): boolean {
    const r = this.slotOf[id]! * REC;
    if (this.poison) return this.rec[r + KIND] !== CLEAN;
    const h = this.rec[r + TAINT_H]!;
    return h > 0 || (h === 0 && this.rec[r + TAINT_L]! > 0);
  }

  isSubject(id: number): boolean {
    return this.rec[this.slotOf[id]! * REC + KIND] === SUBJECT;
  }

  /** Consumes (ch, cl) from the head of the lots of the entry whose record starts at `r`; the tainted total goes to `outH/outL`. */
  private consumeLots(r: number, ch: number, cl: number): void {
    this.pieceCount = 0;
    if (this.rec[r + LOT_HEAD] === ONE_RUN) {
      const taintH = this.rec[r + TAINT_H]!;
      const taintL = this.rec[r + TAINT_L]!;
      this.outH = 0;
      this.outL = 0;
      if (ch > 0 || (ch === 0 && cl > 0)) {
        const tainted = taintH > 0 || (taintH === 0 && taintL > 0);
        this.pushPiece(ch, cl, tainted ? 1 : 0);
        if (tainted) {
          let rh = taintH - ch;
          let rl = taintL - cl;
          if (rl < 0) {
            rl += LIMB;
            rh -= 1;
          }
          this.rec[r + TAINT_H] = rh;
          this.rec[r + TAINT_L] = rl;
          this.outH = ch;
          this.outL = cl;
        }
      }
      return;
    }
    let lh = ch;
    let ll = cl;
    let th = 0;
    let tl = 0;
    let head = this.rec[r + LOT_HEAD]!;
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
    this.rec[r + LOT_HEAD] = head;
    if (head === -1) this.rec[r + LOT_TAIL] = -1;
    let rh = this.rec[r + TAINT_H]! - th;
    let rl = this.rec[r + TAINT_L]! - tl;
    if (rl < 0) {
      rl += LIMB;
      rh -= 1;
    }
    this.rec[r + TAINT_H] = rh;
    this.rec[r + TAINT_L] = rl;
    this.outH = th;
    this.outL = tl;
  }

  /** Turns a run of lots (ONE_RUN) of (h, l) into a list, to append lots of another kind after it. */
  private spillRun(r: number, h: number, l: number, tainted: boolean): void {
    this.rec[r + LOT_HEAD] = -1;
    this.rec[r + LOT_TAIL] = -1;
    this.appendLot(r, h, l, tainted ? 1 : 0);
  }

  /**
   * Back to a run (ONE_RUN) when the entry's lots are at most one lot holding its whole balance, and its
   * taint is all or none of it.
   */
  private toOneRun(r: number): void {
    const rec = this.rec;
    const head = rec[r + LOT_HEAD]!;
    const bh = rec[r + BAL_H]!;
    const bl = rec[r + BAL_L]!;
    const taintH = rec[r + TAINT_H]!;
    const taintL = rec[r + TAINT_L]!;
    if (head === -1) {
      if (bh === 0 && bl === 0 && taintH === 0 && taintL === 0) rec[r + LOT_HEAD] = ONE_RUN;
      return;
    }
    const lots = this.lots;
    if (lots[head * LOT + LOT_H] !== bh || lots[head * LOT + LOT_L] !== bl) return;
    if (lots[head * LOT + LOT_TAINTED] === 1 ? taintH !== bh || taintL !== bl : taintH !== 0 || taintL !== 0) return;
    lots[head * LOT + LOT_NEXT] = this.freeLot;
    this.freeLot = head;
    rec[r + LOT_HEAD] = ONE_RUN;
    rec[r + LOT_TAIL] = -1;
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
        this.pieceH = growFloat64(this.pieceH, i + 1);
        this.pieceL = growFloat64(this.pieceL, i + 1);
        this.pieceTainted = growUint8(this.pieceTainted, i + 1);
      }
      this.pieceH[i] = h;
      this.pieceL[i] = l;
      this.pieceTainted[i] = isTainted;
    }
  }

  private appendLot(r: number, h: number, l: number, isTainted: number): void {
    if (h === 0 && l === 0) return;
    const tail = this.rec[r + LOT_TAIL]!;
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
      this.lots = growFloat64(this.lots, (lot + 1) * LOT);
    }
    this.lots[lot * LOT + LOT_H] = h;
    this.lots[lot * LOT + LOT_L] = l;
    this.lots[lot * LOT + LOT_TAINTED] = isTainted;
    this.lots[lot * LOT + LOT_NEXT] = -1;
    if (tail === -1) this.rec[r + LOT_HEAD] = lot;
    else this.lots[tail * LOT + LOT_NEXT] = lot;
    this.rec[r + LOT_TAIL] = lot;
  }
}
