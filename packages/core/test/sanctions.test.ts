import { describe, expect, it } from "vitest";
import { parseSanctionsList, SANDBOX_SANCTIONS_LIST, type SanctionsEntry, screenParties } from "../src/sanctions";

const goodFile = [
  "\uFEFF# Sanctions list, converted 2026-07-01",
  '{"kind":"address","value":"0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0001","network":"ethereum","program":"CYBER2","source":"OFAC SDN"}',
  "",
  '  {"kind":"name","value":"  Fictional Person  ","source":"OFAC SDN","program":null}  ',
  '{"kind":"identifier","value":"LEI-123","network":null,"source":"EU list"}\r',
  "   # an indented comment",
].join("\n");

describe("parseSanctionsList", () => {
  it("reads every entry of a well-formed file, skipping comments and blank lines", () => {
    expect(parseSanctionsList(goodFile)).toEqual({
      ok: true,
      entries: [
        {
          kind: "address",
          value: "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0001",
          network: "ethereum",
          program: "CYBER2",
          source: "OFAC SDN",
        },
        { kind: "name", value: "Fictional Person", network: null, program: null, source: "OFAC SDN" },
        { kind: "identifier", value: "LEI-123", network: null, program: null, source: "EU list" },
      ],
    });
    expect(parseSanctionsList("")).toEqual({ ok: true, entries: [] });
  });

  it("reads back the sandbox list written as JSON lines", () => {
    const text = SANDBOX_SANCTIONS_LIST.map((entry) => JSON.stringify(entry)).join("\n");
    expect(parseSanctionsList(text)).toEqual({ ok: true, entries: SANDBOX_SANCTIONS_LIST });
  });

  it("refuses the whole file and names each malformed line by number", () => {
    const cases: [string, string][] = [
      ["{not json", "not valid JSON"],
      ['["address","0x1"]', "expected a JSON object"],
      ["42", "expected a JSON object"],
      ['{"kind":"wallet","value":"0x1","source":"s"}', "kind must be one of address, name, identifier"],
      ['{"value":"0x1","source":"s"}', "kind must be one of address, name, identifier"],
      ['{"kind":"name","source":"s"}', "value must be a non-blank string"],
      ['{"kind":"name","value":"  ","source":"s"}', "value must be a non-blank string"],
      ['{"kind":"name","value":7,"source":"s"}', "value must be a non-blank string"],
      ['{"kind":"name","value":"x"}', "source must be a non-blank string"],
      ['{"kind":"address","value":"x","source":"s","network":5}', "network must be a string or null"],
      ['{"kind":"address","value":"x","source":"s","program":false}', "program must be a string or null"],
      ['{"kind":"name","value":"x","source":"s","network":"ethereum"}', "network applies only to address entries"],
      ['{"kind":"name","value":"x","source":"s","netwrok":"ethereum"}', 'unknown field "netwrok"'],
    ];
    for (const [line, message] of cases) {
      const text = `${'{"kind":"name","value":"fine","source":"s"}'}\n\n${line}`;
      expect(parseSanctionsList(text), line).toEqual({ ok: false, errors: [{ line: 3, message }] });
    }
  });

  it("lists every problem of every bad line", () => {
    const text = ['{"kind":"name","value":"ok","source":"s"}', '{"kind":"x","extra":1}', "nope"].join("\n");
    expect(parseSanctionsList(text)).toEqual({
      ok: false,
      errors: [
        { line: 2, message: 'unknown field "extra"' },
        { line: 2, message: "kind must be one of address, name, identifier" },
        { line: 2, message: "value must be a non-blank string" },
        { line: 2, message: "source must be a non-blank string" },
        { line: 3, message: "not valid JSON" },
      ],
    });
  });
});

describe("sandbox list", () => {
  it("has a handful of each kind, all marked fictional, with EVM addresses to test with", () => {
    const count = (kind: SanctionsEntry["kind"]) => SANDBOX_SANCTIONS_LIST.filter((e) => e.kind === kind).length;
    expect(count("address")).toBeGreaterThanOrEqual(3);
    expect(count("name")).toBeGreaterThanOrEqual(3);
    expect(count("identifier")).toBeGreaterThanOrEqual(2);
    expect(SANDBOX_SANCTIONS_LIST.filter((e) => /^0x[0-9a-fA-F]{40}$/.test(e.value)).length).toBeGreaterThanOrEqual(3);
    for (const entry of SANDBOX_SANCTIONS_LIST) expect(entry.source).toContain("fictional");
    for (const entry of SANDBOX_SANCTIONS_LIST.filter((e) => e.kind === "name"))
      expect(entry.value).toContain("Sandbox");
  });
});

describe("screenParties", () => {
  const list = SANDBOX_SANCTIONS_LIST;
  const entryWith = (value: string) => list.find((entry) => entry.value === value);

  it("finds nothing for a clean party", () => {
    const clean = {
      party_id: "party_1",
      name: "Honest Holdings",
      aliases: ["HH"],
      identifiers: { tax_id: "12-3456789" },
      wallets: ["0x1111111111111111111111111111111111111111"],
    };
    expect(screenParties([clean], list)).toEqual([]);
  });

  it("hits a name through an alias, ignoring case and spacing, and reports which name matched", () => {
    const party = { party_id: "party_2", name: "Someone", aliases: ["  imaginary   BLOCKED person (sandbox) "] };
    expect(screenParties([party], list)).toEqual([
      {
        party_id: "party_2",
        matched: { field: "alias", value: "  imaginary   BLOCKED person (sandbox) " },
        entry: entryWith("Imaginary Blocked Person (Sandbox)"),
      },
    ]);
  });

  it("reports one hit per entry even when several of a party's names match it", () => {
    const party = {
      party_id: "party_3",
      name: "Fictional Sanctioned Trading Co. (Sandbox)",
      legal_name: "FICTIONAL SANCTIONED TRADING CO. (SANDBOX)",
    };
    expect(screenParties([party], list).map((hit) => hit.matched.field)).toEqual(["name"]);
  });

  it("misses a name that differs by more than case and spacing", () => {
    const party = { party_id: "party_4", name: "Fictional Sanctioned Trading Co." };
    expect(screenParties([party], list)).toEqual([]);
  });

  it("hits an EVM wallet whatever its case and network", () => {
    const party = {
      party_id: "party_5",
      name: "Wallet Owner",
      wallets: [{ address: "0x5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A0001", network: "arbitrum" }, " "],
    };
    expect(screenParties([party], list)).toEqual([
      {
        party_id: "party_5",
        matched: { field: "wallet", value: "0x5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A0001", network: "arbitrum" },
        entry: entryWith("0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0001"),
      },
    ]);
  });

  it("compares non-EVM addresses exactly", () => {
    const exact = { party_id: "party_6", name: "A", wallets: ["TSandboxFictionalTronAddress00000001"] };
    const otherCase = { party_id: "party_7", name: "B", wallets: ["tsandboxfictionaltronaddress00000001"] };
    expect(screenParties([exact, otherCase], list).map((hit) => hit.party_id)).toEqual(["party_6"]);
  });

  it("hits identifier values exactly, wherever they sit in the identifiers object", () => {
    const party = {
      party_id: "party_8",
      name: "C",
      identifiers: {
        registry: { lei: ["X", "SANDBOX-LEI-00000000000000000001"] },
        tax_id: "sandbox-taxid-000-00-0001",
      },
    };
    expect(screenParties([party], list)).toEqual([
      {
        party_id: "party_8",
        matched: { field: "identifier", value: "SANDBOX-LEI-00000000000000000001", path: "registry.lei[1]" },
        entry: entryWith("SANDBOX-LEI-00000000000000000001"),
      },
    ]);
  });

  it("hits an address recorded among the identifiers", () => {
    const party = {
      party_id: "party_9",
      name: "D",
      identifiers: { eth: "0x5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B0002" },
    };
    expect(screenParties([party], list)).toEqual([
      {
        party_id: "party_9",
        matched: { field: "identifier", value: "0x5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B0002", path: "eth" },
        entry: entryWith("0x5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B0002"),
      },
    ]);
  });

  it("returns the hits of every party, in party order", () => {
    const parties = [
      { party_id: "party_a", name: "Example Embargoed Exchange Ltd (Sandbox)" },
      { party_id: "party_b", name: "Clean" },
      { party_id: "party_c", name: "E", wallets: ["0x5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c0003"] },
    ];
    expect(screenParties(parties, list).map((hit) => [hit.party_id, hit.matched.field])).toEqual([
      ["party_a", "name"],
      ["party_c", "wallet"],
    ]);
  });
});
