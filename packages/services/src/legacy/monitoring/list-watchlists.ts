import type { monitoringOperations, OperationInput, Watchlist } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { ReadContext } from "../../context";
import { listEnvelope, pageWindow } from "../../pagination";
import { loadWatchlist, loadWatchlistAddresses } from "./load-monitoring";
import { presentWatchlist } from "./present-monitoring";

export async function listWatchlists(
  read: ReadContext,
  { query }: OperationInput<typeof monitoringOperations.listWatchlists>,
) {
  const w = schema.watchlists;
  const window = pageWindow(w.id, query);
  const rows = await read.db
    .select()
    .from(w)
    .where(
      and(tenantScope(w, read.actor), query.matter_id ? eq(w.matterId, query.matter_id) : undefined, window.cursor),
    )
    .orderBy(window.orderBy)
    .limit(window.fetch);
  const page = window.page(rows);
  const addresses = await loadWatchlistAddresses(
    read.db,
    read.actor,
    page.data.map((row) => row.id),
  );
  const data: Watchlist[] = page.data.map((row) => presentWatchlist(row, addresses.get(row.id) ?? []));
  return listEnvelope("/v1/watchlists", { data, has_more: page.has_more });
}

export async function retrieveWatchlist(
  read: ReadContext,
  { params }: OperationInput<typeof monitoringOperations.getWatchlist>,
): Promise<Watchlist> {
  const row = await loadWatchlist(read.db, read.actor, params.watchlist_id);
  const addresses = await loadWatchlistAddresses(read.db, read.actor, [row.id]);
  return presentWatchlist(row, addresses.get(row.id) ?? []);
}
