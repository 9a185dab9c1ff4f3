import type { Queryable } from "@crs/db";
import { schema, type Tenant, tenantScope } from "@crs/db";
import { and, asc, eq } from "drizzle-orm";

export interface SweepTarget extends Tenant {
  watchlistId: string;
}

/**
 * The active watchlists a sweep visits: every organization's (the scheduled sweep spans tenants on
 * purpose, and handles each watchlist within its own), or one tenant's when it is given.
 */
export async function listSweepTargets(db: Queryable, tenant?: Tenant): Promise<SweepTarget[]> {
  const w = schema.watchlists;
  const rows = await db
    .select({ organizationId: w.organizationId, environment: w.environment, watchlistId: w.id })
    .from(w)
    .where(and(tenant ? tenantScope(w, tenant) : undefined, eq(w.status, "active")))
    .orderBy(asc(w.organizationId), asc(w.id));
  return rows;
}
