import { AppError } from "@crs/contract";
import { afterFailedRun, type Environment, type JobError, jobRetryDelayMs } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { and, eq, getTableColumns, lt, sql } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { ServiceDeps, WriteContext } from "../context";
import { systemActor } from "../system-actor";
import { runWrite } from "../write/run-write";
import { enqueueJobRun, JOB_RUN_TASK } from "./dispatch-job";
import { settleAssetMapOfJob } from "./job-outcome-hooks";
import { lockJob } from "./load-job";
import { type JobRow, presentJob } from "./present-job";

export interface JobRunRef {
  organizationId: string;
  environment: Environment;
  jobId: string;
}

/** One run of a job, as its claim left the row: `attempt` is the token its outcome is written under. */
export interface JobRun {
  ref: JobRunRef;
  attempt: number;
  row: JobRow;
}

export interface JobRunSettings {
  /** how long a claim holds without renewal; a run renews it every third of this */
  leaseMs: number;
  /** the first retry's delay (core's jobRetryDelayMs grows it) */
  retryBaseMs: number;
}

export const DEFAULT_JOB_RUN_SETTINGS: JobRunSettings = { leaseMs: 60_000, retryBaseMs: 5_000 };

function actorFor(deps: ServiceDeps, ref: Pick<JobRunRef, "organizationId" | "environment">) {
  return systemActor(ref, JOB_RUN_TASK, deps.newId("request"));
}

async function lockedOrNull(write: WriteContext, ref: JobRunRef): Promise<JobRow | null> {
  try {
    return await lockJob(write.tx, write.actor, ref.jobId);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return null;
    throw error;
  }
}

/**
 * Claims a queued job for one run: `running`, attempts + 1, a lease, in one UPDATE (its row lock
 * orders it with a concurrent cancel, and the status test is evaluated again after any wait). Null
 * when the job is not queued (canceled, finished, or taken by another run): the graphile job then
 * ends doing nothing. One statement, no BEGIN/COMMIT round trips: it is on every job's path to start.
 */
export async function claimJobRun(deps: ServiceDeps, ref: JobRunRef, settings: JobRunSettings): Promise<JobRun | null> {
  const j = schema.jobs;
  const now = deps.clock();
  const [claimed] = await deps.db
    .update(j)
    .set({
      status: "running",
      attempts: sql`${j.attempts} + 1`,
      startedAt: sql`coalesce(${j.startedAt}, ${now.toISOString()}::timestamptz)`,
      leaseExpiresAt: new Date(now.getTime() + settings.leaseMs),
      runAt: null,
      updatedAt: now,
      lastActorId: `system:${JOB_RUN_TASK}`,
    })
    .where(and(tenantRow(j, ref, ref.jobId), eq(j.status, "queued")))
    .returning();
  return claimed ? { ref, attempt: claimed.attempts, row: claimed } : null;
}

/** Extends the run's lease; false when the run no longer holds the job (canceled, or recovered after its lease lapsed). */
export async function renewJobLease(deps: ServiceDeps, run: JobRun, settings: JobRunSettings): Promise<boolean> {
  const j = schema.jobs;
  const rows = await deps.db
    .update(j)
    .set({ leaseExpiresAt: new Date(deps.clock().getTime() + settings.leaseMs) })
    .where(and(tenantRow(j, run.ref, run.ref.jobId), eq(j.status, "running"), eq(j.attempts, run.attempt)))
    .returning({ id: j.id });
  return rows.length === 1;
}

/** Whether the locked row still belongs to this run: running under the run's attempt. */
function heldBy(row: JobRow | null, run: JobRun): row is JobRow {
  return row !== null && row.status === "running" && row.attempts === run.attempt;
}

export type JobOutcome = "succeeded" | "retry" | "failed" | "discarded";

const { result: _result, ...JOB_COLUMNS_BUT_RESULT } = getTableColumns(schema.jobs);

/**
 * Records a run's result: `succeeded`, the result and `job.completed` in one transaction, only while
 * the run still holds the row. A canceled or superseded run's result is discarded.
 */
export function recordJobSuccess(deps: ServiceDeps, run: JobRun, result: Record<string, unknown>): Promise<JobOutcome> {
  return runWrite(deps, actorFor(deps, run.ref), async (write) => {
    const row = await lockedOrNull(write, run.ref);
    if (!heldBy(row, run)) return "discarded";
    const now = write.clock();
    // Sent as this text, as drizzle would have made it; its length is the job's `result_bytes`, by which a
    // list page weighs the job without reading its result.
    const resultJson = JSON.stringify(result);
    const [updated] = await write.tx
      .update(schema.jobs)
      .set({
        status: "succeeded",
        result: sql`${resultJson}::jsonb`,
        resultBytes: Buffer.byteLength(resultJson),
        error: null,
        leaseExpiresAt: null,
        finishedAt: now,
        ...writeStamp(write.actor, now),
      })
      .where(tenantRow(schema.jobs, write.actor, row.id))
      // Not the result: it is what was just sent, and a trace's runs to tens of megabytes.
      .returning(JOB_COLUMNS_BUT_RESULT);
    if (!updated) throw new Error("job update returned nothing");
    const done: JobRow = { ...updated, result };
    write.recordEvent({
      type: "job.completed",
      idField: "job_id",
      object: presentJob(done),
      matterId: done.matterId,
    });
    await settleAssetMapOfJob(write, done);
    return "succeeded";
  });
}

/**
 * Records a failed run: queued again with a backoff while it is retryable and runs remain (the next
 * graphile job is added in the same transaction), otherwise `failed` with the error and `job.failed`.
 */
export function recordJobFailure(
  deps: ServiceDeps,
  run: JobRun,
  error: JobError,
  settings: JobRunSettings,
): Promise<JobOutcome> {
  return runWrite(deps, actorFor(deps, run.ref), async (write) => {
    const row = await lockedOrNull(write, run.ref);
    if (!heldBy(row, run)) return "discarded";
    return failOrRetry(write, row, error, settings);
  });
}

async function failOrRetry(write: WriteContext, row: JobRow, error: JobError, settings: JobRunSettings) {
  const now = write.clock();
  const next = afterFailedRun(row.attempts, error, row.maxAttempts);
  if (next.next === "retry") {
    const runAt = new Date(now.getTime() + jobRetryDelayMs(next.delayAttempt, settings.retryBaseMs));
    await write.tx
      .update(schema.jobs)
      .set({ status: "queued", error, leaseExpiresAt: null, runAt, ...writeStamp(write.actor, now) })
      .where(tenantRow(schema.jobs, write.actor, row.id));
    await enqueueJobRun(write, row, runAt);
    return "retry" as const;
  }
  return failJob(write, row, error);
}

/** Ends the job `failed` with `error`, its `job.failed` event and its asset map's outcome, in the write's transaction. */
async function failJob(write: WriteContext, row: JobRow, error: JobError) {
  const now = write.clock();
  const [failed] = await write.tx
    .update(schema.jobs)
    .set({
      status: "failed",
      error,
      leaseExpiresAt: null,
      runAt: null,
      finishedAt: now,
      ...writeStamp(write.actor, now),
    })
    .where(tenantRow(schema.jobs, write.actor, row.id))
    .returning();
  if (!failed) throw new Error("job update returned nothing");
  write.recordEvent({
    type: "job.failed",
    idField: "job_id",
    object: presentJob(failed),
    matterId: failed.matterId,
  });
  await settleAssetMapOfJob(write, failed);
  return "failed" as const;
}

export const WORKER_LOST: JobError = {
  code: "worker_lost",
  message: "The worker running this job stopped before it finished (its lease lapsed).",
  retryable: true,
};

/**
 * Hands back the jobs whose run's lease lapsed (the worker died, or stalled past it): each is treated
 * as a failed run (retried with backoff while runs remain, else `failed` with `worker_lost`), under
 * its row lock, so a late outcome of the lost run finds the row no longer its own and is discarded.
 * graphile-worker would only retry the dead worker's job after its 4-hour stale lock.
 */
export async function recoverJobRuns(
  deps: ServiceDeps,
  settings: JobRunSettings,
): Promise<{ requeued: number; failed: number }> {
  const j = schema.jobs;
  const now = deps.clock();
  // Every organization's lapsed runs: the sweep spans tenants on purpose, and each is then handled within its own.
  const lapsed = await deps.db
    .select({ organizationId: j.organizationId, environment: j.environment, jobId: j.id })
    .from(j)
    .where(and(eq(j.status, "running"), lt(j.leaseExpiresAt, now)))
    .limit(500);
  const counts = { requeued: 0, failed: 0 };
  for (const ref of lapsed) {
    const outcome = await runWrite(deps, actorFor(deps, ref), async (write) => {
      const row = await lockedOrNull(write, ref);
      if (row?.status !== "running" || !row.leaseExpiresAt || row.leaseExpiresAt >= write.clock()) return null;
      return failOrRetry(write, row, WORKER_LOST, { ...settings, retryBaseMs: 0 });
    });
    if (outcome === "retry") counts.requeued++;
    if (outcome === "failed") counts.failed++;
  }
  return counts;
}

/** A shutdown interrupted the run that used a job's last attempt. */
export function workerStopped(maxAttempts: number): JobError {
  return {
    code: "worker_stopped",
    message: `The worker running this job shut down before it finished, and the job has used all ${maxAttempts} of its runs.`,
    retryable: true,
  };
}

/**
 * Hands a run's job back to the queue at once (the worker is shutting down mid-run): queued, a new
 * graphile job due now, the attempt it used still counted. A run that used the job's last attempt
 * fails it instead (`worker_stopped`, `job.failed`): otherwise a job stopped at every deploy would run
 * again without end. False if the run no longer holds the row.
 */
export function releaseJobRun(deps: ServiceDeps, run: JobRun): Promise<"released" | "failed" | false> {
  return runWrite(deps, actorFor(deps, run.ref), async (write) => {
    const row = await lockedOrNull(write, run.ref);
    if (!heldBy(row, run)) return false;
    if (row.attempts >= row.maxAttempts) return failJob(write, row, workerStopped(row.maxAttempts));
    const now = write.clock();
    await write.tx
      .update(schema.jobs)
      .set({ status: "queued", leaseExpiresAt: null, runAt: null, ...writeStamp(write.actor, now) })
      .where(tenantRow(schema.jobs, write.actor, row.id));
    await enqueueJobRun(write, row);
    return "released";
  });
}
