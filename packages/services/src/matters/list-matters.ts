import type { ListQuery } from "@crs/contract";
import { schema } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { Actor, ServiceDeps } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { presentMatter } from "./present-matter";

export async function listMatters(deps: ServiceDeps, actor: Actor, query: ListQuery) {
  const m = schema.matters;
  const window = pageWindow(m.id, query);
  const rows = await deps.db
    .select()
    .from(m)
    .where(and(eq(m.organizationId, actor.organizationId), eq(m.environment, actor.environment), window.cursor))
    .orderBy(window.orderBy)
    .limit(window.fetch);
  return listEnvelope("/v1/matters", window.page(rows.map(presentMatter)));
}
