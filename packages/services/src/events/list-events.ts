import type { ListEventsQuery } from "@crs/contract";
import { schema } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { Actor, ServiceDeps } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { presentEvent } from "./present-event";

/** Events, most recent first. Event ids are time-ordered, so the id cursor follows the chain order. */
export async function listEvents(deps: ServiceDeps, actor: Actor, query: ListEventsQuery) {
  const e = schema.events;
  const window = pageWindow(e.id, query);
  const rows = await deps.db
    .select()
    .from(e)
    .where(
      and(
        eq(e.organizationId, actor.organizationId),
        eq(e.environment, actor.environment),
        query.matter_id !== undefined ? eq(e.matterId, query.matter_id) : undefined,
        query.type !== undefined ? eq(e.type, query.type) : undefined,
        window.cursor,
      ),
    )
    .orderBy(window.orderBy)
    .limit(window.fetch);
  return listEnvelope("/v1/events", window.page(rows.map(presentEvent)));
}
