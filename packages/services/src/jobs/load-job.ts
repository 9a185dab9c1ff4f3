import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Database, schema, type Tenant, type Transaction, tenantRow } from "@crs/db";
import type { JobRow } from "./present-job";

const unknownJob = (id: string) => notFound("job", id);

/** The caller's job, or 404 (another organization's or environment's job is unknown). */
export async function loadJob(db: Database, tenant: Tenant, id: string): Promise<JobRow> {
  if (!isIdOf("job", id)) throw unknownJob(id);
  const [row] = await db
    .select()
    .from(schema.jobs)
    .where(tenantRow(schema.jobs, tenant, id));
  if (!row) throw unknownJob(id);
  return row;
}

/**
 * Same, locking the row until the transaction ends: every transition of a job (claim, outcome,
 * cancel, recovery) takes this lock first, so two of them never interleave.
 */
export async function lockJob(tx: Transaction, tenant: Tenant, id: string): Promise<JobRow> {
  if (!isIdOf("job", id)) throw unknownJob(id);
  const [row] = await tx
    .select()
    .from(schema.jobs)
    .where(tenantRow(schema.jobs, tenant, id))
    .for("update");
  if (!row) throw unknownJob(id);
  return row;
}
