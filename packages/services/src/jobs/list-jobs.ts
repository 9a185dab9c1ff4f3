import type { jobOperations, OperationInput } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { ReadContext } from "../context";
import { cutSizedPage, LIST_PAGE_MAX_BYTES, listEnvelope, pageWindow } from "../pagination";
import { presentJob } from "./present-job";

/**
 * Jobs, most recent first. A page is weighed before it is read: the candidates' ids and result sizes
 * first, then only the jobs on the page, results and all, so a page of large trace results stops
 * short of its limit (cutSizedPage) and neither the answer nor the memory behind it grows with them.
 * Both reads see one snapshot: a job that succeeded between them would bring a result the cut never weighed.
 */
export async function listJobs(read: ReadContext, { query }: OperationInput<typeof jobOperations.list>) {
  const j = schema.jobs;
  const window = pageWindow(j.id, query);
  const scope = tenantScope(j, read.actor);
  const maxBytes = read.listPageMaxBytes ?? LIST_PAGE_MAX_BYTES;
  const { rows, has_more } = await read.db.transaction(
    async (tx) => {
      const candidates = await tx
        .select({ key: j.id, bytes: j.resultBytes })
        .from(j)
        .where(and(scope, query.status ? eq(j.status, query.status) : undefined, window.cursor))
        .orderBy(window.orderBy)
        .limit(window.fetch);
      const cut = cutSizedPage(candidates, query.limit, maxBytes);
      if (cut.keys.length === 0) return { rows: [], has_more: cut.has_more };
      const page = await tx
        .select()
        .from(j)
        .where(and(scope, inArray(j.id, cut.keys)))
        .orderBy(desc(j.id));
      return { rows: page, has_more: cut.has_more };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
  return listEnvelope("/v1/jobs", { data: rows.map(presentJob), has_more });
}
