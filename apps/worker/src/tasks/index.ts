import { type CronItem, type ParsedCronItem, parseCronItems, type TaskList } from "graphile-worker";
import { idempotencySweep } from "./idempotency.sweep";
import { jobRecover } from "./job.recover";
import { jobRun } from "./job.run";
import { monitoringSweep } from "./monitoring.sweep";
import type { TaskDeps, WorkerTask } from "./task";
import { webhookDeliver } from "./webhook.deliver";
import { webhookRecover } from "./webhook.recover";

export { IDEMPOTENCY_SWEEP } from "./idempotency.sweep";
export { JOB_RECOVERY } from "./job.recover";
export { MONITORING_SWEEP_TASK } from "./monitoring.sweep";
export type { TaskDeps, WorkerTask } from "./task";
export { WEBHOOK_RECOVERY } from "./webhook.recover";

/** Every task this worker runs. Add new ones here (one file per task in this folder). */
export const workerTasks: readonly WorkerTask[] = [
  idempotencySweep,
  jobRun,
  jobRecover,
  monitoringSweep,
  webhookDeliver,
  webhookRecover,
];

/** graphile-worker's task list: identifier → handler bound to `deps`. */
export function createTaskList(deps: TaskDeps, tasks: readonly WorkerTask[] = workerTasks): TaskList {
  const list: TaskList = {};
  for (const task of tasks) {
    if (list[task.identifier]) throw new Error(`Duplicate worker task identifier: ${task.identifier}`);
    list[task.identifier] = task.create(deps);
  }
  return list;
}

/**
 * The schedule of the periodic tasks, as graphile-worker cron items (its programmatic crontab).
 * Not the crontab text format: that only accepts task names matching `[_a-zA-Z][_a-zA-Z0-9:/_-]*`,
 * so `idempotency.sweep` is rejected ("Invalid command specification"), while cron items take any name.
 */
export function buildCronItems(tasks: readonly WorkerTask[] = workerTasks): ParsedCronItem[] {
  const items: CronItem[] = tasks.flatMap(({ identifier, schedule }) =>
    schedule
      ? [
          {
            task: identifier,
            identifier,
            match: schedule.match,
            ...(schedule.options ? { options: schedule.options } : {}),
          },
        ]
      : [],
  );
  return parseCronItems(items);
}
