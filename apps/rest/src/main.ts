import { assertDatabaseReachable, describeStartupError } from "@crs/db/startup-errors";
import { startServiceDeps } from "@crs/services";
import { buildRestApp } from "./app";
import { parseRestEnv } from "./env";

async function main(): Promise<void> {
  const env = parseRestEnv();
  await assertDatabaseReachable(env.DATABASE_URL);
  const deps = await startServiceDeps(env, (message) => console.warn(`[rest] ${message}`));
  const app = await buildRestApp({ deps, logLevel: env.LOG_LEVEL });
  await app.listen({ host: env.HOST, port: env.REST_PORT });
  console.log(`REST listening on ${deps.publicBaseUrl}`);

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    console.log(`[rest] ${signal}: closing`);
    await app.close();
    await deps.close();
    process.exit(0);
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

// A start that fails (bad environment, database unreachable, port taken) is one line and exit code 1.
main().catch((error: unknown) => {
  console.error(`[rest] not started: ${describeStartupError(error)}`);
  process.exit(1);
});
