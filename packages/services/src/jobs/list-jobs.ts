import type { jobOperations, OperationInput } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { ReadContext } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { presentJob } from "./present-job";

export async function listJobs(read: ReadContext, { query }: OperationInput<typeof jobOperations.list>) {
  const j = schema.jobs;
  const window = pageWindow(j.id, query);
  const rows = await read.db
    .select()
    .from(j)
    .where(and(tenantScope(j, read.actor), query.status ? eq(j.status, query.status) : undefined, window.cursor))
    .orderBy(window.orderBy)
    .limit(window.fetch);
  return listEnvelope("/v1/jobs", window.page(rows.map(presentJob)));
}
