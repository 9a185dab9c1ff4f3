/**
 * `pnpm bench`: a bounded loopback load test of the matters endpoints against a floor.
 *
 * - A fresh database (createTestDatabase), dropped at the end.
 * - "ours": the real REST app (buildRestApp, pool of BENCH_POOL_SIZE) on 127.0.0.1, port 0.
 * - "baseline": bare node:http + postgres.js (one pool of the same size) on the same database,
 *   doing the same SELECT of the matter row by (organization_id, id), and for POST the chained
 *   write at its smallest (chain head FOR UPDATE, INSERT matter, sha256, INSERT event, UPDATE head,
 *   in one transaction; no auth, no rate limiting, no signature, no idempotency, no outbox).
 * - Each server runs in its own child process (bench/bench-server.ts); autocannon runs here.
 * - Scenarios: GET /v1/matters/{id} of a pre-created matter, and POST /v1/matters with a new
 *   Idempotency-Key on every request. Each run lasts BENCH_DURATION seconds with
 *   BENCH_CONNECTIONS connections, after an unreported BENCH_WARMUP-second warm-up. Each scenario
 *   runs BENCH_ROUNDS rounds of ours and the baseline back to back, alternating which goes first, and
 *   the ratio reported is the median of the rounds' ratios (one pair of runs on a shared 2-core
 *   machine moved by 0.2 between runs). BENCH_ONLY=get,post,list runs a subset (for a profile).
 * - Events list: GET /v1/events?limit=100 at a fixed BENCH_LIST_RATE requests per second in an
 *   organization of 10,000 events, and (BENCH_EVENTS=n) in one of n events; the baseline runs the same
 *   keyset query (newest first, limit + 1) and sends the same envelope. The events are seeded with one
 *   INSERT ... SELECT generate_series: well-formed rows (with their data's recorded size, as a page is
 *   weighed by it) whose hashes and signatures are filler (a list does not verify the chain). Latency is timed per request here, to the microsecond.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, get } from "node:http";
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@crs/db/testing";
import { createServiceDeps, issueSandboxKey } from "@crs/services";
import autocannon from "autocannon";
import { z } from "zod";
import type { BenchServerReady } from "./bench-server";

/** Unset and empty are the same. */
const setting = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(min).max(max).default(fallback),
  );
const Config = z.object({
  /** seconds per measured run */
  BENCH_DURATION: setting(8, 1, 120),
  BENCH_CONNECTIONS: setting(10, 1, 256),
  /** rounds of ours and the baseline back to back (the order alternates); ratios are their median */
  BENCH_ROUNDS: setting(3, 1, 20),
  /** seconds of unreported warm-up before each measured run */
  BENCH_WARMUP: setting(2, 0, 30),
  /** connections in each server's pool */
  BENCH_POOL_SIZE: setting(10, 1, 100),
  /** events in the second list organization (0: only the 10,000-event one is measured) */
  BENCH_EVENTS: setting(0, 0, 10_000_000),
  /** requests per second of the events-list runs */
  BENCH_LIST_RATE: setting(120, 1, 2_000),
  /** a directory: run our server under node --cpu-prof and write its profile there (bench/top-frames.ts reads it) */
  BENCH_CPU_PROF_DIR: z.string().optional(),
  /** comma-separated subset of get,post,list (default all): profile one scenario at a time */
  BENCH_ONLY: z
    .string()
    .optional()
    .transform((value) => new Set((value || "get,post,list").split(",").map((part) => part.trim())))
    .refine((parts) => [...parts].every((part) => ["get", "post", "list"].includes(part)), {
      message: "BENCH_ONLY lists get, post or list",
    }),
});
const config = Config.parse(process.env);

const SERVER_SCRIPT = fileURLToPath(new URL("./bench-server.ts", import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
const MATTER_BODY = JSON.stringify({ name: "Bench Holdings v. Doe", mode: "recovery" });

interface RunningServer {
  name: "ours" | "baseline";
  url: string;
  child: ChildProcess;
}

const children = new Set<ChildProcess>();

function startServer(name: RunningServer["name"], env: Record<string, string>): Promise<RunningServer> {
  const dir = config.BENCH_CPU_PROF_DIR;
  const profile = dir && name === "ours" ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
  const child = fork(SERVER_SCRIPT, [name], {
    execArgv: [...process.execArgv, ...profile],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} server did not start in time`)), START_TIMEOUT_MS);
    child.once("message", (message) => {
      clearTimeout(timer);
      const { port } = message as BenchServerReady;
      resolve({ name, url: `http://127.0.0.1:${port}`, child });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} server exited with code ${code} before it was ready`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.send("stop");
  else child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

interface Scenario {
  name: string;
  request: (key: string, matterId: string) => autocannon.Request;
}

const ALL_SCENARIOS: (Scenario & { only: string })[] = [
  {
    only: "get",
    name: "GET /v1/matters/{id}",
    request: (key, matterId) => ({
      method: "GET",
      path: `/v1/matters/${matterId}`,
      headers: { authorization: `Bearer ${key}` },
    }),
  },
  {
    only: "post",
    name: "POST /v1/matters",
    request: (key) => {
      let counter = 0;
      const run = randomBytes(4).toString("hex");
      return {
        method: "POST",
        path: "/v1/matters",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: MATTER_BODY,
        // A new Idempotency-Key on every request, so every POST is a real write.
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, "idempotency-key": `bench-${run}-${++counter}` },
        }),
      };
    },
  },
];

const SCENARIOS = ALL_SCENARIOS.filter((scenario) => config.BENCH_ONLY.has(scenario.only));

async function load(url: string, request: autocannon.Request, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, connections: config.BENCH_CONNECTIONS, duration, timeout: 10, requests: [request] });
}

interface Row {
  scenario: string;
  server: string;
  round: number;
  result: autocannon.Result;
  /** the server process's CPU time (user + system) over the run, in ms */
  serverCpuMs: number;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is the state (field 3 of stat(5)); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Server CPU per completed response, in µs: steadier than req/s when others share the machine. */
function cpuMicrosPerRequest(row: Row): number {
  return (row.serverCpuMs * 1000) / (row.result["2xx"] + row.result.non2xx);
}

function requestsPerSecond(result: autocannon.Result): number {
  return (result["2xx"] + result.non2xx) / result.duration;
}

function table(rows: Row[]): string {
  const header = ["scenario", "server", "round", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "cpu µs/req"];
  const body = rows.map((row) => [
    row.scenario,
    row.server,
    String(row.round),
    requestsPerSecond(row.result).toFixed(1),
    row.result.latency.p50.toFixed(1),
    row.result.latency.p99.toFixed(1),
    String(row.result.non2xx),
    String(row.result.errors + row.result.timeouts),
    cpuMicrosPerRequest(row).toFixed(0),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => cells[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column < 3 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ");
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...body.map(line)].join("\n");
}

const LIST_EVENTS_SMALL = 10_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** `count` events in one organization's chain, in one statement; see the header for what they hold. */
async function seedEvents(
  sql: ReturnType<typeof createServiceDeps>["sql"],
  organizationId: string,
  environment: string,
  count: number,
): Promise<void> {
  const started = performance.now();
  await sql`
    insert into events (organization_id, environment, sequence, id, type, created, livemode, api_version, data,
                        data_bytes, audit_ref, matter_id, prev_hash, hash, signature)
    select ${organizationId}, ${environment}, s, 'evt_bench' || lpad(s::text, 12, '0'), 'matter.created',
           now() - (${count}::bigint - s) * interval '1 second', false, '2026-07-05', d, octet_length(d::text),
           'req_bench' || s, 'mat_bench' || s,
           md5((s - 1)::text) || md5((s - 1)::text || 'h'), md5(s::text) || md5(s::text || 'h'), repeat('ab', 64)
      from generate_series(1, ${count}::bigint) s,
           lateral (select jsonb_build_object('matter_id', 'mat_bench' || s, 'status', 'active', 'audit_ref', 'req_bench' || s,
             'object', jsonb_build_object('object', 'matter', 'id', 'mat_bench' || s, 'name', 'Bench Holdings v. Doe',
               'mode', 'recovery', 'status', 'active', 'economics', jsonb_build_object('currency', 'USD'))) as d) data`;
  await sql`analyze events`;
  console.log(`seeded ${count} events for ${organizationId} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

interface LatencyRun {
  p50: number;
  p99: number;
  requests: number;
  failures: number;
}

/** GETs `path` at `rate` per second for `seconds`, each timed from send to the last byte of the body. */
async function fixedRate(url: string, path: string, key: string, rate: number, seconds: number): Promise<LatencyRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const { hostname, port } = new URL(url);
  const latencies: number[] = [];
  let failures = 0;
  const one = () =>
    new Promise<void>((done) => {
      const sent = performance.now();
      const request = get({ hostname, port, path, agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
        response.on("data", () => {});
        response.on("end", () => {
          if (response.statusCode === 200) latencies.push(performance.now() - sent);
          else failures++;
          done();
        });
      });
      request.on("error", () => {
        failures++;
        done();
      });
    });
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(one());
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), requests: latencies.length, failures };
}

async function expectStatus(response: Response, status: number, what: string): Promise<unknown> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let cleaning: Promise<void> | undefined;

/** Stops both servers and drops the database; safe to call twice (normal end and Ctrl-C). */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map(stopChild));
    if (database) {
      await database.drop();
      console.log(`stopped both servers; dropped ${database.name}`);
    }
  })();
  return cleaning;
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  database = db;
  console.log(`database: ${db.name} (fresh, dropped at the end)`);
  try {
    const secrets = {
      keySigningSecret: randomBytes(32).toString("hex"),
      eventSigningSeed: randomBytes(32).toString("hex"),
      webhookSecretKey: randomBytes(32).toString("hex"),
    };
    const deps = createServiceDeps({ databaseUrl: db.url, secrets, publicBaseUrl: "http://127.0.0.1", poolSize: 1 });
    let key: Awaited<ReturnType<typeof issueSandboxKey>>;
    const listSizes = config.BENCH_ONLY.has("list")
      ? [LIST_EVENTS_SMALL, ...(config.BENCH_EVENTS > 0 ? [config.BENCH_EVENTS] : [])]
      : [];
    const listKeys: { events: number; key: Awaited<ReturnType<typeof issueSandboxKey>> }[] = [];
    try {
      key = await issueSandboxKey(deps);
      for (const events of listSizes) listKeys.push({ events, key: await issueSandboxKey(deps) });
      for (const { key: each } of [{ key }, ...listKeys]) {
        await deps.sql`
          update organizations set rate_per_second = 1e6, rate_burst = 1000000 where id = ${each.organization_id}`;
      }
      for (const { events, key: each } of listKeys)
        await seedEvents(deps.sql, each.organization_id, each.environment, events);
    } finally {
      await deps.close();
    }
    console.log(
      `key: sandbox key minted through issueSandboxKey; its organization's rate limit raised to ` +
        `rate_per_second=1e6, rate_burst=1000000 so the limiter never refuses (each request still takes a token)`,
    );

    const ours = await startServer("ours", {
      BENCH_DATABASE_URL: db.url,
      BENCH_POOL_SIZE: String(config.BENCH_POOL_SIZE),
      BENCH_SECRETS: JSON.stringify(secrets),
    });
    const baseline = await startServer("baseline", {
      BENCH_DATABASE_URL: db.url,
      BENCH_POOL_SIZE: String(config.BENCH_POOL_SIZE),
      BENCH_ORGANIZATION_ID: key.organization_id,
      BENCH_ENVIRONMENT: key.environment,
    });

    // The matter both GET scenarios read, created through the real API; then one smoke request each.
    const auth = { authorization: `Bearer ${key.key}`, "content-type": "application/json" };
    const created = (await expectStatus(
      await fetch(`${ours.url}/v1/matters`, { method: "POST", headers: auth, body: MATTER_BODY }),
      201,
      "ours: create the matter",
    )) as { id: string };
    for (const server of [ours, baseline]) {
      await expectStatus(
        await fetch(`${server.url}/v1/matters/${created.id}`, { headers: auth }),
        200,
        `${server.name}: GET`,
      );
      await expectStatus(
        await fetch(`${server.url}/v1/matters`, {
          method: "POST",
          headers: { ...auth, "idempotency-key": `smoke-${server.name}` },
          body: MATTER_BODY,
        }),
        201,
        `${server.name}: POST`,
      );
    }

    const [load1] = loadavg();
    console.log(
      `machine: ${availableParallelism()} CPUs, 1-min load average ${load1?.toFixed(2)} before the runs ` +
        "(the bench shares the machine with Postgres and anything else running)",
    );
    console.log(
      `load: loopback only, ${config.BENCH_CONNECTIONS} connections, ${config.BENCH_DURATION} s per run ` +
        `(after ${config.BENCH_WARMUP} s unreported warm-up), pool size ${config.BENCH_POOL_SIZE} for both servers`,
    );
    const rows: Row[] = [];
    // Rounds alternate which server goes first, so a drift in the machine's load falls on both sides.
    for (const scenario of SCENARIOS) {
      for (let round = 1; round <= config.BENCH_ROUNDS; round++) {
        for (const server of round % 2 === 1 ? [ours, baseline] : [baseline, ours]) {
          const request = scenario.request(key.key, created.id);
          if (config.BENCH_WARMUP > 0) await load(server.url, request, config.BENCH_WARMUP);
          const cpuBefore = processCpuMs(server.child.pid);
          const result = await load(server.url, request, config.BENCH_DURATION);
          const serverCpuMs = processCpuMs(server.child.pid) - cpuBefore;
          rows.push({ scenario: scenario.name, server: server.name, round, result, serverCpuMs });
          console.log(`  done: ${scenario.name} on ${server.name}, round ${round}`);
        }
      }
    }

    console.log("");
    console.log(table(rows));
    console.log("");
    const targets: Record<string, string> = { "GET /v1/matters/{id}": ">= 0.6", "POST /v1/matters": ">= 0.4" };
    for (const scenario of SCENARIOS) {
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      for (let round = 1; round <= config.BENCH_ROUNDS; round++) {
        const of = (server: string) =>
          rows.find((row) => row.scenario === scenario.name && row.server === server && row.round === round);
        const ourRow = of("ours");
        const baseRow = of("baseline");
        if (ourRow && baseRow) {
          ratios.push(requestsPerSecond(ourRow.result) / requestsPerSecond(baseRow.result));
          cpuRatios.push(cpuMicrosPerRequest(baseRow) / cpuMicrosPerRequest(ourRow));
        }
      }
      console.log(
        `${scenario.name}: ours/baseline req/s = ${median(ratios).toFixed(2)} median of ${ratios.length} rounds ` +
          `(${ratios.map((ratio) => ratio.toFixed(2)).join(", ")}; target ${targets[scenario.name]})`,
      );
      console.log(
        `${scenario.name}: baseline/ours server CPU per request = ${median(cpuRatios).toFixed(2)} ` +
          `(${cpuRatios.map((ratio) => ratio.toFixed(2)).join(", ")}; the server processes only, not PostgreSQL or the load generator)`,
      );
    }
    console.log(
      "\nreq/s = completed responses / run duration; p50/p99 = autocannon latency percentiles " +
        "(whole milliseconds); errors = connection errors + timeouts; cpu µs/req = the server process's " +
        "user + system CPU over the run / completed responses.",
    );
    const admittedByOurs =
      rows.filter((row) => row.server === "ours").reduce((sum, row) => sum + row.result["2xx"], 0) + 1; // + the setup POST
    const counter = createServiceDeps({ databaseUrl: db.url, secrets, publicBaseUrl: "http://127.0.0.1", poolSize: 1 });
    try {
      const [bucket] = await counter.sql<{ version: string }[]>`
        select version::text as version from rate_limit_buckets where bucket = ${`key:${key.key_id}`}`;
      const writes = Number(bucket?.version ?? 0) + 1;
      console.log(
        `rate limit: ${writes} writes to the key's bucket row for ${admittedByOurs} admitted requests ` +
          `(${(writes / admittedByOurs).toFixed(3)} per request, warm-ups included in the writes; the rest came from leases in memory)`,
      );
    } finally {
      await counter.close();
    }

    if (listKeys.length === 0) return;
    console.log(
      `\nevents list: GET /v1/events?limit=100 at ${config.BENCH_LIST_RATE} req/s for ${config.BENCH_DURATION} s ` +
        `(after ${config.BENCH_WARMUP} s unreported), timed per request`,
    );
    const listRows: { events: number; server: string; round: number; run: LatencyRun }[] = [];
    for (const { events, key: each } of listKeys) {
      for (let round = 1; round <= config.BENCH_ROUNDS; round++) {
        for (const server of round % 2 === 1 ? [ours, baseline] : [baseline, ours]) {
          const path = `/v1/events?limit=100${server.name === "baseline" ? `&organization=${each.organization_id}` : ""}`;
          if (config.BENCH_WARMUP > 0)
            await fixedRate(server.url, path, each.key, config.BENCH_LIST_RATE, config.BENCH_WARMUP);
          const run = await fixedRate(server.url, path, each.key, config.BENCH_LIST_RATE, config.BENCH_DURATION);
          listRows.push({ events, server: server.name, round, run });
        }
      }
    }
    console.log(["events", "server", "round", "p50 ms", "p99 ms", "ok", "failed"].map((h) => h.padStart(9)).join(" "));
    for (const { events, server, round, run } of listRows) {
      console.log(
        [
          String(events),
          server,
          String(round),
          run.p50.toFixed(2),
          run.p99.toFixed(2),
          String(run.requests),
          String(run.failures),
        ]
          .map((cell) => cell.padStart(9))
          .join(" "),
      );
    }
    const p50Of = (events: number, server: string, round: number) =>
      listRows.find((row) => row.events === events && row.server === server && row.round === round)?.run.p50 ??
      Number.NaN;
    const rounds = Array.from({ length: config.BENCH_ROUNDS }, (_, index) => index + 1);
    const medianP50 = (events: number) => median(rounds.map((round) => p50Of(events, "ours", round)));
    for (const events of listSizes) {
      const ratios = rounds.map((round) => p50Of(events, "ours", round) / p50Of(events, "baseline", round));
      console.log(
        `events list, ${events} events: ours/baseline p50 = ${median(ratios).toFixed(2)} median of ${ratios.length} rounds ` +
          `(${ratios.map((ratio) => ratio.toFixed(2)).join(", ")}; target <= 1.3)`,
      );
    }
    if (config.BENCH_EVENTS > 0) {
      console.log(
        `events list: ours at ${config.BENCH_EVENTS} / ours at ${LIST_EVENTS_SMALL} p50 = ` +
          `${(medianP50(config.BENCH_EVENTS) / medianP50(LIST_EVENTS_SMALL)).toFixed(2)} (medians of the rounds; target <= 1.5)`,
      );
    }
  } finally {
    await cleanup();
  }
}

const interrupt = () => {
  console.error("interrupted: stopping the servers and dropping the database");
  void cleanup().finally(() => process.exit(130));
};
process.once("SIGINT", interrupt);
process.once("SIGTERM", interrupt);

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
