import { notFound } from "@crs/contract";
import { ID_PREFIXES, type IdKind, isIdOf, ledgerTotals } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import { centsOf } from "./present-ledger";

/** A matter's recovery events, oldest first (ids are time-ordered). */
export async function loadRecoveryEvents(db: Queryable, tenant: Tenant, matterId: string) {
  const r = schema.recoveryEvents;
  return db
    .select()
    .from(r)
    .where(and(tenantScope(r, tenant), eq(r.matterId, matterId)))
    .orderBy(asc(r.id));
}

/** A matter's remittance events, oldest first. */
export async function loadRemittanceEvents(db: Queryable, tenant: Tenant, matterId: string) {
  const r = schema.remittanceEvents;
  return db
    .select()
    .from(r)
    .where(and(tenantScope(r, tenant), eq(r.matterId, matterId)))
    .orderBy(asc(r.id));
}

/** Recovered, remitted and remittable, in integer cents, read in the caller's transaction. */
export async function matterLedgerTotals(db: Queryable, tenant: Tenant, matterId: string) {
  const [recovered, remitted] = await Promise.all([
    loadRecoveryEvents(db, tenant, matterId),
    loadRemittanceEvents(db, tenant, matterId),
  ]);
  return ledgerTotals(
    recovered.map((row) => centsOf(row.grossAmount)),
    remitted.map((row) => centsOf(row.amount)),
  );
}

/** The recovery events of `matterId` with these ids, in the order given; 404 naming `param` for any other id. */
export async function loadMatterRecoveryEventsById(
  db: Queryable,
  tenant: Tenant,
  matterId: string,
  ids: readonly string[],
  param: string,
) {
  const r = schema.recoveryEvents;
  const valid = ids.filter((id) => isIdOf(ID_PREFIXES.recoveryEvent, id));
  const rows =
    valid.length === 0
      ? []
      : await db
          .select()
          .from(r)
          .where(and(tenantScope(r, tenant), eq(r.matterId, matterId), inArray(r.id, valid)));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id, i) => {
    const row = byId.get(id);
    if (!row) throw notFound("recovery event", id, `${param}.${i}`);
    return row;
  });
}

/**
 * 404 (naming `param`) unless `id` is a record of `kind` on this matter: a ledger row may only point at
 * the matter's own packets, waterfalls and recovery events.
 */
export async function assertMatterRecord(
  db: Queryable,
  tenant: Tenant,
  table: typeof schema.packets | typeof schema.waterfalls | typeof schema.recoveryEvents,
  kind: IdKind,
  resource: string,
  matterId: string,
  id: string,
  param: string,
): Promise<void> {
  if (!isIdOf(ID_PREFIXES[kind], id)) throw notFound(resource, id, param);
  const [row] = await db
    .select({ id: table.id })
    .from(table)
    .where(and(tenantScope(table, tenant), eq(table.matterId, matterId), eq(table.id, id)));
  if (!row) throw notFound(resource, id, param);
}
