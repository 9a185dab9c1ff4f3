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
