/**
 * A live organization's asset map of a blacklisting stablecoin, through the operation path and the job
 * plane, on a real chain: anvil (npm @foundry-rs/anvil) on a loopback port chosen at run time, the
 * Stable.sol token deployed and moved by real transactions (a peel chain into an exchange deposit
 * address, the sweep to the exchange's labelled hot wallet, then the issuer blacklisting one holder),
 * the worker configured as its environment configures it (CHAIN_RPC_URL, CHAIN_NETWORK,
 * CHAIN_LABEL_FILES, CHAIN_ISSUER_FILES), POST /v1/crypto/asset-map and GET /v1/crypto/asset-map/{id}
 * run as both surfaces run them (admitRequest with the live key, then runOperation).
 *
 * Then the differential through the same path: the same history as a synthetic chain (the replayed
 * transactions' hashes included), served through the same ChainProvider interface with the same label
 * and issuer files, traced by the same job, read back by the same GET, and compared field by field.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadIssuerFile, loadLabelFile } from "@crs/chain";
import { STABLECOIN_SCENARIO, type StablecoinScenario, startStablecoinScenario } from "@crs/chain/testing";
import { AssetMap, type Job, type OperationDefinition } from "@crs/contract";
import { buildScenarioChain, SyntheticChainProvider } from "@crs/core";
import { createTestDatabase } from "@crs/db/testing";
import {
  admitRequest,
  boundOperations,
  createTraceProviders,
  issueLiveKey,
  runOperation,
  type TraceSource,
} from "@crs/services";
import { createPublicClient, type Hex, http, parseAbi, parseEventLogs } from "viem";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveTraceSourceFromEnv } from "../src/jobs/live-chain";
import type { RunningWorker } from "../src/runner";
import { createTestServiceDeps, startTestWorker, waitUntil } from "./helpers";

let scenario: StablecoinScenario;
let workDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
let liveKey: string;
let matterId: string;
let overAnvil: AssetMap;
let overSynthetic: AssetMap;
let usd: string;

/** One call as REST and tRPC make it: the key admitted (scope, rate limit), then the operation run. */
async function call(procedure: string, input: { params?: Record<string, unknown>; body?: unknown }) {
  const bound = boundOperations().find((operation) => operation.procedure === procedure);
  if (!bound) throw new Error(`no operation ${procedure}`);
  const requestId = deps.newId("request");
  const admission = await admitRequest(
    deps,
    {
      operation: bound.definition as OperationDefinition,
      surface: "current",
      requestId,
      authorization: `Bearer ${liveKey}`,
      clientAddress: "127.0.0.1",
    },
    () => {},
  );
  return runOperation(deps, bound.definition, bound.handler, {
    actor: admission.actor,
    requestId,
    surface: "current",
    version: admission.version,
    input: { params: input.params ?? {}, body: input.body },
  });
}

/** Runs one worker on `source` (as the live organizations' provider), maps the subject, and reads the map back. */
async function mapWith(source: TraceSource): Promise<AssetMap> {
  const worker: RunningWorker = await startTestWorker(database.url, deps, {
    traceProviders: createTraceProviders(source),
  });
  try {
    const created = await call("crypto.createAssetMap", {
      body: {
        matter_id: matterId,
        chains: [STABLECOIN_SCENARIO.network],
        wallets: [{ address: scenario.subject, incident_block: STABLECOIN_SCENARIO.incidentBlock }],
        source_refs: [{ source_id: "exhibit-4", source_type: "court_record", title: "Exhibit 4: wallet list" }],
      },
    });
    expect(created.status).toBe(202);
    const body = created.body as AssetMap;
    expect(body).toMatchObject({ status: "processing", wallets: [], stablecoin_exposure: [] });
    let job: Job | undefined;
    await waitUntil(
      async () => {
        job = (await call("jobs.get", { params: { job_id: body.job_id } })).body as Job;
        return job.status === "succeeded" || job.status === "failed";
      },
      "the trace job to finish",
      90_000,
    );
    expect(job?.error).toBeNull();
    expect(job?.status).toBe("succeeded");
    const read = await call("crypto.getAssetMap", { params: { map_id: body.map_id } });
    expect(read.status).toBe(200);
    return read.body as AssetMap;
  } finally {
    await worker.stop();
  }
}

beforeAll(async () => {
  scenario = await startStablecoinScenario();
  usd = `erc20:${scenario.token}`;
  workDir = await mkdtemp(join(tmpdir(), "crs-live-stablecoin-"));
  const labelFile = join(workDir, "exchange-labels.json");
  const issuerFile = join(workDir, "issuers.json");
  await writeFile(labelFile, JSON.stringify(scenario.labelDocument));
  await writeFile(issuerFile, JSON.stringify(scenario.issuerDocument));
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url);
  const issued = await issueLiveKey(deps, { plan: "operator", scopes: "all", organizationName: "Live stablecoin" });
  liveKey = issued.key;
  const matter = await call("matters.create", { body: { name: "Acme v. Doe", mode: "recovery" } });
  matterId = (matter.body as { id: string }).id;

  // The worker's own configuration path: what main.ts does with the environment.
  const live = await liveTraceSourceFromEnv({
    CHAIN_RPC_URL: scenario.chain.url,
    CHAIN_NETWORK: "evm:31337",
    CHAIN_NATIVE_TRANSFERS: "trace_filter",
    CHAIN_LABEL_FILES: labelFile,
    CHAIN_ISSUER_FILES: issuerFile,
  });
  if (!live) throw new Error("the worker configured no live provider");
  overAnvil = await mapWith(live);

  // The same history on the synthetic chain, behind the same provider interface, with the same files.
  const synthetic = buildScenarioChain(scenario.spec(await loadLabelFile(labelFile), await loadIssuerFile(issuerFile)));
  overSynthetic = await mapWith({ ...live, provider: new SyntheticChainProvider(synthetic, { pageSize: 2 }) });
}, 240_000);

afterAll(async () => {
  await deps?.close();
  await database?.drop();
  await scenario?.chain.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("a live stablecoin asset map through the job, on anvil", () => {
  it("reads back every result field in the shape the operation's schema documents", () => {
    expect(AssetMap.parse(overAnvil)).toEqual(overAnvil);
    expect(AssetMap.parse(overSynthetic)).toEqual(overSynthetic);
  });

  it("follows the peel chain, the deposit and the sweep, edge by edge, with the real transaction hashes", () => {
    const { subject, hops, sides, deposit, hotWallet } = scenario;
    const tokenSteps = scenario.steps.filter((step) => step.asset === "usd").slice(1);
    expect(overAnvil).toMatchObject({ status: "succeeded", source: "live", chain: "evm:31337", subjects: [subject] });
    expect(
      overAnvil.edges.map((e) => [e.from, e.to, e.asset, e.tainted.base_units, e.hop, e.block, e.tx_hash]),
    ).toEqual([
      [subject, hops[0], usd, "100000000000", 1, "5", tokenSteps[0]!.tx_hash],
      [hops[0], sides[0], usd, "10000000000", 2, "6", tokenSteps[1]!.tx_hash],
      [hops[0], hops[1], usd, "90000000000", 2, "7", tokenSteps[2]!.tx_hash],
      [hops[1], sides[1], usd, "9000000000", 3, "8", tokenSteps[3]!.tx_hash],
      [hops[1], hops[2], usd, "81000000000", 3, "9", tokenSteps[4]!.tx_hash],
      [hops[2], sides[2], usd, "8100000000", 4, "10", tokenSteps[5]!.tx_hash],
      [hops[2], deposit, usd, "72900000000", 4, "12", tokenSteps[6]!.tx_hash],
      [deposit, hotWallet, usd, "72900000000", 5, "13", tokenSteps[7]!.tx_hash],
    ]);
    expect(overAnvil.edges.every((e) => e.finalized && e.edge_id === `${e.tx_hash}:${e.event_index}`)).toBe(true);
    expect(overAnvil.truncated).toBe(false);
    expect(overAnvil.terminals.map((t) => [t.address, t.category, t.entity, t.hop])).toEqual([
      [hotWallet, "exchange", "Exchange A", 5],
    ]);
    const roles = Object.fromEntries(overAnvil.wallets.map((w) => [w.address, [w.role, w.hop]]));
    expect(roles).toEqual({
      [subject]: ["subject", 0],
      [hops[0]!]: ["intermediary", 1],
      [hops[1]!]: ["intermediary", 2],
      [hops[2]!]: ["intermediary", 3],
      [sides[0]!]: ["intermediary", 2],
      [sides[1]!]: ["intermediary", 3],
      [sides[2]!]: ["intermediary", 4],
      [deposit]: ["exchange_deposit", 4],
    });
  });

  it("cites, for every edge, the chain request that returned it: a real transaction on the node moving that amount", async () => {
    const manifest = new Map(overAnvil.source_manifest.map((entry) => [entry.source_id, entry]));
    const node = createPublicClient({ chain: foundry, transport: http(scenario.chain.url) });
    const host = new URL(scenario.chain.url).host;
    for (const edge of overAnvil.edges) {
      const cited = edge.source_refs.map((id) => manifest.get(id));
      expect(cited.length).toBeGreaterThan(0);
      for (const source of cited) {
        // One request per block window reads the logs and the native transfers; the window runs to the
        // head, so the request is not final, while the edge's own block is (edge.finalized above).
        expect(source).toMatchObject({ source_type: "chain_request", method: "eth_getLogs+trace_filter" });
        if (source?.source_type !== "chain_request") throw new Error("not a chain request");
        expect(source.provider).toContain(host);
        const [from, to] = source.block_range!.map(BigInt);
        expect(BigInt(edge.block) >= from! && BigInt(edge.block) <= to!).toBe(true);
      }
      const receipt = await node.getTransactionReceipt({ hash: edge.tx_hash as Hex });
      expect(receipt.blockNumber).toBe(BigInt(edge.block));
      const [log] = parseEventLogs({
        abi: parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]),
        logs: receipt.logs.filter((l) => l.logIndex === edge.event_index),
      });
      expect([log!.args.from.toLowerCase(), log!.args.to.toLowerCase(), String(log!.args.value)]).toEqual([
        edge.from,
        edge.to,
        edge.amount.base_units,
      ]);
    }
  });

  it("names the deposit address to Exchange A on the sweep rule: high confidence, ready for a packet", () => {
    const { deposit, hotWallet } = scenario;
    expect(overAnvil.exchange_hypotheses).toHaveLength(1);
    const [hypothesis] = overAnvil.exchange_hypotheses;
    expect(hypothesis).toMatchObject({
      exchange: "Exchange A",
      wallet: deposit,
      basis: "deposit_address_sweep",
      confidence: "high",
      packet_readiness: "ready",
      readiness_reasons: [],
      label_confidence: 70,
      path_confidence: 1,
    });
    expect(hypothesis!.sweep).toMatchObject({ swept_to: [hotWallet], gas_funded_by_exchange: null });
    expect(hypothesis!.sweep!.assets).toEqual([
      expect.objectContaining({ asset: usd, inflows: 1, outflows: 1, exact: true }),
    ]);
    const hashes = new Set(scenario.steps.map((step) => `${step.tx_hash}:0`));
    expect(hypothesis!.path_edge_ids.length).toBe(5);
    expect(hypothesis!.path_edge_ids.every((id) => hashes.has(id))).toBe(true);
    const manifest = new Map(overAnvil.source_manifest.map((entry) => [entry.source_id, entry]));
    const label = hypothesis!.source_refs.map((id) => manifest.get(id)).find((s) => s?.source_type === "label");
    expect(label).toMatchObject({
      dataset: "test-exchange-attributions",
      uri: "https://exchange-a.example/proof-of-reserves",
    });
  });

  it("reports the peeled stablecoins with the issuer's freeze capability and the live freeze-list read", () => {
    const { sides, blacklisted } = scenario;
    const exposures = [...overAnvil.stablecoin_exposure].sort((a, b) => a.wallet.localeCompare(b.wallet));
    const expected = [
      [sides[0], "10000", "10000", false],
      [sides[1], "9000", "9000", true],
      [sides[2], "8100", "8100", false],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(exposures.map((s) => [s.wallet, s.amount.amount, s.balance?.amount.amount, s.frozen])).toEqual(expected);
    expect(blacklisted).toBe(sides[1]);
    for (const exposure of exposures) {
      expect(exposure).toMatchObject({
        issuer: "Test Stable Issuer",
        symbol: "TUSD",
        asset: usd,
        basis: "retained",
        review_required: true,
        frozen_reason: null,
      });
      expect(exposure.freeze_capability_notes).toBe(
        "Test Stable Issuer can freeze TUSD holdings on chain (blacklist(address), unBlacklist(address); caller: contract owner)." +
          " A frozen balance can then be destroyed with destroyBlackFunds(address).",
      );
      expect(exposure.remediation_candidates).toEqual([
        { action: "Ask the issuer to blacklist the holding address.", review_required: true },
      ]);
    }
    const manifest = new Map(overAnvil.source_manifest.map((entry) => [entry.source_id, entry]));
    const frozenSource = manifest.get(exposures[0]!.frozen_source_refs[0]!);
    expect(frozenSource).toMatchObject({ source_type: "chain_request", method: "eth_call isBlacklisted" });
    const issuerSource = exposures[0]!.source_refs
      .map((id) => manifest.get(id))
      .find((s) => s?.source_type === "issuer_registry");
    expect(issuerSource).toMatchObject({ title: "packages/chain/test/contracts/Stable.sol", as_of: "2026-07-05" });
  });
});

/**
 * The map minus what must differ between two providers of one history: the ids and timestamps of the
 * map itself; `source` and `provider` (live vs synthetic, the node vs the synthetic chain); the chain
 * requests behind each fact (their methods, request hashes and paging differ: eth_getLogs windows vs
 * synthetic pages of 2), so a citation of one reads `chain_request` while citations of labels, issuer
 * notes and case documents keep their ids; the finality the node reports (anvil keeps the last 64
 * blocks unfinalized, the synthetic chain finalizes its head); and packet readiness (a synthetic run is
 * never ready). Transaction hashes and edge ids are compared: the synthetic chain carries the real ones.
 */
function comparable(map: AssetMap): unknown {
  const chainRequests = new Set(
    map.source_manifest.filter((entry) => entry.source_type === "chain_request").map((entry) => entry.source_id),
  );
  const dropped = new Set([
    "id",
    "map_id",
    "matter_id",
    "job_id",
    "created_at",
    "updated_at",
    "traced_at",
    "source",
    "provider",
    "finalized_through",
    "packet_readiness",
    "readiness_reasons",
  ]);
  const citations = (ids: string[]) =>
    [...new Set(ids.map((id) => (chainRequests.has(id) ? "chain_request" : id)))].sort();
  const strip = (value: unknown, key?: string): unknown => {
    if (key !== undefined && /(^|_)source_refs$/.test(key)) return citations(value as string[]);
    if (key === "source_manifest") {
      return (value as AssetMap["source_manifest"]).filter((entry) => entry.source_type !== "chain_request");
    }
    if (Array.isArray(value)) return value.map((inner) => strip(inner));
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([name]) => !dropped.has(name))
          .map(([name, inner]) => [name, strip(inner, name)]),
      );
    }
    return value;
  };
  return strip(map);
}

describe("the same scenario on the synthetic chain, through the same job (differential)", () => {
  it("gives the same stored map, field by field", () => {
    expect(overSynthetic.source).toBe("synthetic");
    expect(overSynthetic.edges.length).toBe(8);
    expect(comparable(overSynthetic)).toEqual(comparable(overAnvil));
  });

  it("differs only where the providers must: readiness, finality and the chain requests", () => {
    expect(overSynthetic.exchange_hypotheses.map((h) => h.packet_readiness)).toEqual(["needs_review"]);
    expect(overAnvil.exchange_hypotheses.map((h) => h.packet_readiness)).toEqual(["ready"]);
    expect(overAnvil.block_range?.to).toBe(String(scenario.headBlock));
    expect(overSynthetic.block_range?.to).toBe(String(scenario.headBlock));
    const methods = (map: AssetMap) =>
      new Set(map.source_manifest.flatMap((entry) => (entry.source_type === "chain_request" ? [entry.method] : [])));
    expect([...methods(overAnvil)].sort()).toEqual([
      "eth_call balanceOf",
      "eth_call isBlacklisted",
      "eth_getLogs+trace_filter",
    ]);
    expect([...methods(overSynthetic)].every((method) => method.startsWith("synthetic."))).toBe(true);
  });
});
