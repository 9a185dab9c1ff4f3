import { migrateDatabase } from "@crs/db";
import { createServiceDeps, resolveSecrets } from "@crs/services";
import { parseTrpcEnv } from "./env";
import { createTrpcServer } from "./server";

const env = parseTrpcEnv();
if (env.SKIP_MIGRATIONS !== "1") await migrateDatabase(env.DATABASE_URL);
const secrets = resolveSecrets(
  {
    appEnv: env.APP_ENV,
    dataDir: env.DATA_DIR,
    keySigningSecret: env.KEY_SIGNING_SECRET,
    eventSigningSeed: env.EVENT_SIGNING_SEED,
    webhookSecretKey: env.WEBHOOK_SECRET_KEY,
  },
  (message) => console.warn(`[trpc] ${message}`),
);
const deps = createServiceDeps({ databaseUrl: env.DATABASE_URL, secrets, poolSize: env.DATABASE_POOL_SIZE });
const server = createTrpcServer(deps);
await new Promise<void>((resolve) => server.listen(env.TRPC_PORT, env.HOST, resolve));
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
