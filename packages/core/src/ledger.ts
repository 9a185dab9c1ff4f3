/**
 * The matter ledger: recovered money in, remitted money out, in integer cents.
 *
 * A recovery event records value recovered for the matter (`gross_amount`, in the matter's currency,
 * at most two decimals; `asset` names what was recovered). A remittance sends recovered money on; the
 * sum of a matter's remittances never exceeds the sum of its recovery events.
 */

export const RECOVERY_EVENT_TYPES = [
  "recovery",
  "frozen",
  "blocked",
  "seized",
  "turned_over",
  "remitted",
  "settled",
] as const;
export type RecoveryEventType = (typeof RECOVERY_EVENT_TYPES)[number];

export const DEFAULT_RECOVERY_EVENT_TYPE: RecoveryEventType = "recovery";
export const DEFAULT_RECOVERY_ASSET = "USD";

/** Both ledger records are written once and never change: `recorded` is their only status. */
export const LEDGER_RECORD_STATUSES = ["recorded"] as const;
export type LedgerRecordStatus = (typeof LEDGER_RECORD_STATUSES)[number];

/**
 * `gross_amount` is canonical; `usd_value` is its alias, taken only when `gross_amount` is absent.
 * When both are sent they must agree (a caller sending two different amounts has made a mistake).
 */
export function resolveGrossAmount(input: {
  gross_amount?: number | null | undefined;
  usd_value?: number | null | undefined;
}): { ok: true; amount: number } | { ok: false; problem: "missing" | "mismatch" } {
  const gross = input.gross_amount ?? undefined;
  const alias = input.usd_value ?? undefined;
  if (gross === undefined && alias === undefined) return { ok: false, problem: "missing" };
  if (gross !== undefined && alias !== undefined && gross !== alias) return { ok: false, problem: "mismatch" };
  return { ok: true, amount: (gross ?? alias) as number };
}

export interface LedgerTotals {
  recovered_cents: bigint;
  remitted_cents: bigint;
  /** recovered minus remitted: what may still be remitted */
  remittable_cents: bigint;
}

export function ledgerTotals(recovered: readonly bigint[], remitted: readonly bigint[]): LedgerTotals {
  const recovered_cents = recovered.reduce((sum, cents) => sum + cents, 0n);
  const remitted_cents = remitted.reduce((sum, cents) => sum + cents, 0n);
  return { recovered_cents, remitted_cents, remittable_cents: recovered_cents - remitted_cents };
}

/** A remittance fits when it is positive and at most what was recovered and not yet remitted. */
export function checkRemittanceFits(
  totals: Pick<LedgerTotals, "remittable_cents">,
  amountCents: bigint,
): { fits: true } | { fits: false; remittable_cents: bigint } {
  if (amountCents > 0n && amountCents <= totals.remittable_cents) return { fits: true };
  return { fits: false, remittable_cents: totals.remittable_cents < 0n ? 0n : totals.remittable_cents };
}
