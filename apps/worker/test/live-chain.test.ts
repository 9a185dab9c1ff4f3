import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveTraceSourceFromEnv } from "../src/jobs/live-chain";

const TOKEN = "0x00000000000000000000000000000000000000e1";
const issuer = {
  network: "evm:31337",
  contract: TOKEN,
  issuer: "Local Issuer",
  symbol: "LUSD",
  freeze_check: "isBlacklisted",
  freeze_functions: ["blacklist(address)"],
  freeze_role: "owner",
  seize_function: null,
  remediation: ["Ask the issuer to blacklist the holding address."],
  source: { title: "Contract source", uri: "https://example.org/source", as_of: "2026-07-01" },
};
const base = {
  CHAIN_RPC_URL: "http://127.0.0.1:8545",
  CHAIN_NETWORK: "evm:31337",
  CHAIN_NATIVE_TRANSFERS: "off" as const,
  CHAIN_LABEL_FILES: undefined,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "crs-live-chain-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the live trace source from the worker's environment", () => {
  it("is null without CHAIN_RPC_URL", async () => {
    expect(
      await liveTraceSourceFromEnv({ ...base, CHAIN_RPC_URL: undefined, CHAIN_ISSUER_FILES: undefined }),
    ).toBeNull();
  });

  it("adds the issuers of CHAIN_ISSUER_FILES to the built-in registry", async () => {
    const path = join(dir, "issuers.json");
    await writeFile(path, JSON.stringify({ format: "crs-issuers/1", issuers: [issuer] }));
    const source = await liveTraceSourceFromEnv({ ...base, CHAIN_ISSUER_FILES: ` ${path} , ` });
    expect(source?.issuers?.controlsFor("evm:31337", TOKEN)).toMatchObject({
      issuer: "Local Issuer",
      synthetic: false,
    });
    expect(source?.issuers?.controlsFor("ethereum", "0xdac17f958d2ee523a2206206994597c13d831ec7")?.symbol).toBe("USDT");
  });

  it("stops the start on an issuer file it cannot use, naming the file and the entry", async () => {
    const path = join(dir, "bad-issuers.json");
    await writeFile(
      path,
      JSON.stringify({ format: "crs-issuers/1", issuers: [{ ...issuer, freeze_check: "paused" }] }),
    );
    await expect(liveTraceSourceFromEnv({ ...base, CHAIN_ISSUER_FILES: path })).rejects.toThrow(
      `${path}: issuers.0.freeze_check`,
    );
    await expect(liveTraceSourceFromEnv({ ...base, CHAIN_ISSUER_FILES: join(dir, "missing.json") })).rejects.toThrow(
      /missing\.json/,
    );
  });
});
