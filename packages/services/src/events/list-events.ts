import { badRequest, type eventOperations, type OperationInput } from "@crs/contract";
import { type Database, schema, tenantRow, tenantScope } from "@crs/db";
import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import type { ReadContext } from "../context";
import { assertSingleCursor, listEnvelope } from "../pagination";
import { preparedPerDatabase } from "../prepared";
import { presentEvent } from "./present-event";

const e = schema.events;
const tenant = { organizationId: sql.placeholder("organizationId"), environment: sql.placeholder("environment") };
type Cursor = "none" | "starting_after" | "ending_before";

const cursorQuery = preparedPerDatabase((db) =>
  db
    .select({ sequence: e.sequence })
    .from(e)
    .where(tenantRow(e, tenant, sql.placeholder("eventId")))
    .prepare("list_events_cursor"),
);

/** One page statement per shape of the request (filters present, cursor direction), each prepared once. */
function buildPageQuery(db: Database, byMatter: boolean, byType: boolean, cursor: Cursor) {
  return db
    .select()
    .from(e)
    .where(
      and(
        tenantScope(e, tenant),
        byMatter ? eq(e.matterId, sql.placeholder("matterId")) : undefined,
        byType ? eq(e.type, sql.placeholder("type")) : undefined,
        cursor === "starting_after"
          ? lt(e.sequence, sql.placeholder("cursorSequence"))
          : cursor === "ending_before"
            ? gt(e.sequence, sql.placeholder("cursorSequence"))
            : undefined,
      ),
    )
    .orderBy(cursor === "ending_before" ? asc(e.sequence) : desc(e.sequence))
    .limit(sql.placeholder("limit"))
    .prepare(`list_events_${byMatter ? "m" : ""}${byType ? "t" : ""}_${cursor}`);
}

const pageQueries = preparedPerDatabase((db) => {
  const built = new Map<string, ReturnType<typeof buildPageQuery>>();
  return (byMatter: boolean, byType: boolean, cursor: Cursor) => {
    const shape = `${byMatter}|${byType}|${cursor}`;
    let query = built.get(shape);
    if (!query) {
      query = buildPageQuery(db, byMatter, byType, cursor);
      built.set(shape, query);
    }
    return query;
  };
});

/**
 * Events in chain order, most recent first. Ids are minted before the chain lock is taken, so
 * two concurrent writes can hold ids in the opposite order of their sequences: the cursor id is
 * resolved to its sequence and the page is cut by sequence, which is the order the chain defines.
 */
export async function listEvents(read: ReadContext, { query }: OperationInput<typeof eventOperations.list>) {
  assertSingleCursor(query);
  const scope = { organizationId: read.actor.organizationId, environment: read.actor.environment };
  const cursor: Cursor = query.starting_after ? "starting_after" : query.ending_before ? "ending_before" : "none";
  let cursorSequence: number | null = null;
  if (cursor !== "none") {
    const eventId = query[cursor] as string;
    const [cursorRow] = await cursorQuery(read.db).execute({ ...scope, eventId });
    if (!cursorRow) throw badRequest(`No such event: '${eventId}'.`, cursor);
    cursorSequence = cursorRow.sequence;
  }
  const rows = await pageQueries(read.db)(query.matter_id !== undefined, query.type !== undefined, cursor).execute({
    ...scope,
    matterId: query.matter_id,
    type: query.type,
    cursorSequence,
    limit: query.limit + 1,
  });
  const has_more = rows.length > query.limit;
  const page = rows.slice(0, query.limit).map(presentEvent);
  return listEnvelope("/v1/events", { data: cursor === "ending_before" ? page.reverse() : page, has_more });
}
