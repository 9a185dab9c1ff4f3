import type { matterOperations, OperationInput } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and } from "drizzle-orm";
import type { ReadContext } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { presentMatter } from "./present-matter";

export async function listMatters(read: ReadContext, { query }: OperationInput<typeof matterOperations.list>) {
  const m = schema.matters;
  const window = pageWindow(m.id, query);
  const rows = await read.db
    .select()
    .from(m)
    .where(and(tenantScope(m, read.actor), window.cursor))
    .orderBy(window.orderBy)
    .limit(window.fetch);
  return listEnvelope("/v1/matters", window.page(rows.map(presentMatter)));
}
