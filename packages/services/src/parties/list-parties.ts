import type { ListQuery, OperationInput, Party, partyOperations } from "@crs/contract";
import type { PartyRole } from "@crs/core";
import { schema, type Tenant, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { ReadContext } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { loadSanctionsHitsByParty } from "../sanctions/record-sanctions-hits";
import { presentParty } from "./present-party";

/** One page of parties, most recent first, filtered by matter and role when given. */
export async function listPartyPage(
  read: ReadContext,
  tenant: Tenant,
  query: ListQuery & { role?: PartyRole | undefined; matter_id?: string | undefined },
  url: string,
) {
  const p = schema.parties;
  const window = pageWindow(p.id, query);
  const rows = await read.db
    .select()
    .from(p)
    .where(
      and(
        tenantScope(p, tenant),
        query.matter_id ? eq(p.matterId, query.matter_id) : undefined,
        query.role ? eq(p.role, query.role) : undefined,
        window.cursor,
      ),
    )
    .orderBy(window.orderBy)
    .limit(window.fetch);
  const page = window.page(rows);
  const hits = await loadSanctionsHitsByParty(
    read.db,
    tenant,
    page.data.map((row) => row.id),
  );
  const data: Party[] = page.data.map((row) => presentParty(row, hits.get(row.id) ?? []));
  return listEnvelope(url, { data, has_more: page.has_more });
}

export async function listParties(read: ReadContext, { query }: OperationInput<typeof partyOperations.list>) {
  return listPartyPage(read, read.actor, query, "/v1/parties");
}
