import { assertDatabaseReachable, describeStartupError } from "@crs/db/startup-errors";
import { startServiceDeps } from "@crs/services";
import { parseTrpcEnv } from "./env";
import { createTrpcServer } from "./server";

async function main(): Promise<void> {
  const env = parseTrpcEnv();
  await assertDatabaseReachable(env.DATABASE_URL);
  const deps = await startServiceDeps(env, (message) => console.warn(`[trpc] ${message}`));
  const server = createTrpcServer(deps, { logLevel: env.LOG_LEVEL });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(env.TRPC_PORT, env.HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  console.log(`tRPC listening on http://${env.HOST}:${env.TRPC_PORT}/trpc`);

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    console.log(`[trpc] ${signal}: closing`);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await deps.close();
    process.exit(0);
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

// A start that fails (bad environment, database unreachable, port taken) is one line and exit code 1.
main().catch((error: unknown) => {
  console.error(`[trpc] not started: ${describeStartupError(error)}`);
  process.exit(1);
});
