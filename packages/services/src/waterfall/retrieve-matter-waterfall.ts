import { notFound, type OperationInput, Waterfall, type waterfallOperations } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, desc, eq } from "drizzle-orm";
import type { ReadContext } from "../context";
import { loadMatter } from "../matters/load-matter";

/** The latest waterfall calculated for the matter, as it was answered. */
export async function retrieveMatterWaterfall(
  read: ReadContext,
  { params }: OperationInput<typeof waterfallOperations.retrieveForMatter>,
): Promise<Waterfall> {
  const matter = await loadMatter(read.db, read.actor, params.matter_id);
  const w = schema.waterfalls;
  const [row] = await read.db
    .select({ result: w.result })
    .from(w)
    .where(and(tenantScope(w, read.actor), eq(w.matterId, matter.id)))
    .orderBy(desc(w.createdAt), desc(w.id))
    .limit(1);
  if (!row) throw notFound("waterfall for matter", matter.id);
  return Waterfall.parse(row.result);
}
