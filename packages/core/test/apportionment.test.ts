import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apportionByQuotaMethod, MAX_APPORTIONMENT_PERIOD } from "../src/apportionment";

/**
 * The quota method straight from its definition, one cent at a time from zero: the next cent goes
 * to the party with the largest weight / (allocated + 1) among those with allocated < total * weight / sum
 * (earlier party on ties). No periods, no heaps; only usable for small totals.
 */
function quotaMethodByDefinition(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const allocated = weights.map(() => 0);
  for (let house = 1; house <= total; house++) {
    let best = -1;
    for (let i = 0; i < weights.length; i++) {
      if (!(allocated[i]! * sum < house * weights[i]!)) continue;
      if (best === -1 || weights[i]! * (allocated[best]! + 1) > weights[best]! * (allocated[i]! + 1)) best = i;
    }
    allocated[best]!++;
  }
  return allocated;
}

const smallWeights = fc
  .array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 7 })
  .filter((weights) => weights.some((weight) => weight > 0));
// Up to ten parties of up to 100,000 millionths each: sums stay within one whole, periods up to 10^6.
const millionthWeights = fc
  .array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 10 })
  .filter((weights) => weights.some((weight) => weight > 0));

const sumOf = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);

describe("apportionByQuotaMethod", () => {
  it("avoids the Alabama paradox where largest remainder does not", () => {
    const weights = [428571n, 428571n, 142858n];
    // Largest remainder gives (4, 4, 2) of 10 and (5, 5, 1) of 11: the third party loses a cent.
    // The quota method, by hand (priority w / (a + 1), upper quota a < h * w / 10^6):
    //   h=1 A, h=2 B (A is at its upper quota 0.857142 -> 1), h=3 A, h=4 B,
    //   h=5 C (142858 beats 428571/3 = 142857), h=6 A, h=7 B, h=8 A, h=9 B, h=10 A -> (5, 4, 1);
    //   h=11: A is at its upper quota (4.714281 -> 5), B beats C -> (5, 5, 1).
    expect(apportionByQuotaMethod(10n, weights)).toEqual([5n, 4n, 1n]);
    expect(apportionByQuotaMethod(11n, weights)).toEqual([5n, 5n, 1n]);
  });

  it("gives an exactly divisible total exactly and lets the earlier party win a tie", () => {
    expect(apportionByQuotaMethod(300n, [1n, 1n, 1n])).toEqual([100n, 100n, 100n]);
    expect(apportionByQuotaMethod(301n, [1n, 1n, 1n])).toEqual([101n, 100n, 100n]);
    expect(apportionByQuotaMethod(302n, [1n, 1n, 1n])).toEqual([101n, 101n, 100n]);
    expect(apportionByQuotaMethod(7n, [0n, 2n, 0n])).toEqual([0n, 7n, 0n]);
  });

  it("matches the one-cent-at-a-time definition for every small total, across several periods", () => {
    fc.assert(
      fc.property(smallWeights, fc.integer({ min: 0, max: 400 }), (weights, total) => {
        const expected = quotaMethodByDefinition(total, weights).map(BigInt);
        expect(apportionByQuotaMethod(BigInt(total), weights.map(BigInt))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("always sums to the total, never negative, each part within one cent of its exact share", () => {
    fc.assert(
      fc.property(millionthWeights, fc.bigInt({ min: 0n, max: 10n ** 13n }), (weights, total) => {
        const big = weights.map(BigInt);
        const sum = sumOf(big);
        const parts = apportionByQuotaMethod(total, big);
        expect(sumOf(parts)).toBe(total);
        parts.forEach((part, i) => {
          expect(part >= 0n).toBe(true);
          // |part - total * w / sum| < 1, in integers.
          const gap = part * sum - total * big[i]!;
          expect(gap < sum && -gap < sum).toBe(true);
        });
      }),
      { numRuns: 60 },
    );
  });

  it("never gives a party less when the total grows", () => {
    fc.assert(
      fc.property(
        millionthWeights,
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 3_000_000n }),
        (weights, total, more) => {
          const big = weights.map(BigInt);
          const before = apportionByQuotaMethod(total, big);
          const after = apportionByQuotaMethod(total + more, big);
          for (const [i, part] of before.entries()) expect(after[i]! >= part).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("stays within quota and never gives a party less for one more cent, at every total up to 250", () => {
    fc.assert(
      fc.property(smallWeights, (weights) => {
        const big = weights.map(BigInt);
        const sum = sumOf(big);
        let previous = apportionByQuotaMethod(0n, big);
        for (let total = 1n; total <= 250n; total++) {
          const next = apportionByQuotaMethod(total, big);
          next.forEach((part, i) => {
            expect(part >= previous[i]!).toBe(true);
            const gap = part * sum - total * big[i]!;
            expect(gap < sum && -gap < sum).toBe(true);
          });
          previous = next;
        }
      }),
      { numRuns: 100 },
    );
  });

  it("handles totals of 10^12 cents and more without handing them out one by one", () => {
    const weights = [333_333n, 333_333n, 333_333n, 1n];
    const total = 10n ** 15n + 999_999n;
    // Handing out 10^15 cents one by one would run far past the test timeout.
    const parts = apportionByQuotaMethod(total, weights);
    expect(sumOf(parts)).toBe(total);
    // 10^15 + 999,999 = 10^9 full periods of 10^6, plus 999,999 cents within quota of 333,333 / 1 each.
    expect(parts.slice(0, 3).every((part) => part >= 333_333n * 10n ** 9n + 333_332n)).toBe(true);
    expect(parts[3]! >= 10n ** 9n).toBe(true);
  });

  it("refuses negative totals or weights, all-zero weights for a positive total, and over-long periods", () => {
    expect(() => apportionByQuotaMethod(-1n, [1n])).toThrow(RangeError);
    expect(() => apportionByQuotaMethod(1n, [1n, -1n])).toThrow(RangeError);
    expect(() => apportionByQuotaMethod(1n, [0n, 0n])).toThrow(RangeError);
    expect(apportionByQuotaMethod(0n, [0n, 0n])).toEqual([0n, 0n]);
    expect(() => apportionByQuotaMethod(1n, [BigInt(MAX_APPORTIONMENT_PERIOD), 1n])).toThrow(RangeError);
  });
});
