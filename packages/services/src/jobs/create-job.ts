import type { Job, jobOperations, OperationInput } from "@crs/contract";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { dispatchJob } from "./dispatch-job";
import { presentJob } from "./present-job";
import { checkTraceInput } from "./trace-input";

export async function createJob(
  write: WriteContext,
  { body }: OperationInput<typeof jobOperations.create>,
): Promise<Job> {
  let matterId: string | null = null;
  if (body.matter_id !== undefined) {
    // A job hangs off an open matter: the lock orders it after a concurrent close.
    const matter = await lockMatter(write.tx, write.actor, body.matter_id, "matter_id");
    assertMatterWritable(matter);
    matterId = matter.id;
  }
  const input = checkTraceInput(body.input, write.actor.environment, "input.");
  const row = await dispatchJob(write, {
    type: body.type,
    input: { kind: "trace", ...input, matter_id: matterId },
    matterId,
  });
  return presentJob(row);
}
