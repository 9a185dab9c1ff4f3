import type { Matter, matterOperations, OperationInput } from "@crs/contract";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "./assert-matter-writable";
import { lockMatter } from "./load-matter";
import { presentMatter } from "./present-matter";

export async function closeMatter(
  write: WriteContext,
  { params, body }: OperationInput<typeof matterOperations.close>,
): Promise<Matter> {
  const { tx, actor } = write;
  const current = await lockMatter(tx, actor, params.matter_id);
  assertMatterWritable(current);
  const now = write.clock();
  const [row] = await tx
    .update(schema.matters)
    .set({
      status: "closed",
      closeReason: body.reason,
      closeNotes: body.notes ?? null,
      closedAt: now,
      ...writeStamp(actor, now),
    })
    .where(tenantRow(schema.matters, actor, current.id))
    .returning();
  if (!row) throw new Error("matter close returned nothing");
  const matter = presentMatter(row);
  write.recordEvent({
    type: "matter.closed",
    idField: "matter_id",
    object: matter,
    matterId: matter.id,
    extra: { close_reason: body.reason },
  });
  return matter;
}
