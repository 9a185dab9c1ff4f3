import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import type { Transaction } from "@crs/db";
import { type Queryable, schema, type Tenant, tenantRow } from "@crs/db";
import { lockMatterOf } from "../matters/load-matter";
import type { MatterRow } from "../matters/present-matter";
import type { JudgmentRow } from "./present-judgment";

/** The caller's judgment, or 404: another organization's or environment's id is simply unknown. */
export async function loadJudgment(
  db: Queryable,
  tenant: Tenant,
  judgmentId: string,
  param?: string,
): Promise<JudgmentRow> {
  if (!isIdOf("judgment", judgmentId)) throw notFound("judgment", judgmentId, param);
  const [row] = await db
    .select()
    .from(schema.judgments)
    .where(tenantRow(schema.judgments, tenant, judgmentId));
  if (!row) throw notFound("judgment", judgmentId, param);
  return row;
}

/**
 * For a write to a judgment: locks its matter (every write to a matter's children takes that lock
 * first, so they serialize, and a close cannot slip in between), refuses a closed matter (409), and
 * reads the judgment again under the lock. A judgment never changes matter, so its matter id can be
 * read before the lock.
 */
export async function lockJudgmentForWrite(
  tx: Transaction,
  tenant: Tenant,
  judgmentId: string,
): Promise<{ matter: MatterRow; judgment: JudgmentRow }> {
  const { matter, row } = await lockMatterOf(tx, tenant, (db) => loadJudgment(db, tenant, judgmentId));
  return { matter, judgment: row };
}
