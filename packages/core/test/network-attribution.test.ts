import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CorrelationSignal,
  correlateSignal,
  correlateSignals,
  findRawIpAddress,
} from "../src/network-attribution";

describe("findRawIpAddress", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["login from 203.0.113.7 at 10:04", "203.0.113.7"],
    ["203.0.113.7:443", "203.0.113.7"],
    ["ip=203.0.113.7;", "203.0.113.7"],
    ["203.000.113.007", "203.000.113.007"],
    ["host-a203.0.113.7", "203.0.113.7"],
    ["seen at 203.0.113.7.", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::ffff:cb00:7107", "::ffff:cb00:7107"],
    ["2001:db8::1", "2001:db8::1"],
    ["2001:DB8::1", "2001:DB8::1"],
    ["[2001:db8::1]:8443", "2001:db8::1"],
    ["2001:db8::1/64", "2001:db8::1"],
    ["fe80::1%eth0", "fe80::1"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:0db8:0000:0000:0000:0000:0000:0001"],
    ["addr:2001:db8::1, then", "2001:db8::1"],
    ["2001:db8::", "2001:db8::"],
    ["::1", "::1"],
  ])("finds the raw address in %j", (text, found) => {
    expect(findRawIpAddress(text)).toBe(found);
  });

  it.each([
    "203.0.113.x",
    "203.0.x.x",
    "203.0.113.*",
    "x.x.x.x",
    "2001:db8:x:x:x:x:x:x",
    "2001:db8::x",
    "2001:db8:85a3:xxxx:xxxx:xxxx:xxxx:xxxx",
    "login 2026-06-01T10:04:05.123Z from a residential ISP",
    "256.1.1.1",
    "1.2.3",
    "version 10.4",
    "mac 00:1a:2b:3c:4d:5e",
    "12:30:45",
    "a :: b",
    "device sha256:9f86d081884c7d659a2feaa0c55ad015",
  ])("finds no address in the masked or unrelated %j", (text) => {
    expect(findRawIpAddress(text)).toBeNull();
  });

  it("finds every generated IPv4 address, whatever surrounds it", () => {
    fc.assert(
      fc.property(
        fc.ipV4(),
        fc.constantFrom("", " ", "ip=", "(", "["),
        fc.constantFrom("", ":443", " ", ")", "."),
        (address, before, after) => {
          expect(findRawIpAddress(`${before}${address}${after}`)).not.toBeNull();
        },
      ),
    );
  });

  it("finds every generated IPv6 address but the unspecified one, whatever surrounds it", () => {
    fc.assert(
      fc.property(
        // `::` (the unspecified address) names no host, so it is not a raw address to refuse.
        fc.ipV6().filter((address) => address !== "::"),
        fc.constantFrom("", " ", "[", "ip "),
        fc.constantFrom("", "]:443", " ", "/64", "%eth0"),
        (address, before, after) => {
          expect(findRawIpAddress(`${before}${address}${after}`)).not.toBeNull();
        },
      ),
    );
  });
});

const WALLET = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const signal = (id: string, overrides: Partial<CorrelationSignal> = {}): CorrelationSignal => ({
  id,
  walletAddress: WALLET,
  signalType: "exchange_login_ip",
  source: "Exchange A",
  legalProcessId: "LP-1",
  ...overrides,
});

describe("correlateSignal", () => {
  it("gives a signal alone L0, needing review", () => {
    const alone = signal("na_1");
    const [correlation] = correlateSignals([alone]);
    expect(correlation).toMatchObject({
      subject: WALLET,
      signal_id: "na_1",
      confidence_level: "L0",
      review_required: true,
      corroborating_signal_ids: [],
    });
    expect(correlation?.explanation).toContain("a signal alone is L0");
    expect(correlation?.explanation).toContain("never standalone proof");
  });

  it("does not count the same source twice, nor signals on another wallet", () => {
    const signals = [
      signal("na_1"),
      signal("na_2", { source: "  exchange   a ", legalProcessId: "LP-2", signalType: "device_fingerprint" }),
      signal("na_3", { walletAddress: "0x0000000000000000000000000000000000000001", source: "Exchange B" }),
    ];
    const correlation = correlateSignal(signals[0]!, signals);
    expect(correlation.confidence_level).toBe("L0");
    expect(correlation.explanation).toContain("na_2 from the same source does not corroborate it");
  });

  it("raises to L1 for another source under the same legal process and of the same type", () => {
    const signals = [signal("na_1"), signal("na_2", { source: "Exchange B", legalProcessId: " lp-1 " })];
    const correlation = correlateSignal(signals[0]!, signals);
    expect(correlation).toMatchObject({ confidence_level: "L1", corroborating_signal_ids: ["na_2"] });
    expect(correlation.explanation).toContain("another source (L1): L1");
  });

  it("raises to L2 for another source and another legal process, or another source and type", () => {
    const byProcess = [signal("na_1"), signal("na_2", { source: "Exchange B", legalProcessId: "LP-2" })];
    expect(correlateSignal(byProcess[0]!, byProcess).confidence_level).toBe("L2");
    const byType = [signal("na_1"), signal("na_2", { source: "Exchange B", signalType: "exchange_withdrawal_ip" })];
    const correlation = correlateSignal(byType[0]!, byType);
    expect(correlation.confidence_level).toBe("L2");
    expect(correlation.explanation).toContain("another signal type (+1)");
  });

  it("reaches L3 at most, and matches 0x wallets whatever their case", () => {
    const signals = [
      signal("na_1"),
      signal("na_2", {
        source: "Telecom C",
        legalProcessId: "LP-2",
        signalType: "account_identifier",
        walletAddress: WALLET.toLowerCase(),
      }),
      signal("na_3", { source: "Exchange D", legalProcessId: "LP-3", signalType: "device_fingerprint" }),
      signal("na_4", { source: "Exchange E", legalProcessId: "LP-4", signalType: "transaction_broadcast_ip" }),
    ];
    const correlation = correlateSignal(signals[0]!, signals);
    expect(correlation.confidence_level).toBe("L3");
    expect(correlation.corroborating_signal_ids).toEqual(["na_2", "na_3", "na_4"]);
    expect(correlation.explanation).toContain(
      "another source (L1), another legal process (+1), another signal type (+1): L3",
    );
  });

  it("counts a corroborating signal's legal process as other when the signal has none", () => {
    const signals = [
      signal("na_1", { signalType: "device_fingerprint", legalProcessId: null }),
      signal("na_2", { source: "Exchange B", signalType: "device_fingerprint", legalProcessId: "LP-9" }),
    ];
    expect(correlateSignal(signals[0]!, signals).confidence_level).toBe("L2");
    // …but a corroborator without one adds no legal process of its own.
    expect(correlateSignal(signals[1]!, signals).confidence_level).toBe("L1");
  });

  it("always requires review and never exceeds L3, for any set of signals", () => {
    const arbitrary = fc.array(
      fc.record({
        walletAddress: fc.constantFrom("w1", "w2"),
        signalType: fc.constantFrom(
          "exchange_login_ip",
          "exchange_withdrawal_ip",
          "transaction_broadcast_ip",
          "device_fingerprint",
          "account_identifier",
        ) as fc.Arbitrary<CorrelationSignal["signalType"]>,
        source: fc.constantFrom("A", "B", "C"),
        legalProcessId: fc.constantFrom(null, "LP-1", "LP-2"),
      }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(arbitrary, (drawn) => {
        const signals = drawn.map((fields, index) => ({ id: `na_${index}`, ...fields }));
        for (const correlation of correlateSignals(signals)) {
          expect(correlation.review_required).toBe(true);
          const own = signals.find((s) => s.id === correlation.signal_id)!;
          const others = signals.filter((s) => s.walletAddress === own.walletAddress && s.source !== own.source);
          expect(correlation.confidence_level === "L0").toBe(others.length === 0);
        }
      }),
    );
  });
});
