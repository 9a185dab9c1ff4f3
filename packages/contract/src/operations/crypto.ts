import { z } from "zod";
import { defineOperation } from "../operation";
import { TraceResultFields, TraceTaintModel } from "../schemas/asset-map";
import { ObjectIdParam, SourceRefInput, Timestamp } from "../schemas/common";
import { LEGACY_VERSION } from "../versions";
import { JobError, TraceDirection, TraceSourceRefs, TraceWalletInput } from "./jobs";
import { ReviewState } from "./judgments";

export const ASSET_MAP_STATUSES = ["processing", "succeeded", "failed", "canceled"] as const;

export const CreateAssetMapBody = z
  .object({
    matter_id: ObjectIdParam,
    wallets: z.array(TraceWalletInput).min(1, "must list at least one wallet").max(20, "must list at most 20 wallets"),
    chains: z
      .array(z.string().trim().min(1, "must not be blank").max(64, "must be at most 64 characters"))
      .min(1, "must name one chain")
      .max(1, "one chain per asset map: create one map per chain")
      .optional(),
    include_stablecoins: z.boolean().optional(),
    include_exchanges: z.boolean().optional(),
    source_refs: TraceSourceRefs.optional(),
    direction: TraceDirection.optional(),
    max_hops: z
      .number()
      .int("must be an integer")
      .min(1, "must be between 1 and 7")
      .max(7, "must be between 1 and 7")
      .optional(),
  })
  .meta({
    id: "CreateAssetMapBody",
    example: {
      matter_id: "matter_01k1z9r5ht3q7mxw2c4d8e6f0g",
      wallets: ["0x5eed00000007000000000000000000000000089f"],
      chains: ["synthetic:eth"],
      include_stablecoins: true,
      include_exchanges: true,
      source_refs: [{ source_id: "judgment-exhibit-4", source_type: "court_record", title: "Exhibit 4: wallet list" }],
    },
  });
export type CreateAssetMapBody = z.infer<typeof CreateAssetMapBody>;

export const AssetMap = z
  .object({
    object: z.literal("crypto_asset_map"),
    id: z.string(),
    map_id: z.string(),
    matter_id: z.string(),
    job_id: z.string(),
    status: z.enum(ASSET_MAP_STATUSES),
    livemode: z.boolean(),
    review_state: ReviewState,
    ...TraceResultFields.shape,
    taint_model: TraceTaintModel.nullable().meta({
      description: "how amounts were attributed through mixed balances; null until traced",
    }),
    source_refs: z.array(SourceRefInput).meta({ description: "the case documents the request named" }),
    error: JobError.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "AssetMap" });
export type AssetMap = z.infer<typeof AssetMap>;

/** Keys on 2026-06-11 read `complete` where the current version says `succeeded`. */
export const AssetMapLegacy = AssetMap.extend({
  status: z.enum(["processing", "complete", "failed", "canceled"]),
}).meta({ id: "AssetMapLegacy" });

function toLegacyAssetMap(current: AssetMap): z.infer<typeof AssetMapLegacy> {
  return { ...current, status: current.status === "succeeded" ? "complete" : current.status };
}

export const cryptoOperations = {
  createAssetMap: defineOperation({
    id: "createAssetMap",
    method: "POST",
    path: "/v1/crypto/asset-map",
    scope: "crypto:map",
    tag: "Crypto",
    summary:
      "Trace the wallets' outflows into an asset map. Answers 202 at once with status processing and its job_id; the map fills in when the job succeeds.",
    successStatus: 202,
    alsoAnswers: { 404: { description: "Unknown matter_id" } },
    body: CreateAssetMapBody,
    response: AssetMap,
    versions: { [LEGACY_VERSION]: { response: AssetMapLegacy, fromCurrent: toLegacyAssetMap } },
    idempotent: true,
    events: ["job.created"],
  }),
  getAssetMap: defineOperation({
    id: "retrieveAssetMap",
    method: "GET",
    path: "/v1/crypto/asset-map/{map_id}",
    scope: "crypto:read",
    tag: "Crypto",
    summary: "Retrieve an asset map with its source manifest (succeeded; complete for keys on 2026-06-11).",
    successStatus: 200,
    response: AssetMap,
    versions: { [LEGACY_VERSION]: { response: AssetMapLegacy, fromCurrent: toLegacyAssetMap } },
    idempotent: false,
    events: [],
  }),
};
