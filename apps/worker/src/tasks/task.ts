import type { JobExecutor, JobRunSettings, ServiceDeps, TraceProviders } from "@crs/services";
import type { CronItemOptions, Task } from "graphile-worker";
import type { JobSignals } from "../jobs/job-signals";
import type { WebhookDeliverySettings } from "../webhooks/delivery-settings";

/**
 * What task handlers receive: the same service deps as the apps (pool, clock, ids, the event
 * signing key, the webhook secret key and resolver), so a task writes through runWrite: its events
 * and follow-up jobs commit with it. Plus how webhooks are delivered (tests shrink the schedule).
 */
export interface TaskDeps extends ServiceDeps {
  webhookDelivery: WebhookDeliverySettings;
  /** how long a job may sit locked before a worker starts it (a local queue's ttl; 0 without one) */
  jobLockHoldMs: number;
  /** API jobs: lease and retry backoff of a run */
  jobRuns: JobRunSettings;
  /** what each job type does (tests may replace one) */
  jobExecutors: Record<string, JobExecutor>;
  /** where traces read chain data: the synthetic chain for sandboxes, the configured provider for live */
  traceProviders: TraceProviders;
  /** cancel signals for the runs of this process */
  jobSignals: JobSignals;
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
