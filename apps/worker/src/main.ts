import { assertDatabaseReachable, describeStartupError } from "@crs/db/startup-errors";
import { createTraceProviders, startServiceDeps } from "@crs/services";
import { parseWorkerEnv } from "./env";
import { liveTraceSourceFromEnv } from "./jobs/live-chain";
import { createConsoleLogger } from "./logger";
import { startWorker } from "./runner";

const logger = createConsoleLogger();

async function main(): Promise<void> {
  const env = parseWorkerEnv();
  await assertDatabaseReachable(env.DATABASE_URL);
  // A label file that cannot be read stops the start, before anything else.
  const liveTraceSource = await liveTraceSourceFromEnv(env);
  if (!liveTraceSource) logger.info("no live chain provider configured (CHAIN_RPC_URL): live traces will fail");
  const deps = await startServiceDeps(env, (message) => logger.warn(`[worker] ${message}`));
  const worker = await startWorker({
    databaseUrl: env.DATABASE_URL,
    deps,
    concurrency: env.WORKER_CONCURRENCY,
    logger,
    traceProviders: createTraceProviders(liveTraceSource),
  });

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`received ${signal} again while stopping; exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.info(`received ${signal}, stopping`);
    worker
      .stop()
      .then(() => deps.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error("worker did not stop cleanly", { error: String(error) });
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  worker.done.catch((error: unknown) => {
    if (stopping) return;
    logger.error("worker stopped after an error", { error: String(error) });
    process.exit(1);
  });

  logger.info("worker running");
}

// A start that fails (bad environment, database unreachable) is one line and exit code 1.
main().catch((error: unknown) => {
  console.error(`[worker] not started: ${describeStartupError(error)}`);
  process.exit(1);
});
