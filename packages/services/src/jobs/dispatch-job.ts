import { JOB_MAX_ATTEMPTS, type JobType } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { type JobRow, presentJob } from "./present-job";

/** The graphile-worker task that runs every API job (the row names the type). */
export const JOB_RUN_TASK = "job.run";

/** What a `job.run` task receives: the row to claim. */
export interface JobRunPayload {
  organization_id: string;
  environment: "sandbox" | "live";
  job_id: string;
}

/** Adds the job's graphile-worker job in the write's transaction, keyed by the job id (so cancel can remove it). */
export async function enqueueJobRun(write: WriteContext, row: Pick<JobRow, "id">, runAt?: Date): Promise<void> {
  const payload: JobRunPayload = {
    organization_id: write.actor.organizationId,
    environment: write.actor.environment,
    job_id: row.id,
  };
  // One graphile attempt per run: retries are the row's (with its own backoff), not graphile-worker's.
  await write.enqueue(JOB_RUN_TASK, payload, { jobKey: row.id, maxAttempts: 1, ...(runAt ? { runAt } : {}) });
}

/**
 * Creates a queued job, its `job.created` event and its graphile-worker job, all in the caller's
 * transaction: the job exists, is announced and runs if and only if the write commits.
 */
export async function dispatchJob(
  write: WriteContext,
  input: { id?: string; type: JobType; input: Record<string, unknown>; matterId: string | null },
): Promise<JobRow> {
  const { tx, actor } = write;
  const now = write.clock();
  const [row] = await tx
    .insert(schema.jobs)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: input.id ?? write.newId("job"),
      type: input.type,
      status: "queued",
      input: input.input,
      matterId: input.matterId,
      attempts: 0,
      maxAttempts: JOB_MAX_ATTEMPTS,
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("job insert returned nothing");
  write.recordEvent({ type: "job.created", idField: "job_id", object: presentJob(row), matterId: row.matterId });
  await enqueueJobRun(write, row);
  return row;
}
