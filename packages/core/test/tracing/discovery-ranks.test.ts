/**
 * Discovery compares moments by time rank (transfer-graph.ts `timeRankOf`, `TimeIndex.outRank`) instead
 * of (block, sub) pairs, and keeps the ranks of one graph snapshot. These tests hold it to the engine it
 * replaced (test/tracing/oracle/discovery.ts): over fetched snapshots, where event ids shift as earlier
 * events arrive, and over events that share a moment.
 */
import { describe, expect, it } from "vitest";
import {
  AMOUNT_OVERFLOW,
  amountOf,
  DiscoveryState,
  encodeSub,
  type FetchRequest,
  generateSyntheticChain,
  runDiscovery,
  Sfc32,
  type SyntheticChain,
  SyntheticChainProvider,
  type Transfer,
  type TransferGraph,
  TransferGraphBuilder,
  timeIndexOf,
  timeRankOf,
} from "../../src/index";
import { DiscoveryState as OracleState, runDiscovery as oracleDiscovery } from "./oracle/discovery";

interface Engine {
  newState: (maxHops: number) => DiscoveryState | OracleState;
  run: (
    graph: TransferGraph,
    state: DiscoveryState | OracleState,
    limits: Parameters<typeof runDiscovery>[2],
    labelsOf: (node: number) => ReturnType<NonNullable<TransferGraph["nodeLabels"]>>,
  ) => FetchRequest[];
}
const engines: Record<"optimised" | "oracle", Engine> = {
  optimised: {
    newState: (maxHops) => new DiscoveryState(maxHops),
    run: (graph, state, limits, labelsOf) => runDiscovery(graph, state as DiscoveryState, limits, labelsOf),
  },
  oracle: {
    newState: (maxHops) => new OracleState(maxHops),
    run: (graph, state, limits, labelsOf) => oracleDiscovery(graph, state as OracleState, limits, labelsOf),
  },
};

function snapshot(state: DiscoveryState | OracleState, nodeCount: number) {
  return {
    minHop: [...state.minHop.subarray(0, nodeCount)],
    arrivalBlock: [...state.arrivalBlock.subarray(0, nodeCount)],
    arrivalSub: [...state.arrivalSub.subarray(0, nodeCount)],
    arrivalTime: [...state.arrivalTime.subarray(0, nodeCount)],
    // Terminals among the flags; discovery no longer keeps labels (the sweep reads them when taint arrives).
    flags: [...state.flags.subarray(0, nodeCount)],
    expansions: state.expansions,
    edgesAdmitted: state.edgesAdmitted,
    truncation: [...state.truncation].sort(),
  };
}

/**
 * Discovery as the live provider path runs it (trace.ts computeTraceOverProvider): an empty graph, then
 * the events each round asks for, a new snapshot per round. Returns every round's requests and the end state.
 */
async function discoverByFetching(
  engine: Engine,
  chain: SyntheticChain,
  subjects: Array<{ address: string; incidentBlock: number }>,
  options: { maxHops: number; hubEventLimit: number; maxEdges: number; maxExpansions: number; lastBlock: number },
) {
  const provider = new SyntheticChainProvider(chain, { pageSize: 7 });
  const builder = new TransferGraphBuilder(chain.network);
  const state = engine.newState(options.maxHops);
  for (const subject of subjects) state.addSubject(builder.internAddress(subject.address), subject.incidentBlock);
  const labelsOf = (node: number) => {
    const own = chain.graph.nodeOf(builder.addressOf(node));
    return own === undefined ? [] : chain.graph.nodeLabels!(own);
  };
  const rounds: FetchRequest[][] = [];
  let graph = builder.build();
  for (;;) {
    const pending = engine.run(
      graph,
      state,
      {
        maxHops: options.maxHops,
        minValueOf: () => 1n,
        hubEventLimit: options.hubEventLimit,
        maxExpansions: options.maxExpansions,
        maxEdges: options.maxEdges,
        deadlineReached: () => false,
        signal: undefined,
        complete: false,
        lastBlock: options.lastBlock,
      },
      labelsOf,
    );
    if (pending.length === 0) break;
    rounds.push(pending.map((request) => ({ ...request })));
    for (const request of pending) {
      let cursor: string | null = null;
      let fetched = 0;
      do {
        const page = await provider.transfers({
          address: builder.addressOf(request.node),
          fromBlock: BigInt(request.fromBlock),
          toBlock: BigInt(Math.min(request.toBlock, options.lastBlock)),
          cursor,
        });
        for (const transfer of page.items) builder.addTransfer(transfer);
        fetched += page.items.length;
        cursor = page.next;
      } while (cursor !== null && fetched < request.maxEvents);
      state.loadedFrom[request.node] = request.fromBlock;
    }
    graph = builder.build();
    state.ensureCapacity(graph.nodeCount);
  }
  return { rounds, state: snapshot(state, graph.nodeCount) };
}

const network = "synthetic:ranks";
const asset = { kind: "native" as const, contract: null, decimals: 18, symbol: "ETH" };
const source = {
  provider: "test",
  method: "test",
  request_hash: "0",
  block_range: null,
  fetched_at: "2026-01-01T00:00:00.000Z",
  finalized: true,
  uri: null,
};
const a = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const transfer = (hash: number, from: number, to: number, block: number, txIndex: number, amount = 10n): Transfer => ({
  network,
  tx_hash: `0x${hash.toString(16).padStart(64, "0")}`,
  event_index: -1,
  block: BigInt(block),
  block_time: 1_767_225_600 + block * 12,
  tx_index: txIndex,
  from: a(from),
  to: a(to),
  asset,
  amount,
  source_ref: source,
});

describe("discovery by time rank", () => {
  it("asks for the same fetches and ends in the same state as the previous engine over fetched snapshots", async () => {
    let cases = 0;
    let fetchRounds = 0;
    for (const seed of [11, 12, 13]) {
      const chain = generateSyntheticChain({ seed, users: 150, events: 2_500, scenarios: 1 });
      const rng = new Sfc32(seed, "discovery-ranks");
      const lastBlock = chain.graph.block[chain.graph.eventCount - 1]!;
      for (let round = 0; round < 6; round++) {
        // Incident blocks inside the history, so subjects' outflows before them must stay unread, and
        // events fetched later land before ones already held (event ids shift between snapshots).
        const subjects = chain.busiestUsers.slice(0, rng.int(1, 6)).map((address) => ({
          address,
          incidentBlock: rng.int(0, Math.floor(lastBlock / 2)),
        }));
        const options = {
          maxHops: rng.int(1, 7),
          hubEventLimit: round % 3 === 1 ? rng.int(5, 60) : 1_000_000,
          maxEdges: round % 3 === 2 ? rng.int(50, 2_000) : 10_000_000,
          maxExpansions: 1_000_000,
          lastBlock: round % 2 === 1 ? rng.int(Math.floor(lastBlock / 2), lastBlock) : lastBlock,
        };
        const optimised = await discoverByFetching(engines.optimised, chain, subjects, options);
        const oracle = await discoverByFetching(engines.oracle, chain, subjects, options);
        expect(optimised).toEqual(oracle);
        fetchRounds += optimised.rounds.length;
        cases++;
      }
    }
    expect(cases).toBe(18);
    // The cases must resume over several snapshots, not stop after the first fetch.
    expect(fetchRounds).toBeGreaterThan(3 * cases);
  }, 60_000);

  it("keeps each outflow's amount bit length beside it, overflowing amounts above every 64-bit one", () => {
    const amounts = [0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 64n - 2n, AMOUNT_OVERFLOW, 2n ** 70n];
    const builder = new TransferGraphBuilder(network);
    for (const [i, amount] of amounts.entries()) builder.addTransfer(transfer(i + 1, 1, 2, i + 1, 0, amount));
    const graph = builder.build();
    const index = timeIndexOf(graph);
    const bits = [...index.outEvent].map((e, i) => [amountOf(graph, e), index.outBits[i]]);
    expect(bits).toEqual(amounts.map((amount, i) => [amount, [0, 1, 32, 33, 64, 65, 65][i]]));
  });

  it("treats events at the same (block, sub) as one moment, as the (block, sub) comparison did", () => {
    const builder = new TransferGraphBuilder(network);
    // Node 1 receives at (block 5, tx 0) from two senders in two transactions that claim the same
    // position; its outflow in that same position must not be followed, the one at tx 1 must. Node 3
    // likewise receives and sends at (block 5, tx 1): only its later outflow is followed.
    for (const t of [
      transfer(1, 9, 1, 5, 0),
      transfer(2, 8, 1, 5, 0),
      transfer(3, 1, 2, 5, 0),
      transfer(4, 1, 3, 5, 1),
      transfer(5, 3, 4, 5, 1),
      transfer(6, 3, 5, 6, 0),
      transfer(7, 2, 6, 7, 0),
    ]) {
      builder.addTransfer(t);
    }
    const graph = builder.build();
    const sameMoment = graph.block.findIndex((b, e) => b === 5 && graph.sub[e] === encodeSub(0, -1));
    expect(timeRankOf(graph, 5, encodeSub(0, -1))).toBe(sameMoment);
    expect(timeRankOf(graph, 5, -1)).toBe(sameMoment - 0.5);
    expect(timeRankOf(graph, 6, encodeSub(5, 0))).toBe(graph.block.indexOf(7) - 0.5);
    expect(timeRankOf(graph, 99, 0)).toBe(graph.eventCount - 0.5);
    expect(timeRankOf(graph, Number.POSITIVE_INFINITY, 0)).toBe(Number.POSITIVE_INFINITY);
    const index = timeIndexOf(graph);
    for (let i = 0; i < graph.eventCount; i++) {
      const e = index.outEvent[i]!;
      expect(index.outRank[i]).toBe(timeRankOf(graph, graph.block[e]!, graph.sub[e]!));
    }

    const ends: Array<ReturnType<typeof snapshot>> = [];
    for (const engine of [engines.optimised, engines.oracle]) {
      const state = engine.newState(4);
      state.ensureCapacity(graph.nodeCount);
      for (const sender of [9, 8]) state.addSubject(graph.nodeOf(a(sender))!, 0);
      engine.run(
        graph,
        state,
        {
          maxHops: 4,
          minValueOf: () => 1n,
          hubEventLimit: 1_000,
          maxExpansions: 1_000,
          maxEdges: 1_000,
          deadlineReached: () => false,
          signal: undefined,
          complete: true,
          lastBlock: 7,
        },
        () => [],
      );
      ends.push(snapshot(state, graph.nodeCount));
    }
    expect(ends[0]).toEqual(ends[1]);
    const reached = (n: number) => ends[0]!.minHop[graph.nodeOf(a(n))!]!;
    expect([reached(1), reached(3), reached(5)]).toEqual([1, 2, 3]);
    expect([reached(2), reached(4), reached(6)]).toEqual([255, 255, 255]);
  });
});
