import { badRequest, type ListQuery } from "@crs/contract";
import { asc, desc, gt, lt, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";

/** `starting_after` and `ending_before` point opposite ways; a request may give one. (Their form is checked by ListQuery.) */
export function assertSingleCursor(query: Pick<ListQuery, "starting_after" | "ending_before">): void {
  if (query.starting_after && query.ending_before) {
    throw badRequest("Give starting_after or ending_before, not both.", "ending_before");
  }
}

/**
 * Cursor pagination over a time-ordered id column, most recent first. `starting_after` walks to
 * older items, `ending_before` to newer ones; one extra row tells whether more remain.
 */
export function pageWindow(idColumn: PgColumn, query: ListQuery) {
  assertSingleCursor(query);
  const backwards = query.ending_before !== undefined;
  const cursor: SQL | undefined = query.starting_after
    ? lt(idColumn, query.starting_after)
    : query.ending_before
      ? gt(idColumn, query.ending_before)
      : undefined;
  return {
    cursor,
    orderBy: backwards ? asc(idColumn) : desc(idColumn),
    fetch: query.limit + 1,
    /** trims the probe row and restores most-recent-first order */
    page<T>(rows: T[]): { data: T[]; has_more: boolean } {
      const has_more = rows.length > query.limit;
      const data = rows.slice(0, query.limit);
      return { data: backwards ? data.reverse() : data, has_more };
    },
  };
}

export function listEnvelope<T>(url: string, page: { data: T[]; has_more: boolean }) {
  return { object: "list" as const, data: page.data, has_more: page.has_more, url };
}

/**
 * How much JSON the objects of one page of `GET /v1/jobs` or `GET /v1/events` may hold (a job's result,
 * an event's data) before the page stops short of `limit`. A page is answered as one JSON string, and a
 * V8 string ends at about 512 MiB: a `crypto.trace` result may be 128 MiB, so 20 of them (the default
 * limit) could not be answered at all, and would need gigabytes on the way. `ServiceDeps.listPageMaxBytes`
 * overrides it (tests shrink it).
 */
export const LIST_PAGE_MAX_BYTES = 32 * 2 ** 20;

/** A page's candidate, read without its heavy column: its key and the JSON size of what it holds. */
export interface SizedCandidate<K> {
  key: K;
  bytes: number;
}

/**
 * Cuts a page from its candidates, in the order they were read from the cursor (the `limit + 1` of
 * `pageWindow`'s `fetch`): at most `limit` of them, and none from the one that would take their sizes past
 * `maxBytes` on, but always the first, so an object over the budget is listed on a page of its own. The
 * cut keeps the objects nearest the cursor, so `starting_after` and `ending_before` walk as without it.
 * `has_more` when a candidate is left.
 */
export function cutSizedPage<K>(
  candidates: readonly SizedCandidate<K>[],
  limit: number,
  maxBytes: number,
): { keys: K[]; has_more: boolean } {
  const keys: K[] = [];
  let total = 0;
  for (const candidate of candidates) {
    if (keys.length === limit || (keys.length > 0 && total + candidate.bytes > maxBytes)) break;
    keys.push(candidate.key);
    total += candidate.bytes;
  }
  return { keys, has_more: candidates.length > keys.length };
}
