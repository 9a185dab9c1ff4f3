import { describe, expect, it } from "vitest";
import {
  AMOUNT_OVERFLOW,
  buildScenarioChain,
  createIssuerRegistry,
  generateSyntheticChain,
  type SyntheticChain,
  SyntheticChainProvider,
  SyntheticChainWriter,
  type TraceRequest,
  traceOutflows,
} from "../../src/index";
import { limbsToBigint } from "../../src/tracing/limb-ledger";

const TRACED_AT = "2026-07-05T12:00:00.000Z";

describe("synthetic chain generator", () => {
  it("produces the same chain byte for byte from the same seed, and a different one from another seed", () => {
    const a = generateSyntheticChain({ seed: 7, users: 300, events: 4_000 });
    const b = generateSyntheticChain({ seed: 7, users: 300, events: 4_000 });
    const c = generateSyntheticChain({ seed: 8, users: 300, events: 4_000 });
    expect(a.digest()).toBe(b.digest());
    expect(a.digest()).not.toBe(c.digest());
    expect(a.scenarios).toEqual(b.scenarios);
  });

  it("keeps every balance non-negative: no address ever spends what it does not hold", () => {
    const chain = generateSyntheticChain({ seed: 11, users: 200, events: 5_000 });
    const { graph } = chain;
    const last = graph.block[graph.eventCount - 1]!;
    for (let node = 0; node < graph.nodeCount; node++) {
      if (graph.addressOf(node) === "0x0000000000000000000000000000000000000000") continue;
      for (let asset = 0; asset < graph.assets.length; asset++) {
        expect(graph.balanceAt!(node, asset, last)).toBeGreaterThanOrEqual(0n);
      }
    }
    expect(graph.eventCount).toBeGreaterThan(5_000);
    expect(graph.amountLow.every((v) => v > 0n || v === AMOUNT_OVERFLOW)).toBe(true);
  });

  it("gives as the balance before block 0 the genesis allocation that every later balance starts from", () => {
    const chain = generateSyntheticChain({ seed: 13, users: 150, events: 3_000 });
    const { graph } = chain;
    const assetCount = graph.assets.length;
    const zero = graph.nodeOf("0x0000000000000000000000000000000000000000");
    const moved = new Array<bigint>(graph.nodeCount * assetCount).fill(0n);
    for (let e = 0; e < graph.eventCount; e++) {
      const amount = graph.amountLow[e] === AMOUNT_OVERFLOW ? graph.amountHigh.get(e)! : graph.amountLow[e]!;
      const a = graph.asset[e]!;
      moved[graph.to[e]! * assetCount + a]! += amount;
      if (graph.from[e] !== zero) moved[graph.from[e]! * assetCount + a]! -= amount;
    }
    const last = graph.block[graph.eventCount - 1]!;
    const limbs = graph.genesisLimbs!;
    expect(limbs.length).toBe(2 * graph.nodeCount * assetCount);
    let allocated = 0;
    for (let node = 0; node < graph.nodeCount; node++) {
      for (let asset = 0; asset < assetCount; asset++) {
        const genesis = graph.balanceAt!(node, asset, -1);
        if (genesis > 0n) allocated++;
        expect(genesis).toBe(graph.balanceAt!(node, asset, last) - moved[node * assetCount + asset]!);
        const key = node * assetCount + asset;
        expect(limbsToBigint(limbs[2 * key]!, limbs[2 * key + 1]!)).toBe(genesis);
      }
    }
    expect(allocated).toBeGreaterThan(0);
  });

  it("gives no genesis limbs when an allocation is beyond the limbs' exact range", () => {
    const assets = [{ kind: "native" as const, contract: null, decimals: 18, symbol: "ETH" }];
    const build = (amount: bigint) => {
      const writer = new SyntheticChainWriter("synthetic:limbs", assets, 12, 1_767_225_600);
      const a = writer.node("0x00000000000000000000000000000000000000a1");
      const b = writer.node("0x00000000000000000000000000000000000000b2");
      writer.allocate(a, 0, amount);
      writer.transfer(a, b, 0, 1n, 1);
      return writer.finish("limbs").graph;
    };
    expect(build(2n ** 90n).genesisLimbs).toBeDefined();
    expect(build(2n ** 120n).genesisLimbs).toBeUndefined();
  });

  it("numbers events in time order", () => {
    const { graph } = generateSyntheticChain({ seed: 3, users: 100, events: 2_000 });
    for (let e = 1; e < graph.eventCount; e++) {
      const later = graph.block[e]! > graph.block[e - 1]! || graph.sub[e]! > graph.sub[e - 1]!;
      expect(later).toBe(true);
    }
  });

  it("labels only its own services, all marked synthetic", () => {
    const chain = generateSyntheticChain({ seed: 5, users: 100, events: 1_000 });
    expect(chain.labels.every((l) => l.entity.endsWith("(synthetic)") && l.source.dataset === "synthetic")).toBe(true);
    expect(new Set(chain.labels.map((l) => l.category))).toEqual(
      new Set(["issuer", "exchange", "mixer", "bridge", "sanctioned"]),
    );
  });
});

describe("scenario chains", () => {
  const A = "0x00000000000000000000000000000000000000a1";
  const B = "0x00000000000000000000000000000000000000b2";
  const spec = (steps: Array<{ tx_hash?: string }>) => ({
    name: "hashes",
    network: "evm:31337",
    epoch: 0,
    blockTime: 12,
    assets: { eth: { kind: "native" as const, contract: null, decimals: 18, symbol: "ETH" } },
    genesis: [{ address: A, asset: "eth", amount: 10n }],
    steps: steps.map((step, i) => ({ block: i + 1, from: A, to: B, asset: "eth", amount: 1n, ...step })),
    labels: [],
    freezes: [],
    issuers: [],
  });

  it("carries the transaction hashes a replayed scenario gives, and derives the others", async () => {
    const real = `0x${"Ab".repeat(32)}`;
    const chain = buildScenarioChain(spec([{ tx_hash: real }, {}]));
    const page = await new SyntheticChainProvider(chain).transfers({
      address: A,
      fromBlock: 0n,
      toBlock: 2n,
      cursor: null,
    });
    const hashes = page.items.map((t) => t.tx_hash);
    expect(hashes[0]).toBe(real.toLowerCase());
    expect(hashes[1]).toMatch(/^0x[0-9a-f]{64}$/);
    expect(hashes[1]).not.toBe(hashes[0]);
    expect(chain.digest()).not.toBe(buildScenarioChain(spec([{}, {}])).digest());
  });

  it("refuses a hash that is not 32 bytes of hex", () => {
    expect(() => buildScenarioChain(spec([{ tx_hash: "0x1234" }]))).toThrow(
      /0x1234 is not a 32-byte hex transaction hash/,
    );
  });
});

describe("tracing the planted scenarios", async () => {
  const chain = generateSyntheticChain({ seed: 42, users: 1_000, events: 20_000, scenarios: 2 });
  const provider = new SyntheticChainProvider(chain);
  const issuers = createIssuerRegistry(chain.issuers);
  const traced = await Promise.all(
    chain.scenarios.map(async (scenario) => ({
      scenario,
      result: await traceOutflows(
        {
          network: chain.network,
          subjects: [{ address: scenario.subject, incident_block: BigInt(scenario.incident_block), source_refs: [] }],
          traced_at: TRACED_AT,
        },
        { provider, graph: chain.graph, issuers },
      ),
    })),
  );

  it("finds the deposit address and the exchange of every peel-chain and fan-in scenario", () => {
    const exchangeCases = traced.filter(({ scenario }) => scenario.deposit !== null);
    expect(exchangeCases.length).toBe(4);
    for (const { scenario, result } of exchangeCases) {
      const hypothesis = result.exchange_hypotheses.find((h) => h.wallet === scenario.deposit!.address);
      expect(hypothesis).toMatchObject({
        basis: "deposit_address_sweep",
        exchange: scenario.deposit!.exchange,
        confidence: "high",
        packet_readiness: "needs_review",
      });
      expect(result.wallets.find((w) => w.address === scenario.deposit!.address)).toMatchObject({
        role: "exchange_deposit",
        hop: scenario.deposit!.hop,
      });
      expect(result.terminals).toContainEqual(
        expect.objectContaining({
          address: scenario.terminal!.address,
          category: "exchange",
          hop: scenario.terminal!.hop,
        }),
      );
    }
  });

  it("stops at the mixer at the expected hop", () => {
    for (const { scenario, result } of traced.filter(({ scenario }) => scenario.kind === "mixer")) {
      expect(result.terminals).toContainEqual(
        expect.objectContaining({
          address: scenario.terminal!.address,
          category: "mixer",
          hop: scenario.terminal!.hop,
        }),
      );
    }
  });

  it("cuts the bridge scenario at max_hops 5 and reports the taint left at the limit", () => {
    for (const { scenario, result } of traced.filter(({ scenario }) => scenario.kind === "bridge")) {
      expect(result.terminals.map((t) => t.address)).not.toContain(scenario.terminal!.address);
      const totals = result.totals.find((t) => t.asset === `erc20:${chain.stablecoin}`)!;
      expect(BigInt(totals.at_hop_limit.base_units)).toBe(scenario.amount);
    }
  });

  it("reaches the bridge with max_hops 6", async () => {
    const bridge = traced.find(({ scenario }) => scenario.kind === "bridge")!.scenario;
    const result = await traceOutflows(
      {
        network: chain.network,
        subjects: [{ address: bridge.subject, incident_block: BigInt(bridge.incident_block), source_refs: [] }],
        traced_at: TRACED_AT,
        max_hops: 6,
      },
      { provider, graph: chain.graph, issuers },
    );
    expect(result.terminals).toContainEqual(expect.objectContaining({ address: bridge.terminal!.address, hop: 6 }));
  });

  it("reports the frozen holder's stablecoins as frozen", () => {
    for (const { scenario, result } of traced.filter(({ scenario }) => scenario.kind === "frozen_holder")) {
      const exposure = result.stablecoin_exposures.find((s) => s.wallet === scenario.frozen_holder);
      expect(exposure).toMatchObject({ frozen: true, issuer: "sUSD Issuer (synthetic)", basis: "retained" });
      expect(BigInt(exposure!.amount.base_units)).toBe(scenario.amount);
    }
  });
});

describe("traces over one preloaded graph", () => {
  it("give the same result whatever traces ran before or alongside them (per-address arrays are reused)", async () => {
    const build = () => generateSyntheticChain({ seed: 5, users: 200, events: 2_500, scenarios: 1 });
    const shared = build();
    const requests: TraceRequest[] = [
      ...shared.scenarios.map((scenario) => ({
        network: shared.network,
        subjects: [{ address: scenario.subject, incident_block: BigInt(scenario.incident_block), source_refs: [] }],
        traced_at: TRACED_AT,
      })),
      ...(["poison", "haircut", "fifo"] as const).map((taint_model, i) => ({
        network: shared.network,
        subjects: shared.busiestUsers
          .slice(i, i + 6)
          .map((address) => ({ address, incident_block: BigInt(10 * i), source_refs: [] })),
        max_hops: 7 - 2 * i,
        taint_model,
        traced_at: TRACED_AT,
      })),
    ];
    const trace = (chain: SyntheticChain, request: TraceRequest) =>
      traceOutflows(request, {
        provider: new SyntheticChainProvider(chain),
        graph: chain.graph,
        issuers: createIssuerRegistry(chain.issuers),
      }).then((result) => JSON.stringify(result));
    // Each on a graph no trace ran over before.
    const alone: string[] = [];
    for (const request of requests) alone.push(await trace(build(), request));
    expect(new Set(alone).size).toBe(requests.length);

    const order = [...requests.keys(), ...[...requests.keys()].reverse()];
    for (const i of order) expect(await trace(shared, requests[i]!)).toBe(alone[i]);
    const together = await Promise.all(order.map((i) => trace(shared, requests[i]!)));
    expect(together).toEqual(order.map((i) => alone[i]));
  }, 60_000);
});
