import type { CloseMatterBody, Matter } from "@crs/contract";
import { schema, type Transaction } from "@crs/db";
import { and, eq } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { Actor, ServiceDeps } from "../context";
import { recordEvent } from "../events/record-event";
import { assertMatterWritable } from "./assert-matter-writable";
import { lockMatter } from "./load-matter";
import { presentMatter } from "./present-matter";

export async function closeMatter(
  tx: Transaction,
  deps: ServiceDeps,
  actor: Actor,
  matterId: string,
  params: CloseMatterBody,
): Promise<Matter> {
  const current = await lockMatter(tx, actor, matterId);
  assertMatterWritable(current);
  const now = deps.clock();
  const [row] = await tx
    .update(schema.matters)
    .set({
      status: "closed",
      closeReason: params.reason,
      closeNotes: params.notes ?? null,
      closedAt: now,
      ...writeStamp(actor, now),
    })
    .where(and(eq(schema.matters.organizationId, actor.organizationId), eq(schema.matters.id, current.id)))
    .returning();
  if (!row) throw new Error("matter close returned nothing");
  const matter = presentMatter(row);
  await recordEvent(tx, deps, actor, {
    type: "matter.closed",
    idField: "matter_id",
    object: matter,
    matterId: matter.id,
    extra: { close_reason: params.reason },
  });
  return matter;
}
