/**
 * A live organization's asset map through the job plane on a real chain: anvil (npm @foundry-rs/anvil)
 * on a loopback port, real native transfers (subject → intermediary → exchange deposit address → sweep to
 * the exchange's labelled hot wallet; only the subject is funded at genesis, so under FIFO every later hop
 * forwards tainted value), the worker configured the way its environment configures it
 * (CHAIN_RPC_URL, CHAIN_NETWORK, CHAIN_LABEL_FILES), and the map read back with real transaction hashes.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalChain, startAnvil } from "@crs/chain/testing";
import type { Job } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import { createTraceProviders, issueLiveKey, runWrite, systemActor } from "@crs/services";
import { createAssetMap } from "@crs/services/crypto/create-asset-map";
import { retrieveAssetMap } from "@crs/services/crypto/retrieve-asset-map";
import { retrieveJob } from "@crs/services/jobs/retrieve-job";
import { createMatter } from "@crs/services/matters/create-matter";
import { createTestClient, type Hex, http, parseEther, publicActions, walletActions } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveTraceSourceFromEnv } from "../src/jobs/live-chain";
import type { RunningWorker } from "../src/runner";
import { createTestServiceDeps, startTestWorker, waitUntil } from "./helpers";

const MNEMONIC = "test test test test test test test test test test test junk";
const accounts = Array.from({ length: 6 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
const [, subject, hop, deposit, hotWallet] = accounts.map((account) => account.address.toLowerCase());

let anvil: LocalChain;
let rpcUrl: string;
let workDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
let worker: RunningWorker;
const hashes: Hex[] = [];

beforeAll(async () => {
  anvil = await startAnvil(["--accounts", "2", "--chain-id", "31337"]);
  rpcUrl = anvil.url;
  const node = createTestClient({ chain: foundry, mode: "anvil", transport: http(rpcUrl) })
    .extend(publicActions)
    .extend(walletActions);
  const send = async (from: number, to: string, ether: string) => {
    const hash = await node.sendTransaction({
      account: accounts[from]!,
      to: to as Hex,
      value: parseEther(ether),
    });
    const receipt = await node.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    hashes.push(hash);
  };
  await send(1, hop!, "40");
  await send(2, deposit!, "39.9");
  await send(3, hotWallet!, "39.89");

  workDir = await mkdtemp(join(tmpdir(), "crs-live-trace-"));
  const labelFile = join(workDir, "labels.json");
  await writeFile(
    labelFile,
    JSON.stringify({
      format: "crs-labels/1",
      dataset: "test-exchange-attributions",
      license: "internal",
      retrieved_at: "2026-07-01T00:00:00Z",
      labels: [
        {
          network: "evm:31337",
          address: hotWallet,
          entity: "Exchange T",
          category: "exchange",
          confidence: "ownership",
          source_uri: "https://example.org/exchange-t/proof-of-reserves",
          as_of: "2026-06-30",
        },
      ],
    }),
  );
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url);
  const live = await liveTraceSourceFromEnv({
    CHAIN_RPC_URL: rpcUrl,
    CHAIN_NETWORK: "evm:31337",
    CHAIN_NATIVE_TRANSFERS: "trace_filter",
    CHAIN_LABEL_FILES: labelFile,
  });
  worker = await startTestWorker(database.url, deps, {
    concurrency: 2,
    traceProviders: createTraceProviders(live),
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await deps?.close();
  await database?.drop();
  await anvil?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("a live asset map on a real chain", () => {
  it("follows the real transfers to the labelled exchange, with the deposit-address hypothesis and real hashes", async () => {
    const issued = await issueLiveKey(deps, { plan: "operator", scopes: "all", organizationName: "Live chain" });
    const tenant = { organizationId: issued.organization_id, environment: "live" as const };
    const actor = () => systemActor(tenant, "test", deps.newId("request"));
    const matter = await runWrite(deps, actor(), (write) =>
      createMatter(write, { params: {}, body: { name: "Acme v. Doe", mode: "recovery" } }),
    );
    const created = await runWrite(deps, actor(), (write) =>
      createAssetMap(write, {
        params: {},
        body: { matter_id: matter.id, chains: ["evm:31337"], wallets: [{ address: subject!, incident_block: 1 }] },
      }),
    );
    let job: Job | undefined;
    await waitUntil(
      async () => {
        job = await retrieveJob({ ...deps, actor: actor() }, { params: { job_id: created.job_id } });
        return job.status === "succeeded" || job.status === "failed";
      },
      "the live trace job to finish",
      60_000,
    );
    expect(job?.error).toBeNull();
    expect(job?.status).toBe("succeeded");

    const map = await retrieveAssetMap({ ...deps, actor: actor() }, { params: { map_id: created.map_id } });
    expect(map).toMatchObject({ status: "succeeded", source: "live", chain: "evm:31337", subjects: [subject] });
    const edges = map.edges.map((edge) => [edge.from, edge.to, edge.tx_hash]);
    expect(edges).toEqual(
      expect.arrayContaining([
        [subject, hop, hashes[0]],
        [hop, deposit, hashes[1]],
        [deposit, hotWallet, hashes[2]],
      ]),
    );
    expect(map.terminals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ address: hotWallet, category: "exchange", entity: "Exchange T" }),
      ]),
    );
    expect(map.exchange_hypotheses).toEqual(
      expect.arrayContaining([expect.objectContaining({ exchange: "Exchange T", wallet: deposit })]),
    );
    const manifest = map.source_manifest.map((source) => source.source_type);
    expect(manifest).toEqual(expect.arrayContaining(["chain_request", "label"]));
  }, 90_000);
});
