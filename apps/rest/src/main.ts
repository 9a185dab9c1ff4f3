import { startServiceDeps } from "@crs/services";
import { buildRestApp } from "./app";
import { parseRestEnv } from "./env";

const env = parseRestEnv();
const deps = await startServiceDeps(env, (message) => console.warn(`[rest] ${message}`));
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
