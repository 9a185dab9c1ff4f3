import type { Database } from "@crs/db";
import type { CronItemOptions, Task } from "graphile-worker";

/** What task handlers need from the outside world; the runner builds it once per process. */
export interface TaskDeps {
  db: Database;
  clock: () => Date;
}

/** One job type the worker runs: its identifier, its handler and, if it is periodic, its schedule. */
export interface WorkerTask {
  /** graphile-worker task identifier, `<domain>.<verb>`, same as the file name */
  identifier: string;
  /**
   * For periodic tasks: crontab time fields (`match`, e.g. `"*\/10 * * * *"`) and graphile-worker's
   * cron options. Omit for tasks that other code enqueues.
   */
  schedule?: { match: string; options?: CronItemOptions };
  create(deps: TaskDeps): Task;
}
