import {
  createTraceProviders,
  DEFAULT_JOB_RUN_SETTINGS,
  JOB_EXECUTORS,
  type JobExecutor,
  type JobRunSettings,
  type ServiceDeps,
  type TraceProviders,
} from "@crs/services";
import { type CronItem, parseCronItems, run, type TaskList, type WorkerEvents } from "graphile-worker";
import { listenForJobSignals } from "./jobs/job-signals";
import { createConsoleLogger, toGraphileLogger, type WorkerLogger } from "./logger";
import { buildCronItems, createTaskList, JOB_RECOVERY, WEBHOOK_RECOVERY } from "./tasks";
import { DEFAULT_WEBHOOK_DELIVERY_SETTINGS, type WebhookDeliverySettings } from "./webhooks/delivery-settings";

/**
 * graphile-worker settings that make shutdown lose nothing. With the defaults
 * (batch delays -1) a job's completion is written fire-and-forget, and `stop()` ends the runner's
 * pg pool first, so a job that finishes during `stop()` stays locked until the 4-hour stale-lock
 * expiry and then runs twice. With delay 0 completions and failures go through a batcher that
 * `stop()` flushes before the pool ends. Tasks get `helpers.abortSignal` 5 s into a shutdown.
 */
export const SHUTDOWN_SAFE_WORKER_PRESET = {
  completeJobBatchDelay: 0,
  failJobBatchDelay: 0,
  gracefulShutdownAbortTimeout: 5000,
} as const;

export interface StartWorkerOptions {
  /** graphile-worker keeps its own node-postgres pool on this database */
  databaseUrl: string;
  /** what tasks use: the same service deps as the apps (the caller closes them after stop()) */
  deps: ServiceDeps;
  /** jobs run at once (default 5) */
  concurrency?: number;
  logger?: WorkerLogger;
  /** handlers merged over the built-in task list: tests register probe tasks here */
  taskList?: TaskList;
  /** replaces the built-in schedule (`[]` schedules nothing) */
  cronItems?: CronItem[];
  /** graphile-worker's event emitter, for metrics or to observe the job lifecycle */
  events?: WorkerEvents;
  /** how often graphile-worker looks for jobs that no NOTIFY announces (retries due later); default 2000 ms */
  pollInterval?: number;
  /** replaces parts of the webhook delivery settings (tests: a short retry schedule and deadline) */
  webhookDelivery?: Partial<WebhookDeliverySettings>;
  /**
   * Also runs the webhook recovery sweep this often, from this process (tests: well under the minute of
   * its cron schedule). It always runs once at start, unless `recoverWebhooksAtStart` is false.
   */
  webhookRecoveryIntervalMs?: number;
  recoverWebhooksAtStart?: boolean;
  /**
   * graphile-worker's local queue: fetch (and lock) this many jobs per query instead of one per job.
   * Off by default: webhook jobs already claim their deliveries in batches, so fetches are few (measure
   * with bench/webhooks.bench.ts before turning it on), and a worker that dies leaves the jobs it had
   * fetched locked for graphile-worker's 4 hours; the webhook sweep recovers its own, other job types
   * would wait.
   */
  localQueueSize?: number;
  /** how long a fetched job may wait in the local queue before it is returned (default 10 s) */
  localQueueTtlMs?: number;
  /** where traces read chain data; default: the synthetic chain for sandboxes and no live provider */
  traceProviders?: TraceProviders;
  /** replaces parts of the API jobs' run settings (tests: a short lease and backoff) */
  jobRuns?: Partial<JobRunSettings>;
  /** replaces what a job type does (tests: a run that fails, or waits to be canceled) */
  jobExecutors?: Record<string, JobExecutor>;
  /** Also runs the job recovery sweep this often (tests); it always runs once at start and every minute. */
  jobRecoveryIntervalMs?: number;
}

export interface RunningWorker {
  /**
   * Stops taking jobs, waits for running ones (aborting them after 5 s), records their outcome,
   * then closes the connections. Safe to call more than once.
   */
  stop(): Promise<void>;
  /** Settles when the runner ends: resolves after stop(), rejects if it stopped on its own after an error. */
  done: Promise<void>;
}

export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const concurrency = options.concurrency ?? 5;
  const logger = options.logger ?? createConsoleLogger();
  const webhookDelivery = { ...DEFAULT_WEBHOOK_DELIVERY_SETTINGS, ...options.webhookDelivery };
  const localQueue =
    options.localQueueSize && options.localQueueSize > 1
      ? { size: options.localQueueSize, ttl: options.localQueueTtlMs ?? 10_000 }
      : undefined;
  const jobSignals = await listenForJobSignals(options.deps.sql, logger);
  const taskList: TaskList = {
    ...createTaskList({
      ...options.deps,
      webhookDelivery,
      jobLockHoldMs: localQueue?.ttl ?? 0,
      jobRuns: { ...DEFAULT_JOB_RUN_SETTINGS, ...options.jobRuns },
      jobExecutors: { ...JOB_EXECUTORS, ...options.jobExecutors },
      traceProviders: options.traceProviders ?? createTraceProviders(null),
      jobSignals,
    }),
    ...options.taskList,
  };
  const runner = await run({
    connectionString: options.databaseUrl,
    concurrency,
    ...(options.pollInterval !== undefined ? { pollInterval: options.pollInterval } : {}),
    maxPoolSize: Math.max(10, concurrency + 2),
    noHandleSignals: true,
    logger: toGraphileLogger(logger),
    taskList,
    parsedCronItems: options.cronItems ? parseCronItems(options.cronItems) : buildCronItems(),
    ...(options.events ? { events: options.events } : {}),
    preset: {
      worker: {
        ...SHUTDOWN_SAFE_WORKER_PRESET,
        ...(localQueue ? { localQueue } : {}),
      },
    },
  });

  // What a worker that died mid-delivery left behind is handed back now, not at the next minute.
  const recoverWebhooks = () =>
    runner.addJob(WEBHOOK_RECOVERY, {}, { jobKey: WEBHOOK_RECOVERY, jobKeyMode: "replace", maxAttempts: 5 });
  // Jobs whose worker was killed mid-run are queued again as soon as their lease lapses.
  const recoverJobs = () =>
    runner.addJob(JOB_RECOVERY, {}, { jobKey: JOB_RECOVERY, jobKeyMode: "replace", maxAttempts: 5 });
  try {
    if (options.recoverWebhooksAtStart !== false) await recoverWebhooks();
    await recoverJobs();
  } catch (error) {
    await runner.stop();
    await jobSignals.close();
    throw error;
  }
  const jobRecoveryTimer =
    options.jobRecoveryIntervalMs === undefined
      ? undefined
      : setInterval(() => {
          recoverJobs().catch((error: unknown) =>
            logger.warn("could not queue the job recovery sweep", { error: String(error) }),
          );
        }, options.jobRecoveryIntervalMs);
  jobRecoveryTimer?.unref();
  const recoveryTimer =
    options.webhookRecoveryIntervalMs === undefined
      ? undefined
      : setInterval(() => {
          recoverWebhooks().catch((error: unknown) =>
            logger.warn("could not queue the webhook recovery sweep", { error: String(error) }),
          );
        }, options.webhookRecoveryIntervalMs);
  recoveryTimer?.unref();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    clearInterval(recoveryTimer);
    clearInterval(jobRecoveryTimer);
    stopping ??= runner.stop().finally(() => jobSignals.close());
    return stopping;
  };
  const done = runner.promise.then(() => undefined);
  // Callers that never look at `done` must not get an unhandled rejection.
  done.catch(() => {});
  return { stop, done };
}
