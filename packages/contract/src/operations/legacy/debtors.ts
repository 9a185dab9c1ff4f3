import {
  ASSET_HYPOTHESIS_TYPES,
  DEBTOR_CLAIM_SOURCE_TYPES,
  DEBTOR_GRAPH_NODE_TYPES,
  DEBTOR_GRAPH_SOURCES,
  PARTY_TYPES,
  REVIEW_STATUSES,
} from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../../operation";
import {
  JsonObject,
  ListQuery,
  listOf,
  NonBlankText,
  ObjectIdParam,
  SourceRefInput,
  Timestamp,
} from "../../schemas/common";
import { Aliases, PARTY_WRITE_ANSWERS, Wallet, Wallets } from "../parties";

/**
 * Debtors (2026-06-11): a debtor is a party with role `debtor`, its `debtor_id` the party's id. These
 * operations read and write the same party rows as `/v1/parties`; nothing is copied.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

export const DebtorReviewState = z
  .object({
    review_required: z.boolean(),
    review_status: z.enum(REVIEW_STATUSES),
    reasons: z.array(z.string()).meta({ description: "why a review is required (one per open sanctions hit)" }),
  })
  .meta({
    id: "LegacyDebtorReviewState",
    description:
      "Derived from the party's sanctions hits: `pending` while any is open, else `not_required`. An operator clears a hit (operator.clearSanctionsHit).",
  });

export const Debtor = z
  .object({
    object: z.literal("debtor"),
    id: z.string(),
    debtor_id: z.string().meta({ description: "the party id of the debtor" }),
    matter_id: z.string(),
    type: z.enum(PARTY_TYPES).nullable(),
    legal_name: z.string().meta({ description: "the party's legal name, or its name when it has none" }),
    aliases: z.array(z.string()),
    identifiers: JsonObject,
    wallets: z.array(Wallet),
    review_state: DebtorReviewState,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacyDebtor" });
export type Debtor = z.infer<typeof Debtor>;

export const CreateDebtorBody = z
  .object({
    matter_id: NonBlankText(64),
    type: z.enum(PARTY_TYPES).nullable().optional(),
    legal_name: NonBlankText(200),
    aliases: Aliases.optional(),
    identifiers: JsonObject.optional(),
    wallets: Wallets.optional(),
  })
  .meta({
    id: "LegacyCreateDebtorBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      type: "individual",
      legal_name: "Jane Roe",
      aliases: ["J. Roe"],
      identifiers: { passport: "X1234567" },
    },
  });
export type CreateDebtorBody = z.infer<typeof CreateDebtorBody>;

export const UpdateDebtorBody = z
  .object({
    legal_name: NonBlankText(200).optional(),
    aliases: Aliases.optional(),
    identifiers: JsonObject.optional(),
    wallets: Wallets.optional(),
    review_state: DebtorReviewState.partial().nullable().optional().meta({
      description:
        "Derived, so only accepted unchanged: null, or a `review_status` equal to the debtor's own, changes nothing; another status is a 422 (an operator clears the sanctions hits it follows).",
    }),
  })
  .meta({ id: "LegacyUpdateDebtorBody", example: { aliases: ["J. Roe", "Janie Roe"] } });
export type UpdateDebtorBody = z.infer<typeof UpdateDebtorBody>;

export const ListDebtorsQuery = ListQuery.extend({ matter_id: ObjectIdParam.optional() });

export const ClaimSourceRef = z
  .object({
    record_type: z.enum(["party", "judgment", "asset_map"]),
    record_id: z.string().meta({ description: "the party, judgment or asset map id" }),
    source_ids: z.array(z.string()).meta({
      description: "for an asset map: the `source_id`s of its `source_manifest` the fact rests on; empty for a record",
    }),
  })
  .meta({ id: "LegacyDebtorClaimSourceRef", description: "A recorded object a claim or hypothesis rests on." });

const Confidence = z.number().min(0).max(1).meta({
  description:
    "1 for a fact the client recorded (a party, a judgment); for an asset map's inference its own confidence as a number: high 0.9, medium 0.6, low 0.3",
});

export const DebtorClaim = z
  .object({
    claim_id: z
      .string()
      .meta({ description: "`claim_` and a digest of the claim: the same fact on the same sources keeps its id" }),
    matter_id: z.string(),
    subject: z.string().meta({ description: "a node_id" }),
    predicate: z.string(),
    object: z.string().meta({ description: "a node_id" }),
    source_type: z.enum(DEBTOR_CLAIM_SOURCE_TYPES),
    source_refs: z.array(ClaimSourceRef),
    confidence: Confidence,
  })
  .meta({ id: "LegacyDebtorClaim" });

const AssetMapsRead = z
  .object({
    count: z.number().int(),
    limit: z.number().int(),
    truncated: z
      .boolean()
      .meta({ description: "true when the debtor has more asset maps than `limit`: the older ones were not read" }),
  })
  .meta({
    id: "LegacyDebtorAssetMapsRead",
    description: "the succeeded asset maps traced from the debtor's wallets that were read, the most recent first",
  });

export const DebtorGraph = z
  .object({
    object: z.literal("debtor_graph"),
    id: z.string(),
    graph_id: z.string(),
    debtor_id: z.string(),
    matter_id: z.string(),
    include_sources: z.array(z.enum(DEBTOR_GRAPH_SOURCES)).meta({ description: "the kinds of facts read" }),
    nodes: z.array(
      z
        .object({
          node_id: z.string().meta({ description: "`<type>:<key>`, e.g. `party:<party id>`, `wallet:<address>`" }),
          type: z.enum(DEBTOR_GRAPH_NODE_TYPES),
          label: z.string(),
          record_id: z.string().nullable().meta({ description: "the record the node is; null for a value" }),
        })
        .meta({ id: "LegacyDebtorGraphNode" }),
    ),
    edges: z.array(
      z
        .object({
          from: z.string(),
          to: z.string(),
          predicate: z.string(),
          claim_ids: z.array(z.string()).meta({ description: "the claims asserting this edge" }),
        })
        .meta({ id: "LegacyDebtorGraphEdge" }),
    ),
    claims: z.array(DebtorClaim),
    review_state: DebtorReviewState,
    source_refs: z.array(SourceRefInput).meta({ description: "the case documents the request named, as sent" }),
    asset_maps_read: AssetMapsRead,
    generated_at: Timestamp,
  })
  .meta({ id: "LegacyDebtorGraph" });
export type DebtorGraph = z.infer<typeof DebtorGraph>;

export const DebtorGraphBody = z
  .object({
    include_sources: z
      .array(z.enum(DEBTOR_GRAPH_SOURCES))
      .min(1, "must name at least one source (omit it to read them all)")
      .max(DEBTOR_GRAPH_SOURCES.length * 4, "lists too many sources")
      .optional(),
    source_refs: z.array(SourceRefInput).max(50, "must list at most 50 source refs").optional(),
  })
  .meta({ id: "LegacyDebtorGraphBody", example: { include_sources: ["parties", "judgments", "asset_maps"] } });

export const AssetHypothesis = z
  .object({
    hypothesis_id: z
      .string()
      .meta({ description: "`ahyp_` and a digest of the hypothesis: stable for the same facts" }),
    asset_type: z.enum(ASSET_HYPOTHESIS_TYPES),
    description: z.string(),
    confidence: Confidence,
    source_refs: z.array(ClaimSourceRef),
  })
  .meta({ id: "LegacyAssetHypothesis" });
export type AssetHypothesis = z.infer<typeof AssetHypothesis>;

export const AssetHypothesesBody = z
  .object({
    asset_classes: z
      .array(z.enum(ASSET_HYPOTHESIS_TYPES))
      .min(1, "must name at least one asset class (omit it for all)")
      .max(ASSET_HYPOTHESIS_TYPES.length * 4, "lists too many asset classes")
      .optional(),
    min_confidence: z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").optional(),
  })
  .meta({ id: "LegacyAssetHypothesesBody", example: { asset_classes: ["stablecoin_holding"], min_confidence: 0.5 } });

export const AssetHypotheses = z
  .object({
    object: z.literal("debtor_asset_hypotheses"),
    debtor_id: z.string(),
    matter_id: z.string(),
    items: z.array(AssetHypothesis),
    asset_maps_read: AssetMapsRead,
    generated_at: Timestamp,
  })
  .meta({ id: "LegacyAssetHypotheses" });
export type AssetHypotheses = z.infer<typeof AssetHypotheses>;

/** Why debtors' successors are the parties operations. */
const DEBTOR_SUCCESSOR_NOTE = "A debtor is a party with role debtor.";

const COMPUTED_NOTE =
  "Computed from the recorded facts on each call and not stored: it appends no events; an Idempotency-Key keeps the answer.";

export const debtorOperations = {
  create: defineOperation({
    id: "legacyCreateDebtor",
    method: "POST",
    path: "/v1/debtors",
    scope: "debtors:write",
    tag: "Debtors",
    summary: "Add a debtor to a matter: a party with role debtor, screened against the sanctions list.",
    successStatus: 201,
    body: CreateDebtorBody,
    response: Debtor,
    idempotent: true,
    events: ["party.created", "matter.updated"],
    alsoAnswers: { 404: { description: "Unknown matter_id" }, ...PARTY_WRITE_ANSWERS },
    rpc: false,
    surface: "legacy",
    successor: { operation: "createParty", note: DEBTOR_SUCCESSOR_NOTE },
  }),
  list: defineOperation({
    id: "legacyListDebtors",
    method: "GET",
    path: "/v1/debtors",
    scope: "debtors:read",
    tag: "Debtors",
    summary: "List debtors (parties with role debtor), most recent first, optionally of one matter.",
    successStatus: 200,
    query: ListDebtorsQuery,
    response: listOf(Debtor, "LegacyDebtorList"),
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: { operation: "listParties", note: DEBTOR_SUCCESSOR_NOTE },
  }),
  get: defineOperation({
    id: "legacyRetrieveDebtor",
    method: "GET",
    path: "/v1/debtors/{debtor_id}",
    scope: "debtors:read",
    tag: "Debtors",
    summary: "Retrieve a debtor; a party of another role is not one (404).",
    successStatus: 200,
    response: Debtor,
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: { operation: "retrieveParty", note: DEBTOR_SUCCESSOR_NOTE },
  }),
  update: defineOperation({
    id: "legacyUpdateDebtor",
    method: "PATCH",
    path: "/v1/debtors/{debtor_id}",
    scope: "debtors:write",
    tag: "Debtors",
    summary: "Update a debtor's legal name, aliases, identifiers or wallets; changed ones are screened again.",
    successStatus: 200,
    body: UpdateDebtorBody,
    response: Debtor,
    idempotent: true,
    events: ["party.updated", "matter.updated"],
    alsoAnswers: PARTY_WRITE_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: { operation: "updateParty", note: DEBTOR_SUCCESSOR_NOTE },
  }),
  graph: defineOperation({
    id: "legacyBuildDebtorGraph",
    method: "POST",
    path: "/v1/debtors/{debtor_id}/graph",
    scope: "debtors:graph",
    tag: "Debtors",
    summary: `The debtor's graph: claims (subject, predicate, object) from its party record, its matter's parties, the judgments naming it and the asset maps traced from its wallets, each with its sources and confidence. ${COMPUTED_NOTE}`,
    successStatus: 200,
    body: DebtorGraphBody,
    response: DebtorGraph,
    idempotent: true,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: {
      operation: "retrieveParty",
      note: "A debtor is a party with role debtor; its judgments and asset maps are read from the matter.",
    },
  }),
  assetHypotheses: defineOperation({
    id: "legacyDebtorAssetHypotheses",
    method: "POST",
    path: "/v1/debtors/{debtor_id}/asset-hypotheses",
    scope: "debtors:graph",
    tag: "Debtors",
    summary: `Where the debtor's assets may be: its recorded wallets, and the holdings and exchange deposits the asset maps of its wallets found, highest confidence first. ${COMPUTED_NOTE}`,
    successStatus: 200,
    body: AssetHypothesesBody,
    response: AssetHypotheses,
    idempotent: true,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: { operation: "createAssetMap", note: "The asset map holds the holdings and exchange hypotheses." },
  }),
};
