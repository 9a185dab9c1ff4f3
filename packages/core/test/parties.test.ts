import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressComparisonKey,
  checkClaimantShareTotal,
  findShareProblem,
  isEvmAddress,
  normalizeWallet,
  normalizeWallets,
  PARTY_ROLES,
  PARTY_STATUSES,
  PARTY_TYPES,
  sameAddress,
  shareToUnits,
  unitsToShare,
} from "../src/parties";

describe("party enums", () => {
  it("lists the documented roles, types and statuses", () => {
    expect(PARTY_ROLES).toEqual(["claimant", "debtor", "counterparty"]);
    expect(PARTY_TYPES).toEqual(["individual", "entity", "exchange", "issuer", "custodian", "receiver", "other"]);
    expect(PARTY_STATUSES).toEqual(["active", "inactive"]);
  });
});

describe("findShareProblem", () => {
  it("accepts 0, 1 and anything between with up to 6 decimals", () => {
    for (const share of [0, 1, 0.5, 0.333333, 0.000001, 0.999999])
      expect(findShareProblem(share), `${share}`).toBeNull();
  });

  it("refuses shares outside 0..1", () => {
    for (const share of [-0.1, -1e-6, 1.000001, 2]) expect(findShareProblem(share), `${share}`).toBe("out_of_range");
  });

  it("refuses more than 6 decimal places, including in exponent notation", () => {
    for (const share of [0.3333333, 1e-7, 0.1234567]) expect(findShareProblem(share), `${share}`).toBe("too_precise");
  });

  it("refuses NaN and infinities", () => {
    for (const share of [Number.NaN, Number.POSITIVE_INFINITY]) expect(findShareProblem(share)).toBe("not_finite");
  });

  it("converts to and from integer millionths", () => {
    expect(shareToUnits(0.25)).toBe(250_000n);
    expect(shareToUnits(1)).toBe(1_000_000n);
    expect(unitsToShare(1n)).toBe(0.000001);
    expect(() => shareToUnits(1.5)).toThrow(RangeError);
  });
});

describe("checkClaimantShareTotal", () => {
  it("accepts shares summing to exactly 1, where binary floating point would not", () => {
    // In floating point 0.6 + 0.3 + 0.1 is 0.9999999999999999.
    expect(checkClaimantShareTotal([0.6], 0.4)).toEqual({ ok: true, total: 1, available: 0.4 });
    expect(checkClaimantShareTotal([0.1, 0.2], 0.7)).toEqual({ ok: true, total: 1, available: 0.7 });
    expect(checkClaimantShareTotal([0.6, 0.3], 0.1)).toEqual({ ok: true, total: 1, available: 0.1 });
  });

  it("refuses a total of 1.000001 or 1.01 and says what is left", () => {
    expect(checkClaimantShareTotal([0.6], 0.400001)).toEqual({
      ok: false,
      reason: "total_above_one",
      total: 1.000001,
      available: 0.4,
    });
    expect(checkClaimantShareTotal([0.61], 0.4)).toEqual({
      ok: false,
      reason: "total_above_one",
      total: 1.01,
      available: 0.39,
    });
  });

  it("counts claimants without a share as 0, and a missing proposal as no share", () => {
    expect(checkClaimantShareTotal([null, undefined, 0.5], null)).toEqual({ ok: true, total: 0.5, available: 0.5 });
    expect(checkClaimantShareTotal([], undefined)).toEqual({ ok: true, total: 0, available: 1 });
  });

  it("reports no room left, never a negative one, when the others already exceed 1", () => {
    expect(checkClaimantShareTotal([0.7, 0.7], 0)).toEqual({
      ok: false,
      reason: "total_above_one",
      total: 1.4,
      available: 0,
    });
  });

  it("refuses an invalid share instead of summing it", () => {
    expect(checkClaimantShareTotal([0.2], 1.5)).toEqual({
      ok: false,
      reason: "invalid_share",
      share: 1.5,
      problem: "out_of_range",
    });
    expect(checkClaimantShareTotal([0.00000001], 0.2)).toMatchObject({
      reason: "invalid_share",
      problem: "too_precise",
    });
  });

  it("never lets shares accepted one at a time sum above 1", () => {
    const millionths = fc.array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 30 });
    fc.assert(
      fc.property(millionths, (proposals) => {
        const accepted: number[] = [];
        let acceptedMillionths = 0;
        for (const units of proposals) {
          const share = units / 1_000_000;
          const result = checkClaimantShareTotal(accepted, share);
          // Integer millionths are the oracle: the proposal fits exactly when the integer total does.
          expect(result.ok).toBe(acceptedMillionths + units <= 1_000_000);
          if (result.ok) {
            accepted.push(share);
            acceptedMillionths += units;
          }
        }
        expect(acceptedMillionths).toBeLessThanOrEqual(1_000_000);
      }),
    );
  });
});

describe("normalizeWallet", () => {
  it("turns a plain address into a wallet with no network and no label, never a guessed one", () => {
    expect(normalizeWallet("  0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0001 ")).toEqual({
      ok: true,
      wallet: { address: "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0001", network: null, label: null },
    });
    expect(normalizeWallet("bc1qexampleaddress")).toEqual({
      ok: true,
      wallet: { address: "bc1qexampleaddress", network: null, label: null },
    });
  });

  it("keeps the network and label a caller sent, trimmed, and turns blank ones into null", () => {
    expect(normalizeWallet({ address: "0xAbC", network: " ethereum ", label: " cold storage " })).toEqual({
      ok: true,
      wallet: { address: "0xAbC", network: "ethereum", label: "cold storage" },
    });
    expect(normalizeWallet({ address: "T123", network: "  ", label: "" })).toEqual({
      ok: true,
      wallet: { address: "T123", network: null, label: null },
    });
  });

  it("keeps the address's case: an EVM checksum is information", () => {
    const checksummed = "0x52908400098527886E0F7030069857D2E4169EE7";
    expect(normalizeWallet(checksummed)).toMatchObject({ wallet: { address: checksummed } });
  });

  it("refuses a blank address", () => {
    expect(normalizeWallet("   ")).toEqual({ ok: false, problem: "address_blank" });
    expect(normalizeWallet({ address: "", network: "ethereum" })).toEqual({ ok: false, problem: "address_blank" });
  });

  it("names every refused wallet of a list by index", () => {
    expect(normalizeWallets(["0x1", " ", { address: "" }])).toEqual({
      ok: false,
      problems: [
        { index: 1, problem: "address_blank" },
        { index: 2, problem: "address_blank" },
      ],
    });
    expect(normalizeWallets(["a", { address: "b", network: "tron" }])).toEqual({
      ok: true,
      wallets: [
        { address: "a", network: null, label: null },
        { address: "b", network: "tron", label: null },
      ],
    });
  });
});

describe("address comparison", () => {
  it("compares EVM 0x addresses case-insensitively", () => {
    expect(
      sameAddress("0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7"),
    ).toBe(true);
    expect(
      sameAddress(" 0xABCDEF0123456789abcdef0123456789ABCDEF01", "0xabcdef0123456789ABCDEF0123456789abcdef01"),
    ).toBe(true);
  });

  it("compares every other address exactly, apart from surrounding whitespace", () => {
    expect(sameAddress("TXyz123Abc", "txyz123abc")).toBe(false);
    expect(sameAddress("1BoatSLRHtKNngkdXEeobR76b53LETtpyT", " 1BoatSLRHtKNngkdXEeobR76b53LETtpyT ")).toBe(true);
    expect(sameAddress("bc1QABC", "bc1qabc")).toBe(false);
  });

  it("treats only 0x followed by exactly 40 hex digits as EVM", () => {
    expect(isEvmAddress("0x52908400098527886E0F7030069857D2E4169EE7")).toBe(true);
    expect(isEvmAddress("0x52908400098527886E0F7030069857D2E4169EE")).toBe(false);
    expect(isEvmAddress("0x52908400098527886E0F7030069857D2E4169EEG")).toBe(false);
    expect(addressComparisonKey("0xABC")).toBe("0xABC");
  });
});
