import { connectDatabase } from "@crs/db";
import { type CronItem, parseCronItems, run, type TaskList, type WorkerEvents } from "graphile-worker";
import { createConsoleLogger, toGraphileLogger, type WorkerLogger } from "./logger";
import { buildCronItems, createTaskList } from "./tasks";

/**
 * graphile-worker settings that make shutdown lose nothing (stack-probes §2). With the defaults
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
  databaseUrl: string;
  /** jobs run at once (default 5) */
  concurrency?: number;
  logger?: WorkerLogger;
  /** handlers merged over the built-in task list: tests register probe tasks here */
  taskList?: TaskList;
  /** replaces the built-in schedule (`[]` schedules nothing) */
  cronItems?: CronItem[];
  /** the clock tasks read (default: the system clock) */
  clock?: () => Date;
  /** graphile-worker's event emitter, for metrics or to observe the job lifecycle */
  events?: WorkerEvents;
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
  // Tasks query through drizzle/postgres.js; graphile-worker keeps its own node-postgres pool.
  const connection = connectDatabase(options.databaseUrl, { max: Math.max(2, concurrency) });
  const taskList: TaskList = {
    ...createTaskList({ db: connection.db, clock: options.clock ?? (() => new Date()) }),
    ...options.taskList,
  };
  let runner: Awaited<ReturnType<typeof run>>;
  try {
    runner = await run({
      connectionString: options.databaseUrl,
      concurrency,
      maxPoolSize: Math.max(10, concurrency + 2),
      noHandleSignals: true,
      logger: toGraphileLogger(logger),
      taskList,
      parsedCronItems: options.cronItems ? parseCronItems(options.cronItems) : buildCronItems(),
      ...(options.events ? { events: options.events } : {}),
      preset: { worker: { ...SHUTDOWN_SAFE_WORKER_PRESET } },
    });
  } catch (error) {
    await connection.close();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      try {
        await runner.stop();
      } finally {
        await connection.close();
      }
    })();
    return stopping;
  };
  const done = runner.promise.then(
    () => undefined,
    async (error: unknown) => {
      // The runner has already shut itself down; release our own connections too.
      await connection.close().catch(() => {});
      throw error;
    },
  );
  // Callers that never look at `done` must not get an unhandled rejection.
  done.catch(() => {});
  return { stop, done };
}
