import {
  type AddressLabel,
  type AmountFact,
  type AssetRef,
  buildScenarioChain,
  type ChainProvider,
  createIssuerRegistry,
  type IssuerControls,
  type ScenarioSpec,
  type SyntheticChain,
  SyntheticChainProvider,
  type TraceBudget,
  type TraceRequest,
  type TraceResult,
  traceOutflows,
} from "../../src/index";

export const NETWORK = "synthetic:test";
export const TOKEN = "0x00000000000000000000000000000000000070c0";
export const EPOCH = 1_767_225_600;
export const BLOCK_TIME = 12;
export const TRACED_AT = "2026-07-05T12:00:00.000Z";

/** `addr(1)` = 0x0000…0001: short, readable addresses for hand-built graphs. */
export const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

export const ASSETS: ScenarioSpec["assets"] = {
  eth: { kind: "native", contract: null, decimals: 18, symbol: "ETH" },
  usd: { kind: "erc20", contract: TOKEN, decimals: 6, symbol: "USDX" },
};

export function label(
  address: string,
  entity: string,
  category: AddressLabel["category"],
  confidence = 70,
): AddressLabel {
  return {
    network: NETWORK,
    address,
    entity,
    category,
    confidence,
    confidence_basis: "service_api",
    source: {
      dataset: "test-labels",
      uri: "https://labels.example/test",
      license: null,
      as_of: "2026-07-01",
      retrieved_at: null,
    },
    valid_from: null,
    valid_to: null,
    note: null,
  };
}

export const TOKEN_CONTROLS: IssuerControls = {
  network: NETWORK,
  contract: TOKEN,
  issuer: "USDX Issuer",
  symbol: "USDX",
  freeze_check: "isBlacklisted",
  freeze_functions: ["blacklist(address)", "unBlacklist(address)"],
  freeze_role: "blacklister",
  seize_function: null,
  policy_notes: null,
  remediation: ["Ask the issuer to blacklist the holder."],
  source: { title: "USDX contract source", uri: "https://example.test/usdx", as_of: "2026-07-01" },
  synthetic: true,
};

type Step = [from: number, to: number, amount: bigint | number, block: number, asset?: "eth" | "usd"];

/** A chain from numbered addresses: steps are [from, to, amount, block, asset = "usd"]. */
export function chainOf(
  steps: Step[],
  options: {
    genesis?: Array<[node: number, amount: bigint | number, asset?: "eth" | "usd"]>;
    labels?: AddressLabel[];
    freezes?: Array<[node: number, fromBlock: number]>;
  } = {},
): SyntheticChain {
  return buildScenarioChain({
    name: "test",
    network: NETWORK,
    epoch: EPOCH,
    blockTime: BLOCK_TIME,
    assets: ASSETS,
    genesis: (options.genesis ?? []).map(([node, amount, asset]) => ({
      address: addr(node),
      asset: asset ?? "usd",
      amount: BigInt(amount),
    })),
    steps: steps.map(([from, to, amount, block, asset]) => ({
      from: addr(from),
      to: addr(to),
      amount: BigInt(amount),
      block,
      asset: asset ?? "usd",
    })),
    labels: options.labels ?? [],
    freezes: (options.freezes ?? []).map(([node, fromBlock]) => ({ asset: "usd", address: addr(node), fromBlock })),
    issuers: [TOKEN_CONTROLS],
  });
}

export interface TraceCall {
  subjects: Array<[node: number, incidentBlock: number]>;
  request?: Partial<TraceRequest>;
  budget?: TraceBudget;
  /** Read through the paged provider interface instead of the preloaded graph. */
  viaProvider?: boolean;
  /** The provider read through instead of the chain's own (implies `viaProvider`). */
  provider?: ChainProvider;
  pageSize?: number;
  deadlineReached?: () => boolean;
  signal?: AbortSignal;
  /** Every subject's case documents (default: one judgment per subject). */
  sourceRefs?: TraceRequest["subjects"][number]["source_refs"];
}

export function traceChain(chain: SyntheticChain, call: TraceCall): Promise<TraceResult> {
  const provider = call.provider ?? new SyntheticChainProvider(chain, { pageSize: call.pageSize ?? 3 });
  const viaProvider = call.viaProvider || call.provider !== undefined;
  return traceOutflows(
    {
      network: chain.network,
      subjects: call.subjects.map(([node, block]) => ({
        address: addr(node),
        incident_block: BigInt(block),
        source_refs: call.sourceRefs ?? [
          { source_id: `case-${node}`, source_type: "judgment", title: "Judgment", uri: null, hash: null },
        ],
      })),
      traced_at: TRACED_AT,
      ...call.request,
    },
    {
      provider,
      graph: viaProvider ? undefined : chain.graph,
      labels: viaProvider ? chain.labelIndex : undefined,
      issuers: createIssuerRegistry(chain.issuers),
      budget: call.budget,
      deadlineReached: call.deadlineReached,
      signal: call.signal,
    },
  );
}

/** The chain's own provider, except that its balance reads of some addresses come out lower by a fixed amount. */
export class LowBalanceReads extends SyntheticChainProvider {
  constructor(
    chain: SyntheticChain,
    private readonly lowerBy: Map<string, bigint>,
  ) {
    super(chain, { pageSize: 3 });
  }

  override async balanceAt(
    address: string,
    asset: AssetRef,
    block: bigint,
    signal?: AbortSignal,
  ): Promise<AmountFact | null> {
    const fact = await super.balanceAt(address, asset, block, signal);
    const by = this.lowerBy.get(address);
    return fact && by !== undefined ? { ...fact, amount: fact.amount - by } : fact;
  }
}

/** Edges as [from, to, amount, tainted, hop] with numbered addresses, for maps written out in tests. */
export function edgeList(result: TraceResult): Array<[number, number, string, string, number]> {
  return result.edges.map((edge) => [
    Number.parseInt(edge.from, 16),
    Number.parseInt(edge.to, 16),
    edge.amount.base_units,
    edge.tainted.base_units,
    edge.hop,
  ]);
}

export function walletList(result: TraceResult): Array<[number, string, number]> {
  return result.wallets.map((wallet) => [Number.parseInt(wallet.address, 16), wallet.role, wallet.hop]);
}

export function totalsOf(result: TraceResult, asset = `erc20:${TOKEN}`) {
  const totals = result.totals.find((t) => t.asset === asset);
  if (!totals) return null;
  return {
    subject_taint: totals.subject_taint.base_units,
    to_terminals: totals.to_terminals.base_units,
    retained: totals.retained.base_units,
    at_hop_limit: totals.at_hop_limit.base_units,
    dust: totals.dust_dropped.base_units,
    dust_edges: totals.dust_dropped.edges,
    unexplored: totals.unexplored.base_units,
  };
}

/** The result without provenance fields, which differ between the graph and the provider paths. */
export function withoutSources(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSources);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "source_refs" && key !== "sources" && key !== "frozen_source_refs")
        .map(([key, inner]) => [key, withoutSources(inner)]),
    );
  }
  return value;
}
