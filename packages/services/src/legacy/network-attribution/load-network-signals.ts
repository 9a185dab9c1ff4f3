import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantRow, tenantScope } from "@crs/db";
import { and, asc, eq } from "drizzle-orm";

export type NetworkSignalRow = typeof schema.networkAttributions.$inferSelect;

/** The caller's signal, or 404: another organization's or environment's id is simply unknown. */
export async function loadNetworkSignal(
  db: Queryable,
  tenant: Tenant,
  signalId: string,
  param?: string,
): Promise<NetworkSignalRow> {
  if (!isIdOf("na", signalId)) throw notFound("network_attribution", signalId, param);
  const [row] = await db
    .select()
    .from(schema.networkAttributions)
    .where(tenantRow(schema.networkAttributions, tenant, signalId));
  if (!row) throw notFound("network_attribution", signalId, param);
  return row;
}

/** Every signal recorded for a matter, oldest first. */
export async function loadMatterSignals(db: Queryable, tenant: Tenant, matterId: string): Promise<NetworkSignalRow[]> {
  const table = schema.networkAttributions;
  return db
    .select()
    .from(table)
    .where(and(tenantScope(table, tenant), eq(table.matterId, matterId)))
    .orderBy(asc(table.id));
}
