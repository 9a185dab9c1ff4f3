import type { Matter, matterOperations, OperationInput } from "@crs/contract";
import { schema, tenantRow, tenantScope } from "@crs/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { cancelLockedJob } from "../jobs/cancel-job";
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
  // A closed matter takes no more writes, a job's outcome among them: its unfinished jobs are canceled
  // with it. The matter's row lock orders this after every job created on it (creation locks the
  // matter too); each job's row lock orders it against that job's runs, which then record nothing.
  const unfinished = await tx
    .select()
    .from(schema.jobs)
    .where(
      and(
        tenantScope(schema.jobs, actor),
        eq(schema.jobs.matterId, row.id),
        inArray(schema.jobs.status, ["queued", "running"]),
      ),
    )
    .orderBy(asc(schema.jobs.id))
    .for("update");
  for (const job of unfinished) await cancelLockedJob(write, job);
  return matter;
}
