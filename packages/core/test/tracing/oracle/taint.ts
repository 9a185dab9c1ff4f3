/**
 * Taint policies for account-model chains. One ledger entry per (address, asset), opened when the
 * trace first reaches the address, with the balance it held just before (the opening balance).
 *
 * - `fifo` (default): the balance is a queue of lots in arrival order, the opening balance first
 *   (clean for an intermediary, tainted for a subject). An outflow consumes lots from the head; its
 *   tainted part is the tainted lots it consumed, and the receiver gets those pieces in the same
 *   order. First-in-first-out is the rule English courts apply to a mixed account (Clayton's Case).
 * - `haircut`: an outflow of `a` from a balance `B` holding `T` tainted carries `a·T/B` (rounded down,
 *   so taint is never created by rounding).
 * - `poison`: once any taint arrives, every later outflow is wholly tainted. Reach only; its amounts
 *   over-count and are not conserved.
 *
 * When an outflow is larger than the balance the ledger knows (opening balance unknown, or value
 * moved by means the provider does not report such as gas or internal calls), the missing part
 * (`shortfall`) is clean for an intermediary and tainted for a subject, whose every holding is the
 * debtor's.
 */
export type TaintModel = "fifo" | "haircut" | "poison";

export const TAINT_MODELS: readonly TaintModel[] = ["fifo", "haircut", "poison"];

export class TaintLedger {
  readonly model: TaintModel;
  private readonly balance: bigint[] = [];
  private readonly taint: bigint[] = [];
  private readonly subject: boolean[] = [];
  private readonly poisoned: boolean[] = [];
  private readonly shortfall: bigint[] = [];
  private readonly lotAmount: bigint[][] = [];
  private readonly lotTainted: boolean[][] = [];
  private readonly lotHead: number[] = [];
  /** Pieces consumed by the last fifo debit, in order (tainted pieces and clean pieces alternate). */
  private readonly pieceAmount: bigint[] = [];
  private readonly pieceTainted: boolean[] = [];
  private pieceCount = 0;
  /** Taint that came into being at a subject during the last operation (its new holdings). */
  newSubjectTaint = 0n;

  constructor(model: TaintModel) {
    this.model = model;
  }

  get size(): number {
    return this.balance.length;
  }

  /** Opens an entry. `opening` null = unknown (treated as zero; outflows beyond it become shortfall). */
  open(isSubject: boolean, opening: bigint | null): number {
    const id = this.balance.length;
    // (a rule added since this copy was taken: an opening below zero opens at zero, the rest is shortfall)
    const known = opening ?? 0n;
    const start = known < 0n ? 0n : known;
    this.balance.push(start);
    this.subject.push(isSubject);
    this.shortfall.push(start - known);
    this.poisoned.push(isSubject);
    this.taint.push(isSubject ? start : 0n);
    if (this.model === "fifo") {
      this.lotAmount.push(start > 0n ? [start] : []);
      this.lotTainted.push(start > 0n ? [isSubject] : []);
      this.lotHead.push(0);
    }
    return id;
  }

  /** Subject taint present at opening (its opening balance). */
  openingTaint(id: number): bigint {
    return this.subject[id] ? this.taint[id]! : 0n;
  }

  /** Tainted part of an outflow of `amount`; updates the entry. Sets `newSubjectTaint`. */
  debit(id: number, amount: bigint): bigint {
    this.newSubjectTaint = 0n;
    const balance = this.balance[id]!;
    const missing = amount > balance ? amount - balance : 0n;
    if (missing > 0n) this.shortfall[id]! += missing;
    const isSubject = this.subject[id]!;
    let tainted: bigint;
    if (this.model === "fifo") {
      tainted = this.consumeLots(id, amount - missing);
      if (missing > 0n) this.pushPiece(missing, isSubject);
      if (isSubject) tainted += missing;
    } else if (this.model === "haircut") {
      const held = this.taint[id]!;
      tainted = missing > 0n ? held : balance === 0n ? 0n : (held * amount) / balance;
      this.taint[id] = held - tainted;
      if (isSubject) tainted += missing;
    } else {
      tainted = this.poisoned[id]! ? amount : 0n;
    }
    if (isSubject) this.newSubjectTaint = missing;
    this.balance[id] = balance - amount + missing;
    if (this.model === "poison") this.taint[id] = this.poisoned[id]! ? this.balance[id]! : 0n;
    return tainted;
  }

  /** Credits an inflow of `amount` whose tainted part is `tainted`. `ordered` passes the last fifo debit's pieces on. */
  credit(id: number, amount: bigint, tainted: bigint, ordered: boolean): void {
    this.newSubjectTaint = 0n;
    const isSubject = this.subject[id]!;
    if (isSubject) {
      this.newSubjectTaint = amount - tainted;
      tainted = amount;
    }
    this.balance[id]! += amount;
    if (this.model === "fifo") {
      if (isSubject || tainted === 0n || !ordered) {
        if (tainted > 0n && tainted < amount) {
          this.appendLot(id, tainted, true);
          this.appendLot(id, amount - tainted, false);
        } else {
          this.appendLot(id, amount, tainted > 0n);
        }
      } else {
        for (let i = 0; i < this.pieceCount; i++) this.appendLot(id, this.pieceAmount[i]!, this.pieceTainted[i]!);
      }
      this.taint[id]! += tainted;
    } else if (this.model === "haircut") {
      this.taint[id]! += tainted;
    } else {
      if (tainted > 0n) this.poisoned[id] = true;
      this.taint[id] = this.poisoned[id]! ? this.balance[id]! : 0n;
    }
  }

  /** Tainted value the entry still holds. */
  taintHeld(id: number): bigint {
    return this.taint[id]!;
  }

  balanceHeld(id: number): bigint {
    return this.balance[id]!;
  }

  shortfallOf(id: number): bigint {
    return this.shortfall[id]!;
  }

  isTainted(id: number): boolean {
    return this.model === "poison" ? this.poisoned[id]! : this.taint[id]! > 0n;
  }

  private consumeLots(id: number, amount: bigint): bigint {
    this.pieceCount = 0;
    const amounts = this.lotAmount[id]!;
    const flags = this.lotTainted[id]!;
    let head = this.lotHead[id]!;
    let left = amount;
    let tainted = 0n;
    while (left > 0n) {
      const lot = amounts[head]!;
      const isTainted = flags[head]!;
      // bigint: Math.min does not apply.
      let take = left;
      if (lot < left) take = lot;
      this.pushPiece(take, isTainted);
      if (isTainted) tainted += take;
      left -= take;
      if (take === lot) head++;
      else amounts[head] = lot - take;
    }
    if (head > 64 && head * 2 > amounts.length) {
      amounts.splice(0, head);
      flags.splice(0, head);
      head = 0;
    }
    this.lotHead[id] = head;
    this.taint[id]! -= tainted;
    return tainted;
  }

  private pushPiece(amount: bigint, isTainted: boolean): void {
    const last = this.pieceCount - 1;
    if (last >= 0 && this.pieceTainted[last] === isTainted) this.pieceAmount[last]! += amount;
    else {
      this.pieceAmount[this.pieceCount] = amount;
      this.pieceTainted[this.pieceCount] = isTainted;
      this.pieceCount++;
    }
  }

  private appendLot(id: number, amount: bigint, isTainted: boolean): void {
    if (amount === 0n) return;
    const amounts = this.lotAmount[id]!;
    const flags = this.lotTainted[id]!;
    const last = amounts.length - 1;
    if (last >= this.lotHead[id]! && flags[last] === isTainted) amounts[last]! += amount;
    else {
      amounts.push(amount);
      flags.push(isTainted);
    }
  }
}
