import type { Job, jobOperations, OperationInput } from "@crs/contract";
import { isTerminalJobStatus } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { sql } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { settleAssetMapOfJob } from "./job-outcome-hooks";
import { lockJob } from "./load-job";
import { type JobRow, presentJob } from "./present-job";

/** Channel a worker listens on: a running job named here stops, and its result is discarded. */
export const JOB_CANCEL_CHANNEL = "crs_job_canceled";

/**
 * Cancels a queued or running job under its row lock. A queued job's graphile-worker job is removed
 * in the same transaction; a running one is signalled at commit (NOTIFY) and, since its run no longer
 * holds the row, whatever it finishes with is discarded. A finished job is returned unchanged.
 */
export async function cancelJob(
  write: WriteContext,
  { params }: OperationInput<typeof jobOperations.cancel>,
): Promise<Job> {
  const row = await lockJob(write.tx, write.actor, params.job_id);
  if (isTerminalJobStatus(row.status)) return presentJob(row);
  return cancelLockedJob(write, row);
}

/**
 * The cancel transition of a queued or running job whose row the caller has locked (`lockJob`, or
 * `SELECT … FOR UPDATE`): the job, its `job.canceled` event and its asset map, in the caller's transaction.
 */
export async function cancelLockedJob(write: WriteContext, row: JobRow): Promise<Job> {
  const { tx, actor } = write;
  // remove_job deletes a waiting graphile job; one a worker has just locked loses its key and its
  // retries, and its run finds the row canceled and does nothing.
  await tx.execute(sql`select graphile_worker.remove_job(${row.id})`);
  if (row.status === "running") {
    await tx.execute(
      sql`select pg_notify(${JOB_CANCEL_CHANNEL}, ${JSON.stringify({ job_id: row.id, attempt: row.attempts })})`,
    );
  }
  const now = write.clock();
  const [canceled] = await tx
    .update(schema.jobs)
    .set({ status: "canceled", leaseExpiresAt: null, runAt: null, finishedAt: now, ...writeStamp(actor, now) })
    .where(tenantRow(schema.jobs, actor, row.id))
    .returning();
  if (!canceled) throw new Error("job update returned nothing");
  const job = presentJob(canceled);
  write.recordEvent({ type: "job.canceled", idField: "job_id", object: job, matterId: canceled.matterId });
  await settleAssetMapOfJob(write, canceled);
  return job;
}
