import { ENVIRONMENTS, type JobError } from "@crs/core";
import {
  claimJobRun,
  JOB_RUN_TASK,
  type JobOutcome,
  type JobRun,
  JobRunError,
  recordJobFailure,
  recordJobSuccess,
  releaseJobRun,
  renewJobLease,
} from "@crs/services";
import { z } from "zod";
import type { WorkerTask } from "./task";

const JobRunJob = z.object({
  organization_id: z.string(),
  environment: z.enum(ENVIRONMENTS),
  job_id: z.string(),
});

function jobErrorOf(error: unknown): JobError {
  if (error instanceof JobRunError) return { code: error.code, message: error.message, retryable: error.retryable };
  return {
    code: "job_error",
    message: error instanceof Error ? error.message : String(error),
    retryable: true,
  };
}

/**
 * Runs one API job: claims its row (a lease, renewed while it runs), executes its type, and records
 * the outcome under the claim's attempt. A cancel (NOTIFY, or the lease renewal finding the row no
 * longer ours) aborts the run and nothing is recorded. A run interrupted by shutdown hands the job
 * back to the queue; one whose worker was killed is queued again by the recovery sweep once its lease lapses. graphile-worker's job itself
 * fails only when the database does.
 */
export const jobRun: WorkerTask = {
  identifier: JOB_RUN_TASK,
  create: (deps) => async (payload, helpers) => {
    const job = JobRunJob.parse(payload);
    const ref = { organizationId: job.organization_id, environment: job.environment, jobId: job.job_id };
    const settings = deps.jobRuns;
    const run = await claimJobRun(deps, ref, settings);
    if (!run) return;
    const meta = { job_id: ref.jobId, organization_id: ref.organizationId, attempt: run.attempt };
    const controller = new AbortController();
    const stop = (reason: string) => {
      if (!controller.signal.aborted) controller.abort(new Error(reason));
    };
    const unsubscribe = deps.jobSignals.watch(ref.jobId, run.attempt, () => stop("canceled"));
    const onShutdown = () => stop("worker shutting down");
    helpers.abortSignal?.addEventListener("abort", onShutdown, { once: true });
    const renewal = setInterval(
      () => {
        renewJobLease(deps, run, settings).then(
          (held) => held || stop("superseded"),
          (error: unknown) => helpers.logger.warn("could not renew a job lease", { ...meta, error: String(error) }),
        );
      },
      Math.max(50, Math.floor(settings.leaseMs / 3)),
    );
    let outcome: JobOutcome | "released";
    try {
      const executor = deps.jobExecutors[run.row.type];
      if (!executor) throw new JobRunError("unknown_job_type", `This worker cannot run ${run.row.type} jobs.`, false);
      const result = await executor(run.row, {
        providers: deps.traceProviders,
        tracedAt: deps.clock(),
        signal: controller.signal,
      });
      outcome = controller.signal.aborted ? await afterAbort(run) : await recordJobSuccess(deps, run, result);
    } catch (error) {
      outcome = controller.signal.aborted
        ? await afterAbort(run)
        : await recordJobFailure(deps, run, jobErrorOf(error), settings);
    } finally {
      clearInterval(renewal);
      unsubscribe();
      helpers.abortSignal?.removeEventListener("abort", onShutdown);
    }
    helpers.logger.info(`job run ${outcome}`, meta);

    /**
     * An aborted run records no outcome. Canceled or superseded: the row is no longer ours. Shutdown:
     * the job is handed back to the queue at once, for this or another worker to run again, unless
     * that run was its last (it then fails with `worker_stopped`).
     */
    async function afterAbort(aborted: JobRun): Promise<JobOutcome | "released"> {
      if (!helpers.abortSignal?.aborted) return "discarded";
      return (await releaseJobRun(deps, aborted)) || "discarded";
    }
  },
};
