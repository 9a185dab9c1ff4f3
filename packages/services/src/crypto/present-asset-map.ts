import type { AssetMap } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";
import type { AssetMapFields } from "./run-trace-job";

export type AssetMapRow = typeof schema.assetMaps.$inferSelect;

/**
 * The map as the API returns it: while processing (or after a failure) its collections are empty;
 * once its job succeeded, the trace's fields. `error` mirrors the job's when it failed.
 */
export function presentAssetMap(row: AssetMapRow, jobError: AssetMap["error"] = null): AssetMap {
  // A succeeded map's result is what assetMapFieldsOf stored (the contract's shapes, as JSON).
  const r: Partial<AssetMapFields> = (row.status === "succeeded" ? row.result : null) ?? {};
  const request = row.request;
  return {
    object: "crypto_asset_map",
    id: row.id,
    map_id: row.id,
    matter_id: row.matterId,
    job_id: row.jobId,
    status: row.status,
    livemode: row.environment === "live",
    review_state: {
      review_required: true,
      review_status: row.reviewStatus,
      review_owner: "",
      review_notes: "",
    },
    chain: row.chain,
    source: r.source ?? null,
    provider: r.provider ?? null,
    traced_at: r.traced_at ?? null,
    hops: r.hops ?? null,
    max_hops: r.max_hops ?? Number(request.max_hops),
    subjects: r.subjects ?? [],
    wallets: r.wallets ?? [],
    edges: r.edges ?? [],
    flows: r.flows ?? [],
    terminals: r.terminals ?? [],
    edge_count: r.edge_count ?? 0,
    node_count: r.node_count ?? 0,
    exchange_hypotheses: r.exchange_hypotheses ?? [],
    token_exposures: r.token_exposures ?? [],
    stablecoin_exposure: r.stablecoin_exposure ?? [],
    totals: r.totals ?? [],
    truncated: r.truncated === true,
    truncation: r.truncation ?? [],
    block_range: r.block_range ?? null,
    taint_model: r.taint_model ?? null,
    source_refs: (Array.isArray(request.source_refs) ? request.source_refs : []) as AssetMap["source_refs"],
    source_manifest: r.source_manifest ?? [],
    error: row.status === "failed" ? jobError : null,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}
