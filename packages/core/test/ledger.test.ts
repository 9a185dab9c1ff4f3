import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRemittanceFits, ledgerTotals, RECOVERY_EVENT_TYPES, resolveGrossAmount } from "../src/ledger";

describe("ledger rules", () => {
  it("lists the seven recovery event types, recovery first", () => {
    expect(RECOVERY_EVENT_TYPES).toEqual([
      "recovery",
      "frozen",
      "blocked",
      "seized",
      "turned_over",
      "remitted",
      "settled",
    ]);
  });

  it("takes usd_value only as the alias of an absent gross_amount", () => {
    expect(resolveGrossAmount({ gross_amount: 10 })).toEqual({ ok: true, amount: 10 });
    expect(resolveGrossAmount({ usd_value: 12.5 })).toEqual({ ok: true, amount: 12.5 });
    expect(resolveGrossAmount({ gross_amount: 7, usd_value: 7 })).toEqual({ ok: true, amount: 7 });
    expect(resolveGrossAmount({ gross_amount: 7, usd_value: 8 })).toEqual({ ok: false, problem: "mismatch" });
    expect(resolveGrossAmount({})).toEqual({ ok: false, problem: "missing" });
    expect(resolveGrossAmount({ gross_amount: null, usd_value: null })).toEqual({ ok: false, problem: "missing" });
  });

  it("sums exactly and refuses a remittance above what is left, or of nothing", () => {
    const totals = ledgerTotals([10_000_000_000_000_001n, 99n], [100n]);
    expect(totals).toEqual({
      recovered_cents: 10_000_000_000_000_100n,
      remitted_cents: 100n,
      remittable_cents: 10_000_000_000_000_000n,
    });
    expect(checkRemittanceFits(totals, 10_000_000_000_000_000n)).toEqual({ fits: true });
    expect(checkRemittanceFits(totals, 10_000_000_000_000_001n)).toEqual({
      fits: false,
      remittable_cents: 10_000_000_000_000_000n,
    });
    expect(checkRemittanceFits(totals, 0n).fits).toBe(false);
  });

  it("never lets accepted remittances exceed the recovered total, whatever the order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { maxLength: 8 }),
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { maxLength: 20 }),
        (recovered, requests) => {
          const accepted: bigint[] = [];
          for (const amount of requests) {
            if (checkRemittanceFits(ledgerTotals(recovered, accepted), amount).fits) accepted.push(amount);
          }
          const totals = ledgerTotals(recovered, accepted);
          expect(totals.remittable_cents >= 0n).toBe(true);
        },
      ),
    );
  });
});
