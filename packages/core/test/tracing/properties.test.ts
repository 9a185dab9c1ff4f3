import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createIssuerRegistry,
  type SyntheticChain,
  SyntheticChainProvider,
  SyntheticChainWriter,
  type TaintModel,
  type TraceResult,
  traceOutflows,
} from "../../src/index";
import {
  ASSETS,
  addr,
  BLOCK_TIME,
  EPOCH,
  LowBalanceReads,
  label,
  NETWORK,
  TOKEN_CONTROLS,
  TRACED_AT,
  withoutSources,
} from "./fixtures";

const NODES = 8;

interface RandomCase {
  genesis: Array<[number, number]>;
  steps: Array<{ from: number; to: number; percent: number; gap: number; native: boolean }>;
  subjects: number[];
  /** each subject's incident block, by its place in `subjects` (they may differ) */
  incidents: number[];
  exchange: number | null;
  model: TaintModel;
  maxHops: number;
  minValue: number;
}

const randomCase: fc.Arbitrary<RandomCase> = fc.record({
  genesis: fc.array(fc.tuple(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 1_000 })), {
    minLength: NODES,
    maxLength: NODES,
  }),
  steps: fc.array(
    fc.record({
      from: fc.nat(NODES - 1),
      to: fc.nat(NODES - 1),
      percent: fc.integer({ min: 1, max: 100 }),
      gap: fc.integer({ min: 0, max: 2 }),
      native: fc.boolean(),
    }),
    { maxLength: 40 },
  ),
  subjects: fc.uniqueArray(fc.nat(NODES - 1), { minLength: 1, maxLength: 3 }),
  incidents: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 3, maxLength: 3 }),
  exchange: fc.option(fc.nat(NODES - 1), { nil: null }),
  model: fc.constantFrom<TaintModel>("fifo", "haircut", "poison"),
  maxHops: fc.integer({ min: 1, max: 7 }),
  minValue: fc.integer({ min: 1, max: 60 }),
});

/** A valid random chain: every transfer moves a share of what the sender holds at that moment. */
function buildCase(input: RandomCase): SyntheticChain {
  const keys = Object.keys(ASSETS).sort();
  const writer = new SyntheticChainWriter(
    NETWORK,
    keys.map((key) => ASSETS[key]!),
    BLOCK_TIME,
    EPOCH,
  );
  const eth = keys.indexOf("eth");
  const usd = keys.indexOf("usd");
  const nodes = Array.from({ length: NODES }, (_, i) => writer.node(addr(i + 1)));
  input.genesis.forEach(([native, token], i) => {
    if (native > 0) writer.allocate(nodes[i]!, eth, BigInt(native));
    if (token > 0) writer.allocate(nodes[i]!, usd, BigInt(token));
  });
  let block = 1;
  for (const step of input.steps) {
    block += step.gap;
    const asset = step.native ? eth : usd;
    const amount = (writer.balanceOf(nodes[step.from]!, asset) * BigInt(step.percent)) / 100n;
    if (amount > 0n) writer.transfer(nodes[step.from]!, nodes[step.to]!, asset, amount, block);
  }
  if (input.exchange !== null && !input.subjects.includes(input.exchange)) {
    const exchangeLabel = label(addr(input.exchange + 1), "Exchange Q", "exchange");
    writer.labels.push(exchangeLabel);
  }
  writer.issuers.push(TOKEN_CONTROLS);
  return writer.finish("property");
}

function run(
  chain: SyntheticChain,
  input: RandomCase,
  overrides: {
    model?: TaintModel;
    viaProvider?: boolean;
    /** read through this provider instead of the chain's own (implies viaProvider) */
    provider?: SyntheticChainProvider;
    maxExpansions?: number;
    maxEdges?: number;
  } = {},
): Promise<TraceResult> {
  return traceOutflows(
    {
      network: NETWORK,
      subjects: input.subjects.map((s, i) => ({
        address: addr(s + 1),
        incident_block: BigInt(input.incidents[i]!),
        source_refs: [],
      })),
      max_hops: input.maxHops,
      taint_model: overrides.model ?? input.model,
      min_value: { default: BigInt(input.minValue) },
      traced_at: TRACED_AT,
    },
    {
      provider: overrides.provider ?? new SyntheticChainProvider(chain, { pageSize: 4 }),
      graph: overrides.viaProvider || overrides.provider ? undefined : chain.graph,
      labels: overrides.viaProvider || overrides.provider ? chain.labelIndex : undefined,
      issuers: createIssuerRegistry(chain.issuers),
      budget: {
        ...(overrides.maxExpansions === undefined ? {} : { max_expansions: overrides.maxExpansions }),
        ...(overrides.maxEdges === undefined ? {} : { max_edges: overrides.maxEdges }),
      },
    },
  );
}

/** Every unit of subject taint is in exactly one bucket (fifo and haircut). */
function expectConserved(result: TraceResult): void {
  for (const totals of result.totals) {
    const sum =
      BigInt(totals.to_terminals.base_units) +
      BigInt(totals.retained.base_units) +
      BigInt(totals.at_hop_limit.base_units) +
      BigInt(totals.dust_dropped.base_units) +
      BigInt(totals.unexplored.base_units);
    expect(sum).toBe(BigInt(totals.subject_taint.base_units));
  }
}

const position = (edge: TraceResult["edges"][number]) => [BigInt(edge.block), edge.tx_index, edge.event_index] as const;
const before = (a: readonly [bigint, number, number], b: readonly [bigint, number, number]) =>
  a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])));

describe("trace properties on random chains", () => {
  it("conserves taint under fifo and haircut: terminals + retained + hop limit + dust + unexplored = subject taint", async () => {
    await fc.assert(
      fc.asyncProperty(randomCase, fc.constantFrom<TaintModel>("fifo", "haircut"), async (input, model) => {
        const result = await run(buildCase(input), input, { model });
        expectConserved(result);
      }),
      { numRuns: 150 },
    );
  });

  it("never lets an address pass on more taint than reached it, nor an edge carry more than its amount", async () => {
    await fc.assert(
      fc.asyncProperty(randomCase, async (input) => {
        const result = await run(buildCase(input), input);
        const subjects = new Set(result.subjects);
        const balance = new Map<string, bigint>();
        for (const edge of result.edges) {
          expect(BigInt(edge.tainted.base_units)).toBeGreaterThan(0n);
          expect(BigInt(edge.tainted.base_units)).toBeLessThanOrEqual(BigInt(edge.amount.base_units));
          if (input.model === "poison") continue;
          const key = `${edge.asset}|${edge.from}`;
          if (!subjects.has(edge.from)) {
            const left = (balance.get(key) ?? 0n) - BigInt(edge.tainted.base_units);
            expect(left).toBeGreaterThanOrEqual(0n);
            balance.set(key, left);
          }
          const inKey = `${edge.asset}|${edge.to}`;
          balance.set(inKey, (balance.get(inKey) ?? 0n) + BigInt(edge.tainted.base_units));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("keeps both through a provider whose balance reads come out too low, below zero too", async () => {
    await fc.assert(
      fc.asyncProperty(
        randomCase,
        fc.array(fc.integer({ min: 0, max: 1_500 }), { minLength: NODES, maxLength: NODES }),
        async (input, lowerBy) => {
          const chain = buildCase(input);
          const provider = new LowBalanceReads(chain, new Map(lowerBy.map((by, i) => [addr(i + 1), BigInt(by)])));
          const result = await run(chain, input, { provider });
          for (const edge of result.edges) {
            expect(BigInt(edge.tainted.base_units)).toBeLessThanOrEqual(BigInt(edge.amount.base_units));
          }
          if (input.model === "poison") return;
          expectConserved(result);
          for (const totals of result.totals) {
            for (const field of ["subject_taint", "retained", "to_terminals"] as const) {
              expect(BigInt(totals[field].base_units)).toBeGreaterThanOrEqual(0n);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("never moves funds out of an address before they reached it", async () => {
    await fc.assert(
      fc.asyncProperty(randomCase, async (input) => {
        const result = await run(buildCase(input), input);
        const incidentOf = new Map(input.subjects.map((s, i) => [addr(s + 1), input.incidents[i]!]));
        for (const edge of result.edges) {
          const incident = incidentOf.get(edge.from);
          if (incident !== undefined) {
            expect(BigInt(edge.block)).toBeGreaterThanOrEqual(BigInt(incident));
            continue;
          }
          const arrivedBefore = result.edges.some(
            (into) => into.to === edge.from && before(position(into), position(edge)),
          );
          expect(arrivedBefore).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("gives the same result twice, and the same map through the paged provider as over the preloaded graph", async () => {
    await fc.assert(
      fc.asyncProperty(randomCase, async (input) => {
        const chain = buildCase(input);
        const first = await run(chain, input);
        const second = await run(chain, input);
        expect(JSON.stringify(second)).toBe(JSON.stringify(first));
        const paged = await run(chain, input, { viaProvider: true });
        // The work counters say what each way of reading did: the provider is read for every address
        // discovery may open, the preloaded graph walked for the addresses taint opened.
        const map = (result: TraceResult) =>
          withoutSources({ ...result, budget: { ...result.budget, edges_read: null, expansions: null } });
        expect(map(paged)).toEqual(map(first));
      }),
      { numRuns: 100 },
    );
  });

  it("reaches with poison at least every address fifo reaches", async () => {
    await fc.assert(
      fc.asyncProperty(randomCase, async (input) => {
        const chain = buildCase(input);
        const fifo = await run(chain, input, { model: "fifo" });
        const poison = await run(chain, input, { model: "poison" });
        const reached = (r: TraceResult) => new Set([...r.wallets, ...r.terminals].map((w) => w.address));
        const poisonReach = reached(poison);
        for (const address of reached(fifo)) expect(poisonReach.has(address)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("reports max_expansions exactly when the trace needed more expansions than allowed", async () => {
    await fc.assert(
      fc.asyncProperty(randomCase, fc.integer({ min: 0, max: 4 }), async (input, limit) => {
        const chain = buildCase(input);
        const unbounded = await run(chain, input);
        const bounded = await run(chain, input, { maxExpansions: limit });
        const hit = bounded.truncation.some((t) => t.reason === "max_expansions");
        expect(hit).toBe(unbounded.budget.expansions > limit);
        expect(bounded.truncated).toBe(hit);
        expect(bounded.budget.expansions).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 100 },
    );
  });

  // What bounds a map's size: each of its edges is a transfer the trace read.
  it("holds no more edges than the transfers it read, and reads no more than max_edges, on either path", async () => {
    await fc.assert(
      fc.asyncProperty(randomCase, fc.integer({ min: 0, max: 30 }), fc.boolean(), async (input, limit, viaProvider) => {
        const chain = buildCase(input);
        const bounded = await run(chain, input, { maxEdges: limit, viaProvider });
        expect(bounded.budget.max_edges).toBe(limit);
        expect(bounded.budget.edges_read).toBeLessThanOrEqual(limit);
        expect(bounded.edge_count).toBeLessThanOrEqual(bounded.budget.edges_read);
        const unbounded = await run(chain, input, { viaProvider });
        expect(bounded.truncation.some((t) => t.reason === "max_edges")).toBe(unbounded.budget.edges_read > limit);
      }),
      { numRuns: 100 },
    );
  });
});
