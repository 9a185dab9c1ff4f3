import type { AssetMap, cryptoOperations, OperationInput } from "@crs/contract";
import { schema } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { dispatchJob } from "../jobs/dispatch-job";
import { checkTraceInput } from "../jobs/trace-input";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { presentAssetMap } from "./present-asset-map";

/**
 * Records the map (processing, empty collections) and dispatches its `crypto.trace` job in one
 * transaction: the map, the job, `job.created` and the worker's job exist together or not at all.
 */
export async function createAssetMap(
  write: WriteContext,
  { body }: OperationInput<typeof cryptoOperations.createAssetMap>,
): Promise<AssetMap> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const trace = checkTraceInput(body, actor.environment);
  const mapId = write.newId("assetMap");
  const jobId = write.newId("job");
  const now = write.clock();
  const [row] = await tx
    .insert(schema.assetMaps)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: mapId,
      matterId: matter.id,
      jobId,
      status: "processing",
      chain: trace.chains[0],
      request: { ...trace },
      reviewStatus: "pending",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("asset map insert returned nothing");
  await dispatchJob(write, {
    id: jobId,
    type: "crypto.trace",
    input: { kind: "asset_map", map_id: mapId, matter_id: matter.id, ...trace },
    matterId: matter.id,
  });
  return presentAssetMap(row);
}
