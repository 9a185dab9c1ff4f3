import { parseDecimalToBaseUnits } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { sql } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import type { JobRow } from "./present-job";

/** USD value of a map's token exposures in cents; null when none of them has a price. */
export function exposureUsdCents(result: Record<string, unknown> | null): bigint | null {
  const exposures = (result?.token_exposures ?? []) as Array<{ usd_value?: string | null }>;
  let total: bigint | null = null;
  for (const exposure of exposures) {
    if (typeof exposure.usd_value !== "string") continue;
    total = (total ?? 0n) + parseDecimalToBaseUnits(exposure.usd_value, 2);
  }
  return total;
}

/**
 * An asset map follows its job, in the transaction that moves the job: succeeded (with the result),
 * failed or canceled. Jobs that no map asked for have nothing to settle.
 */
export async function settleAssetMapOfJob(write: WriteContext, job: JobRow): Promise<void> {
  const mapId = job.input.kind === "asset_map" ? job.input.map_id : undefined;
  if (typeof mapId !== "string") return;
  if (job.status !== "succeeded" && job.status !== "failed" && job.status !== "canceled") return;
  const now = write.clock();
  const result = job.status === "succeeded" ? job.result : null;
  // A succeeded map takes its job's stored result inside the database, not sent over the wire again.
  const stored = sql`(select ${schema.jobs.result} from ${schema.jobs} where ${tenantRow(schema.jobs, write.actor, job.id)})`;
  await write.tx
    .update(schema.assetMaps)
    .set({
      status: job.status,
      result: result === null ? null : stored,
      exposureUsdCents: exposureUsdCents(result),
      ...writeStamp(write.actor, now),
    })
    .where(tenantRow(schema.assetMaps, write.actor, mapId));
}
