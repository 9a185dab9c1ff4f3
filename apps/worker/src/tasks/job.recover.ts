import { recoverJobRuns } from "@crs/services";
import type { WorkerTask } from "./task";

export const JOB_RECOVERY = "job.recover";

/**
 * Every minute (and when a worker starts): jobs whose run's lease lapsed (the worker was killed, or
 * stopped mid-run) are queued again with their attempt counted, or fail with `worker_lost` once
 * their runs are spent.
 */
export const jobRecover: WorkerTask = {
  identifier: JOB_RECOVERY,
  schedule: {
    match: "* * * * *",
    options: { backfillPeriod: 0, maxAttempts: 5, jobKey: JOB_RECOVERY, jobKeyMode: "replace" },
  },
  create: (deps) => async (_payload, helpers) => {
    const recovered = await recoverJobRuns(deps, deps.jobRuns);
    if (recovered.requeued + recovered.failed > 0) {
      helpers.logger.info("recovered job runs whose lease lapsed", { ...recovered });
    }
  },
};
