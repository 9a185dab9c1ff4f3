import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CRYPTO_DECIMALS,
  decimalPlaces,
  FIAT_DECIMALS,
  formatMinorUnits,
  fromMinorUnits,
  parseMinorUnits,
  toMinorUnits,
} from "../src/money";

/**
 * Amounts are carried as JSON numbers, so only values with at most 15 significant digits
 * (DBL_DIG) are guaranteed to survive number → shortest string → number unchanged.
 */
const MAX_EXACT_UNITS = 10 ** 15 - 1;
const exactUnits = fc.integer({ min: -MAX_EXACT_UNITS, max: MAX_EXACT_UNITS });

describe("toMinorUnits / fromMinorUnits", () => {
  it("uses 2 decimals for fiat and 18 for crypto by default constants", () => {
    expect(FIAT_DECIMALS).toBe(2);
    expect(CRYPTO_DECIMALS).toBe(18);
    expect(toMinorUnits(12.5)).toBe(1250n);
    expect(fromMinorUnits(1250n)).toBe(12.5);
  });

  it("round-trips minor units through a number for fiat decimals", () => {
    fc.assert(
      fc.property(exactUnits, (n) => {
        expect(toMinorUnits(fromMinorUnits(BigInt(n)))).toBe(BigInt(n));
      }),
    );
  });

  it("round-trips minor units through a number for crypto decimals", () => {
    fc.assert(
      fc.property(exactUnits, (n) => {
        expect(toMinorUnits(fromMinorUnits(BigInt(n), CRYPTO_DECIMALS), CRYPTO_DECIMALS)).toBe(BigInt(n));
      }),
    );
  });

  it("round-trips minor units for every decimals count from 0 to 18", () => {
    fc.assert(
      fc.property(exactUnits, fc.integer({ min: 0, max: 18 }), (n, decimals) => {
        expect(toMinorUnits(fromMinorUnits(BigInt(n), decimals), decimals)).toBe(BigInt(n));
      }),
    );
  });

  it("is exact where float arithmetic is not: 0.1 + 0.2 = 0.3 in minor units", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(toMinorUnits(0.1) + toMinorUnits(0.2)).toBe(toMinorUnits(0.3));
    expect(toMinorUnits(0.3)).toBe(30n);
    expect(toMinorUnits(0.1, CRYPTO_DECIMALS) + toMinorUnits(0.2, CRYPTO_DECIMALS)).toBe(
      toMinorUnits(0.3, CRYPTO_DECIMALS),
    );
  });

  it("converts through the decimal string, not by multiplying floats", () => {
    // 1.15 * 100 = 114.99999999999999 and 4.35 * 100 = 434.99999999999994 in floats.
    expect(toMinorUnits(1.15)).toBe(115n);
    expect(toMinorUnits(4.35)).toBe(435n);
    expect(toMinorUnits(19.99)).toBe(1999n);
  });

  it("throws for more decimals than allowed: 1.005 has 3 decimals", () => {
    expect(decimalPlaces(1.005)).toBe(3);
    expect(() => toMinorUnits(1.005, 2)).toThrow(RangeError);
    expect(() => toMinorUnits(0.001)).toThrow(RangeError);
    expect(() => toMinorUnits(-0.125)).toThrow(RangeError);
    expect(toMinorUnits(1.005, 3)).toBe(1005n);
  });

  it("converts negative amounts and zero", () => {
    expect(toMinorUnits(-12.5)).toBe(-1250n);
    expect(toMinorUnits(-0.05)).toBe(-5n);
    expect(toMinorUnits(0)).toBe(0n);
    expect(toMinorUnits(-0)).toBe(0n);
    expect(fromMinorUnits(-5n)).toBe(-0.05);
    expect(fromMinorUnits(-1250n)).toBe(-12.5);
    expect(fromMinorUnits(0n)).toBe(0);
  });

  it("expands exponent forms exactly: 1e-7 with 18 decimals is 100000000000 units", () => {
    expect(String(1e-7)).toBe("1e-7");
    expect(toMinorUnits(1e-7, 18)).toBe(100000000000n);
    expect(toMinorUnits(1.23e-7, 18)).toBe(123000000000n);
    expect(toMinorUnits(-1e-7, 18)).toBe(-100000000000n);
    expect(toMinorUnits(1e-18, 18)).toBe(1n);
    expect(() => toMinorUnits(1e-7, 6)).toThrow(RangeError);
  });

  it("expands large exponent forms exactly: 1e21 is 10^21 * 100 units", () => {
    expect(String(1e21)).toBe("1e+21");
    expect(toMinorUnits(1e21)).toBe(10n ** 21n * 100n);
    expect(toMinorUnits(1.5e21)).toBe(15n * 10n ** 20n * 100n);
    expect(toMinorUnits(-1.25e22, 0)).toBe(-125n * 10n ** 20n);
  });

  it("formats minor units with fewer digits than decimals", () => {
    expect(fromMinorUnits(5n)).toBe(0.05);
    expect(fromMinorUnits(1n, 18)).toBe(1e-18);
    expect(fromMinorUnits(100000000000n, 18)).toBe(1e-7);
    expect(fromMinorUnits(1200n, 0)).toBe(1200);
  });

  it("rejects non-finite amounts", () => {
    expect(() => toMinorUnits(Number.NaN)).toThrow(RangeError);
    expect(() => toMinorUnits(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => decimalPlaces(Number.NEGATIVE_INFINITY)).toThrow(RangeError);
  });
});

describe("decimalPlaces", () => {
  it("counts the decimals of the shortest decimal form", () => {
    expect(decimalPlaces(0)).toBe(0);
    expect(decimalPlaces(100)).toBe(0);
    expect(decimalPlaces(12.5)).toBe(1);
    expect(decimalPlaces(0.1)).toBe(1);
    expect(decimalPlaces(0.3)).toBe(1);
    expect(decimalPlaces(19.99)).toBe(2);
    expect(decimalPlaces(-0.125)).toBe(3);
  });

  it("counts the decimals of exponent forms", () => {
    expect(decimalPlaces(1e-7)).toBe(7);
    expect(decimalPlaces(1.23e-10)).toBe(12);
    expect(decimalPlaces(5e-324)).toBe(324);
    expect(decimalPlaces(1e21)).toBe(0);
    expect(decimalPlaces(1.5e21)).toBe(0);
  });

  it("agrees with the fraction length toMinorUnits accepts", () => {
    fc.assert(
      fc.property(exactUnits, fc.integer({ min: 0, max: 18 }), (n, decimals) => {
        const value = fromMinorUnits(BigInt(n), decimals);
        const places = decimalPlaces(value);
        expect(places).toBeLessThanOrEqual(decimals);
        expect(toMinorUnits(value, places)).toBe(BigInt(n) / 10n ** BigInt(decimals - places));
        if (places > 0) expect(() => toMinorUnits(value, places - 1)).toThrow(RangeError);
      }),
    );
  });
});

describe("formatMinorUnits / parseMinorUnits (numeric column text)", () => {
  it("writes every decimal place, as a numeric(p, s) column returns it", () => {
    expect(formatMinorUnits(123450n)).toBe("1234.50");
    expect(formatMinorUnits(5n)).toBe("0.05");
    expect(formatMinorUnits(-5n)).toBe("-0.05");
    expect(formatMinorUnits(0n)).toBe("0.00");
    expect(formatMinorUnits(600000n, 6)).toBe("0.600000");
    expect(formatMinorUnits(42n, 0)).toBe("42");
  });

  it("round-trips any amount exactly, far beyond what a binary float holds to the unit", () => {
    const beyondDoubles = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });
    fc.assert(
      fc.property(beyondDoubles, fc.integer({ min: 0, max: 18 }), (units, decimals) => {
        expect(parseMinorUnits(formatMinorUnits(units, decimals), decimals)).toBe(units);
      }),
    );
    expect(parseMinorUnits("90071992547409.93")).toBe(9007199254740993n);
  });

  it("accepts trailing zeros beyond the decimals and refuses any other digit there", () => {
    expect(parseMinorUnits("12.5000")).toBe(1250n);
    expect(parseMinorUnits("12")).toBe(1200n);
    expect(() => parseMinorUnits("12.501")).toThrow(RangeError);
  });

  it("refuses text that is not a plain decimal", () => {
    for (const text of ["", "1e3", "1,000.00", "12.", ".5", "0x10", "NaN"]) {
      expect(() => parseMinorUnits(text), text).toThrow(RangeError);
    }
  });

  it("agrees with toMinorUnits on every amount a JSON number carries exactly", () => {
    fc.assert(
      fc.property(exactUnits, (n) => {
        const value = fromMinorUnits(BigInt(n));
        expect(parseMinorUnits(formatMinorUnits(toMinorUnits(value)))).toBe(toMinorUnits(value));
      }),
    );
  });
});
