import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantRow } from "@crs/db";
import type { PartyRow } from "./present-party";

/** The caller's party, or 404: another organization's or environment's id is simply unknown. */
export async function loadParty(db: Queryable, tenant: Tenant, partyId: string): Promise<PartyRow> {
  if (!isIdOf("party", partyId)) throw notFound("party", partyId);
  const [row] = await db
    .select()
    .from(schema.parties)
    .where(tenantRow(schema.parties, tenant, partyId));
  if (!row) throw notFound("party", partyId);
  return row;
}
