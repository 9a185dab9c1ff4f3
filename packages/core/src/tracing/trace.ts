import { assetKey, normalizeAddress, type UsdPrice, usableBalance } from "./amounts";
import { inBatches } from "./batches";
import type { CaseSourceRef, NormalizedTraceRequest, TraceBudget, TraceComputation } from "./computation";
import { DiscoveryState, type FetchRequest, runDiscovery, type TruncationReason } from "./discovery";
import { resetWalkTables, runEventOrderTrace } from "./event-order";
import { createIssuerRegistry, type IssuerRegistry } from "./issuer-registry";
import { builtInLabels, isBurnAddress, ZERO_ADDRESS } from "./labels";
import { LimbLedger } from "./limb-ledger";
import { LimbTally } from "./limb-tally";
import { assembleTraceResult, isTraceSourceId, type TraceResult } from "./result";
import { createSweepTables, resetSweepTables, runSweep, type SweepTables } from "./sweep";
import { TAINT_MODELS, TaintLedger, type TaintModel } from "./taint";
import { firstIncidentAtOrAfter, MAX_BLOCK, type TransferGraph, TransferGraphBuilder } from "./transfer-graph";
import type { AddressLabel, AmountFact, ChainProvider, LabelLookup, Network, Transfer } from "./types";

export const DEFAULT_MAX_HOPS = 5;
export const MAX_HOPS_CAP = 7;
/**
 * `max_edges` also bounds the result: every edge of a map is a transfer the trace read. A map takes
 * about 1.6 KB of JSON per edge (its edge, flow and wallet; measured on the synthetic 1M-event chain),
 * so 50,000 transfers typically keep a map near 80 MB, which a job's result can hold; a job refuses a
 * heavier one (`TRACE_RESULT_MAX_BYTES` in services).
 */
export const DEFAULT_BUDGET: Required<TraceBudget> = {
  max_expansions: 5_000,
  max_edges: 50_000,
  hub_event_limit: 5_000,
};
/** A deposit address forwards what it received within this window (Victor, FC 2020: 7 days). */
export const DEFAULT_SWEEP_WINDOW_SECONDS = 7 * 24 * 3600;

export interface TraceSubject {
  address: string;
  /** Funds the subject held at the start of this block, and everything it received after, are traced. */
  incident_block: bigint;
  /** The case documents that tie this address to the debtor. */
  source_refs: CaseSourceRef[];
}

export interface TraceRequest {
  network: Network;
  subjects: TraceSubject[];
  /** Default 5, at most 7. */
  max_hops?: number;
  /** Default `fifo`. */
  taint_model?: TaintModel;
  /** Smallest tainted amount followed, in base units, by asset key (`native`, `erc20:<contract>`); `default` for the rest. Default 1. */
  min_value?: { default?: bigint; per_asset?: Record<string, bigint> };
  /** Last block read; default the provider's head when the trace starts. Pin it to make a retry read the same window. */
  to_block?: bigint;
  /** Supplied by the caller; the engine reads no clock. */
  traced_at: string;
  include_exchanges?: boolean;
  include_stablecoins?: boolean;
  /** USD prices by asset key; without one an exposure's usd_value is null with a reason. */
  prices?: Record<string, UsdPrice>;
  deposit_sweep?: { window_seconds?: number; native_gas_allowance?: bigint };
}

export interface TraceOptions {
  provider: ChainProvider;
  /** A preloaded graph holding every event of the chain (a synthetic chain); nothing is then fetched. */
  graph?: TransferGraph;
  labels?: LabelLookup;
  issuers?: IssuerRegistry;
  budget?: TraceBudget;
  /** Injected deadline check: returns true once the caller's time budget is spent. */
  deadlineReached?: () => boolean;
  signal?: AbortSignal;
  /** Provider requests in flight at once. Results are applied in a fixed order, so the outcome does not depend on it. */
  fetchConcurrency?: number;
}

export class TraceRequestError extends Error {
  override readonly name = "TraceRequestError";
}

/**
 * The first of a subject's case documents the result's source manifest cannot hold, with why, or null.
 * They enter it by id: an id given twice would keep one document and drop the other, and one of the
 * trace's own ids (`isTraceSourceId`) would replace what the trace cites. The API refuses the same
 * refs at the request, naming the field.
 */
export function unusableCaseSourceRef(
  refs: readonly Pick<CaseSourceRef, "source_id">[],
): { index: number; message: string } | null {
  const firstAt = new Map<string, number>();
  for (const [index, { source_id }] of refs.entries()) {
    const earlier = firstAt.get(source_id);
    if (earlier !== undefined) {
      return { index, message: `source_id ${source_id} listed twice, already listed at source_refs.${earlier}` };
    }
    firstAt.set(source_id, index);
    if (isTraceSourceId(source_id)) {
      return {
        index,
        message: `source_id ${source_id} has the form of the ids a trace gives its own sources (src_ and 20 hex digits)`,
      };
    }
  }
  return null;
}

export function normalizeTraceRequest(request: TraceRequest): NormalizedTraceRequest {
  const maxHops = request.max_hops ?? DEFAULT_MAX_HOPS;
  if (!Number.isInteger(maxHops) || maxHops < 1 || maxHops > MAX_HOPS_CAP) {
    throw new TraceRequestError(`max_hops must be an integer from 1 to ${MAX_HOPS_CAP}`);
  }
  const model = request.taint_model ?? "fifo";
  if (!TAINT_MODELS.includes(model)) throw new TraceRequestError(`unknown taint model: ${model}`);
  if (request.subjects.length === 0) throw new TraceRequestError("at least one subject address is required");
  const seen = new Set<string>();
  const subjects = request.subjects.map((subject) => {
    const address = normalizeAddress(request.network, subject.address);
    if (seen.has(address)) throw new TraceRequestError(`subject listed twice: ${address}`);
    if (isBurnAddress(request.network, address)) {
      throw new TraceRequestError(
        `${address} cannot be a subject: what is sent there is burned, and what it sends is newly minted`,
      );
    }
    seen.add(address);
    if (subject.incident_block < 0n || subject.incident_block > BigInt(MAX_BLOCK)) {
      throw new TraceRequestError(`incident_block out of range for ${address}`);
    }
    const unusable = unusableCaseSourceRef(subject.source_refs);
    if (unusable) throw new TraceRequestError(`${unusable.message} (case documents of ${address})`);
    return { address, incident_block: Number(subject.incident_block), source_refs: subject.source_refs };
  });
  const minDefault = request.min_value?.default ?? 1n;
  const perAsset = request.min_value?.per_asset ?? {};
  for (const value of [minDefault, ...Object.values(perAsset)]) {
    if (value < 1n) throw new TraceRequestError("min_value must be at least 1 base unit");
  }
  if (Number.isNaN(Date.parse(request.traced_at))) throw new TraceRequestError("traced_at must be an ISO date-time");
  const allowance = request.deposit_sweep?.native_gas_allowance ?? 10n ** 16n;
  if (allowance < 0n) throw new TraceRequestError("native_gas_allowance must not be negative");
  return {
    network: request.network,
    subjects,
    max_hops: maxHops,
    taint_model: model,
    min_value_default: minDefault,
    min_value_per_asset: Object.fromEntries(
      Object.entries(perAsset).map(([key, value]) => [key.startsWith("erc20:") ? key.toLowerCase() : key, value]),
    ),
    include_exchanges: request.include_exchanges ?? true,
    include_stablecoins: request.include_stablecoins ?? true,
    prices: request.prices ?? {},
    sweep_window_seconds: request.deposit_sweep?.window_seconds ?? DEFAULT_SWEEP_WINDOW_SECONDS,
    native_gas_allowance: allowance,
    traced_at: request.traced_at,
  };
}

function minValueFor(request: NormalizedTraceRequest, graph: TransferGraph): (asset: number) => bigint {
  const values = graph.assets.map((asset) => request.min_value_per_asset[assetKey(asset)] ?? request.min_value_default);
  return (asset) => values[asset] ?? request.min_value_default;
}

/**
 * The labels of a node: the graph's own, the caller's label store's, and the built-in ones. Over a
 * preloaded graph without a store, only the zero address's node needs more than the graph's own (a
 * walk asks for the labels of every address taint reaches).
 */
function labelsLookup(
  network: Network,
  addressOf: (node: number) => string,
  graphLabels: ((node: number) => readonly AddressLabel[]) | undefined,
  external: LabelLookup | undefined,
  zeroNode?: number,
): (node: number) => readonly AddressLabel[] {
  const joined = (a: readonly AddressLabel[], b: readonly AddressLabel[]) =>
    b.length === 0 ? a : a.length === 0 ? b : [...a, ...b];
  if (graphLabels && !external && zeroNode !== undefined) {
    const zeroLabels = builtInLabels(network, ZERO_ADDRESS);
    return (node) => (node === zeroNode ? joined(graphLabels(node), zeroLabels) : graphLabels(node));
  }
  return (node) => {
    const address = addressOf(node);
    const own = graphLabels ? graphLabels(node) : [];
    const stored = external ? external.labelsFor(network, address) : [];
    return joined(joined(own, stored), builtInLabels(network, address));
  };
}

function describeTruncation(state: DiscoveryState, budget: Required<TraceBudget>) {
  const details: Record<TruncationReason, string> = {
    max_expansions: `stopped expanding after ${budget.max_expansions} addresses`,
    max_edges: `stopped reading after ${budget.max_edges} transfer events`,
    deadline: "the caller's deadline passed; addresses still queued were not expanded",
  };
  return [...state.truncation].sort().map((reason) => ({ reason, detail: details[reason] }));
}

function resolveBudget(budget: TraceBudget | undefined): Required<TraceBudget> {
  const resolved = { ...DEFAULT_BUDGET, ...budget };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isInteger(value) || value < 0)
      throw new TraceRequestError(`budget ${key} must be a non-negative integer`);
  }
  return resolved;
}

/**
 * Per-address arrays of one trace over a graph, at their defaults. A trace over a preloaded graph
 * takes a set from the graph's pool (or allocates one); `traceOutflows` restores the entries its trace
 * touched and returns the set once the result is assembled, so a small trace over a large graph does
 * not pay for arrays as long as the graph. Never shared: a set belongs to one trace until returned.
 */
interface TraceScratch {
  state: DiscoveryState;
  tables: SweepTables;
  limbLedger: LimbLedger;
  tally: LimbTally;
  /** The event-order walk gave the trace (it wrote fewer of the tables than discovery and the sweep). */
  walked: boolean;
}
const scratchPool = new WeakMap<TransferGraph, TraceScratch[]>();
/** Sets kept per graph: enough for the traces a process runs at once over one graph. */
const POOLED_PER_GRAPH = 2;

function takeScratch(graph: TransferGraph, maxHops: number): TraceScratch {
  const pooled = scratchPool.get(graph)?.pop();
  if (pooled) {
    pooled.state.reset(maxHops);
    return pooled;
  }
  const state = new DiscoveryState(maxHops);
  state.ensureCapacity(graph.nodeCount);
  return {
    state,
    tables: createSweepTables(graph.nodeCount, graph.assets.length),
    limbLedger: new LimbLedger("fifo"),
    tally: new LimbTally(1),
    walked: false,
  };
}

/** Restores what the computation's trace wrote and pools its arrays; the computation must not be read after. */
function returnScratch(computation: TraceComputation, scratch: TraceScratch): void {
  const { graph, state, sweep } = computation;
  if (scratch.walked) resetWalkTables(scratch.tables, state);
  else resetSweepTables(scratch.tables, graph, state, sweep.edgeEvent, sweep.entryNode, sweep.entryAsset);
  let pool = scratchPool.get(graph);
  if (!pool) {
    pool = [];
    scratchPool.set(graph, pool);
  }
  if (pool.length < POOLED_PER_GRAPH) pool.push(scratch);
}

function addSubjects(graph: TransferGraph, state: DiscoveryState, request: NormalizedTraceRequest): void {
  for (const subject of request.subjects) {
    const node = graph.nodeOf(subject.address);
    if (node !== undefined) state.addSubject(node, subject.incident_block);
  }
}

/**
 * The synchronous core over a preloaded graph that holds every event (a synthetic chain), with opening
 * balances from the graph's own history: the event-order engine (event-order.ts), or discovery then
 * the sweep when a value is beyond the limbs' range or the graph is too large for address records.
 * No I/O.
 */
export function computeTraceOnGraph(
  graph: TransferGraph,
  request: TraceRequest,
  options: {
    labels?: LabelLookup;
    budget?: TraceBudget;
    deadlineReached?: () => boolean;
    signal?: AbortSignal;
    toBlock?: number;
    /**
     * `discovery`: discovery then the sweep, the engine a provider's trace runs, instead of the
     * event-order walk. Both follow the same rules; they differ only in the order budgets are charged.
     */
    engine?: "event-order" | "discovery";
  } = {},
): TraceComputation {
  const { computation, scratch } = computeWithScratch(graph, request, options);
  lentScratch.set(computation, scratch);
  return computation;
}

/** Scratch sets lent to computations `computeTraceOnGraph` returned, until `releaseTraceComputation`. */
const lentScratch = new WeakMap<TraceComputation, TraceScratch>();

/**
 * Gives the per-address arrays of a computation from `computeTraceOnGraph` back to the graph's pool,
 * so the next trace over the graph reuses them instead of allocating and filling arrays as long as
 * the graph. The computation must not be read after. Optional: unreleased arrays are collected.
 */
export function releaseTraceComputation(computation: TraceComputation): void {
  const scratch = lentScratch.get(computation);
  if (!scratch) return;
  lentScratch.delete(computation);
  returnScratch(computation, scratch);
}

function computeWithScratch(
  graph: TransferGraph,
  request: TraceRequest,
  options: NonNullable<Parameters<typeof computeTraceOnGraph>[2]>,
): { computation: TraceComputation; scratch: TraceScratch } {
  const normalized = normalizeTraceRequest(request);
  if (normalized.network !== graph.network) {
    throw new TraceRequestError(`request is for ${normalized.network}, the graph holds ${graph.network}`);
  }
  const budget = resolveBudget(options.budget);
  const scratch = takeScratch(graph, normalized.max_hops);
  const state = scratch.state;
  addSubjects(graph, state, normalized);
  const labelsOf = labelsLookup(
    graph.network,
    graph.addressOf,
    graph.nodeLabels,
    options.labels,
    graph.nodeOf(ZERO_ADDRESS) ?? -1,
  );
  const minValueOf = minValueFor(normalized, graph);
  const lastBlock = options.toBlock ?? (graph.eventCount > 0 ? graph.block[graph.eventCount - 1]! : 0);
  const limits = {
    maxHops: normalized.max_hops,
    minValueOf,
    hubEventLimit: budget.hub_event_limit,
    maxExpansions: budget.max_expansions,
    maxEdges: budget.max_edges,
    deadlineReached: options.deadlineReached ?? (() => false),
    signal: options.signal,
    lastBlock,
  };
  let ledger = new TaintLedger(normalized.taint_model);
  const genesisLimbs = graph.balanceAt ? graph.genesisLimbs : undefined;
  const walkable =
    options.engine !== "discovery" &&
    genesisLimbs !== undefined &&
    graph.assets.length > 0 &&
    genesisLimbs.length === 2 * graph.nodeCount * graph.assets.length;
  let sweep = walkable
    ? runEventOrderTrace({
        ...limits,
        graph,
        state,
        tables: scratch.tables,
        ledger,
        limbLedger: scratch.limbLedger,
        tally: scratch.tally,
        genesisLimbs,
        labelsOf,
      })
    : null;
  scratch.walked = sweep !== null;
  if (!sweep) {
    // Discovery, then the sweep (over bigint when a value is beyond the limbs' range).
    if (walkable) {
      state.reset(normalized.max_hops);
      addSubjects(graph, state, normalized);
    }
    runDiscovery(graph, state, { ...limits, complete: true }, labelsOf);
    ledger = new TaintLedger(normalized.taint_model);
    const balanceAt = graph.balanceAt;
    sweep = runSweep({
      graph,
      state,
      ledger,
      maxHops: normalized.max_hops,
      minValueOf,
      openingBalance: balanceAt ? (node, asset, block) => balanceAt(node, asset, block) : () => null,
      genesisBalance: balanceAt ? (node, asset) => balanceAt(node, asset, -1) : undefined,
      genesisLimbs: balanceAt ? () => graph.genesisLimbs : undefined,
      signal: options.signal,
      lastBlock,
      tables: scratch.tables,
      labelsOf,
    });
  }
  const computation: TraceComputation = {
    request: normalized,
    graph,
    state,
    ledger,
    sweep,
    labelsOf,
    truncation: describeTruncation(state, budget),
    toBlock: lastBlock,
    finalizedBlock: lastBlock,
    budget,
  };
  return { computation, scratch };
}

async function fetchAddressEvents(
  provider: ChainProvider,
  address: string,
  request: FetchRequest,
  lastBlock: number,
  signal: AbortSignal | undefined,
  deadlineReached: () => boolean,
): Promise<{ transfers: Transfer[]; complete: boolean }> {
  const transfers: Transfer[] = [];
  const toBlock = Math.min(request.toBlock, lastBlock);
  let cursor: string | null = null;
  do {
    signal?.throwIfAborted();
    if (deadlineReached()) return { transfers, complete: false };
    const page = await provider.transfers({
      address,
      fromBlock: BigInt(request.fromBlock),
      toBlock: BigInt(toBlock),
      cursor,
      signal,
    });
    transfers.push(...page.items);
    cursor = page.next;
    if (transfers.length >= request.maxEvents) break;
  } while (cursor !== null);
  return { transfers, complete: true };
}

/**
 * Traces outflows from the subjects over a chain provider (or a preloaded graph), then reads
 * opening balances, holdings and freeze status where the provider can, and assembles the result.
 * Deterministic: the same request over the same chain data gives the same result. Cancel with
 * `signal` (the promise rejects with its reason); budgets and the deadline end the trace early
 * with `truncated: true` and the reasons.
 */
export async function traceOutflows(request: TraceRequest, options: TraceOptions): Promise<TraceResult> {
  const { provider, signal } = options;
  const normalized = normalizeTraceRequest(request);
  if (provider.network !== normalized.network) {
    throw new TraceRequestError(`request is for ${normalized.network}, the provider serves ${provider.network}`);
  }
  const deadlineReached = options.deadlineReached ?? (() => false);
  const issuers = options.issuers ?? createIssuerRegistry();
  signal?.throwIfAborted();
  const head = await provider.head(signal);
  const toBlock = Number(request.to_block ?? head.number);
  const finalizedBlock = Number(head.finalized);

  const context = { provider, issuers, signal, fetchConcurrency: options.fetchConcurrency ?? 4 };
  if (!options.graph) {
    const computation = await computeTraceOverProvider(normalized, options, toBlock, finalizedBlock, deadlineReached);
    return assembleTraceResult(computation, context);
  }
  const { computation, scratch } = computeWithScratch(options.graph, request, {
    labels: options.labels,
    budget: options.budget,
    deadlineReached,
    signal,
    toBlock,
  });
  computation.finalizedBlock = finalizedBlock;
  try {
    return await assembleTraceResult(computation, context);
  } finally {
    returnScratch(computation, scratch);
  }
}

async function computeTraceOverProvider(
  request: NormalizedTraceRequest,
  options: TraceOptions,
  toBlock: number,
  finalizedBlock: number,
  deadlineReached: () => boolean,
): Promise<TraceComputation> {
  const { provider, signal } = options;
  const budget = resolveBudget(options.budget);
  const concurrency = Math.max(1, options.fetchConcurrency ?? 4);
  const builder = new TransferGraphBuilder(request.network);
  const state = new DiscoveryState(request.max_hops);
  for (const subject of request.subjects) {
    const node = builder.internAddress(subject.address);
    state.addSubject(node, subject.incident_block);
  }
  const labelsOf = labelsLookup(request.network, (node) => builder.addressOf(node), undefined, options.labels);
  let graph = builder.build();

  for (;;) {
    const minValueOf = minValueFor(request, graph);
    const pending = runDiscovery(
      graph,
      state,
      {
        maxHops: request.max_hops,
        minValueOf,
        hubEventLimit: budget.hub_event_limit,
        maxExpansions: budget.max_expansions,
        maxEdges: budget.max_edges,
        deadlineReached,
        signal,
        complete: false,
        lastBlock: toBlock,
      },
      labelsOf,
    );
    if (pending.length === 0) break;
    let interrupted = false;
    for (let start = 0; start < pending.length && !interrupted; start += concurrency) {
      const batch = pending.slice(start, start + concurrency);
      const results = await Promise.all(
        batch.map((fetch) =>
          fetchAddressEvents(provider, builder.addressOf(fetch.node), fetch, toBlock, signal, deadlineReached),
        ),
      );
      for (let i = 0; i < batch.length; i++) {
        const result = results[i]!;
        for (const transfer of result.transfers) {
          if (transfer.block <= BigInt(toBlock)) builder.addTransfer(transfer);
        }
        if (result.complete) state.loadedFrom[batch[i]!.node] = batch[i]!.fromBlock;
        else interrupted = true;
      }
    }
    graph = builder.build();
    state.ensureCapacity(graph.nodeCount);
    if (interrupted) {
      state.truncation.add("deadline");
      state.stopped = true;
      break;
    }
  }

  // Opening balances of every (open address, asset) pair, read before the sweep so it stays synchronous.
  const opening = new Map<string, AmountFact | null>();
  const wanted: Array<{ node: number; asset: number; block: number }> = [];
  for (let node = 0; node < graph.nodeCount; node++) {
    if (!state.isOpen(node)) continue;
    const openBlock = state.arrivalBlock[node]!;
    const assets = new Set<number>();
    const end = graph.incidentOffset[node + 1]!;
    for (let i = firstIncidentAtOrAfter(graph, node, openBlock, Number.NEGATIVE_INFINITY); i < end; i++) {
      assets.add(graph.asset[graph.incident[i]!]!);
    }
    for (const asset of [...assets].sort((a, b) => a - b)) wanted.push({ node, asset, block: openBlock - 1 });
  }
  const balanceAt = provider.balanceAt?.bind(provider);
  if (balanceAt) {
    const facts = await inBatches(wanted, concurrency, (item) =>
      balanceAt(graph.addressOf(item.node), graph.assets[item.asset]!, BigInt(item.block), signal),
    );
    wanted.forEach((item, i) => {
      opening.set(`${item.node}|${item.asset}`, usableBalance(facts[i]));
    });
  }

  const ledger = new TaintLedger(request.taint_model);
  const sweep = runSweep({
    graph,
    state,
    ledger,
    maxHops: request.max_hops,
    minValueOf: minValueFor(request, graph),
    openingBalance: (node, asset) => opening.get(`${node}|${asset}`)?.amount ?? null,
    signal,
    lastBlock: toBlock,
    labelsOf,
  });
  return {
    request,
    graph,
    state,
    ledger,
    sweep,
    labelsOf,
    truncation: describeTruncation(state, budget),
    toBlock,
    finalizedBlock,
    budget,
    openingSourceOf: (node, asset) => opening.get(`${node}|${asset}`)?.source_ref,
  };
}
