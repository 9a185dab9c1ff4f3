import type { monitoringOperations, OperationInput, Watchlist } from "@crs/contract";
import { normalizeThresholds } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { lockMatter } from "../../matters/load-matter";
import { recordMonitoringChange } from "./monitoring-events";
import { presentWatchlist } from "./present-monitoring";
import { watchlistChainOf } from "./watchlist-chain";

/** A watchlist on a matter, with its thresholds filled in; addresses are added to it afterwards. */
export async function createWatchlist(
  write: WriteContext,
  { body }: OperationInput<typeof monitoringOperations.createWatchlist>,
): Promise<Watchlist> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const chain = watchlistChainOf(body.chains, actor.environment);
  const now = write.clock();
  const [row] = await tx
    .insert(schema.watchlists)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("watchlist"),
      matterId: matter.id,
      name: body.name,
      chain,
      thresholds: normalizeThresholds(body.thresholds),
      status: "active",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("watchlist insert returned nothing");
  const watchlist = presentWatchlist(row, []);
  recordMonitoringChange(write, matter, "watchlist.created", { watchlist_id: watchlist.id, watchlist });
  return watchlist;
}
