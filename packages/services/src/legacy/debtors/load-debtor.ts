import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantRow } from "@crs/db";
import type { PartyRow } from "../../parties/present-party";

/** The caller's party with role debtor, or 404: a party of another role is not a debtor. */
export async function loadDebtor(db: Queryable, tenant: Tenant, debtorId: string): Promise<PartyRow> {
  if (!isIdOf("party", debtorId)) throw notFound("debtor", debtorId);
  const [row] = await db
    .select()
    .from(schema.parties)
    .where(tenantRow(schema.parties, tenant, debtorId));
  if (row?.role !== "debtor") throw notFound("debtor", debtorId);
  return row;
}
