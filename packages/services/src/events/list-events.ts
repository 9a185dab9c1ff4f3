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
import { and, between, eq, gt, lt, sql } from "drizzle-orm";
import type { ReadContext } from "../context";
import { assertSingleCursor, cutSizedPage, LIST_PAGE_MAX_BYTES, listEnvelope } from "../pagination";
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

/** The conditions of a page's candidates, before the cursor: the tenant and the filters the request gives. */
function filtersFor(byMatter: boolean, byType: boolean) {
  return and(
    tenantScope(e, tenant),
    byMatter ? eq(e.matterId, sql.placeholder("matterId")) : undefined,
    byType ? eq(e.type, sql.placeholder("type")) : undefined,
  );
}

/**
 * The page's candidates from the cursor on, without their data: each one's sequence (as text) and the
 * size of its data, for the cut. One statement per shape of the request (filters present, cursor
 * direction), each rendered once and prepared.
 */
function candidatesStatementFor(byMatter: boolean, byType: boolean, cursor: Cursor) {
  const where = and(
    filtersFor(byMatter, byType),
    cursor === "starting_after"
      ? lt(e.sequence, sql.placeholder("cursorSequence"))
      : cursor === "ending_before"
        ? gt(e.sequence, sql.placeholder("cursorSequence"))
        : undefined,
  );
  return statementBuiltOnce<{ sequence: string; data_bytes: number }>(
    () => sql`select ${e.sequence}::text as sequence, ${e.dataBytes} as data_bytes from ${e} where ${where}
      order by ${e.sequence} ${cursor === "ending_before" ? sql`asc` : sql`desc`} limit ${sql.placeholder("limit")}`,
  );
}

/**
 * The page itself, most recent first, as text rows (ChainEventTextRow): read this way the rows need no
 * mapping layer, and `created` comes formatted by PostgreSQL, as verify-chain reads it. The page is the
 * candidates the cut kept, a run of sequences with nothing of the request's between them; events are
 * never changed and new ones come after, so the run holds the same events the candidates read did.
 */
function pageStatementFor(byMatter: boolean, byType: boolean) {
  const where = and(
    filtersFor(byMatter, byType),
    between(e.sequence, sql.placeholder("lowSequence"), sql.placeholder("highSequence")),
  );
  return statementBuiltOnce<ChainEventTextRow>(
    () => sql`select ${sql.raw(CHAIN_EVENT_TEXT_COLUMNS)} from ${e} where ${where}
      order by ${e.sequence} desc limit ${sql.placeholder("limit")}`,
  );
}

/** Builds a statement once per shape of the request, on first use. */
function builtOncePerShape<Shape extends unknown[], Statement>(
  build: (...shape: Shape) => Statement,
): (...shape: Shape) => Statement {
  const statements = new Map<string, Statement>();
  return (...shape) => {
    const key = shape.join("|");
    let statement = statements.get(key);
    if (!statement) {
      statement = build(...shape);
      statements.set(key, statement);
    }
    return statement;
  };
}

const candidatesStatement = builtOncePerShape(candidatesStatementFor);
const pageStatement = builtOncePerShape(pageStatementFor);

/**
 * Events in chain order, most recent first. Ids are minted before the chain lock is taken, so
 * two concurrent writes can hold ids in the opposite order of their sequences: the cursor id is
 * resolved to its sequence and the page is cut by sequence, which is the order the chain defines.
 * A page is weighed before it is read (cutSizedPage): a `job.completed` event carries its job's whole
 * result, so a page of them stops short of its limit, and only the events on it are read whole.
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
  const byMatter = query.matter_id !== undefined;
  const byType = query.type !== undefined;
  const values = { ...scope, matterId: query.matter_id, type: query.type };
  const candidates = await candidatesStatement(
    byMatter,
    byType,
    cursor,
  )(read.db, {
    ...values,
    cursorSequence,
    limit: query.limit + 1,
  });
  const cut = cutSizedPage(
    candidates.map((row) => ({ key: row.sequence, bytes: row.data_bytes })),
    query.limit,
    read.listPageMaxBytes ?? LIST_PAGE_MAX_BYTES,
  );
  const [first, last] = [cut.keys[0], cut.keys.at(-1)];
  if (first === undefined || last === undefined) return listEnvelope("/v1/events", { data: [], has_more: false });
  const backwards = cursor === "ending_before";
  const rows = await pageStatement(byMatter, byType)(read.db, {
    ...values,
    lowSequence: backwards ? first : last,
    highSequence: backwards ? last : first,
    limit: cut.keys.length,
  });
  const page = rows.map((row) => chainEventFromText(row) as Event);
  return listEnvelope("/v1/events", { data: page, has_more: cut.has_more });
}
