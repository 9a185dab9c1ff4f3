import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { amountTextFromNumber, formatAmountText, parseAmountText } from "../src/amount-text";
import {
  applyRedactionProfile,
  computeExportHash,
  computePacketContentHash,
  deriveFreezeTargets,
  PACKET_TYPES,
  type PacketManifest,
  REDACTED,
} from "../src/packets";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

const MANIFEST: PacketManifest = {
  type: "exchange_freeze",
  matter_id: "matter_01",
  judgment: {
    judgment_id: "judgment_01",
    court: "S.D.N.Y.",
    case_number: "1:24-cv-00042",
    jurisdiction: "US-NY",
    creditor: "Acme Recovery LLC",
    debtor: "Mallory Exchange Ltd",
    amount: { amount: "1250.50", currency: "USD", valuation_time: null },
    date_entered: "2025-11-03",
  },
  wallets: [{ address: "0xAbC", network: "ethereum" }],
  recovery_events: [
    {
      recovery_event_id: "rcv_01",
      event_type: "frozen",
      asset: "USD",
      gross_amount: "2500.00",
      network: "ethereum",
      source: "exchange",
      description: null,
      status: "recorded",
      created_at: "2026-01-02T03:04:05.006Z",
    },
  ],
  source_refs: [
    {
      source_id: "src_1",
      source_type: "subpoena_response",
      title: 'Exchange "KYC" reply',
      uri: null,
      hash: "ab",
      chain_of_custody_id: "coc-1",
      admissibility_notes: null,
    },
  ],
  legal_authority_id: null,
  authorized_sender: "Ana Núñez",
  target_venue: "Exchange X",
};

// Written out by hand: every object's keys in code-unit order, no whitespace, the quote escaped,
// non-ASCII left literal, nulls kept, amounts as strings.
const MANIFEST_JCS =
  '{"authorized_sender":"Ana Núñez",' +
  '"judgment":{"amount":{"amount":"1250.50","currency":"USD","valuation_time":null},"case_number":"1:24-cv-00042",' +
  '"court":"S.D.N.Y.","creditor":"Acme Recovery LLC","date_entered":"2025-11-03","debtor":"Mallory Exchange Ltd",' +
  '"judgment_id":"judgment_01","jurisdiction":"US-NY"},' +
  '"legal_authority_id":null,"matter_id":"matter_01",' +
  '"recovery_events":[{"asset":"USD","created_at":"2026-01-02T03:04:05.006Z","description":null,"event_type":"frozen",' +
  '"gross_amount":"2500.00","network":"ethereum","recovery_event_id":"rcv_01","source":"exchange","status":"recorded"}],' +
  '"source_refs":[{"admissibility_notes":null,"chain_of_custody_id":"coc-1","hash":"ab","source_id":"src_1",' +
  '"source_type":"subpoena_response","title":"Exchange \\"KYC\\" reply","uri":null}],' +
  '"target_venue":"Exchange X","type":"exchange_freeze","wallets":[{"address":"0xAbC","network":"ethereum"}]}';
// Computed once outside src/ with node:crypto: createHash("sha256").update(MANIFEST_JCS, "utf8").digest("hex").
const MANIFEST_HASH = "1318fc1735bda2f3bbb928fc1637bd6527dbcf6f32ebcf85171fe724a239e966";

describe("computePacketContentHash", () => {
  it("is the sha256 of the hand-built canonical JSON of the manifest", () => {
    expect(sha256(MANIFEST_JCS)).toBe(MANIFEST_HASH);
    expect(computePacketContentHash(MANIFEST)).toBe(MANIFEST_HASH);
  });

  it("does not depend on the order the manifest's keys were written in", () => {
    const reordered = Object.fromEntries(Object.entries(MANIFEST).reverse()) as unknown as PacketManifest;
    expect(computePacketContentHash(reordered)).toBe(MANIFEST_HASH);
  });

  it("changes when any bound field changes", () => {
    const changed = { ...MANIFEST, wallets: [{ address: "0xAbD", network: "ethereum" }] };
    expect(computePacketContentHash(changed)).not.toBe(MANIFEST_HASH);
    expect(computePacketContentHash({ ...MANIFEST, target_venue: null })).not.toBe(MANIFEST_HASH);
  });
});

describe("computeExportHash", () => {
  const input = {
    export_id: "pex_01",
    format: "zip" as const,
    packet_content_hash: "b".repeat(64),
    artifact_sha256: "a".repeat(64),
    created_at: "2026-07-05T20:33:57.005Z",
  };
  const EXPORT_JCS =
    `{"artifact_sha256":"${"a".repeat(64)}","created_at":"2026-07-05T20:33:57.005Z","export_id":"pex_01",` +
    `"format":"zip","packet_content_hash":"${"b".repeat(64)}"}`;
  // Computed once outside src/ with node:crypto over EXPORT_JCS.
  const EXPORT_HASH = "e9a0a0757d801d1054e52c5d5e7dd1e2ad777fb67bcefaa1f3140100e7c80c50";

  it("is the sha256 of the hand-built canonical JSON of exactly the five fields", () => {
    expect(sha256(EXPORT_JCS)).toBe(EXPORT_HASH);
    expect(computeExportHash(input)).toBe(EXPORT_HASH);
  });

  it("ignores any other property of its argument", () => {
    expect(computeExportHash({ ...input, download_url: "x", status: "available" } as typeof input)).toBe(EXPORT_HASH);
  });
});

describe("deriveFreezeTargets", () => {
  const wallets = [
    { address: "bc1qxyz", network: "bitcoin" },
    { address: "0xAbC", network: null },
  ];

  it("mirrors the wallets of an exchange_freeze packet, as copies", () => {
    const targets = deriveFreezeTargets("exchange_freeze", wallets);
    expect(targets).toEqual(wallets);
    expect(targets[0]).not.toBe(wallets[0]);
  });

  it("names no freeze targets for any other packet type", () => {
    for (const type of PACKET_TYPES.filter((t) => t !== "exchange_freeze")) {
      expect(deriveFreezeTargets(type, wallets)).toEqual([]);
    }
  });
});

describe("applyRedactionProfile", () => {
  const party = {
    party_id: "party_01",
    name: "Ana Núñez",
    contact: { email: "ana@example.com", phones: ["+1 555 0100", "+1 555 0101"], address: { city: "Quito" } },
    identifiers: { passport: "X1234567", lei: null, verified: true, score: 7 },
    wallets: [{ address: "0xAbC", network: "ethereum" }],
  };

  it("masks every contact and identifier value, keeping keys, list lengths and nulls", () => {
    const redacted = applyRedactionProfile(party, "external");
    expect(redacted.contact).toEqual({
      email: REDACTED,
      phones: [REDACTED, REDACTED],
      address: { city: REDACTED },
    });
    expect(redacted.identifiers).toEqual({ passport: REDACTED, lei: null, verified: REDACTED, score: REDACTED });
    expect(redacted.name).toBe("Ana Núñez");
    expect(redacted.wallets).toEqual(party.wallets);
    expect(JSON.stringify(redacted)).not.toContain("ana@example.com");
  });

  it("leaves the input untouched and changes nothing under the none profile", () => {
    const before = JSON.stringify(party);
    applyRedactionProfile(party, "external");
    expect(JSON.stringify(party)).toBe(before);
    expect(applyRedactionProfile(party, "none")).toEqual(party);
  });
});

describe("amount text", () => {
  it("writes exactly two decimals and reads back only that form", () => {
    expect(formatAmountText(125050n)).toBe("1250.50");
    expect(formatAmountText(5n)).toBe("0.05");
    expect(formatAmountText(-5n)).toBe("-0.05");
    expect(formatAmountText(1_000_000_000_000n)).toBe("10000000000.00");
    expect(amountTextFromNumber(1250.5)).toBe("1250.50");
    expect(amountTextFromNumber(7)).toBe("7.00");
    expect(() => amountTextFromNumber(0.125)).toThrow(RangeError);
    expect(parseAmountText("1250.50")).toBe(125050n);
    expect(() => parseAmountText("1250.5")).toThrow(RangeError);
    expect(() => parseAmountText("1e3")).toThrow(RangeError);
  });
});
