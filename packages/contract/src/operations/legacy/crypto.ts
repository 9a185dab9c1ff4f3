import { HYPOTHESIS_CONFIDENCES, parseAssetSelector } from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../../operation";
import {
  ExchangeHypothesis,
  SourceManifestEntry,
  StablecoinExposure,
  TraceBlockRange,
  TraceTruncation,
} from "../../schemas/asset-map";
import { DateTimeInput, Timestamp } from "../../schemas/common";
import { CreateAssetMapBody } from "../crypto";

/**
 * The 2026-06-11 synchronous crypto analyses. Each runs, within the request, the trace an asset map's
 * job runs (the same chain provider, engine and wallet input), under tighter limits that its answer
 * reports; nothing is recorded. The asset map (`POST /v1/crypto/asset-map`) replaces all three.
 */

/** The most hops these analyses follow (an asset map goes up to 7). */
export const LEGACY_ANALYSIS_MAX_HOPS = 5;

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";
const EXAMPLE_WALLET = { address: "0x5eed00000007000000000000000000000000089f", incident_block: 11 };

/** The asset map's own fields, so wallets, chains and the matter are read and refused exactly as it reads them. */
const Subjects = {
  matter_id: CreateAssetMapBody.shape.matter_id,
  wallets: CreateAssetMapBody.shape.wallets,
  chains: CreateAssetMapBody.shape.chains,
};

const MaxHops = z
  .number()
  .int("must be an integer")
  .min(1, `must be between 1 and ${LEGACY_ANALYSIS_MAX_HOPS}`)
  .max(LEGACY_ANALYSIS_MAX_HOPS, `must be between 1 and ${LEGACY_ANALYSIS_MAX_HOPS}`)
  .optional()
  .meta({
    description: `hops followed from the wallets, 1 to ${LEGACY_ANALYSIS_MAX_HOPS} (default 5, as an asset map)`,
  });

export const TransactionTimelineBody = z
  .object({
    ...Subjects,
    from: DateTimeInput.meta({ description: "start of the window, inclusive (block time)" }),
    to: DateTimeInput.meta({ description: "end of the window, inclusive (block time)" }),
  })
  .superRefine((body, ctx) => {
    if (Date.parse(body.to) < Date.parse(body.from)) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from" });
    }
  })
  .meta({
    id: "LegacyTransactionTimelineBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      wallets: [EXAMPLE_WALLET],
      from: "2024-01-01T00:00:00.000Z",
      to: "2024-12-31T23:59:59.999Z",
    },
  });
export type TransactionTimelineBody = z.infer<typeof TransactionTimelineBody>;

export const ExchangeHypothesesBody = z
  .object({
    ...Subjects,
    max_hops: MaxHops,
    min_confidence: z
      .enum(HYPOTHESIS_CONFIDENCES, { error: `must be one of ${HYPOTHESIS_CONFIDENCES.join(", ")}` })
      .optional()
      .meta({
        description:
          "the lowest hypothesis `confidence` listed, on its own scale: low < medium < high (default low: every hypothesis)",
      }),
  })
  .meta({
    id: "LegacyExchangeHypothesesBody",
    example: { matter_id: EXAMPLE_MATTER, wallets: [EXAMPLE_WALLET], min_confidence: "medium" },
  });
export type ExchangeHypothesesBody = z.infer<typeof ExchangeHypothesesBody>;

export const StablecoinExposureBody = z
  .object({
    ...Subjects,
    max_hops: MaxHops,
    assets: z
      .array(
        z
          .string()
          .trim()
          .refine(
            (text) => parseAssetSelector(text) !== null,
            "must be an asset key erc20:<contract> or a token symbol such as USDC",
          ),
      )
      .min(1, "must list at least one asset (leave it out for every stablecoin)")
      .max(20, "must list at most 20 assets")
      .optional()
      .meta({
        description:
          "the stablecoins to list, by asset key (`erc20:<contract>`) or symbol (case-insensitive); each must be one the chain's issuer registry knows (default: all)",
      }),
  })
  .meta({
    id: "LegacyStablecoinExposureBody",
    example: { matter_id: EXAMPLE_MATTER, wallets: [EXAMPLE_WALLET], assets: ["sUSD"] },
  });
export type StablecoinExposureBody = z.infer<typeof StablecoinExposureBody>;

const TraceLimits = z
  .object({
    max_hops: z.number().int(),
    max_expansions: z.number().int().meta({ description: "addresses opened at most" }),
    max_edges: z.number().int().meta({ description: "transfer events read at most" }),
    time_budget_ms: z.number().int().meta({ description: "wall-clock time the trace may take" }),
  })
  .meta({
    id: "LegacyAnalysisLimits",
    description: "the bounds the trace ran under; a bound reached is in truncation",
  });

/** What every analysis answer says about the trace it ran. */
const TraceReport = {
  matter_id: z.string(),
  livemode: z.boolean(),
  chain: z.string(),
  source: z.string().meta({ description: "`synthetic` (sandbox) or `live`" }),
  provider: z.string(),
  traced_at: Timestamp,
  subjects: z.array(z.string()),
  hops: z.number().int().meta({ description: "the deepest hop reached" }),
  limits: TraceLimits,
  truncated: z.boolean(),
  truncation: z.array(TraceTruncation).meta({ description: "which limit cut the trace; empty when none" }),
  block_range: TraceBlockRange.nullable(),
  source_manifest: z.array(SourceManifestEntry).meta({
    description: "the trace's sources, by source_id: every source_refs of the items names entries of it",
  }),
};

export const ExchangeHypothesesAnswer = z
  .object({
    object: z.literal("crypto_exchange_hypotheses"),
    min_confidence: z.enum(HYPOTHESIS_CONFIDENCES),
    items: z
      .array(ExchangeHypothesis)
      .meta({ description: "the asset map's exchange hypotheses at or above min_confidence" }),
    ...TraceReport,
  })
  .meta({ id: "LegacyExchangeHypotheses" });
export type ExchangeHypothesesAnswer = z.infer<typeof ExchangeHypothesesAnswer>;

export const StablecoinExposureAnswer = z
  .object({
    object: z.literal("crypto_stablecoin_exposure"),
    assets: z.array(z.string()).nullable().meta({ description: "the filter as sent; null for every stablecoin" }),
    items: z.array(StablecoinExposure).meta({ description: "the asset map's stablecoin exposures of those assets" }),
    ...TraceReport,
  })
  .meta({ id: "LegacyStablecoinExposure" });
export type StablecoinExposureAnswer = z.infer<typeof StablecoinExposureAnswer>;

export const TimelineEvent = z
  .object({
    transaction_hash: z.string(),
    event_index: z.number().int().meta({ description: "log index; -1 for the transaction's own native value" }),
    block: z.string().meta({ description: "block number, decimal string" }),
    tx_index: z.number().int(),
    timestamp: Timestamp.meta({ description: "the block's time" }),
    from_address: z.string(),
    to_address: z.string(),
    asset: z.string().meta({ description: "`native` or `erc20:<contract>`" }),
    symbol: z.string().nullable(),
    amount: z
      .string()
      .nullable()
      .meta({ description: "exact decimal amount in whole units; null when the token's decimals are unknown" }),
    base_units: z.string().meta({ description: "integer amount in base units, decimal string" }),
    direction: z.enum(["outgoing", "incoming", "between_wallets"]),
    wallet: z.string().meta({ description: "the given wallet it touches (the sender between two given wallets)" }),
    notes: z.string().meta({ description: "the direction and the counterparty's labels at the transfer's time" }),
    source_refs: z.array(z.string()).meta({
      description: "the provider request the transfer was read from: a source_id of the timeline's source_manifest",
    }),
  })
  .meta({ id: "LegacyTimelineEvent" });

export const TIMELINE_TRUNCATION_REASONS = ["max_events", "max_edges", "deadline"] as const;

export const TransactionTimeline = z
  .object({
    object: z.literal("crypto_transaction_timeline"),
    id: z.string(),
    timeline_id: z.string().meta({ description: "`tl_…`: names this answer (it is not stored apart from it)" }),
    matter_id: z.string(),
    livemode: z.boolean(),
    chain: z.string(),
    source: z.string(),
    provider: z.string(),
    wallets: z.array(z.string()),
    from: Timestamp,
    to: Timestamp,
    block_range: z
      .object({ from: z.string(), to: z.string() })
      .meta({ description: "the blocks read: from the earliest incident_block to the chain head" }),
    events: z.array(TimelineEvent).meta({ description: "in time order: block, transaction, log" }),
    matched_count: z.number().int().meta({ description: "transfers in the window, listed or not" }),
    limits: z.object({
      max_events: z.number().int(),
      max_edges: z.number().int().meta({ description: "transfer events read at most" }),
      time_budget_ms: z.number().int(),
    }),
    truncated: z.boolean(),
    truncation: z.array(z.object({ reason: z.enum(TIMELINE_TRUNCATION_REASONS), detail: z.string() })),
    source_manifest: z
      .array(SourceManifestEntry)
      .meta({ description: "the provider requests the listed transfers were read from (chain_request entries)" }),
    traced_at: Timestamp,
  })
  .meta({ id: "LegacyTransactionTimeline" });
export type TransactionTimeline = z.infer<typeof TransactionTimeline>;

const SUCCESSOR_NOTE = "The asset map holds the edges, exchange hypotheses and exposures.";
const ANALYSIS_ANSWERS = {
  404: { description: "Unknown matter_id" },
  409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
} as const;

export const legacyCryptoOperations = {
  transactionTimeline: defineOperation({
    id: "legacyTransactionTimeline",
    method: "POST",
    path: "/v1/crypto/transaction-timeline",
    scope: "crypto:timeline",
    tag: "Crypto",
    summary:
      "The transfers in and out of the wallets within [from, to], in time order, read from the chain provider asset maps trace; records nothing.",
    successStatus: 200,
    body: TransactionTimelineBody,
    response: TransactionTimeline,
    idempotent: true,
    events: [],
    alsoAnswers: ANALYSIS_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: { operation: "createAssetMap", note: SUCCESSOR_NOTE },
  }),
  exchangeHypotheses: defineOperation({
    id: "legacyExchangeHypotheses",
    method: "POST",
    path: "/v1/crypto/exchange-hypotheses",
    scope: "crypto:exchange",
    tag: "Crypto",
    summary:
      "The exchange hypotheses an asset map of the wallets would hold, traced within the request under tight limits; records nothing.",
    successStatus: 200,
    body: ExchangeHypothesesBody,
    response: ExchangeHypothesesAnswer,
    idempotent: true,
    events: [],
    alsoAnswers: ANALYSIS_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: { operation: "createAssetMap", note: SUCCESSOR_NOTE },
  }),
  stablecoinExposure: defineOperation({
    id: "legacyStablecoinExposure",
    method: "POST",
    path: "/v1/crypto/stablecoin-exposure",
    scope: "crypto:stablecoin",
    tag: "Crypto",
    summary:
      "The stablecoin exposures an asset map of the wallets would hold, traced within the request under tight limits; records nothing.",
    successStatus: 200,
    body: StablecoinExposureBody,
    response: StablecoinExposureAnswer,
    idempotent: true,
    events: [],
    alsoAnswers: ANALYSIS_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: { operation: "createAssetMap", note: SUCCESSOR_NOTE },
  }),
};
