import { describe, expect, it } from "vitest";
import { countAlerts, countOpenActions, isDueWithin, sumActiveJudgmentAmounts } from "../src/dashboard";
import type { DeadlineStatus } from "../src/deadlines";

const due = (date: string, status: DeadlineStatus = "open") => ({ date, status });

describe("isDueWithin", () => {
  it("includes today and the last day of the window, excludes the day after and the past", () => {
    expect(isDueWithin(due("2026-07-05"), "2026-07-05", 7)).toBe(true);
    expect(isDueWithin(due("2026-07-12"), "2026-07-05", 7)).toBe(true);
    expect(isDueWithin(due("2026-07-13"), "2026-07-05", 7)).toBe(false);
    expect(isDueWithin(due("2026-07-04"), "2026-07-05", 7)).toBe(false);
  });

  it("only counts open deadlines", () => {
    expect(isDueWithin(due("2026-07-06", "met"), "2026-07-05", 7)).toBe(false);
    expect(isDueWithin(due("2026-07-06", "missed"), "2026-07-05", 7)).toBe(false);
  });
});

describe("countOpenActions", () => {
  it("adds pending reviews to open deadlines due within 30 days", () => {
    const deadlines = [
      due("2026-07-05"),
      due("2026-08-04"),
      due("2026-08-05"),
      due("2026-07-10", "met"),
      due("2026-07-01", "missed"),
    ];
    expect(countOpenActions({ pendingReviews: 3, deadlines, today: "2026-07-05" })).toBe(5);
    expect(countOpenActions({ pendingReviews: 0, deadlines: [], today: "2026-07-05" })).toBe(0);
  });
});

describe("countAlerts", () => {
  it("adds sanctions hits, stays, missed deadlines and open deadlines due within 7 days", () => {
    const deadlines = [due("2026-07-12"), due("2026-07-13"), due("2026-06-01", "missed"), due("2026-07-06", "met")];
    expect(countAlerts({ sanctionsHits: 2, staysInEffect: 1, deadlines, today: "2026-07-05" })).toBe(5);
  });
});

describe("sumActiveJudgmentAmounts", () => {
  it("sums active judgments per currency in minor units and leaves the others out", () => {
    const totals = sumActiveJudgmentAmounts([
      { status: "active", amount_minor: 10_000_00n, currency: "USD" },
      { status: "active", amount_minor: 1n, currency: "USD" },
      { status: "satisfied", amount_minor: 99_999_00n, currency: "USD" },
      { status: "active", amount_minor: 500_00n, currency: "EUR" },
      { status: "stayed", amount_minor: 7n, currency: "GBP" },
    ]);
    expect(Object.fromEntries(totals)).toEqual({ USD: 10_000_01n, EUR: 500_00n });
  });
});
