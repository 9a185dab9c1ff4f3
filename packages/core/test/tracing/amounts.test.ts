import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatBaseUnits, parseDecimalToBaseUnits, valueInUsd } from "../../src/index";

describe("base-unit amounts", () => {
  it("round-trips any base-unit amount through its exact decimal string", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.integer({ min: 0, max: 30 }), (units, decimals) => {
        expect(parseDecimalToBaseUnits(formatBaseUnits(units, decimals), decimals)).toBe(units);
      }),
    );
  });

  it("writes amounts without trailing zeros or exponents", () => {
    expect(formatBaseUnits(1_500_000n, 6)).toBe("1.5");
    expect(formatBaseUnits(10n ** 24n, 18)).toBe("1000000");
    expect(formatBaseUnits(1n, 18)).toBe("0.000000000000000001");
    expect(() => parseDecimalToBaseUnits("1e6", 6)).toThrow(RangeError);
    expect(() => parseDecimalToBaseUnits("0.0000001", 6)).toThrow(RangeError);
  });

  it("values in USD exactly and rounds half up to cents", () => {
    const price = { usd_per_unit: "3120.55", as_of: "2026-07-05", source: "test" };
    expect(valueInUsd(10n ** 18n, 18, price)).toBe("3120.55");
    expect(valueInUsd(5n * 10n ** 15n, 18, price)).toBe("15.6");
    expect(valueInUsd(1n, 6, { ...price, usd_per_unit: "5000" })).toBe("0.01");
    expect(valueInUsd(1n, 6, { ...price, usd_per_unit: "4999" })).toBe("0");
  });
});
