import { migrateDatabase } from "@crs/db";
import { parseWorkerEnv } from "./env";
import { createConsoleLogger } from "./logger";
import { startWorker } from "./runner";

const logger = createConsoleLogger();

async function main(): Promise<void> {
  const env = parseWorkerEnv();
  if (!env.skipMigrations) await migrateDatabase(env.databaseUrl);
  const worker = await startWorker({ databaseUrl: env.databaseUrl, concurrency: env.concurrency, logger });

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`received ${signal} again while stopping; exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.info(`received ${signal}, stopping`);
    worker.stop().then(
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

main().catch((error: unknown) => {
  logger.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
