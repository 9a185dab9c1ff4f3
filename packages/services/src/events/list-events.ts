import { badRequest, type eventOperations, type OperationInput } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, asc, desc, eq, gt, lt } from "drizzle-orm";
import type { ReadContext } from "../context";
import { assertSingleCursor, listEnvelope } from "../pagination";
import { presentEvent } from "./present-event";

/**
 * Events in chain order, most recent first. Ids are minted before the chain lock is taken, so
 * two concurrent writes can hold ids in the opposite order of their sequences: the cursor id is
 * resolved to its sequence and the page is cut by sequence, which is the order the chain defines.
 */
export async function listEvents(read: ReadContext, { query }: OperationInput<typeof eventOperations.list>) {
  assertSingleCursor(query);
  const e = schema.events;
  const scope = tenantScope(e, read.actor);
  const cursorParam = query.starting_after ? "starting_after" : query.ending_before ? "ending_before" : null;
  let cursorSequence: number | null = null;
  if (cursorParam) {
    const cursorId = query[cursorParam] as string;
    const [cursorRow] = await read.db
      .select({ sequence: e.sequence })
      .from(e)
      .where(and(scope, eq(e.id, cursorId)));
    if (!cursorRow) throw badRequest(`No such event: '${cursorId}'.`, cursorParam);
    cursorSequence = cursorRow.sequence;
  }
  const backwards = cursorParam === "ending_before";
  const rows = await read.db
    .select()
    .from(e)
    .where(
      and(
        scope,
        query.matter_id !== undefined ? eq(e.matterId, query.matter_id) : undefined,
        query.type !== undefined ? eq(e.type, query.type) : undefined,
        cursorSequence === null
          ? undefined
          : backwards
            ? gt(e.sequence, cursorSequence)
            : lt(e.sequence, cursorSequence),
      ),
    )
    .orderBy(backwards ? asc(e.sequence) : desc(e.sequence))
    .limit(query.limit + 1);
  const has_more = rows.length > query.limit;
  const page = rows.slice(0, query.limit).map(presentEvent);
  return listEnvelope("/v1/events", { data: backwards ? page.reverse() : page, has_more });
}
