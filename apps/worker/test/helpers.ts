import { createServiceDeps, type ResolveHostname, type ServiceDeps } from "@crs/services";
import { silentLogger, type WorkerLogger } from "../src/logger";
import { type RunningWorker, type StartWorkerOptions, startWorker } from "../src/runner";

export interface LogEntry {
  level: "error" | "warn" | "info" | "debug";
  message: string;
  meta: Record<string, unknown> | undefined;
}

/** A logger that keeps every entry, so a test can assert that nothing went wrong. */
export function createCapturingLogger(): WorkerLogger & { entries: LogEntry[]; problems(): LogEntry[] } {
  const entries: LogEntry[] = [];
  const push = (level: LogEntry["level"]) => (message: string, meta?: Record<string, unknown>) => {
    entries.push({ level, message, meta });
  };
  return {
    entries,
    problems: () => entries.filter((entry) => entry.level === "error" || entry.level === "warn"),
    error: push("error"),
    warn: push("warn"),
    info: push("info"),
    debug: push("debug"),
  };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Rejects if `promise` has not settled within `ms`: a bound on waiting, not a timing assertion. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it returns true, giving up at the deadline. */
export async function waitUntil(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The service deps a worker process builds, on a test database, with fixed secrets. */
export function createTestServiceDeps(
  databaseUrl: string,
  options: { resolveHostname?: ResolveHostname; poolSize?: number } = {},
) {
  return createServiceDeps({
    databaseUrl,
    secrets: {
      keySigningSecret: "worker-tests-key-signing-secret-0123456789",
      eventSigningSeed: "7e".repeat(32),
      webhookSecretKey: "8f".repeat(32),
    },
    publicBaseUrl: "http://127.0.0.1:3000",
    poolSize: options.poolSize ?? 4,
    ...(options.resolveHostname ? { resolveHostname: options.resolveHostname } : {}),
  });
}

/**
 * A worker on the test database for a test: one job at a time, no schedule, polling every 100 ms, quiet.
 * `options` replace any of these and add the rest (probe tasks, executors, providers, delivery settings).
 */
export function startTestWorker(
  databaseUrl: string,
  deps: ServiceDeps,
  options: Partial<Omit<StartWorkerOptions, "databaseUrl" | "deps">> = {},
): Promise<RunningWorker> {
  return startWorker({
    databaseUrl,
    deps,
    concurrency: 1,
    logger: silentLogger,
    cronItems: [],
    pollInterval: 100,
    ...options,
  });
}
