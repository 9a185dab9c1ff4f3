import type { Action, actionOperations, ListActionsQuery, OperationInput } from "@crs/contract";
import { schema, type Tenant, tenantScope } from "@crs/db";
import { and, eq, gte, lt } from "drizzle-orm";
import type { ReadContext } from "../../context";
import { loadMatter } from "../../matters/load-matter";
import { listEnvelope, pageWindow } from "../../pagination";
import { presentAction } from "./present-action";

/**
 * One page of the caller's actions, most recent first, narrowed by the filters given. `due_after` is
 * inclusive and `due_before` exclusive, so consecutive windows never count an action twice; an action
 * with no due time matches neither.
 */
export async function listActionPage(read: ReadContext, tenant: Tenant, query: ListActionsQuery, url: string) {
  const a = schema.actions;
  const window = pageWindow(a.id, query);
  const rows = await read.db
    .select()
    .from(a)
    .where(
      and(
        tenantScope(a, tenant),
        query.matter_id ? eq(a.matterId, query.matter_id) : undefined,
        query.owner_id ? eq(a.ownerId, query.owner_id) : undefined,
        query.campaign_id ? eq(a.campaignId, query.campaign_id) : undefined,
        query.status ? eq(a.status, query.status) : undefined,
        query.priority ? eq(a.priority, query.priority) : undefined,
        query.due_after ? gte(a.dueAt, new Date(query.due_after)) : undefined,
        query.due_before ? lt(a.dueAt, new Date(query.due_before)) : undefined,
        window.cursor,
      ),
    )
    .orderBy(window.orderBy)
    .limit(window.fetch);
  const page = window.page(rows);
  const data: Action[] = page.data.map(presentAction);
  return listEnvelope(url, { data, has_more: page.has_more });
}

export function listActions(read: ReadContext, { query }: OperationInput<typeof actionOperations.list>) {
  return listActionPage(read, read.actor, query, "/v1/actions");
}

/** One matter's actions: 404 for a matter the caller cannot see, rather than an empty list. */
export async function listMatterActions(
  read: ReadContext,
  { params, query }: OperationInput<typeof actionOperations.listOfMatter>,
) {
  const matter = await loadMatter(read.db, read.actor, params.matter_id);
  return listActionPage(read, read.actor, { ...query, matter_id: matter.id }, `/v1/actions/matters/${matter.id}`);
}
