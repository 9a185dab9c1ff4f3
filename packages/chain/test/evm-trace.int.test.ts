import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  buildScenarioChain,
  createIssuerRegistry,
  createLabelIndex,
  KNOWN_ISSUER_CONTROLS,
  SyntheticChainProvider,
  type TraceResult,
  traceOutflows,
} from "@crs/core";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvmRpcProvider, parseIssuerDocument, parseLabelDocument } from "../src/index";
import { STABLECOIN_SCENARIO, type StablecoinScenario, startStablecoinScenario } from "./local-chain";

const { network: NETWORK, incidentBlock: INCIDENT_BLOCK } = STABLECOIN_SCENARIO;
const TRACED_AT = "2026-07-05T12:00:00.000Z";

let scenario: StablecoinScenario;
let chain: StablecoinScenario["chain"];
let subject: string;
let hops: string[];
let sides: string[];
let deposit: string;
let hotWallet: string;
let token: string;
let headBlock: bigint;
let labels: ReturnType<typeof parseLabelDocument>;
let controls: ReturnType<typeof parseIssuerDocument>;
let anvilResult: TraceResult;

/** Traces `traced` (the scenario's subject by default) from `from` (its incident block) to the head. */
function trace(
  provider: EvmRpcProvider | SyntheticChainProvider,
  traced: string = subject,
  from = BigInt(INCIDENT_BLOCK),
) {
  return traceOutflows(
    {
      network: NETWORK,
      subjects: [
        {
          address: traced,
          incident_block: from,
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
      issuers: createIssuerRegistry([...KNOWN_ISSUER_CONTROLS, ...controls]),
    },
  );
}

/** The map without what necessarily differs between two providers of the same history: the requests behind each fact, readiness. */
function comparable(result: TraceResult): unknown {
  const drop = new Set([
    "source_refs",
    "sources",
    "frozen_source_refs",
    "source",
    "provider",
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
  scenario = await startStablecoinScenario();
  ({ chain, subject, hops, sides, deposit, hotWallet, token, headBlock } = scenario);
  labels = parseLabelDocument(scenario.labelDocument);
  controls = parseIssuerDocument(scenario.issuerDocument);
  const provider = new EvmRpcProvider({ url: chain.url, network: NETWORK, now: () => new Date(TRACED_AT) });
  anvilResult = await trace(provider);
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  if (chain) expect(chain.process.exitCode !== null || chain.process.signalCode !== null).toBe(true);
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
    // The token transfers after the mint, in order.
    const expected = scenario.steps
      .filter((step) => step.asset === "usd")
      .slice(1)
      .map((step) => step.tx_hash);
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

  it("reads a subject's holding of a stablecoin it did not move, described by the token contract itself", async () => {
    // sides[0] received 10,000 TUSD in the peel chain and never moved it: traced from the head block on,
    // the trace reads no transfer of it, so the holding and the token's decimals come from the node.
    const provider = new EvmRpcProvider({ url: chain.url, network: NETWORK, now: () => new Date(TRACED_AT) });
    const result = await trace(provider, sides[0]!, headBlock);
    expect(result.edges).toEqual([]);
    expect(
      result.stablecoin_exposures.map((s) => [s.wallet, s.basis, s.amount.amount, s.balance?.block, s.frozen]),
    ).toEqual([[sides[0], "held", "10000", headBlock.toString(), false]]);
    expect(result.assets).toEqual([
      { asset: `erc20:${token}`, kind: "erc20", contract: token, symbol: "TUSD", decimals: 6 },
    ]);
    const methodOf = new Map(
      result.sources.map((source) => [source.source_id, "method" in source ? source.method : null]),
    );
    const reads = result.stablecoin_exposures[0]!.source_refs.map((id) => methodOf.get(id));
    expect(reads).toContain("eth_call balanceOf");
    expect(result.stablecoin_exposures[0]!.source_refs).toContain("case-judgment-1");
  });

  it("gives the same map on the synthetic chain built from the same scenario (differential)", async () => {
    // The synthetic chain carries the real transaction hashes (the scenario's steps hold them), so
    // the edge ids agree too; only the chain requests behind each fact differ.
    const synthetic = buildScenarioChain(scenario.spec(labels, controls));
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
