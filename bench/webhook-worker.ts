/**
 * The worker under test, run as a child process of webhooks.bench.ts so that the receiver (in the parent)
 * and the worker do not share an event loop. Production delivery settings; no cron.
 *
 * Protocol: forked with an IPC channel; sends `{ ready: true, cpu }` once the runner is up; answers "cpu" with
 * `{ cpu: process.cpuUsage() }`; on "stop" (or when the parent goes away) stops the runner, closes its pool
 * and exits.
 */
import { createServiceDeps } from "@crs/services";
import { silentLogger } from "../apps/worker/src/logger";
import { startWorker } from "../apps/worker/src/runner";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`webhook-worker: ${name} is not set`);
  return value;
}

const databaseUrl = required("BENCH_DATABASE_URL");
const concurrency = Number(required("BENCH_CONCURRENCY"));
const secrets = JSON.parse(required("BENCH_SECRETS")) as {
  keySigningSecret: string;
  eventSigningSeed: string;
  webhookSecretKey: string;
};

const deps = createServiceDeps({ databaseUrl, secrets, publicBaseUrl: "http://127.0.0.1", poolSize: concurrency + 2 });
const localQueueSize = Number(required("BENCH_LOCAL_QUEUE"));
const batchSize = Number(required("BENCH_BATCH"));
const worker = await startWorker({
  databaseUrl,
  deps,
  concurrency,
  logger: silentLogger,
  cronItems: [],
  localQueueSize,
  ...(batchSize > 0 ? { webhookDelivery: { batchSize } } : {}),
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await worker.stop();
  await deps.close();
  process.exit(0);
};
process.on("message", (message) => {
  if (message === "stop") void stop();
  if (message === "cpu") process.send?.({ cpu: process.cpuUsage() });
});
process.on("disconnect", () => void stop());
process.send?.({ ready: true, cpu: process.cpuUsage() });
