import { type AssetMap, type cryptoOperations, notFound, type OperationInput } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import type { ReadContext } from "../context";
import { presentAssetMap } from "./present-asset-map";

export async function retrieveAssetMap(
  read: ReadContext,
  { params }: OperationInput<typeof cryptoOperations.getAssetMap>,
): Promise<AssetMap> {
  const id = params.map_id;
  if (!isIdOf("amap", id)) throw notFound("asset map", id);
  const [row] = await read.db
    .select()
    .from(schema.assetMaps)
    .where(tenantRow(schema.assetMaps, read.actor, id));
  if (!row) throw notFound("asset map", id);
  let jobError: AssetMap["error"] = null;
  if (row.status === "failed") {
    const [job] = await read.db
      .select({ error: schema.jobs.error })
      .from(schema.jobs)
      .where(tenantRow(schema.jobs, read.actor, row.jobId));
    jobError = job?.error ?? null;
  }
  return presentAssetMap(row, jobError);
}
