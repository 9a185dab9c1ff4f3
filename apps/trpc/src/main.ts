import { startServiceDeps } from "@crs/services";
import { parseTrpcEnv } from "./env";
import { createTrpcServer } from "./server";

const env = parseTrpcEnv();
const deps = await startServiceDeps(env, (message) => console.warn(`[trpc] ${message}`));
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
