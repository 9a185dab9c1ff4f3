import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shareToUnits } from "../src/parties";
import {
  calculateWaterfall,
  percentageToBasisPoints,
  type Waterfall,
  type WaterfallClaimant,
  type WaterfallInput,
} from "../src/waterfall";

const claimant = (claimant_id: string, share: number, extra: Partial<WaterfallClaimant> = {}): WaterfallClaimant => ({
  claimant_id,
  share,
  status: "active",
  sanctions_review: false,
  ...extra,
});

const event = (recovery_event_id: string, cents: bigint) => ({ recovery_event_id, gross_amount_cents: cents });

const noFees = { counsel_fee_percentage: 0, platform_percentage: 0, holdback_percentage: 0, costs: {} };

function partsTotal(waterfall: Waterfall): bigint {
  return (
    waterfall.costs_total_cents +
    waterfall.counsel_fee_cents +
    waterfall.platform_economics_cents +
    waterfall.holdbacks.reduce((sum, holdback) => sum + holdback.amount_cents, 0n) +
    waterfall.claimant_distributions.reduce((sum, distribution) => sum + distribution.amount_cents, 0n)
  );
}

/** Every claimant's amount, paid or held under its id. */
function claimantAmounts(waterfall: Waterfall): Map<string, bigint> {
  const amounts = new Map<string, bigint>();
  for (const d of waterfall.claimant_distributions) amounts.set(d.claimant_id, d.amount_cents);
  for (const h of waterfall.holdbacks) if (h.claimant_id) amounts.set(h.claimant_id, h.amount_cents);
  return amounts;
}

describe("calculateWaterfall: worked examples", () => {
  it("splits $125,000.00 through costs, counsel, platform, holdback and three claimants", () => {
    const waterfall = calculateWaterfall({
      recovery_events: [event("rcv_a", 10_000_000n), event("rcv_b", 2_500_000n)],
      costs: { investigator: 375_055n, filing: 125_000n },
      counsel_fee_percentage: 33.33,
      platform_percentage: 10,
      holdback_percentage: 5,
      claimants: [claimant("party_a", 0.5), claimant("party_b", 0.3), claimant("party_c", 0.2, { status: "inactive" })],
    });
    // gross     = 10,000,000 + 2,500,000                         = 12,500,000
    // costs     = filing 125,000 + investigator 375,055           =    500,055  -> left 11,999,945
    // counsel   = 11,999,945 * 3333 / 10000 = 3,999,581.6685, down =  3,999,581  -> left  8,000,364
    // platform  =  8,000,364 * 1000 / 10000 =   800,036.4,    down =    800,036  -> left  7,200,328
    // holdback  =  7,200,328 *  500 / 10000 =   360,016.4,    down =    360,016  -> left  6,840,312
    // exact shares of 6,840,312: A 3,420,156, B 2,052,093.6, C 1,368,062.4
    // weights 5:3:2 (period 10): 6,840,312 = 684,031 * 10 + 2 -> base A 3,420,155, B 2,052,093, C 1,368,062;
    // the last 2 cents one by one: h=1 A (priority 5/1), h=2 B (A at its upper quota 2*5/10 = 1; 3 beats 2).
    expect(waterfall.gross_cents).toBe(12_500_000n);
    expect(waterfall.costs).toEqual([
      { name: "filing", requested_cents: 125_000n, applied_cents: 125_000n },
      { name: "investigator", requested_cents: 375_055n, applied_cents: 375_055n },
    ]);
    expect(waterfall.costs_total_cents).toBe(500_055n);
    expect(waterfall.counsel_fee_cents).toBe(3_999_581n);
    expect(waterfall.platform_economics_cents).toBe(800_036n);
    expect(waterfall.distributable_cents).toBe(6_840_312n);
    expect(waterfall.claimant_distributions).toEqual([
      { claimant_id: "party_a", amount_cents: 3_420_156n },
      { claimant_id: "party_b", amount_cents: 2_052_094n },
    ]);
    expect(waterfall.holdbacks).toEqual([
      { reason: "holdback_percentage", claimant_id: null, amount_cents: 360_016n },
      { reason: "claimant_not_active", claimant_id: "party_c", amount_cents: 1_368_062n },
    ]);
    // 500,055 + 3,999,581 + 800,036 + 360,016 + 1,368,062 + 3,420,156 + 2,052,094 = 12,500,000
    expect(partsTotal(waterfall)).toBe(12_500_000n);
    expect(waterfall.inputs.counsel_fee_basis_points).toBe(3333n);
    expect(waterfall.inputs.claimants.map((c) => c.share_millionths)).toEqual([500_000n, 300_000n, 200_000n]);
  });

  it("caps costs at the gross, in name order, leaving nothing for fees or claimants", () => {
    const waterfall = calculateWaterfall({
      ...noFees,
      recovery_events: [event("rcv_a", 100_000n)],
      costs: { b_expert: 70_000n, a_filing: 60_000n },
      counsel_fee_percentage: 40,
      claimants: [claimant("party_a", 1)],
    });
    // gross 100,000: a_filing takes 60,000, b_expert the remaining 40,000 of its 70,000.
    expect(waterfall.costs).toEqual([
      { name: "a_filing", requested_cents: 60_000n, applied_cents: 60_000n },
      { name: "b_expert", requested_cents: 70_000n, applied_cents: 40_000n },
    ]);
    expect(waterfall.counsel_fee_cents).toBe(0n);
    expect(waterfall.claimant_distributions).toEqual([{ claimant_id: "party_a", amount_cents: 0n }]);
  });

  it("pays the Alabama-paradox shares 5/4/1 of 10 cents and 5/5/1 of 11, never taking a cent back", () => {
    const claimants = [claimant("party_a", 0.428571), claimant("party_b", 0.428571), claimant("party_c", 0.142858)];
    const of = (cents: bigint) =>
      calculateWaterfall({ ...noFees, recovery_events: [event("rcv", cents)], claimants }).claimant_distributions.map(
        (d) => d.amount_cents,
      );
    // Largest remainder would give 4/4/2 then 5/5/1 (party_c loses a cent); see apportionment.test.ts.
    expect(of(10n)).toEqual([5n, 4n, 1n]);
    expect(of(11n)).toEqual([5n, 5n, 1n]);
  });

  it("gives the odd cent of a three-way split to the earliest claimant, not to the unallocated millionth", () => {
    const waterfall = calculateWaterfall({
      ...noFees,
      recovery_events: [event("rcv", 100n)],
      claimants: [claimant("party_a", 0.333333), claimant("party_b", 0.333333), claimant("party_c", 0.333333)],
    });
    // Exact: 33.3333 each and 0.0001 unallocated. The 100th cent: party_a's 34th cent is due by total
    // 34 / 0.333333 = 102.0001, the unallocated part's first by 1,000,000, so party_a (earliest) takes it.
    expect(waterfall.claimant_distributions.map((d) => d.amount_cents)).toEqual([34n, 33n, 33n]);
    expect(waterfall.holdbacks).toEqual([{ reason: "unallocated_share", claimant_id: null, amount_cents: 0n }]);
  });

  it("holds back a claimant under sanctions review under its own id, and the unallocated half", () => {
    const waterfall = calculateWaterfall({
      ...noFees,
      recovery_events: [event("rcv", 100_001n)],
      claimants: [claimant("party_a", 0.25), claimant("party_b", 0.25, { sanctions_review: true, status: "inactive" })],
    });
    // 100,001 in weights 1:1:2 (A, B, unallocated): 25,000.25 / 25,000.25 / 50,000.5.
    // 100,001 = 25,000 * 4 + 1; the 1 cent goes to the unallocated part (priority 2 beats 1).
    expect(waterfall.claimant_distributions).toEqual([{ claimant_id: "party_a", amount_cents: 25_000n }]);
    expect(waterfall.holdbacks).toEqual([
      { reason: "claimant_sanctions_review", claimant_id: "party_b", amount_cents: 25_000n },
      { reason: "unallocated_share", claimant_id: null, amount_cents: 50_001n },
    ]);
  });

  it("holds everything when the matter has no claimants", () => {
    const waterfall = calculateWaterfall({ ...noFees, recovery_events: [event("rcv", 999n)], claimants: [] });
    expect(waterfall.claimant_distributions).toEqual([]);
    expect(waterfall.holdbacks).toEqual([{ reason: "unallocated_share", claimant_id: null, amount_cents: 999n }]);
  });
});

describe("calculateWaterfall: refusals", () => {
  it("refuses shares summing above 1, duplicate claimants, negative amounts and inexact rates", () => {
    const base: WaterfallInput = { ...noFees, recovery_events: [event("rcv", 100n)], claimants: [] };
    expect(() => calculateWaterfall({ ...base, claimants: [claimant("a", 0.6), claimant("b", 0.400001)] })).toThrow(
      /sum above 1/,
    );
    expect(() => calculateWaterfall({ ...base, claimants: [claimant("a", 0.1), claimant("a", 0.1)] })).toThrow(/twice/);
    expect(() => calculateWaterfall({ ...base, recovery_events: [event("rcv", -1n)] })).toThrow(RangeError);
    expect(() => calculateWaterfall({ ...base, costs: { filing: -1n } })).toThrow(RangeError);
    expect(() => calculateWaterfall({ ...base, counsel_fee_percentage: 10.005 })).toThrow(RangeError);
    expect(() => calculateWaterfall({ ...base, platform_percentage: 100.01 })).toThrow(RangeError);
    expect(() => calculateWaterfall({ ...base, claimants: [claimant("a", 0.1234567)] })).toThrow(RangeError);
  });

  it("converts rates exactly, without floating point", () => {
    expect(percentageToBasisPoints(33.33)).toBe(3333n);
    expect(percentageToBasisPoints(0.01)).toBe(1n);
    expect(percentageToBasisPoints(100)).toBe(10_000n);
    expect(shareToUnits(0.142858)).toBe(142_858n);
    expect(shareToUnits(1e-6)).toBe(1n);
  });
});

// Rates with at most two decimals, shares in millionths summing to at most one whole.
const percentage = fc.integer({ min: 0, max: 10_000 }).map((bp) => bp / 100);
const claimantsArbitrary = fc
  .array(
    fc.record({
      millionths: fc.integer({ min: 0, max: 250_000 }),
      status: fc.constantFrom("active", "active", "active", "inactive"),
      sanctions_review: fc.boolean(),
    }),
    { maxLength: 4 },
  )
  .map((list) =>
    list.map((c, i) =>
      claimant(`party_${i}`, c.millionths / 1_000_000, { status: c.status, sanctions_review: c.sanctions_review }),
    ),
  );
const inputArbitrary = fc.record({
  recovery_events: fc.array(
    fc.bigInt({ min: 0n, max: 10n ** 12n }).map((cents) => event("rcv", cents)),
    { minLength: 1, maxLength: 3 },
  ),
  costs: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.bigInt({ min: 0n, max: 10n ** 11n }), {
    maxKeys: 3,
  }),
  counsel_fee_percentage: percentage,
  platform_percentage: percentage,
  holdback_percentage: percentage,
  claimants: claimantsArbitrary,
});

describe("calculateWaterfall: properties", () => {
  it("always sums to the gross to the cent, with nothing negative", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const waterfall = calculateWaterfall(input);
        expect(partsTotal(waterfall)).toBe(waterfall.gross_cents);
        const all = [
          ...waterfall.costs.map((c) => c.applied_cents),
          waterfall.counsel_fee_cents,
          waterfall.platform_economics_cents,
          ...waterfall.holdbacks.map((h) => h.amount_cents),
          ...waterfall.claimant_distributions.map((d) => d.amount_cents),
        ];
        for (const amount of all) expect(amount >= 0n).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("keeps every claimant within one cent of its exact pro-rata amount", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const waterfall = calculateWaterfall(input);
        const amounts = claimantAmounts(waterfall);
        for (const echo of waterfall.inputs.claimants) {
          // exact = distributable * millionths / 10^6; |amount - exact| < 1, in integers.
          const gap =
            amounts.get(echo.claimant_id)! * 1_000_000n - waterfall.distributable_cents * echo.share_millionths;
          expect(gap < 1_000_000n && -gap < 1_000_000n).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("never pays a claimant (or any other part) less when the gross grows", () => {
    fc.assert(
      fc.property(inputArbitrary, fc.bigInt({ min: 0n, max: 5_000_000n }), (input, more) => {
        const before = calculateWaterfall(input);
        const after = calculateWaterfall({
          ...input,
          recovery_events: [...input.recovery_events, event("rcv_more", more)],
        });
        const afterAmounts = claimantAmounts(after);
        for (const [id, amount] of claimantAmounts(before)) expect(afterAmounts.get(id)! >= amount).toBe(true);
        expect(after.counsel_fee_cents >= before.counsel_fee_cents).toBe(true);
        expect(after.platform_economics_cents >= before.platform_economics_cents).toBe(true);
        expect(after.costs_total_cents >= before.costs_total_cents).toBe(true);
        for (const [i, holdback] of after.holdbacks.entries()) {
          expect(holdback.amount_cents >= before.holdbacks[i]!.amount_cents).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("never pays a claimant less for one more cent, cent by cent from zero", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        let previous = claimantAmounts(calculateWaterfall({ ...input, recovery_events: [event("rcv", 0n)] }));
        for (let cents = 1n; cents <= 120n; cents++) {
          const next = claimantAmounts(calculateWaterfall({ ...input, recovery_events: [event("rcv", cents)] }));
          for (const [id, amount] of previous) expect(next.get(id)! >= amount).toBe(true);
          previous = next;
        }
      }),
      { numRuns: 40 },
    );
  });

  it("never takes more than the agreed percentage, and less by under one cent", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const waterfall = calculateWaterfall(input);
        const base = waterfall.gross_cents - waterfall.costs_total_cents;
        const exactTimes10k = base * waterfall.inputs.counsel_fee_basis_points;
        const gap = exactTimes10k - waterfall.counsel_fee_cents * 10_000n;
        expect(gap >= 0n && gap < 10_000n).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
