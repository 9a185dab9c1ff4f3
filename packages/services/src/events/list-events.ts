import { badRequest, type Event, type eventOperations, type OperationInput } from "@crs/contract";
import {
  CHAIN_EVENT_TEXT_COLUMNS,
  type ChainEventTextRow,
  chainEventFromText,
  schema,
  statementBuiltOnce,
  tenantRow,
  tenantScope,
} from "@crs/db";
import { and, eq, gt, lt, sql } from "drizzle-orm";
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
 * `created` comes formatted by PostgreSQL, as verify-chain reads it. One statement per shape of the
 * request (filters present, cursor direction), each rendered once and prepared.
 */
function pageStatementFor(byMatter: boolean, byType: boolean, cursor: Cursor) {
  const where = and(
    tenantScope(e, tenant),
    byMatter ? eq(e.matterId, sql.placeholder("matterId")) : undefined,
    byType ? eq(e.type, sql.placeholder("type")) : undefined,
    cursor === "starting_after"
      ? lt(e.sequence, sql.placeholder("cursorSequence"))
      : cursor === "ending_before"
        ? gt(e.sequence, sql.placeholder("cursorSequence"))
        : undefined,
  );
  return statementBuiltOnce<ChainEventTextRow>(
    () => sql`select ${sql.raw(CHAIN_EVENT_TEXT_COLUMNS)} from ${e} where ${where}
      order by ${e.sequence} ${cursor === "ending_before" ? sql`asc` : sql`desc`} limit ${sql.placeholder("limit")}`,
  );
}

const pageStatements = new Map<string, ReturnType<typeof pageStatementFor>>();

function pageStatement(byMatter: boolean, byType: boolean, cursor: Cursor) {
  const shape = `${byMatter}|${byType}|${cursor}`;
  let statement = pageStatements.get(shape);
  if (!statement) {
    statement = pageStatementFor(byMatter, byType, cursor);
    pageStatements.set(shape, statement);
  }
  return statement;
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
  const rows = await pageStatement(
    query.matter_id !== undefined,
    query.type !== undefined,
    cursor,
  )(read.db, {
    ...scope,
    matterId: query.matter_id,
    type: query.type,
    cursorSequence,
    limit: query.limit + 1,
  });
  const has_more = rows.length > query.limit;
  const page = rows.slice(0, query.limit).map((row) => chainEventFromText(row) as Event);
  return listEnvelope("/v1/events", { data: cursor === "ending_before" ? page.reverse() : page, has_more });
}
