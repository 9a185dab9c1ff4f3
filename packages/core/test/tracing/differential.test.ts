/**
 * The optimised engine (typed-array discovery, the sweep over limbs) against the engine as it was
 * before (test/tracing/oracle: discovery, sweep, bigint ledger and result assembly, kept verbatim):
 * on seeded synthetic chains and on random chains with amounts around the limb boundaries, both must
 * give the same discovery state, the same sweep, the same ledger and the same result, byte for byte.
 */
import { describe, expect, it } from "vitest";
import {
  AMOUNT_OVERFLOW,
  type AssetRef,
  assetKey,
  builtInLabels,
  computeTraceOnGraph,
  createIssuerRegistry,
  generateSyntheticChain,
  NODE_TERMINAL,
  normalizeTraceRequest,
  Sfc32,
  type SyntheticChain,
  SyntheticChainProvider,
  SyntheticChainWriter,
  type TaintModel,
  type TraceBudget,
  type TraceComputation,
  type TraceRequest,
  type TransferGraph,
  traceOutflows,
  UNREACHED,
} from "../../src/index";
import { assembleTraceResult } from "../../src/tracing/result";
import { runSweepOverBigint as oracleSweep } from "../../src/tracing/sweep";
import { DEFAULT_BUDGET } from "../../src/tracing/trace";
import { addr, chainOf, withoutSources } from "./fixtures";
import { DiscoveryState as OracleState, runDiscovery as oracleDiscovery } from "./oracle/discovery";
import { assembleTraceResult as oracleAssemble } from "./oracle/result";
import { TaintLedger as OracleLedger } from "./oracle/taint";

const TRACED_AT = "2026-07-05T12:00:00.000Z";
const MODELS: TaintModel[] = ["fifo", "haircut", "poison"];

/** computeTraceOnGraph as it was, over the oracle's discovery, sweep and ledger. */
function oracleCompute(
  graph: TransferGraph,
  request: TraceRequest,
  options: { budget?: TraceBudget; toBlock?: number },
): TraceComputation {
  const normalized = normalizeTraceRequest(request);
  const budget = { ...DEFAULT_BUDGET, ...options.budget };
  const state = new OracleState(normalized.max_hops);
  state.ensureCapacity(graph.nodeCount);
  for (const subject of normalized.subjects) {
    const node = graph.nodeOf(subject.address);
    if (node !== undefined) state.addSubject(node, subject.incident_block);
  }
  // The previous engine's labels, with the built-in ones every trace now knows (the zero address).
  const graphLabels = graph.nodeLabels ?? (() => []);
  const labelsOf = (node: number) => [...graphLabels(node), ...builtInLabels(graph.network, graph.addressOf(node))];
  const values = graph.assets.map(
    (asset) => normalized.min_value_per_asset[assetKey(asset)] ?? normalized.min_value_default,
  );
  const minValueOf = (asset: number) => values[asset] ?? normalized.min_value_default;
  const lastBlock = options.toBlock ?? (graph.eventCount > 0 ? graph.block[graph.eventCount - 1]! : 0);
  oracleDiscovery(
    graph,
    state,
    {
      maxHops: normalized.max_hops,
      minValueOf,
      hubEventLimit: budget.hub_event_limit,
      maxExpansions: budget.max_expansions,
      maxEdges: budget.max_edges,
      deadlineReached: () => false,
      signal: undefined,
      complete: true,
      lastBlock,
    },
    labelsOf,
  );
  const ledger = new OracleLedger(normalized.taint_model);
  const balanceAt = graph.balanceAt;
  // The previous ledger, driven by the exact bigint sweep: the same calls the current ledger answers.
  const sweep = oracleSweep({
    graph,
    state: state as unknown as TraceComputation["state"],
    ledger: ledger as unknown as TraceComputation["ledger"],
    maxHops: normalized.max_hops,
    minValueOf,
    openingBalance: balanceAt ? (node, asset, block) => balanceAt(node, asset, block) : () => null,
    genesisBalance: balanceAt ? (node, asset) => balanceAt(node, asset, -1) : undefined,
    signal: undefined,
    lastBlock,
    labelsOf,
  });
  const details: Record<string, string> = {
    max_expansions: `stopped expanding after ${budget.max_expansions} addresses`,
    max_edges: `stopped reading after ${budget.max_edges} transfer events`,
    deadline: "the caller's deadline passed; addresses still queued were not expanded",
  };
  return {
    request: normalized,
    graph,
    state: state as unknown as TraceComputation["state"],
    ledger: ledger as unknown as TraceComputation["ledger"],
    sweep,
    labelsOf,
    truncation: [...state.truncation].sort().map((reason) => ({ reason, detail: details[reason]! })),
    toBlock: lastBlock,
    finalizedBlock: lastBlock,
    budget,
  };
}

/** What the sweep and the ledger produced, as plain data: the facts every engine must agree on. */
function sweepFacts(computation: TraceComputation) {
  const { sweep, ledger } = computation;
  const receivedBy = [...sweep.receivedBy].sort((a, b) => a[0] - b[0]);
  return {
    edgeEvent: [...sweep.edgeEvent],
    edgeTaint: sweep.edgeTaint,
    edgeHop: [...sweep.edgeHop],
    hopNow: [...sweep.hopNow],
    parentEdge: [...sweep.parentEdge],
    openEdge: [...sweep.openEdge],
    entries: sweep.entries,
    receivedBy,
    totals: sweep.totals,
    opening: sweep.opening,
    ledger: sweep.entries.map(([, , id]) => [
      ledger.taintHeld(id),
      ledger.balanceHeld(id),
      ledger.shortfallOf(id),
      ledger.isTainted(id),
    ]),
  };
}

/** Everything discovery, the sweep and the ledger produced, as plain data. */
function snapshot(computation: TraceComputation) {
  const { state, graph } = computation;
  const n = graph.nodeCount;
  return {
    minHop: [...state.minHop.subarray(0, n)],
    arrivalBlock: [...state.arrivalBlock.subarray(0, n)],
    arrivalSub: [...state.arrivalSub.subarray(0, n)],
    arrivalTime: [...state.arrivalTime.subarray(0, n)],
    flags: [...state.flags.subarray(0, n)],
    // The deciding label of every address taint reached (read when it first did; the previous engine
    // also kept one for addresses discovery only touched, which nothing reads).
    labelOf: [...state.labelOf]
      .filter(([node]) => computation.sweep.hopNow[node] !== UNREACHED)
      .map(([node, label]) => [node, label.entity, label.category])
      .sort((a, b) => Number(a[0]) - Number(b[0])),
    expansions: state.expansions,
    edgesAdmitted: state.edgesAdmitted,
    truncation: [...state.truncation].sort(),
    ...sweepFacts(computation),
  };
}

/** A result without its work counters (each engine counts its own work). */
const withoutCounters = (result: { budget: object }) =>
  JSON.stringify({ ...result, budget: { ...result.budget, edges_read: null, expansions: null } });

/**
 * Discovery then the sweep must match the previous engine in every detail, budgets included. The
 * event-order walk, which charges budgets in time order, must give the same sweep, ledgers and result
 * when no budget binds (`budget` unset).
 */
async function expectSameTrace(
  chain: SyntheticChain,
  request: TraceRequest,
  options: { budget?: TraceBudget; toBlock?: number } = {},
): Promise<number> {
  const oracle = oracleCompute(chain.graph, request, options);
  const twoPhase = computeTraceOnGraph(chain.graph, request, { ...options, engine: "discovery" });
  expect(snapshot(twoPhase)).toEqual(snapshot(oracle));
  const provider = new SyntheticChainProvider(chain);
  const issuers = createIssuerRegistry(chain.issuers);
  const context = { provider, issuers, signal: undefined, fetchConcurrency: 4 };
  const head = await provider.head();
  const toBlock = options.toBlock ?? Number(head.number);
  const finalizedBlock = Number(head.finalized);
  const expected = await oracleAssemble({ ...oracle, toBlock, finalizedBlock }, context);
  const assembled = await assembleTraceResult({ ...twoPhase, toBlock, finalizedBlock }, context);
  expect(JSON.stringify(assembled)).toBe(JSON.stringify(expected));
  if (options.budget === undefined) {
    const walked = computeTraceOnGraph(chain.graph, request, options);
    expect(sweepFacts(walked)).toEqual(sweepFacts(oracle));
    const result = await traceOutflows(
      { ...request, to_block: BigInt(toBlock) },
      { provider, graph: chain.graph, issuers, budget: options.budget },
    );
    expect(withoutCounters(result)).toBe(withoutCounters(expected));
  }
  return twoPhase.sweep.edgeEvent.length;
}

describe("optimised engine = previous engine (differential)", () => {
  it("gives identical discovery, sweep, ledger and result on seeded synthetic chains", async () => {
    let edges = 0;
    let cases = 0;
    for (const seed of [1, 2, 3]) {
      const chain = generateSyntheticChain({ seed, users: 250, events: 4_000, scenarios: 1 });
      const rng = new Sfc32(seed, "differential");
      const lastBlock = chain.graph.block[chain.graph.eventCount - 1]!;
      for (let round = 0; round < 8; round++) {
        const model = MODELS[round % 3]!;
        const hubs = chain.busiestUsers.slice(0, rng.int(1, 12));
        const fromScenarios = round % 2 === 1;
        const subjects = fromScenarios
          ? chain.scenarios.map((s) => ({
              address: s.subject,
              incident_block: BigInt(s.incident_block),
              source_refs: [],
            }))
          : hubs.map((address) => ({ address, incident_block: BigInt(rng.int(0, 40)), source_refs: [] }));
        const request: TraceRequest = {
          network: chain.network,
          subjects,
          max_hops: rng.int(1, 7),
          taint_model: model,
          min_value: round % 4 === 2 ? { default: 10n ** BigInt(rng.int(3, 18)) } : undefined,
          traced_at: TRACED_AT,
        };
        const budgets: Array<TraceBudget | undefined> = [
          undefined,
          { max_expansions: rng.int(1, 60) },
          { max_edges: rng.int(10, 3_000) },
          { hub_event_limit: rng.int(5, 200), max_expansions: 100_000, max_edges: 10_000_000 },
        ];
        const budget = budgets[round % budgets.length];
        const toBlock = round % 3 === 2 ? rng.int(Math.floor(lastBlock / 2), lastBlock) : undefined;
        edges += await expectSameTrace(chain, request, { budget, toBlock });
        cases++;
      }
    }
    expect(cases).toBe(24);
    // The cases must exercise the engine, not only empty traces.
    expect(edges).toBeGreaterThan(1_000);
  }, 120_000);

  it("lists alike what a subject holds of an issuer's token it did not move", async () => {
    const chain = chainOf(
      [
        [1, 2, 40, 2, "eth"],
        [5, 6, 10, 3],
        [2, 7, 15, 4, "eth"],
      ],
      {
        genesis: [
          [1, 250_000_000],
          [1, 100, "eth"],
          [5, 30],
        ],
      },
    );
    for (const model of MODELS) {
      const request: TraceRequest = {
        network: chain.network,
        subjects: [
          { address: addr(1), incident_block: 1n, source_refs: [] },
          { address: addr(5), incident_block: 1n, source_refs: [] },
        ],
        taint_model: model,
        traced_at: TRACED_AT,
      };
      await expectSameTrace(chain, request);
      const result = await traceOutflows(request, {
        provider: new SyntheticChainProvider(chain),
        graph: chain.graph,
        issuers: createIssuerRegistry(chain.issuers),
      });
      expect(result.stablecoin_exposures.map((exposure) => [exposure.wallet, exposure.basis])).toEqual([
        [addr(1), "held"],
        [addr(5), "retained"],
        [addr(6), "retained"],
      ]);
    }
  });

  it("gives identical results on random chains with amounts at the limb and word boundaries, and beyond them", async () => {
    const assets: AssetRef[] = [
      { kind: "native", contract: null, decimals: 18, symbol: "ETH" },
      { kind: "erc20", contract: "0x00000000000000000000000000000000000070c0", decimals: 6, symbol: "USDX" },
    ];
    const boundaries = [
      1n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 48n - 1n,
      2n ** 48n,
      2n ** 48n + 1n,
      2n ** 53n + 1n,
      AMOUNT_OVERFLOW - 1n,
      AMOUNT_OVERFLOW,
      2n ** 70n + 3n,
    ];
    let cases = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const rng = new Sfc32(seed, "limbs");
      // Every tenth chain holds amounts beyond the limbs' range (2^99), so the bigint sweep runs.
      const huge = seed % 10 === 0;
      const writer = new SyntheticChainWriter("synthetic:diff", assets, 12, 1_767_225_600);
      const nodes = Array.from({ length: 10 }, (_, i) => writer.node(`0x${(i + 1).toString(16).padStart(40, "0")}`));
      for (const node of nodes) {
        for (let a = 0; a < assets.length; a++) {
          const scale = huge ? 2n ** 120n : boundaries[rng.int(0, boundaries.length - 1)]!;
          writer.allocate(node, a, scale * BigInt(rng.int(1, 50)) + BigInt(rng.int(0, 5)));
        }
      }
      let block = 1;
      for (let step = 0; step < 60; step++) {
        block += rng.int(0, 2);
        const from = nodes[rng.int(0, nodes.length - 1)]!;
        const to = nodes[rng.int(0, nodes.length - 1)]!;
        const asset = rng.int(0, 1);
        const balance = writer.balanceOf(from, asset);
        const pick = rng.int(0, 3);
        const amount =
          pick === 0 ? balance : pick === 1 ? (balance * BigInt(rng.int(1, 99))) / 100n : boundaries[rng.int(0, 9)]!;
        if (amount > 0n && amount <= balance) writer.transfer(from, to, asset, amount, block);
      }
      if (seed % 3 === 0) writer.label(nodes[9]!, "Exchange D", "exchange");
      const chain = writer.finish(`diff-${seed}`);
      const subjects = [...new Set([rng.int(0, 8), rng.int(0, 8)])].map((i) => ({
        address: chain.graph.addressOf(nodes[i]!),
        incident_block: BigInt(rng.int(0, 20)),
        source_refs: [],
      }));
      for (const model of MODELS) {
        await expectSameTrace(chain, {
          network: chain.network,
          subjects,
          max_hops: rng.int(1, 7),
          taint_model: model,
          min_value: { default: boundaries[rng.int(0, 6)]! },
          traced_at: TRACED_AT,
        });
        cases++;
      }
    }
    expect(cases).toBe(120);
  }, 60_000);

  it("decides labels that hold for a time only the same way on every engine", async () => {
    const asset: AssetRef = { kind: "native", contract: null, decimals: 18, symbol: "ETH" };
    const categories = ["exchange", "mixer", "bridge", "other", "sanctioned"] as const;
    let cases = 0;
    let terminals = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const rng = new Sfc32(seed, "label-windows");
      const epoch = 1_767_225_600;
      const writer = new SyntheticChainWriter("synthetic:labels", [asset], 12, epoch);
      const nodes = Array.from({ length: 12 }, (_, i) => writer.node(`0x${(i + 1).toString(16).padStart(40, "0")}`));
      for (const node of nodes) writer.allocate(node, 0, BigInt(rng.int(0, 3) * 1000));
      let block = 1;
      for (let step = 0; step < 70; step++) {
        block += rng.int(0, 2);
        const from = nodes[rng.int(0, nodes.length - 1)]!;
        const to = nodes[rng.int(0, nodes.length - 1)]!;
        const balance = writer.balanceOf(from, 0);
        const amount = (balance * BigInt(rng.int(1, 100))) / 100n;
        if (amount > 0n) writer.transfer(from, to, 0, amount, block);
      }
      // Labels that hold from, until, or between blocks of the chain, and some that always hold.
      for (let i = 0; i < 5; i++) {
        const node = nodes[rng.int(2, nodes.length - 1)]!;
        const at = (b: number) => epoch + b * 12;
        const start = rng.int(0, block);
        const shape = rng.int(0, 3);
        writer.label(node, `Entity ${i}`, categories[rng.int(0, categories.length - 1)]!, rng.int(10, 100), null, {
          ...(shape === 1 || shape === 3 ? { from: at(start) } : {}),
          ...(shape === 2 || shape === 3 ? { to: at(start + rng.int(1, 20)) } : {}),
        });
      }
      const chain = writer.finish(`labels-${seed}`);
      const request: TraceRequest = {
        network: chain.network,
        subjects: [...new Set([rng.int(0, 3), rng.int(0, 3)])].map((i) => ({
          address: chain.graph.addressOf(nodes[i]!),
          incident_block: BigInt(rng.int(0, 10)),
          source_refs: [],
        })),
        max_hops: rng.int(1, 7),
        taint_model: MODELS[rng.int(0, MODELS.length - 1)]!,
        min_value: { default: BigInt(rng.int(1, 50)) },
        traced_at: TRACED_AT,
      };
      // Half the traces end before the chain does.
      const toBlock = seed % 2 === 0 ? rng.int(1, block) : block;
      request.to_block = BigInt(toBlock);
      const walked = computeTraceOnGraph(chain.graph, request, { toBlock });
      const twoPhase = computeTraceOnGraph(chain.graph, request, { toBlock, engine: "discovery" });
      const decided = (computation: TraceComputation) => ({
        ...sweepFacts(computation),
        terminal: [...computation.state.flags.subarray(0, chain.graph.nodeCount)].map((f, node) =>
          computation.sweep.hopNow[node] === UNREACHED ? null : f & NODE_TERMINAL,
        ),
        labelOf: [...computation.state.labelOf].map(([node, label]) => [node, label.entity]).sort(),
      });
      expect(decided(walked), `seed ${seed}`).toEqual(decided(twoPhase));
      for (const [node] of walked.state.labelOf) if ((walked.state.flags[node]! & NODE_TERMINAL) !== 0) terminals++;
      const provider = new SyntheticChainProvider(chain);
      const issuers = createIssuerRegistry(chain.issuers);
      const viaGraph = await traceOutflows(request, { provider, graph: chain.graph, issuers });
      const viaProvider = await traceOutflows(request, { provider, labels: chain.labelIndex, issuers });
      // The same facts; only the chain requests they cite differ (pages fetched, or the preloaded graph).
      const facts = (result: typeof viaGraph) =>
        withoutSources({ ...result, budget: { ...result.budget, edges_read: null, expansions: null } });
      expect(facts(viaProvider), `seed ${seed}`).toEqual(facts(viaGraph));
      cases++;
    }
    expect(cases).toBe(60);
    // The cases must meet terminals, not only traces that never reach one.
    expect(terminals).toBeGreaterThan(20);
  }, 60_000);
});
