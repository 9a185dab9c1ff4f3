import { addDays, compareDates } from "./calendar-dates";
import type { Deadline } from "./deadlines";
import type { JudgmentStatus } from "./judgments";

/** Open deadlines due within this many days of today count as open actions. */
export const OPEN_ACTION_WINDOW_DAYS = 30;
/** Open deadlines due within this many days of today raise an alert. */
export const ALERT_WINDOW_DAYS = 7;

type DeadlineTiming = Pick<Deadline, "date" | "status">;

/** An open deadline dated from today up to `days` days ahead (both ends included). */
export function isDueWithin(deadline: DeadlineTiming, today: string, days: number): boolean {
  return (
    deadline.status === "open" &&
    compareDates(deadline.date, today) >= 0 &&
    compareDates(deadline.date, addDays(today, days)) <= 0
  );
}

/** Dashboard `open_actions`: pending reviews plus open deadlines due within 30 days. */
export function countOpenActions(input: {
  pendingReviews: number;
  deadlines: readonly DeadlineTiming[];
  today: string;
}): number {
  return (
    input.pendingReviews + input.deadlines.filter((d) => isDueWithin(d, input.today, OPEN_ACTION_WINDOW_DAYS)).length
  );
}

/** Dashboard `alerts`: sanctions hits, stays in effect, and deadlines missed or due within 7 days. */
export function countAlerts(input: {
  sanctionsHits: number;
  staysInEffect: number;
  deadlines: readonly DeadlineTiming[];
  today: string;
}): number {
  const deadlineAlerts = input.deadlines.filter(
    (d) => d.status === "missed" || isDueWithin(d, input.today, ALERT_WINDOW_DAYS),
  ).length;
  return input.sanctionsHits + input.staysInEffect + deadlineAlerts;
}

/**
 * Dashboard `judgment_value`: the sum of active judgments in integer minor units, per currency.
 * Amounts in different currencies are never added together; converting them needs a rate and a
 * valuation time, which is the caller's decision.
 */
export function sumActiveJudgmentAmounts(
  judgments: readonly { status: JudgmentStatus; amount_minor: bigint; currency: string }[],
): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const judgment of judgments) {
    if (judgment.status !== "active") continue;
    totals.set(judgment.currency, (totals.get(judgment.currency) ?? 0n) + judgment.amount_minor);
  }
  return totals;
}
