import { LABEL_CATEGORIES } from "@crs/core";
import { z } from "zod";
import { Timestamp } from "./common";

/**
 * The result collections of a crypto asset map, field by field: what the trace engine (`@crs/core`
 * tracing) stores and the GET answers. Every `source_refs` names entries of the map's
 * `source_manifest` by `source_id`. Amounts are exact strings, never numbers.
 */

const SourceIds = z
  .array(z.string())
  .meta({ description: "source_id values of entries in the map's source_manifest that this fact rests on" });

const BlockNumber = z.string().meta({ description: "block number, decimal string" });

export const TraceAmount = z
  .object({
    base_units: z.string().meta({ description: "integer amount in the asset's base units (e.g. wei), decimal string" }),
    amount: z
      .string()
      .nullable()
      .meta({ description: "exact decimal amount in whole units; null when the token's decimals are unknown" }),
  })
  .meta({ id: "TraceAmount" });

export const TraceAssetAmount = TraceAmount.extend({
  asset: z.string().meta({ description: "`native` or `erc20:<contract>`" }),
  symbol: z.string().nullable(),
}).meta({ id: "TraceAssetAmount" });

const LabelCategory = z.enum(LABEL_CATEGORIES);
const Confidence = z.enum(["high", "medium", "low"]);
const ExposureBasis = z.enum(["retained", "received", "held"]).meta({
  description:
    "`retained`: tainted value still held by an expanded address; `received`: arrived at an address that was not expanded; `held`: a subject's balance at the last block of an issuer's token it did not move in the window, read from the chain",
});

export const AssetMapWallet = z
  .object({
    wallet_id: z.string(),
    address: z.string(),
    network: z.string(),
    role: z.enum(["subject", "intermediary", "exchange_deposit", "frontier", "unexplored"]),
    hop: z.number().int(),
    confidence: Confidence,
    path_confidence: z.number().meta({ description: "product of the hop confidences from a subject, 0 to 1" }),
    labels: z
      .array(
        z.object({
          entity: z.string(),
          category: LabelCategory,
          confidence: z.number().int(),
          source_refs: SourceIds,
        }),
      )
      .meta({ description: "labels that do not stop the trace (e.g. sanctioned)" }),
    received: z.array(TraceAssetAmount),
    retained: z
      .array(TraceAssetAmount)
      .nullable()
      .meta({ description: "tainted value still held at the end of the window; null with retained_reason" }),
    retained_reason: z.string().nullable(),
    opening_balance_unknown: z
      .array(z.string())
      .meta({ description: "assets whose opening balance the provider could not give (taint then over-attributed)" }),
    shortfall: z
      .array(TraceAssetAmount)
      .meta({ description: "value that left beyond what the trace saw arrive (gas, internal calls, unknown opening)" }),
    source_refs: SourceIds,
  })
  .meta({ id: "AssetMapWallet" });

export const AssetMapEdge = z
  .object({
    edge_id: z.string().meta({ description: "`<tx_hash>:<event_index>`" }),
    tx_hash: z.string(),
    event_index: z.number().int().meta({ description: "log index; -1 for the transaction's own native value" }),
    tx_index: z.number().int(),
    block: BlockNumber,
    block_time: z.string().meta({ format: "date-time" }),
    from: z.string(),
    to: z.string(),
    asset: z.string(),
    amount: TraceAmount,
    tainted: TraceAmount.meta({ description: "the part of amount the taint model attributes to the subjects" }),
    hop: z.number().int(),
    finalized: z.boolean(),
    source_refs: SourceIds,
  })
  .meta({ id: "AssetMapEdge" });

export const AssetMapFlow = z
  .object({
    from: z.string(),
    to: z.string(),
    asset: z.string(),
    edge_count: z.number().int(),
    amount: TraceAmount,
    tainted: TraceAmount,
    first_block: BlockNumber,
    last_block: BlockNumber,
    hop: z.number().int(),
    edge_ids: z.array(z.string()),
  })
  .meta({ id: "AssetMapFlow" });

export const AssetMapTerminal = z
  .object({
    address: z.string(),
    category: z.enum([...LabelCategory.options, "unlabeled_hub"]),
    entity: z.string().nullable(),
    label_confidence: z.number().int().nullable(),
    hop: z.number().int(),
    received: z.array(TraceAssetAmount),
    edge_ids: z.array(z.string()),
    source_refs: SourceIds,
  })
  .meta({ id: "AssetMapTerminal" });

export const ExchangeHypothesis = z
  .object({
    hypothesis_id: z.string(),
    exchange: z.string().nullable().meta({ description: "null for a behavioural guess with no attribution" }),
    wallet: z.string().meta({
      description: "the address to name to the exchange: the deposit address when the sweep rule holds",
    }),
    basis: z.enum(["labeled_service_address", "deposit_address_sweep", "behavioral_only"]),
    confidence: Confidence,
    packet_readiness: z.enum(["ready", "needs_review", "insufficient"]),
    readiness_reasons: z.array(z.string()),
    label_confidence: z.number().int().nullable(),
    path_confidence: z.number(),
    received: z.array(TraceAssetAmount),
    path_edge_ids: z
      .array(z.string())
      .meta({ description: "edges from a subject to wallet (one shortest path), then the sweep transfers" }),
    sweep: z
      .object({
        swept_to: z.array(z.string()),
        assets: z.array(
          z.object({
            asset: z.string(),
            inflows: z.number().int(),
            outflows: z.number().int(),
            received: TraceAmount,
            swept: TraceAmount,
            exact: z.boolean(),
            longest_delay_seconds: z.number().int(),
          }),
        ),
        gas_funded_by_exchange: z
          .boolean()
          .nullable()
          .meta({ description: "null when the gas funding lies outside what the trace read" }),
      })
      .nullable(),
    source_refs: SourceIds,
  })
  .meta({ id: "ExchangeHypothesis" });

export const TokenExposure = z
  .object({
    asset: z.string(),
    symbol: z.string().nullable(),
    network: z.string(),
    wallet: z.string(),
    amount: TraceAmount,
    basis: ExposureBasis,
    usd_value: z.string().nullable().meta({ description: "exact decimal USD; null with usd_value_reason" }),
    usd_value_reason: z.string().nullable(),
    source_refs: SourceIds,
  })
  .meta({ id: "TokenExposure" });

export const StablecoinExposure = z
  .object({
    issuer: z.string(),
    asset: z.string(),
    symbol: z.string(),
    network: z.string(),
    wallet: z.string(),
    amount: TraceAmount,
    basis: ExposureBasis,
    balance: z
      .object({ amount: TraceAmount, block: BlockNumber, source_refs: SourceIds })
      .nullable()
      .meta({ description: "the address's whole balance at the trace's last block; null with balance_reason" }),
    balance_reason: z.string().nullable(),
    frozen: z
      .boolean()
      .nullable()
      .meta({ description: "the issuer's freeze list read live at the trace's last block; null with frozen_reason" }),
    frozen_reason: z.string().nullable(),
    frozen_source_refs: SourceIds,
    freeze_capability_notes: z.string(),
    remediation_candidates: z.array(z.object({ action: z.string(), review_required: z.literal(true) })),
    review_required: z.literal(true),
    source_refs: SourceIds,
  })
  .meta({ id: "StablecoinExposure" });

export const AssetTotals = z
  .object({
    asset: z.string(),
    symbol: z.string().nullable(),
    subject_taint: TraceAmount,
    to_terminals: TraceAmount,
    retained: TraceAmount,
    at_hop_limit: TraceAmount,
    dust_dropped: TraceAmount.extend({ edges: z.number().int() }),
    unexplored: TraceAmount.meta({
      description:
        "taint that reached addresses a budget or the deadline left unexpanded, or that a subject passed on before its incident block after another subject had sent it",
    }),
    conserved: z.boolean().meta({ description: "true when the five buckets add up to subject_taint exactly" }),
  })
  .meta({ id: "AssetTotals" });

export const TraceTruncation = z
  .object({ reason: z.enum(["max_expansions", "max_edges", "deadline"]), detail: z.string() })
  .meta({ id: "TraceTruncation" });

export const TraceBlockRange = z
  .object({ from: BlockNumber, to: BlockNumber, finalized_through: BlockNumber })
  .meta({ id: "TraceBlockRange" });

const SourceCommon = {
  source_id: z.string(),
  title: z.string(),
  uri: z.string().nullable(),
  hash: z.string().nullable(),
};

// z.union, not z.discriminatedUnion: the latter becomes `oneOf`, which the /docs reference (Scalar) refuses
// as a document validation error; `source_type` still tells the entries apart.
export const SourceManifestEntry = z
  .union([
    z.object({
      source_type: z.literal("chain_request"),
      ...SourceCommon,
      provider: z.string(),
      method: z.string(),
      block_range: z.tuple([BlockNumber, BlockNumber]).nullable(),
      fetched_at: z.string().meta({ format: "date-time" }),
      finalized: z.boolean(),
    }),
    z.object({
      source_type: z.literal("label"),
      ...SourceCommon,
      dataset: z.string(),
      license: z.string().nullable(),
      as_of: z.string().nullable(),
      retrieved_at: z.string().nullable(),
      confidence: z.number().int(),
      confidence_basis: z.string(),
    }),
    z.object({ source_type: z.literal("issuer_registry"), ...SourceCommon, as_of: z.string() }),
    z.object({ source_type: z.literal("case_document"), ...SourceCommon }),
  ])
  .meta({ id: "SourceManifestEntry" });

/** What a trace produces: the result fields an asset map shows and a `crypto.trace` job's result carries. */
export const TraceResultFields = z.object({
  chain: z.string(),
  source: z.string().nullable().meta({ description: "`synthetic` (sandbox) or `live`; null until traced" }),
  provider: z.string().nullable(),
  traced_at: Timestamp.nullable(),
  hops: z.number().int().nullable(),
  max_hops: z.number().int(),
  subjects: z.array(z.string()),
  wallets: z.array(AssetMapWallet).meta({ description: "every address reached, subjects first" }),
  edges: z.array(AssetMapEdge).meta({ description: "each transfer followed" }),
  flows: z.array(AssetMapFlow).meta({ description: "edges summed per (from, to, asset)" }),
  terminals: z
    .array(AssetMapTerminal)
    .meta({ description: "where the trace stops: attributed exchanges, mixers, bridges, issuers, unlabelled hubs" }),
  edge_count: z.number().int(),
  node_count: z.number().int(),
  exchange_hypotheses: z.array(ExchangeHypothesis),
  token_exposures: z.array(TokenExposure).meta({ description: "tainted value by asset and wallet" }),
  stablecoin_exposure: z
    .array(StablecoinExposure)
    .meta({ description: "stablecoin holdings with the issuer's freeze capability and the live freeze-list read" }),
  totals: z.array(AssetTotals).meta({ description: "per asset: what left the subjects and where it ended" }),
  truncated: z.boolean(),
  truncation: z.array(TraceTruncation).meta({ description: "which budget or limit cut the trace; empty when none" }),
  block_range: TraceBlockRange.nullable(),
  source_manifest: z.array(SourceManifestEntry).meta({
    description: "every source a fact rests on (chain requests, labels, issuer notes, case documents), by source_id",
  }),
});
export type TraceResultFields = z.infer<typeof TraceResultFields>;

export const TraceTaintModel = z
  .object({
    name: z.enum(["fifo", "haircut", "poison"]),
    subject_taint: z
      .literal("all_holdings")
      .meta({ description: "a subject's whole holding at the incident block counts as tainted" }),
    amounts: z
      .enum(["conserved", "reach_only"])
      .meta({ description: "`reach_only` (poison): amounts show where taint reached and do not add up" }),
    description: z.string(),
  })
  .meta({ id: "TraceTaintModel", description: "how amounts were attributed through mixed balances (fifo by default)" });

/** The result of a succeeded `crypto.trace` job. */
export const TraceJobResult = TraceResultFields.extend({
  object: z.literal("crypto_asset_map"),
  map_id: z
    .string()
    .nullable()
    .meta({ description: "the asset map the trace fills; null for a job dispatched directly" }),
  matter_id: z.string().nullable(),
  taint_model: TraceTaintModel,
}).meta({ id: "TraceJobResult" });
export type TraceJobResult = z.infer<typeof TraceJobResult>;
