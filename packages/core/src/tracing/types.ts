/**
 * Shapes shared by the trace engine, its chain providers and its label / issuer inputs.
 *
 * Amounts are `bigint` base units everywhere inside the engine and its providers; the trace result
 * carries them as base-unit integer strings plus an exact decimal string (never a float).
 * Block numbers are `bigint` at the provider boundary (as EVM clients return them).
 */

/** `ethereum`, `evm:<chainId>`, `tron`, `synthetic:<name>`. One trace covers one network. */
export type Network = string;

export type ProviderKind = "live" | "synthetic" | "replay";

/** An asset as a provider reports it. `contract` is null for the chain's native coin. */
export interface AssetRef {
  kind: "native" | "erc20";
  /** Lower-case contract address for tokens; null for the native coin. */
  contract: string | null;
  /** null when the token did not answer `decimals()`: amounts then stay in base units only. */
  decimals: number | null;
  symbol: string | null;
}

/** One provider request that produced facts: the unit of provenance for chain data. */
export interface ChainRequestRef {
  provider: string;
  /** e.g. `eth_getLogs`, `trace_filter`, `eth_call isBlacklisted`, `synthetic.transfers`. */
  method: string;
  /** sha256 of the canonical request; the same request has the same hash on every run. */
  request_hash: string;
  /** Inclusive block range the request covered, decimal strings; null for point queries. */
  block_range: [string, string] | null;
  /** Supplied by the provider (its own clock); the engine never reads a clock. */
  fetched_at: string;
  /** true when the whole range is at or below the finalized block, so the answer cannot change. */
  finalized: boolean;
  /** A display endpoint (never a credential-bearing URL); null when there is none. */
  uri: string | null;
}

/** One value transfer event: a native value transfer of a transaction or one token `Transfer` log. */
export interface Transfer {
  network: Network;
  tx_hash: string;
  /** Log index for token transfers; -1 for the transaction's own native value. */
  event_index: number;
  block: bigint;
  /** Unix seconds of the block. */
  block_time: number;
  tx_index: number;
  from: string;
  to: string;
  asset: AssetRef;
  amount: bigint;
  source_ref: ChainRequestRef;
}

export interface TransferQuery {
  address: string;
  fromBlock: bigint;
  toBlock: bigint;
  /** Opaque cursor from the previous page; null for the first page. */
  cursor: string | null;
  signal?: AbortSignal;
}

/** A page of transfers in or out of one address, in any order. `next` is null on the last page. */
export interface TransferPage {
  items: Transfer[];
  next: string | null;
}

export interface AmountFact {
  amount: bigint;
  source_ref: ChainRequestRef;
}

/** How an issuer's freeze list is read on chain, e.g. `isBlacklisted(address)` (USDC) or `isBlackListed(address)` (USDT). */
export type FreezeCheckMethod = "isBlacklisted" | "isBlackListed" | "isFrozen";

export interface FreezeFact {
  /** null when the call could not answer (reverted, method missing); `reason` then says why. */
  frozen: boolean | null;
  reason: string | null;
  source_ref: ChainRequestRef;
}

/**
 * A chain data source. Only providers do I/O; the engine calls them and nothing else.
 * Every method honours `signal` (AbortSignal) by rejecting with its reason.
 */
export interface ChainProvider {
  readonly network: Network;
  readonly kind: ProviderKind;
  /** A stable display name used in source refs, e.g. `evm-rpc 127.0.0.1:8545`. */
  readonly name: string;
  head(signal?: AbortSignal): Promise<{ number: bigint; finalized: bigint }>;
  /** Transfers from or to `address` within [fromBlock, toBlock], paged. */
  transfers(query: TransferQuery): Promise<TransferPage>;
  /**
   * Balance at the end of `block`; null when the provider cannot say (e.g. no archive state).
   * Block −1 asks for the genesis allocation (the balance before any block's transfers).
   */
  balanceAt?(address: string, asset: AssetRef, block: bigint, signal?: AbortSignal): Promise<AmountFact | null>;
  /** What a token contract says of itself (decimals, symbol); null when the provider cannot say. */
  assetOf?(contract: string, signal?: AbortSignal): Promise<AssetRef | null>;
  freezeStatus?(
    token: string,
    address: string,
    method: FreezeCheckMethod,
    block: bigint,
    signal?: AbortSignal,
  ): Promise<FreezeFact>;
}

/**
 * Attribution categories whose addresses end the trace (terminals): funds are pooled there
 * (exchanges, their deposit addresses, mixers), leave the chain (bridges, issuers) or are destroyed
 * (burn addresses).
 */
export const TERMINAL_LABEL_CATEGORIES = ["exchange", "exchange_deposit", "mixer", "bridge", "issuer", "burn"] as const;
/** Every attribution category: the terminal ones, and flags tracing continues through. */
export const LABEL_CATEGORIES = [...TERMINAL_LABEL_CATEGORIES, "sanctioned", "other"] as const;
export type LabelCategory = (typeof LABEL_CATEGORIES)[number];

export interface LabelSource {
  /** Name of the dataset the label came from, e.g. `ofac-sdn` or `ops-manual-2026-07`. */
  dataset: string;
  /** A dereferenceable source (document, web page, API); null when there is none. */
  uri: string | null;
  license: string | null;
  /** Date (YYYY-MM-DD) the label was known to hold; null when unknown. */
  as_of: string | null;
  retrieved_at: string | null;
}

export interface AddressLabel {
  network: Network;
  address: string;
  /** The entity, e.g. `Exchange A` or `Tornado-style mixer`. */
  entity: string;
  category: LabelCategory;
  /** 0–100 on the scale in `LABEL_CONFIDENCE` (100 ownership, 60 authority data, 20 web crawl, …). */
  confidence: number;
  /** The basis of `confidence`, a key of `LABEL_CONFIDENCE`. */
  confidence_basis: string;
  source: LabelSource;
  /** Validity window in unix seconds; null = open. A label applies at the time funds arrive. */
  valid_from: number | null;
  valid_to: number | null;
  /** Free text carried to the result, e.g. the sanctions list entry id. */
  note: string | null;
}

/** Label lookup by (network, address); addresses are compared in the network's normal form. */
export interface LabelLookup {
  labelsFor(network: Network, address: string): readonly AddressLabel[];
}
