import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KNOWN_ISSUER_CONTROLS } from "@crs/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIssuerStore, IssuerFileError, loadIssuerFile, parseIssuerDocument } from "../src/index";

const POLYGON_USDT = "0xC2132D05D31c914a87C6611C10748AEb04B58e8F";
const entry = {
  network: "evm:137",
  contract: POLYGON_USDT,
  issuer: "Tether",
  symbol: "USDT",
  freeze_check: "isBlackListed",
  freeze_functions: ["addBlackList(address)", "removeBlackList(address)"],
  freeze_role: "contract owner",
  seize_function: "destroyBlackFunds(address)",
  remediation: ["Ask Tether to blacklist the holding address."],
  source: {
    title: "Verified source of the Polygon USDT contract",
    uri: "https://polygonscan.com/token/0xc2132d05",
    as_of: "2026-07-01",
  },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "crs-issuers-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("issuer-controls files (crs-issuers/1)", () => {
  it("reads an entry with the contract in lower case, not synthetic, policy notes null when absent", async () => {
    const path = await file("ok.json", { format: "crs-issuers/1", issuers: [entry] });
    const [controls] = await loadIssuerFile(path);
    expect(controls).toEqual({
      ...entry,
      contract: POLYGON_USDT.toLowerCase(),
      policy_notes: null,
      synthetic: false,
    });
  });

  it("adds file entries to the built-in registry", async () => {
    const path = await file("store.json", { format: "crs-issuers/1", issuers: [entry] });
    const registry = await createIssuerStore({ files: [path] });
    expect(registry.controlsFor("evm:137", POLYGON_USDT)?.issuer).toBe("Tether");
    expect(registry.controlsFor("ethereum", KNOWN_ISSUER_CONTROLS[0]!.contract)?.symbol).toBe("USDT");
    expect(registry.entries).toHaveLength(KNOWN_ISSUER_CONTROLS.length + 1);
  });

  it("refuses bad entries with the field named", () => {
    expect(() =>
      parseIssuerDocument({ format: "crs-issuers/1", issuers: [{ ...entry, freeze_check: "isPaused" }] }),
    ).toThrow(/issuers\.0\.freeze_check/);
    expect(() => parseIssuerDocument({ format: "crs-issuers/1", issuers: [{ ...entry, contract: "0x1234" }] })).toThrow(
      /issuers\.0\.contract: 0x1234 is not a 20-byte hex address/,
    );
    expect(() => parseIssuerDocument({ format: "crs-issuers/1", issuers: [{ ...entry, remediation: [] }] })).toThrow(
      /issuers\.0\.remediation/,
    );
    expect(() => parseIssuerDocument({ format: "crs-issuers/1", issuers: [{ ...entry, extra: 1 }] })).toThrow(
      IssuerFileError,
    );
    expect(() => parseIssuerDocument({ format: "crs-labels/1", issuers: [] })).toThrow(/format/);
  });

  it("refuses a token listed twice, in two files or over the built-in registry, naming where", async () => {
    const a = await file("a.json", { format: "crs-issuers/1", issuers: [entry] });
    const b = await file("b.json", {
      format: "crs-issuers/1",
      issuers: [{ ...entry, contract: POLYGON_USDT.toLowerCase() }],
    });
    await expect(createIssuerStore({ files: [a, b] })).rejects.toThrow(
      `${b}: issuers.0: evm:137|${POLYGON_USDT.toLowerCase()} is already listed in ${a}`,
    );
    const known = KNOWN_ISSUER_CONTROLS[2]!;
    const c = await file("c.json", {
      format: "crs-issuers/1",
      issuers: [{ ...entry, network: known.network, contract: known.contract }],
    });
    await expect(createIssuerStore({ files: [c] })).rejects.toThrow(/already listed in the built-in registry/);
  });

  it("names the file that cannot be read or parsed", async () => {
    const broken = await file("broken.json", "{ not json");
    await expect(loadIssuerFile(broken)).rejects.toThrow(new RegExp(`^${broken}: `));
    await expect(loadIssuerFile(join(dir, "missing.json"))).rejects.toThrow(IssuerFileError);
  });
});
