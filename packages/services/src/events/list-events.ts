import { badRequest, type Event, type EventType, type eventOperations, type OperationInput } from "@crs/contract";
import {
  CHAIN_EVENT_TEXT_COLUMNS,
  type ChainEventTextRow,
  chainEventFromText,
  executePrepared,
  schema,
  type Tenant,
  tenantRow,
  tenantScope,
} from "@crs/db";
import { and, eq, gt, lt, type SQL, sql } from "drizzle-orm";
import type { ReadContext } from "../context";
import { assertSingleCursor, listEnvelope } from "../pagination";
import { preparedPerDatabase } from "../prepared";

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

/**
 * The page as text rows (ChainEventTextRow): read this way the rows need no mapping layer, and
 * `created` comes formatted by PostgreSQL, as verify-chain reads it. The statement's text depends only
 * on the request's shape (filters present, cursor direction), so each shape is prepared once per connection.
 */
function pageStatement(
  scope: Tenant,
  filters: { matterId: string | undefined; type: EventType | undefined; limit: number },
  cursor: Cursor,
  cursorSequence: number | null,
): SQL {
  const where = and(
    tenantScope(e, scope),
    filters.matterId !== undefined ? eq(e.matterId, filters.matterId) : undefined,
    filters.type !== undefined ? eq(e.type, filters.type) : undefined,
    cursor === "starting_after"
      ? lt(e.sequence, cursorSequence ?? 0)
      : cursor === "ending_before"
        ? gt(e.sequence, cursorSequence ?? 0)
        : undefined,
  );
  return sql`select ${sql.raw(CHAIN_EVENT_TEXT_COLUMNS)} from ${e} where ${where}
    order by ${e.sequence} ${cursor === "ending_before" ? sql`asc` : sql`desc`} limit ${filters.limit}`;
}

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
  const rows = await executePrepared<ChainEventTextRow>(
    read.db,
    pageStatement(
      scope,
      { matterId: query.matter_id, type: query.type, limit: query.limit + 1 },
      cursor,
      cursorSequence,
    ),
  );
  const has_more = rows.length > query.limit;
  const page = rows.slice(0, query.limit).map((row) => chainEventFromText(row) as Event);
  return listEnvelope("/v1/events", { data: cursor === "ending_before" ? page.reverse() : page, has_more });
}
