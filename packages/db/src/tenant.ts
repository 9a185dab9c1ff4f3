import type { Environment } from "@crs/core";
import { and, eq, type SQL, type SQLWrapper } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/** Whose rows a query may see: one organization in one environment. An Actor is one. */
export interface Tenant {
  organizationId: string;
  environment: Environment;
}

/** A prepared statement's tenant: placeholders filled at execution. */
export interface TenantPlaceholders {
  organizationId: SQLWrapper;
  environment: SQLWrapper;
}

interface TenantTable {
  organizationId: AnyPgColumn;
  environment: AnyPgColumn;
}

/**
 * The one predicate every query on a tenant table uses: organization AND environment. Another
 * organization's or environment's row is simply not there (a 404, never a 403).
 */
export function tenantScope(table: TenantTable, tenant: Tenant | TenantPlaceholders): SQL {
  return and(eq(table.organizationId, tenant.organizationId), eq(table.environment, tenant.environment)) as SQL;
}

/** One row of a tenant table by its id, within the tenant. */
export function tenantRow(
  table: TenantTable & { id: AnyPgColumn },
  tenant: Tenant | TenantPlaceholders,
  id: string | SQLWrapper,
): SQL {
  return and(tenantScope(table, tenant), eq(table.id, id)) as SQL;
}
