/**
 * `pnpm bench:webhooks`: webhook delivery throughput and latency against a plain signed POST loop.
 *
 * - Its own PostgreSQL (embedded, in a temporary folder, removed at the end), so other users of a shared
 *   server do not skew it and its CPU can be counted (`BENCH_POSTGRES=shared` uses TEST_DATABASE_URL or
 *   the local server instead); one sandbox organization with one endpoint pointing at a receiver in this
 *   process (node:http on 127.0.0.1, answers 200 at once).
 * - "ours": the real worker (apps/worker, production delivery settings, `BENCH_CONCURRENCY` jobs at once,
 *   each claiming and sending a batch of up to `BENCH_BATCH` deliveries) in a child process (webhook-worker.ts). Events are written through the real write path (createMatter in
 *   runWrite), so each one fills the outbox in its own transaction.
 *   - throughput: `BENCH_EVENTS` events are written while no worker runs, then a worker starts and drains
 *     them; deliveries/s = deliveries / (last receipt - first receipt). Both sides start cold: the worker's
 *     two pools open their connections during the drain (each costs PostgreSQL 40-80 ms of CPU for setup,
 *     catalog caches and first plans) and neither process's V8 is warm yet. The rates over the first
 *     `COLD_START_DELIVERIES` and over the rest are printed apart for both, so the start and the steady pace
 *     can be told apart.
 *   - latency: with the worker idle, `BENCH_LATENCY_EVENTS` events are written one at a time, every
 *     1000/`BENCH_RATE` ms; latency = receipt at the receiver - the moment the write committed.
 * - "plain loop": webhook-baseline.ts in a child process POSTs the same number of real event bodies, signed
 *   the same way, with the same concurrency and a new connection per request like the worker's sender;
 *   latency = receipt - the moment the request was started.
 * - CPU per delivery (worker process, PostgreSQL, receiver) and per plain request (loop process, receiver),
 *   counted from the processes themselves: unlike the rates, it does not depend on what else the machine
 *   is running.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startEmbeddedPostgres } from "@crs/db";
import { createTestDatabase, testServerUrl } from "@crs/db/testing";
import { createServiceDeps, issueSandboxKey, runWrite, systemActor } from "@crs/services";
import { retrieveEvent } from "@crs/services/events/retrieve-event";
import { createMatter } from "@crs/services/matters/create-matter";
import { createWebhookEndpoint } from "@crs/services/webhooks/create-webhook-endpoint";
import { DEFAULT_WEBHOOK_DELIVERY_SETTINGS } from "../apps/worker/src/webhooks/delivery-settings";
import { z } from "zod";

const setting = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(min).max(max).default(fallback),
  );
const Config = z.object({
  /** events drained for the throughput figure */
  BENCH_EVENTS: setting(2000, 10, 100_000),
  /** events written one at a time for the latency figure */
  BENCH_LATENCY_EVENTS: setting(300, 10, 10_000),
  /** events per second in the latency run */
  BENCH_RATE: setting(50, 1, 1000),
  /** the worker's concurrency (jobs at once), and the plain loop's unless BENCH_LOOP_CONCURRENCY is set */
  BENCH_CONCURRENCY: setting(8, 1, 100),
  /** the plain loop's requests in flight (default BENCH_CONCURRENCY) */
  BENCH_LOOP_CONCURRENCY: setting(0, 0, 1000),
  /** deliveries one webhook.deliver job claims and sends at once (default: the worker's own default) */
  BENCH_BATCH: setting(0, 0, 1000),
  /** graphile-worker's local queue size for the worker (0: off, the service's default) */
  BENCH_LOCAL_QUEUE: setting(0, 0, 1000),
  BENCH_POSTGRES: z.enum(["embedded", "shared"]).default("embedded"),
  /** a directory: run the worker under node --cpu-prof and write its profile there (bench/top-frames.ts reads it) */
  BENCH_CPU_PROF_DIR: z.string().optional(),
});
const config = Config.parse(process.env);
const loopConcurrency = config.BENCH_LOOP_CONCURRENCY || config.BENCH_CONCURRENCY;
/** the batch size the worker runs with: BENCH_BATCH, or the worker's default */
const batchSize = config.BENCH_BATCH || DEFAULT_WEBHOOK_DELIVERY_SETTINGS.batchSize;

/** the first receipts of each side, reported apart: each side's cold start (see above) falls in them */
const COLD_START_DELIVERIES = Math.min(500, Math.floor(config.BENCH_EVENTS / 4));

const now = () => performance.timeOrigin + performance.now();
const children = new Set<ChildProcess>();

function forkChild(script: string, env: Record<string, string>, execArgv: string[] = []): ChildProcess {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
    execArgv: [...process.execArgv, ...execArgv],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

function nextMessage<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gave up waiting for ${what}`)), 120_000);
    child.once("message", (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what}: the child exited with code ${code}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.send("stop");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Receipts by event id (or baseline request id), with the time each arrived. */
interface Receiver {
  url: string;
  receipts: Map<string, number>;
  /** per baseline request: receipt - x-sent-at */
  sentToReceived: number[];
  until(count: number, prefix: string): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receipts = new Map<string, number>();
  const sentToReceived: number[] = [];
  // First receipts per id prefix ("evt_", "baseline_"), kept as they arrive: the receiver does the same
  // small constant work for the worker's requests and the plain loop's.
  const counts = new Map<string, number>();
  const prefixOf = (id: string) => id.slice(0, id.indexOf("_") + 1);
  const countOf = (prefix: string) => counts.get(prefix) ?? 0;
  let waiter: { count: number; prefix: string; resolve: () => void } | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const at = now();
      const id = String(req.headers["svc-event-id"]);
      if (!receipts.has(id)) {
        receipts.set(id, at);
        counts.set(prefixOf(id), countOf(prefixOf(id)) + 1);
      }
      const sentAt = Number(req.headers["x-sent-at"]);
      if (Number.isFinite(sentAt)) sentToReceived.push(at - sentAt);
      res.writeHead(200).end();
      if (waiter && countOf(waiter.prefix) >= waiter.count) {
        waiter.resolve();
        waiter = undefined;
      }
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receipts,
    sentToReceived,
    until: (count, prefix) =>
      countOf(prefix) >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiter = { count, prefix, resolve };
          }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** CPU milliseconds a process and its children (PostgreSQL's backends) used so far, from /proc. */
function processTreeCpuMs(rootPid: number): number {
  const ticksPerSecond = 100;
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      if (Number(entry) !== rootPid && ppid !== rootPid) continue;
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
    } catch {
      // the process ended while we looked
    }
  }
  return total;
}

const cpuMsOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function rate(times: number[]): number {
  const first = Math.min(...times);
  const last = Math.max(...times);
  return ((times.length - 1) * 1000) / (last - first);
}

/** deliveries/s over the first `count` receipts and over the ones after them (sharing the boundary receipt) */
function splitRate(times: number[], count: number): { first: number; rest: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { first: rate(sorted.slice(0, count)), rest: rate(sorted.slice(count - 1)) };
}

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let postgresServer: { stop(): Promise<void>; dataDir: string } | undefined;
let receiver: Receiver | undefined;
let cleaning: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map(stopChild));
    await receiver?.close();
    if (database) {
      await database.drop();
      console.log(`stopped; dropped ${database.name}`);
    }
    if (postgresServer) {
      await postgresServer.stop();
      rmSync(postgresServer.dataDir, { recursive: true, force: true });
      console.log("stopped the bench's PostgreSQL");
    }
  })();
  return cleaning;
}

/** The server the bench creates its database on, and the pid whose process tree is PostgreSQL (embedded only). */
async function benchServer(): Promise<{ url: string; postgresPid: number | null }> {
  if (config.BENCH_POSTGRES === "shared") return { url: testServerUrl(), postgresPid: null };
  const dataDir = mkdtempSync(join(tmpdir(), "crs-bench-webhooks-"));
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  postgresServer = { stop: () => server.stop(), dataDir };
  const url = new URL(server.url);
  url.pathname = "/postgres";
  return { url: url.toString(), postgresPid: server.pid };
}

async function main(): Promise<void> {
  const server = await benchServer();
  database = await createTestDatabase(server.url);
  const db = database;
  console.log(
    `database: ${db.name} (fresh, dropped at the end) on ${server.postgresPid ? "the bench's own embedded PostgreSQL" : server.url}`,
  );
  const postgresCpuMs = () => (server.postgresPid ? processTreeCpuMs(server.postgresPid) : Number.NaN);
  const secrets = {
    keySigningSecret: randomBytes(32).toString("hex"),
    eventSigningSeed: randomBytes(32).toString("hex"),
    webhookSecretKey: randomBytes(32).toString("hex"),
  };
  const deps = createServiceDeps({ databaseUrl: db.url, secrets, publicBaseUrl: "http://127.0.0.1", poolSize: 8 });
  try {
    receiver = await startReceiver();
    const minted = await issueSandboxKey(deps);
    const tenant = { organizationId: minted.organization_id, environment: "sandbox" as const };
    const write = <T>(run: Parameters<typeof runWrite<T>>[2]) =>
      runWrite(deps, systemActor(tenant, "bench", deps.newId("request")), run);
    const endpoint = await write((w) =>
      createWebhookEndpoint(w, { params: {}, body: { url: receiver?.url ?? "", enabled_events: ["matter.created"] } }),
    );
    const writeEvent = async (i: number) => {
      const matter = await write((w) =>
        createMatter(w, { params: {}, body: { name: `Bench ${i} v. Doe`, mode: "recovery" } }),
      );
      const committedAt = now();
      const [row] = await deps.sql<{ id: string }[]>`
        select id from events where organization_id = ${tenant.organizationId} and matter_id = ${matter.id}`;
      return { eventId: row?.id ?? "", committedAt };
    };

    const [load1] = loadavg();
    console.log(
      `machine: ${availableParallelism()} CPUs, 1-min load average ${load1?.toFixed(2)} before the runs ` +
        "(shared with Postgres and anything else running)",
    );
    console.log(
      `worker: ${config.BENCH_CONCURRENCY} jobs at a time, each a batch of up to ${batchSize} deliveries ` +
        `(at most ${config.BENCH_CONCURRENCY * batchSize} POSTs in flight); plain loop: ${loopConcurrency} POSTs in flight\n` +
        `throughput over ${config.BENCH_EVENTS} deliveries; ` +
        `latency over ${config.BENCH_LATENCY_EVENTS} events at ${config.BENCH_RATE}/s`,
    );

    // Throughput: a backlog written with no worker running, then drained.
    const backlog: string[] = [];
    let written = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (written < config.BENCH_EVENTS) {
          const i = written++;
          backlog.push((await writeEvent(i)).eventId);
        }
      }),
    );
    const workerEnv = {
      BENCH_DATABASE_URL: db.url,
      BENCH_CONCURRENCY: String(config.BENCH_CONCURRENCY),
      BENCH_LOCAL_QUEUE: String(config.BENCH_LOCAL_QUEUE),
      BENCH_BATCH: String(config.BENCH_BATCH),
      BENCH_SECRETS: JSON.stringify(secrets),
    };
    const profile = config.BENCH_CPU_PROF_DIR
      ? ["--cpu-prof", `--cpu-prof-dir=${config.BENCH_CPU_PROF_DIR}`]
      : [];
    const worker = forkChild("./webhook-worker.ts", workerEnv, profile);
    const drainStart = { postgres: postgresCpuMs(), receiver: process.cpuUsage() };
    const workerCpuBefore = await nextMessage<{ cpu: NodeJS.CpuUsage }>(worker, "the worker to start");
    await receiver.until(config.BENCH_EVENTS, "evt_");
    worker.send("cpu");
    const workerCpuAfter = await nextMessage<{ cpu: NodeJS.CpuUsage }>(worker, "the worker's CPU");
    const ourCpu = {
      worker: (cpuMsOf(workerCpuAfter.cpu) - cpuMsOf(workerCpuBefore.cpu)) / config.BENCH_EVENTS,
      postgres: (postgresCpuMs() - drainStart.postgres) / config.BENCH_EVENTS,
      receiver: cpuMsOf(process.cpuUsage(drainStart.receiver)) / config.BENCH_EVENTS,
    };
    const ourTimes = backlog.map((id) => receiver?.receipts.get(id) ?? Number.NaN);
    const ourRate = rate(ourTimes);
    const ourSplit = splitRate(ourTimes, COLD_START_DELIVERIES);
    console.log("  done: worker throughput");

    // Latency: one event at a time with the worker idle.
    const latencies: number[] = [];
    const interval = 1000 / config.BENCH_RATE;
    const pending: Promise<void>[] = [];
    for (let i = 0; i < config.BENCH_LATENCY_EVENTS; i++) {
      const started = now();
      const { eventId, committedAt } = await writeEvent(config.BENCH_EVENTS + i);
      pending.push(
        (async () => {
          while (!receiver?.receipts.has(eventId)) await new Promise((resolve) => setTimeout(resolve, 1));
          latencies.push((receiver.receipts.get(eventId) ?? Number.NaN) - committedAt);
        })(),
      );
      const wait = interval - (now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await Promise.all(pending);
    console.log("  done: worker latency");
    await stopChild(worker);

    // The plain loop, with a real event body.
    const sample = backlog[0] ?? "";
    const event = await retrieveEvent(
      { ...deps, actor: systemActor(tenant, "bench", "req_bench") },
      {
        params: { event_id: sample },
      },
    );
    const body = JSON.stringify(event);
    receiver.sentToReceived.length = 0;
    const baseline = forkChild("./webhook-baseline.ts", {
      BENCH_RECEIVER_URL: receiver.url,
      BENCH_COUNT: String(config.BENCH_EVENTS),
      BENCH_CONCURRENCY: String(loopConcurrency),
      BENCH_BODY: body,
      BENCH_SECRET: endpoint.signing_secret,
    });
    const loopStart = process.cpuUsage();
    const finished = await nextMessage<{ done: boolean; failures: number; cpu: NodeJS.CpuUsage }>(
      baseline,
      "the plain loop",
    );
    const plainCpu = {
      loop: cpuMsOf(finished.cpu) / config.BENCH_EVENTS,
      receiver: cpuMsOf(process.cpuUsage(loopStart)) / config.BENCH_EVENTS,
    };
    if (finished.failures > 0) throw new Error(`the plain loop saw ${finished.failures} failed requests`);
    const baselineTimes = [...receiver.receipts.entries()]
      .filter(([id]) => id.startsWith("baseline_"))
      .map(([, t]) => t);
    const plainRate = rate(baselineTimes);
    const plainSplit = splitRate(baselineTimes, COLD_START_DELIVERIES);
    const plainLatencies = receiver.sentToReceived;
    console.log("  done: plain loop");

    const [undelivered] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from webhook_deliveries where status <> 'delivered'`;
    const fmt = (n: number) => n.toFixed(1);
    console.log("");
    console.log("                deliveries/s   p50 ms   p99 ms");
    console.log(
      `worker          ${fmt(ourRate).padStart(12)}   ${fmt(percentile(latencies, 50)).padStart(6)}   ${fmt(percentile(latencies, 99)).padStart(6)}`,
    );
    console.log(
      `plain loop      ${fmt(plainRate).padStart(12)}   ${fmt(percentile(plainLatencies, 50)).padStart(6)}   ${fmt(percentile(plainLatencies, 99)).padStart(6)}`,
    );
    console.log("");
    console.log(`worker/plain deliveries per second = ${(ourRate / plainRate).toFixed(2)} (aim: at least 0.5)`);
    console.log(
      `  first ${COLD_START_DELIVERIES} deliveries (both sides' cold start): worker ${fmt(ourSplit.first)}/s, plain loop ${fmt(plainSplit.first)}/s = ${(ourSplit.first / plainSplit.first).toFixed(2)}; ` +
        `after them: worker ${fmt(ourSplit.rest)}/s, plain loop ${fmt(plainSplit.rest)}/s = ${(ourSplit.rest / plainSplit.rest).toFixed(2)}`,
    );
    console.log(`worker event-to-delivery p50 = ${fmt(percentile(latencies, 50))} ms (aim: under 25 ms)`);
    console.log(`deliveries not delivered at the end: ${undelivered?.n ?? "?"} (expected 0)`);
    const ms = (n: number) => n.toFixed(3);
    console.log("");
    console.log(
      `CPU per delivery: worker process ${ms(ourCpu.worker)} ms + PostgreSQL ${ms(ourCpu.postgres)} ms + receiver ${ms(ourCpu.receiver)} ms` +
        ` = ${ms(ourCpu.worker + ourCpu.postgres + ourCpu.receiver)} ms`,
    );
    console.log(
      `CPU per plain request: loop process ${ms(plainCpu.loop)} ms + receiver ${ms(plainCpu.receiver)} ms` +
        ` = ${ms(plainCpu.loop + plainCpu.receiver)} ms`,
    );
    console.log(
      "\nworker latency = receipt at the receiver - the write's commit; plain loop latency = receipt - request start.",
    );
  } finally {
    await deps.close();
    await cleanup();
  }
}

const interrupt = () => {
  console.error("interrupted: stopping and dropping the database");
  void cleanup().finally(() => process.exit(130));
};
process.once("SIGINT", interrupt);
process.once("SIGTERM", interrupt);

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
