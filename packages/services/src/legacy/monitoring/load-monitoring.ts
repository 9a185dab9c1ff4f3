import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantRow, tenantScope } from "@crs/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { AlertRow, WatchlistAddressRow, WatchlistRow } from "./present-monitoring";

/** The caller's watchlist, or 404. */
export async function loadWatchlist(db: Queryable, tenant: Tenant, watchlistId: string): Promise<WatchlistRow> {
  if (!isIdOf("wl", watchlistId)) throw notFound("watchlist", watchlistId);
  const [row] = await db
    .select()
    .from(schema.watchlists)
    .where(tenantRow(schema.watchlists, tenant, watchlistId));
  if (!row) throw notFound("watchlist", watchlistId);
  return row;
}

/** The addresses of these watchlists, per watchlist, in the order they were added. */
export async function loadWatchlistAddresses(
  db: Queryable,
  tenant: Tenant,
  watchlistIds: readonly string[],
): Promise<Map<string, WatchlistAddressRow[]>> {
  const byWatchlist = new Map<string, WatchlistAddressRow[]>(watchlistIds.map((id) => [id, []]));
  if (watchlistIds.length === 0) return byWatchlist;
  const a = schema.watchlistAddresses;
  const rows = await db
    .select()
    .from(a)
    .where(and(tenantScope(a, tenant), inArray(a.watchlistId, [...watchlistIds])))
    .orderBy(asc(a.addedAt), asc(a.address));
  for (const row of rows) byWatchlist.get(row.watchlistId)?.push(row);
  return byWatchlist;
}

/** The caller's alert, or 404. */
export async function loadAlert(db: Queryable, tenant: Tenant, alertId: string): Promise<AlertRow> {
  if (!isIdOf("alert", alertId)) throw notFound("alert", alertId);
  const [row] = await db
    .select()
    .from(schema.alerts)
    .where(tenantRow(schema.alerts, tenant, alertId));
  if (!row) throw notFound("alert", alertId);
  return row;
}

/** The watchlists of one matter (the sweep of its case record reads their thresholds). */
export async function loadMatterWatchlists(db: Queryable, tenant: Tenant, matterId: string): Promise<WatchlistRow[]> {
  const w = schema.watchlists;
  return db
    .select()
    .from(w)
    .where(and(tenantScope(w, tenant), eq(w.matterId, matterId), eq(w.status, "active")))
    .orderBy(asc(w.id));
}
