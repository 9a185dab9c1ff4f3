/**
 * The sweep's per-address tables: ledger ids and running balances in address records, or (for a graph
 * too large for those) in a Map and an array of the sweep's own; and a set of tables reused across
 * sweeps, which `resetSweepTables` must bring back to exactly what a fresh set holds.
 */
import { describe, expect, it } from "vitest";
import {
  computeTraceOnGraph,
  createSweepTables,
  DiscoveryState,
  generateSyntheticChain,
  resetSweepTables,
  runSweep,
  type SweepResult,
  type SweepTables,
  TaintLedger,
  type TaintModel,
  type TraceComputation,
} from "../../src/index";
import { resetWalkTables, runEventOrderTrace } from "../../src/tracing/event-order";

const MODELS: TaintModel[] = ["fifo", "haircut", "poison"];
const chain = generateSyntheticChain({ seed: 21, users: 300, events: 6_000, scenarios: 1 });
const { graph } = chain;

function worstCase(model: TaintModel): TraceComputation {
  return computeTraceOnGraph(
    graph,
    {
      network: chain.network,
      subjects: chain.busiestUsers.slice(0, 8).map((address) => ({ address, incident_block: 1n, source_refs: [] })),
      max_hops: 6,
      taint_model: model,
      traced_at: "2026-07-05T12:00:00.000Z",
    },
    // Discovery's state is what the sweep reads.
    { budget: { max_expansions: 1_000_000, max_edges: 10_000_000, hub_event_limit: 10_000_000 }, engine: "discovery" },
  );
}

function sweepWith(computation: TraceComputation, tables: SweepTables): { sweep: SweepResult; ledger: TaintLedger } {
  const ledger = new TaintLedger(computation.request.taint_model);
  const balanceAt = graph.balanceAt!;
  const sweep = runSweep({
    graph,
    state: computation.state,
    tables,
    ledger,
    maxHops: computation.request.max_hops,
    minValueOf: () => computation.request.min_value_default,
    openingBalance: (node, asset, block) => balanceAt(node, asset, block),
    genesisBalance: (node, asset) => balanceAt(node, asset, -1),
    signal: undefined,
    lastBlock: graph.block[graph.eventCount - 1]!,
    labelsOf: (node) => graph.nodeLabels?.(node) ?? [],
  });
  return { sweep, ledger };
}

function plain({ sweep, ledger }: { sweep: SweepResult; ledger: TaintLedger }) {
  return {
    edges: [sweep.edgeEvent, sweep.edgeTaint, sweep.edgeHop],
    reach: [[...sweep.hopNow], [...sweep.parentEdge]],
    entries: sweep.entries,
    entryOf: sweep.entries.map(([node, asset]) => sweep.entryOf(node, asset)),
    opening: sweep.opening,
    receivedBy: [...sweep.receivedBy].sort((a, b) => a[0] - b[0]),
    totals: sweep.totals,
    ledger: sweep.entries.map(([, , id]) => [
      ledger.taintHeld(id),
      ledger.balanceHeld(id),
      ledger.shortfallOf(id),
      ledger.isTainted(id),
    ]),
  };
}

function columns(tables: SweepTables) {
  return {
    openBlock: [...tables.openBlock],
    pairRec: tables.pairRec ? [...tables.pairRec] : null,
    hopNow: [...tables.hopNow],
    parentEdge: [...tables.parentEdge],
    openEdge: [...tables.openEdge],
    ledgerSlot: [...tables.ledgerSlot],
  };
}

describe("sweep tables", () => {
  it("gives the same sweep with ledger ids and running balances kept apart as in the address records", () => {
    for (const model of MODELS) {
      const computation = worstCase(model);
      const tables = createSweepTables(graph.nodeCount, graph.assets.length);
      expect(tables.pairRec).not.toBeNull();
      const inRecords = plain(sweepWith(computation, tables));
      const apart = plain(
        sweepWith(computation, { ...createSweepTables(graph.nodeCount, graph.assets.length), pairRec: null }),
      );
      expect(inRecords.entries.length).toBeGreaterThan(100);
      expect(apart).toEqual(inRecords);
    }
  });

  it("restores reused tables to exactly what a fresh set holds, and a second sweep over them gives the same result", () => {
    const fresh = columns(createSweepTables(graph.nodeCount, graph.assets.length));
    const tables = createSweepTables(graph.nodeCount, graph.assets.length);
    for (const model of MODELS) {
      const computation = worstCase(model);
      const first = sweepWith(computation, tables);
      expect(columns(tables)).not.toEqual(fresh);
      const firstPlain = plain(first);
      resetSweepTables(
        tables,
        graph,
        computation.state,
        first.sweep.edgeEvent,
        first.sweep.entryNode,
        first.sweep.entryAsset,
      );
      expect(columns(tables)).toEqual(fresh);
      const second = sweepWith(computation, tables);
      expect(plain(second)).toEqual(firstPlain);
      resetSweepTables(
        tables,
        graph,
        computation.state,
        second.sweep.edgeEvent,
        second.sweep.entryNode,
        second.sweep.entryAsset,
      );
    }
  });

  it("restores the tables and discovery state an event-order walk wrote to exactly what fresh ones hold", () => {
    const fresh = columns(createSweepTables(graph.nodeCount, graph.assets.length));
    const state = new DiscoveryState(6);
    state.ensureCapacity(graph.nodeCount);
    const freshState = stateColumns(state);
    const tables = createSweepTables(graph.nodeCount, graph.assets.length);
    for (const model of MODELS) {
      for (const address of chain.busiestUsers.slice(0, 8)) state.addSubject(graph.nodeOf(address)!, 1);
      const sweep = runEventOrderTrace({
        graph,
        state,
        tables,
        ledger: new TaintLedger(model),
        genesisLimbs: graph.genesisLimbs!,
        maxHops: 6,
        minValueOf: () => 1n,
        labelsOf: graph.nodeLabels!,
        hubEventLimit: 10_000_000,
        maxExpansions: 1_000_000,
        maxEdges: 10_000_000,
        deadlineReached: () => false,
        signal: undefined,
        lastBlock: graph.block[graph.eventCount - 1]!,
      })!;
      expect(sweep.entryNode.length).toBeGreaterThan(100);
      expect(columns(tables)).not.toEqual(fresh);
      resetWalkTables(tables, state);
      expect(columns(tables)).toEqual(fresh);
      expect(stateColumns(state)).not.toEqual(freshState);
      state.reset(6);
      expect(stateColumns(state)).toEqual(freshState);
    }
  });
});

function stateColumns(state: DiscoveryState) {
  const { minHop, arrivalBlock, arrivalSub, arrivalTime, scannedHop, scanBlock, scanSub, loadedFrom } = state;
  const { admittedFrom, flags, queuedAt, arrivalRank, scanRank, touched, expanded, labelOf } = state;
  return [minHop, arrivalBlock, arrivalSub, arrivalTime, scannedHop, scanBlock, scanSub, loadedFrom, admittedFrom]
    .concat([flags, queuedAt, arrivalRank, scanRank])
    .map((column) => [...column])
    .concat([[...touched], [...expanded], [...labelOf.keys()]]);
}
