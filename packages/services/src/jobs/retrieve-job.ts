import type { Job, jobOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../context";
import { loadJob } from "./load-job";
import { presentJob } from "./present-job";

export async function retrieveJob(
  read: ReadContext,
  { params }: OperationInput<typeof jobOperations.get>,
): Promise<Job> {
  return presentJob(await loadJob(read.db, read.actor, params.job_id));
}
