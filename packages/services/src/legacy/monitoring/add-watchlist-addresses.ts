import { AppError, type monitoringOperations, type OperationInput, type Watchlist } from "@crs/contract";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { lockMatterOf } from "../../matters/load-matter";
import { loadWatchlist, loadWatchlistAddresses } from "./load-monitoring";
import { recordMonitoringChange } from "./monitoring-events";
import { presentWatchlist } from "./present-monitoring";

/** A watchlist holds at most this many addresses. */
export const MAX_WATCHED_ADDRESSES = 1000;

/**
 * Adds addresses (stored in lower case) with the reason and sources. An address already on the
 * watchlist keeps its first reason and sources; a call that adds nothing new writes nothing.
 */
export async function addWatchlistAddresses(
  write: WriteContext,
  { params, body }: OperationInput<typeof monitoringOperations.addAddresses>,
): Promise<Watchlist> {
  const { tx, actor } = write;
  const { matter, row: watchlist } = await lockMatterOf(tx, actor, (db) =>
    loadWatchlist(db, actor, params.watchlist_id),
  );
  const existing = (await loadWatchlistAddresses(tx, actor, [watchlist.id])).get(watchlist.id) ?? [];
  const known = new Set(existing.map((row) => row.address));
  const added = body.addresses.map((address) => address.toLowerCase()).filter((address) => !known.has(address));
  if (existing.length + added.length > MAX_WATCHED_ADDRESSES) {
    throw new AppError("invalid_request", {
      message: `Invalid addresses (a watchlist holds at most ${MAX_WATCHED_ADDRESSES} addresses; it has ${existing.length}).`,
      param: "addresses",
      details: {
        invalid: [{ param: "addresses", message: `a watchlist holds at most ${MAX_WATCHED_ADDRESSES} addresses` }],
      },
    });
  }
  if (added.length === 0) return presentWatchlist(watchlist, existing);

  const now = write.clock();
  const sourceRefs = (body.source_refs ?? []).map((ref) => ({ ...ref }));
  const inserted = await tx
    .insert(schema.watchlistAddresses)
    .values(
      added.map((address) => ({
        organizationId: actor.organizationId,
        environment: actor.environment,
        watchlistId: watchlist.id,
        address,
        reason: body.reason,
        sourceRefs,
        sweptToBlock: null,
        addedAt: now,
        requestId: actor.requestId,
        actorId: actor.keyId,
      })),
    )
    .returning();
  const [updated] = await tx
    .update(schema.watchlists)
    .set(writeStamp(actor, now))
    .where(tenantRow(schema.watchlists, actor, watchlist.id))
    .returning();
  if (!updated) throw new Error("watchlist update returned nothing");
  const result = presentWatchlist(updated, [...existing, ...inserted]);
  recordMonitoringChange(write, matter, "watchlist.addresses_added", {
    watchlist_id: result.id,
    addresses_added: inserted.map((row) => row.address),
    reason: body.reason,
    watchlist: result,
  });
  return result;
}
