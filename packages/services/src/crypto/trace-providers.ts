import {
  type ChainProvider,
  createIssuerRegistry,
  type GeneratedSyntheticChain,
  generateSyntheticChain,
  type IssuerRegistry,
  type LabelLookup,
  SyntheticChainProvider,
  type TransferGraph,
  type UsdPrice,
} from "@crs/core";

/** What one trace reads: the chain provider, and what attributes addresses and issuers on it. */
export interface TraceSource {
  provider: ChainProvider;
  /** a preloaded graph holding the whole chain (the synthetic chain): nothing is fetched */
  graph?: TransferGraph;
  labels?: LabelLookup;
  issuers?: IssuerRegistry;
  /** USD prices by asset key (`native`, `erc20:<contract>`); an exposure without one has usd_value null with a reason */
  prices?: Record<string, UsdPrice>;
}

/**
 * Where traces read their chain data. Sandbox organizations read the built-in synthetic chain; live
 * organizations the configured provider, and with none configured their traces fail with a clear error.
 */
export interface TraceProviders {
  sandbox(): TraceSource;
  /** null: no live chain provider is configured (CHAIN_RPC_URL unset) */
  live: TraceSource | null;
}

/** The sandbox chain's seed: every sandbox organization traces the same synthetic chain, so examples hold for all. */
export const SANDBOX_CHAIN_SEED = 7;

let sandboxChain: GeneratedSyntheticChain | undefined;

/** The sandbox's synthetic chain (seed 7, generated once per process: same seed, same chain, byte for byte). */
export function sandboxSyntheticChain(): GeneratedSyntheticChain {
  sandboxChain ??= generateSyntheticChain({ seed: SANDBOX_CHAIN_SEED });
  return sandboxChain;
}

/**
 * The sandbox trace source. The synthetic stablecoin is defined at 1 USD (a fact of the synthetic
 * chain, not a market price); the synthetic native coin has no price, so its exposures carry none.
 */
export function sandboxTraceSource(): TraceSource {
  const chain = sandboxSyntheticChain();
  return {
    provider: new SyntheticChainProvider(chain),
    graph: chain.graph,
    labels: chain.labelIndex,
    issuers: createIssuerRegistry(chain.issuers),
    prices: {
      [`erc20:${chain.stablecoin}`]: {
        usd_per_unit: "1.00",
        as_of: new Date(chain.epoch * 1000).toISOString(),
        source: "synthetic chain definition: sUSD is worth 1 USD by construction",
      },
    },
  };
}

export function createTraceProviders(live: TraceSource | null = null): TraceProviders {
  return { sandbox: sandboxTraceSource, live };
}
