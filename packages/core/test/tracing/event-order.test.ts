/**
 * The event-order walk merges the open addresses' event lists while they are few and scans every
 * event once they are many; where it switches must not change anything it produces, budgets and
 * truncation included. Each case runs the walk merging to the end, scanning after its first event, and
 * switching where it chooses, and compares everything.
 */
import { describe, expect, it } from "vitest";
import {
  assetKey,
  computeTraceOnGraph,
  createSweepTables,
  DiscoveryState,
  generateSyntheticChain,
  normalizeTraceRequest,
  releaseTraceComputation,
  Sfc32,
  type SyntheticChain,
  TaintLedger,
  type TaintModel,
  type TraceBudget,
  type TraceComputation,
  type TraceRequest,
} from "../../src/index";
import { runEventOrderTrace, SCAN_RATIO } from "../../src/tracing/event-order";
import { DEFAULT_BUDGET } from "../../src/tracing/trace";

const TRACED_AT = "2026-07-05T12:00:00.000Z";
const MODELS: TaintModel[] = ["fifo", "haircut", "poison"];

function walk(chain: SyntheticChain, request: TraceRequest, budget: TraceBudget, toBlock: number, scanRatio: number) {
  const { graph } = chain;
  const normalized = normalizeTraceRequest(request);
  const limits = { ...DEFAULT_BUDGET, ...budget };
  const state = new DiscoveryState(normalized.max_hops);
  state.ensureCapacity(graph.nodeCount);
  for (const subject of normalized.subjects) {
    const node = graph.nodeOf(subject.address);
    if (node !== undefined) state.addSubject(node, subject.incident_block);
  }
  const minimums = graph.assets.map(
    (asset) => normalized.min_value_per_asset[assetKey(asset)] ?? normalized.min_value_default,
  );
  const ledger = new TaintLedger(normalized.taint_model);
  const sweep = runEventOrderTrace({
    graph,
    state,
    tables: createSweepTables(graph.nodeCount, graph.assets.length),
    ledger,
    genesisLimbs: graph.genesisLimbs!,
    maxHops: normalized.max_hops,
    minValueOf: (a) => minimums[a]!,
    labelsOf: graph.nodeLabels!,
    hubEventLimit: limits.hub_event_limit,
    maxExpansions: limits.max_expansions,
    maxEdges: limits.max_edges,
    deadlineReached: () => false,
    signal: undefined,
    lastBlock: toBlock,
    scanRatio,
  });
  expect(sweep).not.toBeNull();
  const n = graph.nodeCount;
  return {
    flags: [...state.flags.subarray(0, n)],
    minHop: [...state.minHop.subarray(0, n)],
    arrivalBlock: [...state.arrivalBlock.subarray(0, n)],
    labelOf: [...state.labelOf.keys()].sort((a, b) => a - b),
    expanded: [...state.expanded],
    expansions: state.expansions,
    edgesAdmitted: state.edgesAdmitted,
    truncation: [...state.truncation].sort(),
    edgeEvent: [...sweep!.edgeEvent],
    edgeTaint: sweep!.edgeTaint,
    edgeHop: [...sweep!.edgeHop],
    hopNow: [...sweep!.hopNow],
    parentEdge: [...sweep!.parentEdge],
    openEdge: [...sweep!.openEdge],
    entries: sweep!.entries,
    opening: sweep!.opening,
    receivedBy: [...sweep!.receivedBy].sort((a, b) => a[0] - b[0]),
    totals: sweep!.totals,
    ledger: sweep!.entries.map(([, , id]) => [
      ledger.taintHeld(id),
      ledger.balanceHeld(id),
      ledger.shortfallOf(id),
      ledger.isTainted(id),
    ]),
  };
}

describe("event-order walk", () => {
  it("gives the same trace whether it merges event lists, scans every event, or switches between them", () => {
    let edges = 0;
    let truncated = 0;
    let cases = 0;
    for (const seed of [4, 5, 6]) {
      const chain = generateSyntheticChain({ seed, users: 300, events: 5_000, scenarios: 1 });
      const rng = new Sfc32(seed, "event-order");
      const lastBlock = chain.graph.block[chain.graph.eventCount - 1]!;
      for (let round = 0; round < 12; round++) {
        const fromScenarios = round % 3 === 0;
        const subjects = fromScenarios
          ? chain.scenarios.map((s) => ({
              address: s.subject,
              incident_block: BigInt(s.incident_block),
              source_refs: [],
            }))
          : chain.busiestUsers
              .slice(0, rng.int(1, 10))
              .map((address) => ({ address, incident_block: BigInt(rng.int(0, 60)), source_refs: [] }));
        const request: TraceRequest = {
          network: chain.network,
          subjects,
          max_hops: rng.int(1, 7),
          taint_model: MODELS[round % 3]!,
          min_value: round % 4 === 1 ? { default: 10n ** BigInt(rng.int(3, 18)) } : undefined,
          traced_at: TRACED_AT,
        };
        const budgets: TraceBudget[] = [
          {},
          { max_expansions: rng.int(1, 80) },
          { max_edges: rng.int(10, 4_000) },
          { hub_event_limit: rng.int(5, 200) },
        ];
        const budget = budgets[round % budgets.length]!;
        const toBlock = round % 5 === 4 ? rng.int(Math.floor(lastBlock / 2), lastBlock) : lastBlock;
        const chosen = walk(chain, request, budget, toBlock, SCAN_RATIO);
        expect(walk(chain, request, budget, toBlock, Number.POSITIVE_INFINITY)).toEqual(chosen);
        expect(walk(chain, request, budget, toBlock, 0)).toEqual(chosen);
        edges += chosen.edgeEvent.length;
        if (chosen.truncation.length > 0) truncated++;
        cases++;
      }
    }
    expect(cases).toBe(36);
    // The cases must trace something, and some must hit a budget.
    expect(edges).toBeGreaterThan(1_000);
    expect(truncated).toBeGreaterThan(3);
  }, 120_000);

  it("gives the same trace on arrays pooled from earlier traces as on fresh ones", () => {
    // Two copies of one chain: traces over the first reuse its pooled arrays, those over the second
    // never give theirs back, so each allocates afresh.
    const pooled = generateSyntheticChain({ seed: 8, users: 300, events: 5_000, scenarios: 1 });
    const fresh = generateSyntheticChain({ seed: 8, users: 300, events: 5_000, scenarios: 1 });
    const rng = new Sfc32(8, "pooled");
    const lastBlock = pooled.graph.block[pooled.graph.eventCount - 1]!;
    const facts = (computation: TraceComputation) => {
      const { state, sweep, ledger, graph } = computation;
      const n = graph.nodeCount;
      return {
        flags: [...state.flags.subarray(0, n)],
        minHop: [...state.minHop.subarray(0, n)],
        labelOf: [...state.labelOf.keys()].sort((a, b) => a - b),
        expansions: state.expansions,
        edgesAdmitted: state.edgesAdmitted,
        truncation: [...state.truncation].sort(),
        edgeEvent: [...sweep.edgeEvent],
        edgeTaint: sweep.edgeTaint,
        hopNow: [...sweep.hopNow],
        parentEdge: [...sweep.parentEdge],
        openEdge: [...sweep.openEdge],
        entries: sweep.entries,
        opening: sweep.opening,
        totals: sweep.totals,
        ledger: sweep.entries.map(([, , id]) => [ledger.taintHeld(id), ledger.balanceHeld(id), ledger.isTainted(id)]),
      };
    };
    let edges = 0;
    for (let round = 0; round < 24; round++) {
      const subjects = pooled.busiestUsers
        .slice(0, rng.int(1, 12))
        .map((address) => ({ address, incident_block: BigInt(rng.int(0, 60)), source_refs: [] }));
      const request: TraceRequest = {
        network: pooled.network,
        subjects,
        max_hops: rng.int(1, 7),
        taint_model: MODELS[round % 3]!,
        traced_at: TRACED_AT,
      };
      const budget: TraceBudget = round % 4 === 1 ? { max_expansions: rng.int(1, 80) } : {};
      const toBlock = round % 5 === 4 ? rng.int(Math.floor(lastBlock / 2), lastBlock) : lastBlock;
      const engine = round % 6 === 5 ? ("discovery" as const) : ("event-order" as const);
      const reused = computeTraceOnGraph(pooled.graph, request, { budget, toBlock, engine });
      const allocated = computeTraceOnGraph(fresh.graph, request, { budget, toBlock, engine });
      expect(facts(reused), `round ${round}`).toEqual(facts(allocated));
      edges += reused.sweep.edgeEvent.length;
      releaseTraceComputation(reused);
    }
    expect(edges).toBeGreaterThan(1_000);
  }, 120_000);

  it("keeps a computation's entries and opening balances while another trace over the same graph runs", () => {
    // Entries, their addresses and opening balances live in columns of a pooled ledger: a second trace
    // begun before the first is released must take other columns, not write over the first's.
    const chain = generateSyntheticChain({ seed: 11, users: 300, events: 5_000, scenarios: 1 });
    const request = (model: TaintModel, count: number): TraceRequest => ({
      network: chain.network,
      subjects: chain.busiestUsers.slice(0, count).map((address) => ({ address, incident_block: 0n, source_refs: [] })),
      max_hops: 6,
      taint_model: model,
      traced_at: TRACED_AT,
    });
    const entriesOf = (computation: TraceComputation) => ({
      entries: computation.sweep.entries,
      opening: computation.sweep.opening,
      held: computation.sweep.entries.map(([, , id]) => computation.ledger.taintHeld(id)),
    });
    const alone = computeTraceOnGraph(chain.graph, request("fifo", 3));
    const expected = entriesOf(alone);
    releaseTraceComputation(alone);
    expect(expected.entries.length).toBeGreaterThan(20);

    const first = computeTraceOnGraph(chain.graph, request("fifo", 3));
    const second = computeTraceOnGraph(chain.graph, request("poison", 9));
    expect(second.sweep.entryNode.length).toBeGreaterThan(expected.entries.length);
    expect(entriesOf(first)).toEqual(expected);
    releaseTraceComputation(second);
    releaseTraceComputation(first);
  });
});
