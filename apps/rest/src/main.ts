import { migrateDatabase } from "@crs/db";
import { createServiceDeps, resolveSecrets } from "@crs/services";
import { buildRestApp } from "./app";
import { parseRestEnv } from "./env";

const env = parseRestEnv();
if (env.SKIP_MIGRATIONS !== "1") await migrateDatabase(env.DATABASE_URL);
const secrets = resolveSecrets(
  {
    appEnv: env.APP_ENV,
    dataDir: env.DATA_DIR,
    keySigningSecret: env.KEY_SIGNING_SECRET,
    eventSigningSeed: env.EVENT_SIGNING_SEED,
    webhookSecretKey: env.WEBHOOK_SECRET_KEY,
  },
  (message) => console.warn(`[rest] ${message}`),
);
const deps = createServiceDeps({ databaseUrl: env.DATABASE_URL, secrets, poolSize: env.DATABASE_POOL_SIZE });
const baseUrl = env.PUBLIC_BASE_URL ?? `http://${env.HOST}:${env.REST_PORT}`;
const app = await buildRestApp({ deps, baseUrl, logLevel: env.LOG_LEVEL });
await app.listen({ host: env.HOST, port: env.REST_PORT });
console.log(`REST listening on ${baseUrl}`);

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
