/**
 * `pnpm bench:trace`: the trace engine over a synthetic chain of more than 1M transfer events,
 * beside a bare typed-array BFS over the same graph in the same run.
 *
 * - Graph: `generateSyntheticChain` (seed 42, 200k users, 1M background events plus scenarios).
 * - Baseline: hop-limited BFS over an out-edge CSR from the same subjects (no time order, no
 *   amounts, no labels): a floor for "touching the reachable part of the graph once". Its arrays are
 *   allocated once and restored after each run, as the engine's are pooled. A second
 *   floor, the same reach respecting time in one pass over the events in time order, is printed
 *   beside it: what a time-respecting trace cannot avoid (every event is looked at once).
 * - Engine, worst case (a stress figure): the 50 busiest users as subjects from block 1, max_hops 7, no
 *   hub limit and no budget, so the trace covers most of the graph. `computeTraceOnGraph` = the
 *   event-order walk with exact taint, its arrays given back after each run as `traceOutflows`
 *   does; the full `traceOutflows` (result assembly with every edge as a JSON object) is timed once on
 *   its own. "discovery only" is the first half of the engine a provider's trace runs (discovery, then
 *   the sweep), over the same graph. Under each case, its ledger floor: the addresses that case opened,
 *   at the events that opened them, each event moving only their exact balances; the engine's own
 *   overhead is its time over that floor, and the floor over the BFS is what exact time-ordered
 *   ledgers cost that a BFS does not.
 * - Engine, typical (what the 2x aim is held to; ARCHITECTURE.md, "The trace engine", says why not the
 *   stress case): the planted peel-chain subjects with default settings, full `traceOutflows`; then
 *   the engine alone (`computeTraceOnGraph`) beside the bare BFS from the same subject at the same hops.
 *   The BFS is not bound by time, so from one subject it reaches far more of the graph than the trace;
 *   the ratio says what a typical trace costs next to touching its subject's hop-limited neighbourhood once.
 * Timings are medians of BENCH_RUNS runs after one warm-up: wall time, and the process's CPU time
 * (steadier on a shared machine). Each engine case's ratios to the BFS and to its ledger floor are also
 * measured in back-to-back pairs (`pairedCpuRatio`), the figure to compare across runs: load from
 * elsewhere on the machine shifts whole phases of the bench, rarely one pair. Memory: RSS, V8 heap and array buffers (typed arrays live outside
 * the V8 heap), sampled after each phase, and the peak RSS of the process.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import {
  AMOUNT_HI_WORD,
  AMOUNT_LO_WORD,
  amountWords,
  computeTraceOnGraph,
  createIssuerRegistry,
  DiscoveryState,
  generateSyntheticChain,
  releaseTraceComputation,
  runDiscovery,
  SyntheticChainProvider,
  type TaintModel,
  type TraceComputation,
  type TransferGraph,
  traceOutflows,
} from "@crs/core";
import { z } from "zod";

/** Unset and empty are the same. */
const setting = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(min).max(max).default(fallback),
  );
const Config = z.object({
  BENCH_RUNS: setting(5, 1, 50),
  BENCH_USERS: setting(200_000, 1_000, 2_000_000),
  /** background transfer events; scenario events come on top */
  BENCH_EVENTS: setting(1_000_000, 10_000, 20_000_000),
  /** a directory: write a V8 CPU profile of each engine case there (bench/top-frames.ts reads it) */
  BENCH_CPU_PROF_DIR: z.string().optional(),
});
const config = Config.parse(process.env);
const RUNS = config.BENCH_RUNS;
const USERS = config.BENCH_USERS;
const EVENTS = config.BENCH_EVENTS;
const TRACED_AT = "2026-07-05T12:00:00.000Z";

const PROFILE_DIR = config.BENCH_CPU_PROF_DIR || undefined;
let session: Session | undefined;
if (PROFILE_DIR) {
  mkdirSync(PROFILE_DIR, { recursive: true });
  session = new Session();
  session.connect();
  await session.post("Profiler.enable");
}

/** Profiles `run` into PROFILE_DIR/<name>.cpuprofile when profiling is on. */
async function profiled<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  if (!session) return run();
  await session.post("Profiler.start");
  const value = await run();
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(join(PROFILE_DIR!, `${name}.cpuprofile`), JSON.stringify(profile));
  return value;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
let peakHeap = 0;
let peakBuffers = 0;
function memory(label: string): void {
  const usage = process.memoryUsage();
  peakHeap = Math.max(peakHeap, usage.heapUsed);
  peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
  console.log(
    `  memory after ${label}: rss ${mib(usage.rss)}, heap used ${mib(usage.heapUsed)}, array buffers ${mib(usage.arrayBuffers)}`,
  );
}

function time<T>(run: () => T): { ms: number; value: T } {
  const start = process.hrtime.bigint();
  const value = run();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

async function timeAsync<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await run();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Median wall time and median CPU time (user + system of this process) of RUNS runs after one
 * warm-up. On a shared machine the CPU time is the steadier of the two.
 */
function repeat<T>(run: () => T): { ms: number; cpuMs: number; value: T } {
  run();
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  let value!: T;
  for (let i = 0; i < RUNS; i++) {
    const cpu = process.cpuUsage();
    const result = time(run);
    const used = process.cpuUsage(cpu);
    samples.push(result.ms);
    cpuSamples.push((used.user + used.system) / 1000);
    value = result.value;
  }
  return { ms: median(samples), cpuMs: median(cpuSamples), value };
}

/**
 * The CPU-time ratio of `run` to `baseline` measured in pairs: RUNS rounds, each timing both back to
 * back (which goes first alternates), so a burst of load from elsewhere on the machine falls on both
 * sides of a pair instead of on one phase of the bench. Returns the median of the per-pair ratios and
 * their range. On these shared machines two phases run a minute apart can differ by half; a pair rarely does.
 */
function pairedCpuRatio(baseline: () => unknown, run: () => unknown): { median: number; low: number; high: number } {
  baseline();
  run();
  const cpuOf = (work: () => unknown) => {
    const before = process.cpuUsage();
    work();
    const used = process.cpuUsage(before);
    return used.user + used.system;
  };
  const ratios: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let base: number;
    let measured: number;
    if (i % 2 === 0) {
      base = cpuOf(baseline);
      measured = cpuOf(run);
    } else {
      measured = cpuOf(run);
      base = cpuOf(baseline);
    }
    ratios.push(measured / base);
  }
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

/** Out-edge CSR (target per edge) for the baseline. */
function buildOutCsr(graph: TransferGraph): { offset: Uint32Array; target: Uint32Array } {
  const offset = new Uint32Array(graph.nodeCount + 1);
  for (let e = 0; e < graph.eventCount; e++) offset[graph.from[e]! + 1]!++;
  for (let n = 0; n < graph.nodeCount; n++) offset[n + 1]! += offset[n]!;
  const cursor = offset.slice(0, graph.nodeCount);
  const target = new Uint32Array(graph.eventCount);
  for (let e = 0; e < graph.eventCount; e++) target[cursor[graph.from[e]!]!++] = graph.to[e]!;
  return { offset, target };
}

/**
 * The BFS's per-address arrays, allocated once and restored after each run (only where it ran), as the
 * engine's are pooled across traces: neither side pays per trace for allocating and zeroing arrays the
 * size of the graph, which would be most of a small trace's BFS.
 */
interface BfsScratch {
  visited: Uint8Array;
  frontier: Uint32Array;
  next: Uint32Array;
  reached: Uint32Array;
}

function bfsScratch(nodeCount: number): BfsScratch {
  return {
    visited: new Uint8Array(nodeCount),
    frontier: new Uint32Array(nodeCount),
    next: new Uint32Array(nodeCount),
    reached: new Uint32Array(nodeCount),
  };
}

/** Bare hop-limited BFS; returns [edges scanned, nodes reached]. */
function bareBfs(
  csr: { offset: Uint32Array; target: Uint32Array },
  scratch: BfsScratch,
  seeds: number[],
  hops: number,
) {
  const { visited, reached: reachedList } = scratch;
  let { frontier, next } = scratch;
  let size = 0;
  for (const seed of seeds) {
    if (visited[seed]) continue;
    visited[seed] = 1;
    frontier[size++] = seed;
    reachedList[size - 1] = seed;
  }
  let reached = size;
  let scanned = 0;
  for (let depth = 0; depth < hops && size > 0; depth++) {
    let nextSize = 0;
    for (let i = 0; i < size; i++) {
      const u = frontier[i]!;
      const end = csr.offset[u + 1]!;
      for (let k = csr.offset[u]!; k < end; k++) {
        scanned++;
        const v = csr.target[k]!;
        if (visited[v] === 0) {
          visited[v] = 1;
          next[nextSize++] = v;
          reachedList[reached + nextSize - 1] = v;
        }
      }
    }
    reached += nextSize;
    [frontier, next] = [next, frontier];
    size = nextSize;
  }
  for (let i = 0; i < reached; i++) visited[reachedList[i]!] = 0;
  return [scanned, reached] as const;
}

/**
 * The second floor: the same subjects' hop-limited reach respecting time, in one pass over the events
 * in time order (an event carries funds on only if its sender was reached by an earlier one). No
 * amounts, labels, thresholds or fetching: the least any time-respecting trace must do. Returns
 * [events scanned, addresses reached].
 */
function bareTemporalReach(graph: TransferGraph, seeds: number[], hops: number) {
  const hop = new Uint8Array(graph.nodeCount).fill(255);
  for (const seed of seeds) hop[seed] = 0;
  let reached = new Set(seeds).size;
  const { from, to } = graph;
  for (let e = 0; e < graph.eventCount; e++) {
    const next = hop[from[e]!]! + 1;
    if (next > hops) continue;
    const v = to[e]!;
    if (next < hop[v]!) {
      if (hop[v] === 255) reached++;
      hop[v] = next;
    }
  }
  return [graph.eventCount, reached] as const;
}

/**
 * The third floor, per engine case: given when each address opens in the engine's trace (`openAt`,
 * an event index; NEVER if it does not), one pass over the events in time order in which every event
 * with an open end moves that end's exact balance (two 48-bit limbs in a record per address and asset).
 * No taint, lots, thresholds, hops, labels or edges: the memory traffic of per-address state touched in
 * time order, which any exact ledger of the same addresses pays and the BFS never does. Returns the
 * events that moved a balance.
 */
const NEVER = 0xffff_ffff;
function bareLedgerFloor(graph: TransferGraph, openAt: Uint32Array, records: Float64Array): number {
  const assets = Math.max(1, graph.assets.length);
  records.fill(0);
  let moved = 0;
  const { from, to, asset } = graph;
  const words = amountWords(graph);
  for (let e = 0; e < graph.eventCount; e++) {
    const f = from[e]!;
    const t = to[e]!;
    const fromOpen = openAt[f]! <= e;
    const toOpen = openAt[t]! <= e;
    if (!fromOpen && !toOpen) continue;
    moved++;
    const hiWord = words[2 * e + AMOUNT_HI_WORD]!;
    const high = hiWord >>> 16;
    const low = (hiWord & 0xffff) * 2 ** 32 + words[2 * e + AMOUNT_LO_WORD]!;
    const a = asset[e]!;
    if (fromOpen) {
      const r = 2 * (f * assets + a);
      let l = records[r + 1]! - low;
      let h = records[r]! - high;
      if (l < 0) {
        l += 2 ** 48;
        h -= 1;
      }
      records[r] = h;
      records[r + 1] = l;
    }
    if (toOpen) {
      const r = 2 * (t * assets + a);
      let l = records[r + 1]! + low;
      let h = records[r]! + high;
      if (l >= 2 ** 48) {
        l -= 2 ** 48;
        h += 1;
      }
      records[r] = h;
      records[r + 1] = l;
    }
  }
  return moved;
}

/** When each address opened in a computation: subjects from the start, others at the event that opened them. */
function openingSchedule(computation: TraceComputation): Uint32Array {
  const { graph, state, sweep } = computation;
  const openAt = new Uint32Array(graph.nodeCount).fill(NEVER);
  for (const node of state.expanded) openAt[node] = 0;
  for (let node = 0; node < graph.nodeCount; node++) {
    const edge = sweep.openEdge[node]!;
    if (edge >= 0) openAt[node] = sweep.edgeEvent[edge]!;
  }
  return openAt;
}

async function main(): Promise<void> {
  console.log(`trace bench: node ${process.version}, ${RUNS} runs per case (median), users ${USERS}, events ${EVENTS}`);
  memory("start");
  const generated = time(() => generateSyntheticChain({ seed: 42, users: USERS, events: EVENTS, scenarios: 2 }));
  const chain = generated.value;
  const { graph } = chain;
  console.log(
    `graph: ${graph.eventCount.toLocaleString("en")} events, ${graph.nodeCount.toLocaleString("en")} addresses, generated + CSR in ${generated.ms.toFixed(0)} ms`,
  );
  const columnBytes =
    graph.from.byteLength +
    graph.to.byteLength +
    graph.block.byteLength +
    graph.sub.byteLength +
    graph.time.byteLength +
    graph.asset.byteLength +
    graph.amountLow.byteLength +
    graph.incident.byteLength +
    graph.incidentOffset.byteLength;
  console.log(
    `  store: ${mib(columnBytes)} in typed arrays = ${(columnBytes / graph.eventCount).toFixed(1)} B/event (+ ${graph.amountHigh.size} amounts above 2^64 in a map)`,
  );
  memory("generation");

  const csrBuild = time(() => buildOutCsr(graph));
  const csr = csrBuild.value;
  console.log(`baseline out-CSR built in ${csrBuild.ms.toFixed(1)} ms`);

  const hubs = chain.busiestUsers.slice(0, 50);
  const hubNodes = hubs.map((address) => graph.nodeOf(address)!);
  const worstRequest = (model: TaintModel) => ({
    network: chain.network,
    subjects: hubs.map((address) => ({ address, incident_block: 1n, source_refs: [] })),
    max_hops: 7,
    taint_model: model,
    traced_at: TRACED_AT,
  });
  const unbounded = { max_expansions: 10_000_000, max_edges: 100_000_000, hub_event_limit: 100_000_000 };

  console.log("\nworst case: 50 busiest users, max_hops 7, no hub limit, no budget");
  const scratch = bfsScratch(graph.nodeCount);
  const baseline = repeat(() => bareBfs(csr, scratch, hubNodes, 7));
  const [bfsScanned, bfsReached] = baseline.value;
  console.log(
    `  bare BFS        ${baseline.ms.toFixed(1).padStart(8)} ms (cpu ${baseline.cpuMs.toFixed(1)} ms)  ${bfsScanned.toLocaleString("en")} out-edges scanned, ${bfsReached.toLocaleString("en")} addresses, ${((bfsScanned / baseline.ms) * 1000).toExponential(2)} edges/s`,
  );
  const temporal = repeat(() => bareTemporalReach(graph, hubNodes, 7));
  const [temporalScanned, temporalReached] = temporal.value;
  console.log(
    `  bare time order ${temporal.ms.toFixed(1).padStart(8)} ms (cpu ${temporal.cpuMs.toFixed(1)} ms)  ${temporalScanned.toLocaleString("en")} events in time order, ${temporalReached.toLocaleString("en")} addresses reached (hop-limited, funds leave only after they arrive)`,
  );
  const ledgerRecords = new Float64Array(2 * graph.nodeCount * Math.max(1, graph.assets.length));
  memory("baseline");
  const discoverOnly = () => {
    const state = new DiscoveryState(7);
    state.ensureCapacity(graph.nodeCount);
    for (const node of hubNodes) state.addSubject(node, 1);
    runDiscovery(
      graph,
      state,
      {
        maxHops: 7,
        minValueOf: () => 1n,
        hubEventLimit: unbounded.hub_event_limit,
        maxExpansions: unbounded.max_expansions,
        maxEdges: unbounded.max_edges,
        deadlineReached: () => false,
        signal: undefined,
        complete: true,
        lastBlock: graph.block[graph.eventCount - 1]!,
      },
      (node) => graph.nodeLabels!(node),
    );
    return state;
  };
  const discovery = await profiled("discovery", () => repeat(discoverOnly));
  console.log(
    `  discovery only  ${discovery.ms.toFixed(1).padStart(8)} ms (cpu ${discovery.cpuMs.toFixed(1)} ms)  a provider trace's discovery: ${discovery.value.edgesAdmitted.toLocaleString("en")} events admitted, ${discovery.value.expansions.toLocaleString("en")} addresses expanded; ${(discovery.ms / baseline.ms).toFixed(2)}x the BFS (cpu ${(discovery.cpuMs / baseline.cpuMs).toFixed(2)}x)`,
  );
  for (const model of ["poison", "fifo", "haircut"] as const) {
    const run = await profiled(`engine-${model}`, () =>
      repeat(() => {
        const computation = computeTraceOnGraph(graph, worstRequest(model), { budget: unbounded });
        const counts = {
          swept: computation.sweep.edgeEvent.length,
          admitted: computation.state.edgesAdmitted,
          opened: computation.state.expansions,
        };
        // As `traceOutflows` does once its result is assembled: the next trace reuses the arrays.
        releaseTraceComputation(computation);
        return counts;
      }),
    );
    const { swept, admitted, opened } = run.value;
    console.log(
      `  engine ${model.padEnd(8)} ${run.ms.toFixed(1).padStart(8)} ms (cpu ${run.cpuMs.toFixed(1)} ms)  event-order walk, exact taint; ${swept.toLocaleString("en")} tainted edges, ${opened.toLocaleString("en")} addresses opened; ${((admitted / run.ms) * 1000).toExponential(2)} events/s; ${(run.ms / baseline.ms).toFixed(2)}x the BFS (cpu ${(run.cpuMs / baseline.cpuMs).toFixed(2)}x), ${(run.cpuMs / temporal.cpuMs).toFixed(2)}x the time-ordered reach (cpu)`,
    );
    const bfsPaired = pairedCpuRatio(
      () => bareBfs(csr, scratch, hubNodes, 7),
      () => releaseTraceComputation(computeTraceOnGraph(graph, worstRequest(model), { budget: unbounded })),
    );
    console.log(
      `    paired with the BFS: ${bfsPaired.median.toFixed(2)}x the BFS (cpu, median of ${RUNS} back-to-back pairs; ${bfsPaired.low.toFixed(2)}-${bfsPaired.high.toFixed(2)}x)`,
    );
    const traced = computeTraceOnGraph(graph, worstRequest(model), { budget: unbounded });
    const schedule = openingSchedule(traced);
    releaseTraceComputation(traced);
    const floor = repeat(() => bareLedgerFloor(graph, schedule, ledgerRecords));
    const floorPaired = pairedCpuRatio(
      () => bareLedgerFloor(graph, schedule, ledgerRecords),
      () => releaseTraceComputation(computeTraceOnGraph(graph, worstRequest(model), { budget: unbounded })),
    );
    console.log(
      `    ledger floor  ${floor.ms.toFixed(1).padStart(8)} ms (cpu ${floor.cpuMs.toFixed(1)} ms)  the same addresses opened at the same events, each event moving only exact balances: ${floor.value.toLocaleString("en")} events; ${(floor.ms / baseline.ms).toFixed(2)}x the BFS (cpu ${(floor.cpuMs / baseline.cpuMs).toFixed(2)}x); the engine is ${(run.cpuMs / floor.cpuMs).toFixed(2)}x this floor (cpu), ${floorPaired.median.toFixed(2)}x in back-to-back pairs (${floorPaired.low.toFixed(2)}-${floorPaired.high.toFixed(2)}x)`,
    );
    memory(`engine ${model}`);
  }
  const provider = new SyntheticChainProvider(chain);
  const issuers = createIssuerRegistry(chain.issuers);
  const full = await profiled("full", () =>
    timeAsync(() => traceOutflows(worstRequest("fifo"), { provider, graph, issuers, budget: unbounded })),
  );
  const jsonLength = JSON.stringify(full.value).length;
  console.log(
    `  full result (fifo, once): ${full.ms.toFixed(0)} ms for ${full.value.edge_count.toLocaleString("en")} edges and ${full.value.node_count.toLocaleString("en")} nodes as JSON-ready objects, ${mib(jsonLength)} as JSON (${(jsonLength / full.value.edge_count).toFixed(0)} B per edge)`,
  );
  memory("full worst-case result");

  console.log("\ntypical: each planted peel-chain subject, default settings (max_hops 5, fifo), full result");
  const peel = chain.scenarios.filter((s) => s.kind === "peel_to_exchange");
  const typical: number[] = [];
  let typicalEdges = 0;
  await profiled("typical", async () => {
    for (let round = 0; round <= RUNS; round++) {
      for (const scenario of peel) {
        const result = await timeAsync(() =>
          traceOutflows(
            {
              network: chain.network,
              subjects: [
                { address: scenario.subject, incident_block: BigInt(scenario.incident_block), source_refs: [] },
              ],
              traced_at: TRACED_AT,
            },
            { provider, graph, issuers },
          ),
        );
        if (round > 0) typical.push(result.ms);
        typicalEdges = result.value.edge_count;
      }
    }
  });
  console.log(`  median ${median(typical).toFixed(2)} ms per trace (last trace: ${typicalEdges} edges)`);
  // The same subjects, engine only, beside the BFS from each at the same hops, in alternating pairs.
  const TYPICAL_PAIRS = Math.max(50, RUNS);
  for (const scenario of peel) {
    const node = graph.nodeOf(scenario.subject)!;
    const request = {
      network: chain.network,
      subjects: [{ address: scenario.subject, incident_block: BigInt(scenario.incident_block), source_refs: [] }],
      traced_at: TRACED_AT,
    };
    const engineUs: number[] = [];
    const bfsUs: number[] = [];
    let bfsCounts: readonly [number, number] = [0, 0];
    let admitted = 0;
    for (let pair = 0; pair <= TYPICAL_PAIRS; pair++) {
      const engine = time(() => {
        const computation = computeTraceOnGraph(graph, request);
        admitted = computation.state.edgesAdmitted;
        releaseTraceComputation(computation);
      });
      const bfs = time(() => bareBfs(csr, scratch, [node], 5));
      bfsCounts = bfs.value;
      if (pair > 0) {
        engineUs.push(engine.ms * 1000);
        bfsUs.push(bfs.ms * 1000);
      }
    }
    const engineMedian = median(engineUs);
    const bfsMedian = median(bfsUs);
    console.log(
      `  engine only ${engineMedian.toFixed(0).padStart(6)} us (${admitted.toLocaleString("en")} events admitted) beside the bare BFS from the same subject, 5 hops: ${bfsMedian.toFixed(0)} us (${bfsCounts[0].toLocaleString("en")} out-edges scanned, ${bfsCounts[1].toLocaleString("en")} addresses); ${(engineMedian / bfsMedian).toFixed(2)}x the BFS (medians of ${TYPICAL_PAIRS} pairs)`,
    );
  }
  memory("typical");
  console.log(
    `\npeak: rss ${mib(process.resourceUsage().maxRSS * 1024)}, heap used ${mib(peakHeap)}, array buffers ${mib(peakBuffers)}`,
  );
}

await main();
