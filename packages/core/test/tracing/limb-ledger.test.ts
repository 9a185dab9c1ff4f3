import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bigintToLimbs, LimbLedger, limbsToBigint } from "../../src/tracing/limb-ledger";
import { TAINT_MODELS, TaintLedger } from "../../src/tracing/taint";

const LIMB = 2n ** 48n;
/** The largest high limb the sweep keeps exact: |h| ≤ 2^51. */
const LIMIT = 2n ** 51n;

/** Values at the edges of each conversion path: 2^48 (a limb), 2^53 (a safe integer), 2^63 and 2^64 (a 64-bit word). */
const edges = [0n, 1n, 2n ** 48n, 2n ** 53n, 2n ** 63n, 2n ** 64n, 2n ** 70n, LIMIT * LIMB].flatMap((v) => [
  v - 1n,
  v,
  v + 1n,
]);

function expectExactSplit(value: bigint): void {
  const out = { h: Number.NaN, l: Number.NaN };
  expect(bigintToLimbs(value, out)).toBe(true);
  // floor division and a remainder in [0, 2^48), also below zero
  expect(BigInt(out.h)).toBe(value >> 48n);
  expect(BigInt(out.l)).toBe(value - (value >> 48n) * LIMB);
  expect(limbsToBigint(out.h, out.l)).toBe(value);
}

describe("limbs: a value as h·2^48 + l in two doubles", () => {
  it("splits and joins exactly at the edges of every conversion path", () => {
    for (const value of edges) {
      expectExactSplit(value);
      if (value > 0n && value <= LIMIT * LIMB) expectExactSplit(-value);
    }
  });

  it("splits and joins any value within the exact range", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -LIMIT * LIMB, max: LIMIT * LIMB + LIMB - 1n }), (value) => expectExactSplit(value)),
    );
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n + 5n }), (value) => expectExactSplit(value)));
  });

  it("refuses a value beyond the exact range instead of rounding it", () => {
    const out = { h: 0, l: 0 };
    expect(bigintToLimbs((LIMIT + 1n) * LIMB, out)).toBe(false);
    expect(bigintToLimbs(-(LIMIT + 1n) * LIMB, out)).toBe(false);
    expect(bigintToLimbs(2n ** 256n - 1n, out)).toBe(false);
  });
});

describe("LimbLedger's entry columns", () => {
  it("keeps each entry's address, asset and opening balance, and refuses an id it has not opened", () => {
    const ledger = new LimbLedger("fifo");
    const split = { h: 0, l: 0 };
    const openings = [5n * 10n ** 18n, 0n, 2n ** 70n + 3n];
    openings.forEach((opening, i) => {
      expect(bigintToLimbs(opening, split)).toBe(true);
      ledger.open(i === 0, split.h, split.l, 100 + i, i % 2);
    });
    expect([...ledger.entryNodes()]).toEqual([100, 101, 102]);
    expect([...ledger.entryAssets()]).toEqual([0, 1, 0]);
    expect(openings.map((_, id) => ledger.openingOf(id))).toEqual(openings);
    expect(() => ledger.openingOf(3)).toThrow(RangeError);

    // After a reset the columns still hold the old values, but no entry is open to read them by.
    ledger.reset("poison");
    expect(() => ledger.openingOf(0)).toThrow(RangeError);
    expect(ledger.entryNodes().length).toBe(0);
    ledger.open(false, 0, 7, 55, 1);
    expect(ledger.openingOf(0)).toBe(7n);
    expect([...ledger.entryNodes()]).toEqual([55]);
  });
});

describe("an opening balance below zero", () => {
  // −(2^48 + 5) has a non-zero low limb, −2^48 a zero one: both ways of negating limbs.
  for (const opening of [-30n, -(LIMB + 5n), -LIMB]) {
    it(`opens at zero on both ledgers, the rest counted as shortfall, and the next outflow is all beyond the balance (${opening})`, () => {
      for (const model of TAINT_MODELS) {
        for (const isSubject of [true, false]) {
          const limbs = new LimbLedger(model);
          const split = { h: 0, l: 0 };
          expect(bigintToLimbs(opening, split)).toBe(true);
          const id = limbs.open(isSubject, split.h, split.l, 1, 0);
          const exact = new TaintLedger(model);
          exact.open(isSubject, opening);
          for (const ledger of [limbs, exact]) {
            const tag = `${model}, ${isSubject ? "subject" : "intermediary"}, ${ledger === limbs ? "limbs" : "bigint"}`;
            expect(ledger.balanceHeld(id), tag).toBe(0n);
            expect(ledger.taintHeld(id), tag).toBe(0n);
            expect(ledger.shortfallOf(id), tag).toBe(-opening);
          }
          expect(limbs.openingOf(id)).toBe(0n);
          // An outflow of 40: at a subject all of it is new taint, at an intermediary none; never more than 40.
          limbs.debit(id, 0, 40);
          expect(limbsToBigint(limbs.outH, limbs.outL)).toBe(isSubject ? 40n : 0n);
          expect(limbsToBigint(limbs.newH, limbs.newL)).toBe(isSubject ? 40n : 0n);
          expect(exact.debit(id, 40n)).toBe(isSubject ? 40n : 0n);
          for (const ledger of [limbs, exact]) {
            expect(ledger.balanceHeld(id)).toBe(0n);
            expect(ledger.shortfallOf(id)).toBe(40n - opening);
          }
        }
      }
    });
  }
});
