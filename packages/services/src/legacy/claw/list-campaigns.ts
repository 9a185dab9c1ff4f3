import type { ClawCampaign, clawOperations, OperationInput } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { ReadContext } from "../../context";
import { listEnvelope, pageWindow } from "../../pagination";
import { presentCampaigns } from "./present-campaign";

/** One page of the caller's campaigns, most recent first, optionally of one matter. */
export async function listCampaigns(read: ReadContext, { query }: OperationInput<typeof clawOperations.list>) {
  const c = schema.clawCampaigns;
  const window = pageWindow(c.id, query);
  const rows = await read.db
    .select()
    .from(c)
    .where(
      and(tenantScope(c, read.actor), query.matter_id ? eq(c.matterId, query.matter_id) : undefined, window.cursor),
    )
    .orderBy(window.orderBy)
    .limit(window.fetch);
  const page = window.page(rows);
  const data: ClawCampaign[] = await presentCampaigns(read.db, read.actor, page.data);
  return listEnvelope("/v1/claw/campaigns", { data, has_more: page.has_more });
}
