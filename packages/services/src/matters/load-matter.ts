import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Database, type Queryable, schema, type Tenant, type Transaction, tenantRow } from "@crs/db";
import { sql } from "drizzle-orm";
import { preparedPerDatabase } from "../prepared";
import { assertMatterWritable } from "./assert-matter-writable";
import type { MatterRow } from "./present-matter";

const matterQuery = preparedPerDatabase((db) =>
  db
    .select()
    .from(schema.matters)
    .where(
      tenantRow(
        schema.matters,
        { organizationId: sql.placeholder("organizationId"), environment: sql.placeholder("environment") },
        sql.placeholder("matterId"),
      ),
    )
    .prepare("load_matter"),
);

/** The caller's matter, or 404: another organization's or environment's id is simply unknown. */
export async function loadMatter(db: Database, tenant: Tenant, matterId: string): Promise<MatterRow> {
  if (!isIdOf("matter", matterId)) throw notFound("matter", matterId);
  const [row] = await matterQuery(db).execute({
    organizationId: tenant.organizationId,
    environment: tenant.environment,
    matterId,
  });
  if (!row) throw notFound("matter", matterId);
  return row;
}

/**
 * The caller's matter read inside a transaction without locking it (a write that changes nothing on
 * the matter need not wait for its writes), or 404 naming `param`.
 */
export async function readMatter(db: Queryable, tenant: Tenant, matterId: string, param?: string): Promise<MatterRow> {
  if (!isIdOf("matter", matterId)) throw notFound("matter", matterId, param);
  const [row] = await matterRow(db, tenant, matterId);
  if (!row) throw notFound("matter", matterId, param);
  return row;
}

function matterRow(db: Queryable, tenant: Tenant, matterId: string) {
  return db
    .select()
    .from(schema.matters)
    .where(tenantRow(schema.matters, tenant, matterId));
}

/**
 * Same as loadMatter, locking the row until the transaction ends so concurrent writes to one matter serialize.
 * `param` names the body field that gave the id (a child's create), for the 404.
 */
export async function lockMatter(
  tx: Transaction,
  tenant: Tenant,
  matterId: string,
  param?: string,
): Promise<MatterRow> {
  if (!isIdOf("matter", matterId)) throw notFound("matter", matterId, param);
  const [row] = await matterRow(tx, tenant, matterId).for("update");
  if (!row) throw notFound("matter", matterId, param);
  return row;
}

/**
 * For a write to one of a matter's children (a judgment, packet, action, campaign, watchlist, alert):
 * reads the child's matter id, locks that matter (every write to a matter's children takes the lock
 * first, so they serialize and a close cannot slip in between), refuses a closed matter (409), then
 * reads the child again under the lock, so the write sees what the previous one committed. A child
 * never changes matter, so its matter id can be read before the lock.
 */
export async function lockMatterOf<T extends { matterId: string }>(
  tx: Transaction,
  tenant: Tenant,
  load: (tx: Transaction) => Promise<T>,
): Promise<{ matter: MatterRow; row: T }> {
  const { matterId } = await load(tx);
  const matter = await lockMatter(tx, tenant, matterId);
  assertMatterWritable(matter);
  return { matter, row: await load(tx) };
}
