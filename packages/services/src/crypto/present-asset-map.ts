import type { AssetMap } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";

export type AssetMapRow = typeof schema.assetMaps.$inferSelect;

const list = (value: unknown) => (Array.isArray(value) ? (value as Array<Record<string, unknown>>) : []);

/**
 * The map as the API returns it: while processing (or after a failure) its collections are empty;
 * once its job succeeded, the trace's fields. `error` mirrors the job's when it failed.
 */
export function presentAssetMap(row: AssetMapRow, jobError: AssetMap["error"] = null): AssetMap {
  const r = (row.status === "succeeded" ? row.result : null) ?? {};
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
    source: typeof r.source === "string" ? r.source : null,
    provider: typeof r.provider === "string" ? r.provider : null,
    traced_at: typeof r.traced_at === "string" ? r.traced_at : null,
    hops: typeof r.hops === "number" ? r.hops : null,
    max_hops: typeof r.max_hops === "number" ? r.max_hops : Number(request.max_hops),
    subjects: Array.isArray(r.subjects) ? (r.subjects as string[]) : [],
    wallets: list(r.wallets),
    edges: list(r.edges),
    flows: list(r.flows),
    terminals: list(r.terminals),
    edge_count: typeof r.edge_count === "number" ? r.edge_count : 0,
    node_count: typeof r.node_count === "number" ? r.node_count : 0,
    exchange_hypotheses: list(r.exchange_hypotheses),
    token_exposures: list(r.token_exposures),
    stablecoin_exposure: list(r.stablecoin_exposure),
    totals: list(r.totals),
    truncated: r.truncated === true,
    truncation: list(r.truncation),
    block_range: (r.block_range as Record<string, unknown> | undefined) ?? null,
    source_refs: list(request.source_refs),
    source_manifest: list(r.source_manifest),
    error: row.status === "failed" ? jobError : null,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}
