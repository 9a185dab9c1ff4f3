import { notFound } from "@crs/contract";
import { ID_PREFIXES, isIdOf } from "@crs/core";
import { type Queryable, schema, type Tenant, type Transaction, tenantRow } from "@crs/db";
import { lockMatterOf } from "../../matters/load-matter";
import type { MatterRow } from "../../matters/present-matter";
import type { ActionRow } from "./present-action";

/** The caller's action, or 404. */
export async function loadAction(db: Queryable, tenant: Tenant, actionId: string): Promise<ActionRow> {
  if (!isIdOf(ID_PREFIXES.action, actionId)) throw notFound("action", actionId);
  const [row] = await db
    .select()
    .from(schema.actions)
    .where(tenantRow(schema.actions, tenant, actionId));
  if (!row) throw notFound("action", actionId);
  return row;
}

/**
 * For a write to an action: reads its matter id, locks the matter row (like every write to a matter's
 * children), refuses a closed matter, then reads the action again under the lock. Concurrent writes to
 * one action therefore run one after another, each seeing the status the previous one committed.
 */
export async function lockActionForWrite(
  tx: Transaction,
  tenant: Tenant,
  actionId: string,
): Promise<{ matter: MatterRow; action: ActionRow }> {
  const { matter, row } = await lockMatterOf(tx, tenant, (db) => loadAction(db, tenant, actionId));
  return { matter, action: row };
}
