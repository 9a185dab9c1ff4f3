import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AddressLabel,
  buildScenarioChain,
  createIssuerRegistry,
  createLabelIndex,
  type IssuerControls,
  KNOWN_ISSUER_CONTROLS,
  peelChainToExchangeSteps,
  type ScenarioSpec,
  type ScenarioStep,
  SyntheticChainProvider,
  type TraceResult,
  traceOutflows,
  ZERO_ADDRESS,
} from "@crs/core";
import { createTestClient, type Hex, http, publicActions, walletActions } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvmRpcProvider, loadLabelFile } from "../src/index";
import { compileStable, type LocalChain, startAnvil } from "./local-chain";

const MNEMONIC = "test test test test test test test test test test test junk";
const EPOCH = 1_767_225_600;
const BLOCK_TIME = 12;
const NETWORK = "evm:31337";
const TRACED_AT = "2026-07-05T12:00:00.000Z";
const TUSD = 10n ** 6n;

const accounts = Array.from({ length: 12 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
const address = (i: number) => accounts[i]!.address.toLowerCase();
const deployer = accounts[0]!;
const subject = address(1);
const hops = [address(2), address(3), address(4)];
const sides = [address(5), address(6), address(7)];
const deposit = address(8);
const hotWallet = address(9);
const gasFunder = address(10);
const INCIDENT_BLOCK = 4;

let chain: LocalChain;
let workDir: string;
let token: string;
let blacklistBlock: number;
let headBlock: bigint;
let steps: ScenarioStep[];
const receipts: Hex[] = [];
let labels: AddressLabel[];
let controls: IssuerControls;
let anvilResult: TraceResult;

function client(url: string) {
  return createTestClient({ chain: foundry, mode: "anvil", transport: http(url) })
    .extend(publicActions)
    .extend(walletActions);
}

/** Mines empty blocks up to `block − 1` with scenario timestamps, then lets `send` land in `block`. */
async function atBlock(url: string, block: number, send: () => Promise<Hex>): Promise<Hex> {
  const node = client(url);
  for (let current = Number(await node.getBlockNumber()); current < block - 1; current++) {
    await node.setNextBlockTimestamp({ timestamp: BigInt(EPOCH + (current + 1) * BLOCK_TIME) });
    await node.mine({ blocks: 1 });
  }
  await node.setNextBlockTimestamp({ timestamp: BigInt(EPOCH + block * BLOCK_TIME) });
  const hash = await send();
  const receipt = await node.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  expect(Number(receipt.blockNumber)).toBe(block);
  return hash;
}

function trace(provider: EvmRpcProvider | SyntheticChainProvider) {
  return traceOutflows(
    {
      network: NETWORK,
      subjects: [
        {
          address: subject,
          incident_block: BigInt(INCIDENT_BLOCK),
          source_refs: [
            { source_id: "case-judgment-1", source_type: "judgment", title: "Judgment", uri: null, hash: null },
          ],
        },
      ],
      traced_at: TRACED_AT,
      to_block: headBlock,
    },
    {
      provider,
      labels: createLabelIndex(labels),
      issuers: createIssuerRegistry([...KNOWN_ISSUER_CONTROLS, controls]),
    },
  );
}

/** The map without what necessarily differs between two chains holding the same history: hashes, sources, readiness. */
function comparable(result: TraceResult): unknown {
  const drop = new Set([
    "source_refs",
    "sources",
    "frozen_source_refs",
    "source",
    "provider",
    "tx_hash",
    "edge_id",
    "edge_ids",
    "path_edge_ids",
    "packet_readiness",
    "readiness_reasons",
    "finalized_through",
  ]);
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !drop.has(key))
          .map(([key, inner]) => [key, strip(inner)]),
      );
    }
    return value;
  };
  return strip(result);
}

beforeAll(async () => {
  chain = await startAnvil(["--accounts", "12", "--timestamp", String(EPOCH), "--chain-id", "31337"]);
  workDir = await mkdtemp(join(tmpdir(), "crs-chain-"));
  const node = client(chain.url);
  const { abi, bytecode } = compileStable();
  const deployHash = await atBlock(chain.url, 1, () => node.deployContract({ abi, bytecode, account: deployer }));
  token = (await node.getTransactionReceipt({ hash: deployHash })).contractAddress!.toLowerCase();

  steps = [
    { block: 3, from: ZERO_ADDRESS, to: subject, asset: "usd", amount: 100_000n * TUSD },
    ...peelChainToExchangeSteps({
      subject,
      hops,
      sides,
      deposit,
      hotWallet,
      gasFunder,
      token: "usd",
      native: "eth",
      amount: 100_000n * TUSD,
      peelPercent: 10n,
      gas: 10n ** 16n,
      startBlock: INCIDENT_BLOCK + 1,
    }),
  ];
  for (const step of steps) {
    const sender = accounts.find((a) => a.address.toLowerCase() === step.from);
    const hash = await atBlock(chain.url, step.block, () => {
      if (step.asset === "eth")
        return node.sendTransaction({ account: sender!, to: step.to as Hex, value: step.amount });
      if (step.from === ZERO_ADDRESS) {
        return node.writeContract({
          address: token as Hex,
          abi,
          functionName: "mint",
          args: [step.to, step.amount],
          account: deployer,
        });
      }
      return node.writeContract({
        address: token as Hex,
        abi,
        functionName: "transfer",
        args: [step.to, step.amount],
        account: sender!,
      });
    });
    receipts.push(hash);
  }
  blacklistBlock = steps.at(-1)!.block + 2;
  await atBlock(chain.url, blacklistBlock, () =>
    node.writeContract({ address: token as Hex, abi, functionName: "blacklist", args: [sides[1]], account: deployer }),
  );
  // Bury everything under anvil's finality depth (64 blocks) so the sources are final.
  await atBlock(chain.url, blacklistBlock + 70, () =>
    node.sendTransaction({ account: accounts[11]!, to: accounts[11]!.address, value: 0n }),
  );
  headBlock = await node.getBlockNumber();

  const labelFile = join(workDir, "exchange-labels.json");
  await writeFile(
    labelFile,
    JSON.stringify({
      format: "crs-labels/1",
      dataset: "test-exchange-attributions",
      license: "internal",
      retrieved_at: "2026-07-01T00:00:00Z",
      labels: [
        {
          network: NETWORK,
          address: hotWallet,
          entity: "Exchange A",
          category: "exchange",
          confidence: "service_api",
          source_uri: "https://exchange-a.example/proof-of-reserves",
          as_of: "2026-07-01",
        },
        {
          network: NETWORK,
          address: gasFunder,
          entity: "Exchange A",
          category: "exchange",
          confidence: "service_api",
          source_uri: "https://exchange-a.example/proof-of-reserves",
          as_of: "2026-07-01",
        },
      ],
    }),
  );
  labels = await loadLabelFile(labelFile);
  controls = {
    network: NETWORK,
    contract: token,
    issuer: "Test Stable Issuer",
    symbol: "TUSD",
    freeze_check: "isBlacklisted",
    freeze_functions: ["blacklist(address)", "unBlacklist(address)"],
    freeze_role: "contract owner",
    seize_function: "destroyBlackFunds(address)",
    policy_notes: null,
    remediation: ["Ask the issuer to blacklist the holding address."],
    source: { title: "packages/chain/test/contracts/Stable.sol", uri: "file:Stable.sol", as_of: "2026-07-05" },
    synthetic: false,
  };
  const provider = new EvmRpcProvider({ url: chain.url, network: NETWORK, now: () => new Date(TRACED_AT) });
  anvilResult = await trace(provider);
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
  expect(chain.process.exitCode !== null || chain.process.signalCode !== null).toBe(true);
});

describe("trace over a real EVM node (anvil)", () => {
  it("follows the peel chain into the deposit address and the sweep to the labelled hot wallet", () => {
    const edges = anvilResult.edges.map((e) => [e.from, e.to, e.asset, e.tainted.base_units, e.hop, Number(e.block)]);
    const usd = `erc20:${token}`;
    expect(edges).toEqual([
      [subject, hops[0], usd, "100000000000", 1, 5],
      [hops[0], sides[0], usd, "10000000000", 2, 6],
      [hops[0], hops[1], usd, "90000000000", 2, 7],
      [hops[1], sides[1], usd, "9000000000", 3, 8],
      [hops[1], hops[2], usd, "81000000000", 3, 9],
      [hops[2], sides[2], usd, "8100000000", 4, 10],
      [hops[2], deposit, usd, "72900000000", 4, 12],
      [deposit, hotWallet, usd, "72900000000", 5, 13],
    ]);
    expect(anvilResult.truncated).toBe(false);
  });

  it("reports the real transaction hashes and log positions", () => {
    const tokenSteps = steps
      .map((step, i) => ({ step, hash: receipts[i]! }))
      .filter(({ step }) => step.asset === "usd");
    const expected = tokenSteps.slice(1).map(({ hash }) => hash);
    expect(anvilResult.edges.map((e) => e.tx_hash)).toEqual(expected);
    expect(anvilResult.edges.every((e) => e.event_index === 0 && e.tx_index === 0 && e.finalized)).toBe(true);
  });

  it("ends at the hot wallet and names the deposit address to Exchange A, ready for a packet", () => {
    expect(anvilResult.terminals.map((t) => [t.address, t.category, t.entity, t.hop])).toEqual([
      [hotWallet, "exchange", "Exchange A", 5],
    ]);
    expect(anvilResult.exchange_hypotheses).toEqual([
      expect.objectContaining({
        exchange: "Exchange A",
        wallet: deposit,
        basis: "deposit_address_sweep",
        confidence: "high",
        packet_readiness: "ready",
        readiness_reasons: [],
        label_confidence: 70,
      }),
    ]);
    // The gas top-up came before the deposit, outside the window the trace reads, so it is unknown (null), not guessed.
    expect(anvilResult.exchange_hypotheses[0]!.sweep).toMatchObject({
      swept_to: [hotWallet],
      gas_funded_by_exchange: null,
    });
  });

  it("reports the peeled stablecoins with the live freeze status read from the contract", () => {
    expect(
      anvilResult.stablecoin_exposures.map((s) => [s.wallet, s.amount.amount, s.balance?.amount.amount, s.frozen]),
    ).toEqual(
      [
        [sides[0], "10000", "10000", false],
        [sides[1], "9000", "9000", true],
        [sides[2], "8100", "8100", false],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(anvilResult.stablecoin_exposures[0]!.freeze_capability_notes).toContain("destroyBlackFunds(address)");
    const totals = anvilResult.totals.find((t) => t.asset === `erc20:${token}`)!;
    expect([totals.subject_taint.amount, totals.to_terminals.amount, totals.retained.amount]).toEqual([
      "100000",
      "72900",
      "27100",
    ]);
  });

  it("gives the same map on the synthetic chain built from the same scenario (differential)", async () => {
    const spec: ScenarioSpec = {
      name: "anvil-peel-chain",
      network: NETWORK,
      epoch: EPOCH,
      blockTime: BLOCK_TIME,
      assets: {
        eth: { kind: "native", contract: null, decimals: 18, symbol: "ETH" },
        usd: { kind: "erc20", contract: token, decimals: 6, symbol: "TUSD" },
      },
      genesis: accounts.map((account) => ({ address: account.address, asset: "eth", amount: 10_000n * 10n ** 18n })),
      steps,
      labels,
      freezes: [{ asset: "usd", address: sides[1]!, fromBlock: blacklistBlock }],
      issuers: [controls],
    };
    const synthetic = buildScenarioChain(spec);
    const provider = new SyntheticChainProvider(synthetic, { pageSize: 2 });
    const overProvider = await trace(provider);
    expect(comparable(overProvider)).toEqual(comparable(anvilResult));
    expect(overProvider.exchange_hypotheses[0]!.packet_readiness).toBe("needs_review");
  });
});

describe("provider limits and transient failures", () => {
  let proxy: Server;
  let proxyUrl: string;
  let refusedRanges = 0;
  let unavailable = 0;

  beforeAll(async () => {
    let requests = 0;
    // Every 7th request fails once with 503; a retry of it (same body) always gets through, so the
    // test does not depend on how concurrent requests interleave with the retries.
    const failedOnce = new Set<string>();
    proxy = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString();
      const call = JSON.parse(body) as { id: number; method: string; params: Array<{ fromBlock: Hex; toBlock: Hex }> };
      requests++;
      const fingerprint = JSON.stringify({ method: call.method, params: call.params });
      if (requests % 7 === 0 && !failedOnce.has(fingerprint)) {
        failedOnce.add(fingerprint);
        unavailable++;
        response.writeHead(503).end("upstream unavailable");
        return;
      }
      if (call.method === "eth_getLogs") {
        const from = BigInt(call.params[0]!.fromBlock);
        const to = BigInt(call.params[0]!.toBlock);
        if (to - from + 1n > 3n) {
          refusedRanges++;
          response.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: call.id,
              error: {
                code: -32602,
                message: `query exceeds max block range 3, retry with the range 0x${from.toString(16)}-0x${(from + 2n).toString(16)}`,
              },
            }),
          );
          return;
        }
      }
      const upstream = await fetch(chain.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      response.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });

  it("narrows the block window on range-limit errors and retries 503s, and still gives the same map", async () => {
    const provider = new EvmRpcProvider({
      url: proxyUrl,
      network: NETWORK,
      blockWindow: 500,
      retryDelayMs: 5,
      now: () => new Date(TRACED_AT),
    });
    const result = await trace(provider);
    expect(provider.rangeSplits).toBeGreaterThan(0);
    expect(refusedRanges).toBeGreaterThan(0);
    expect(unavailable).toBeGreaterThan(0);
    expect(comparable(result)).toEqual(comparable(anvilResult));
  });
});
