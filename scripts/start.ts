/**
 * `pnpm start`: the whole service on one machine, with nothing installed but Node.
 *
 * Without DATABASE_URL it starts an embedded PostgreSQL (data in `$DATA_DIR/postgres`), runs the
 * migrations once, then runs apps/rest, apps/trpc and apps/worker as child processes and prints
 * where to reach them. Ctrl-C / SIGTERM stops the apps first, then PostgreSQL, and exits 0.
 *
 * The root package.json runs this with `exec node --import tsx …`: the shell pnpm starts is
 * replaced by this process, so a terminal's Ctrl-C (which reaches pnpm, the shell and us at once)
 * cannot kill the shell before we finish stopping, and pnpm reports our exit status, 0 on a clean
 * stop, instead of printing ELIFECYCLE.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { LEGACY_DEPRECATED_AT } from "@crs/contract";
import { isRetired } from "@crs/core";
import {
  type EmbeddedPostgresLogSource,
  type EmbeddedPostgresServer,
  migrateDatabase,
  startEmbeddedPostgres,
} from "@crs/db";
import { assertDatabaseReachable, describeStartupError, redactDatabaseUrl } from "@crs/db/startup-errors";
import { blankIsUnset, LegacySunset, loadSanctionsListFile } from "@crs/services";
import { z } from "zod";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
const PORT_WAIT_MS = 15_000;

// ---------------------------------------------------------------------------------------------
// Configuration: read once

const optional = blankIsUnset;
/** Real ports only: the printed URLs and the readiness checks need to know them. */
const Port = z.coerce.number().int().min(1).max(65535);

const EnvSchema = z.object({
  DATABASE_URL: optional(z.string().min(1).optional()),
  HOST: optional(z.string().min(1).default("127.0.0.1")),
  REST_PORT: optional(Port.default(3000)),
  TRPC_PORT: optional(Port.default(3001)),
  LEGACY_PORT: optional(Port.default(3002)),
  LEGACY_SUNSET: optional(LegacySunset),
  DATA_DIR: optional(z.string().min(1).default(join(repoRoot, ".data"))),
  SANCTIONS_LIST_PATH: optional(z.string().min(1).optional()),
});

function readEnv() {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    console.error(`[start] invalid environment:\n${z.prettifyError(parsed.error)}`);
    process.exit(2);
  }
  return { ...parsed.data, DATA_DIR: resolve(parsed.data.DATA_DIR) };
}

const env = readEnv();
// Each app reads the sanctions list at its start; a bad file is said once here, before anything starts.
if (env.SANCTIONS_LIST_PATH) {
  try {
    loadSanctionsListFile(env.SANCTIONS_LIST_PATH);
  } catch (error) {
    console.error(`[start] not started: ${(error as Error).message}`);
    process.exit(2);
  }
}
/** Where we (and the printed URLs) connect to: a wildcard listen address is reached on loopback. */
const connectHost = env.HOST === "0.0.0.0" ? "127.0.0.1" : env.HOST === "::" ? "::1" : env.HOST;
const urlHost = connectHost.includes(":") ? `[${connectHost}]` : connectHost;
const restUrl = `http://${urlHost}:${env.REST_PORT}`;
/** The tRPC endpoint as clients take it (`createInternalClient({ url })`): the `/trpc` prefix included. */
const trpcUrl = `http://${urlHost}:${env.TRPC_PORT}/trpc`;
const legacyUrl = `http://${urlHost}:${env.LEGACY_PORT}`;

// ---------------------------------------------------------------------------------------------
// Output

// A closed terminal or pipe must not crash the shutdown.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});

function say(message: string): void {
  console.log(`[start] ${message}`);
}

function pipeLines(
  stream: NodeJS.ReadableStream | null,
  prefix: string,
  to: NodeJS.WritableStream,
  seen: string[],
): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (seen.length < 1000) seen.push(line);
    to.write(line.startsWith(prefix.trimEnd()) ? `${line}\n` : `${prefix}${line}\n`);
  });
}

/**
 * The launcher's messages are shown. Of the server's own log, routine LOG entries (and errors the
 * apps see and report themselves) are noise here: WARNING, FATAL and PANIC entries are shown, with
 * their DETAIL/HINT lines and continuation lines.
 */
function postgresLogger(): (line: string, source: EmbeddedPostgresLogSource) => void {
  let showingEntry = false;
  return (line, source) => {
    if (source === "server") {
      const entry = /^\S+ \S+ \S+ \[\d+\] ([A-Z]+):\s/.exec(line);
      if (entry) {
        const severity = entry[1]!;
        if (!["DETAIL", "HINT", "CONTEXT", "STATEMENT"].includes(severity)) {
          showingEntry = ["WARNING", "FATAL", "PANIC"].includes(severity);
        }
      }
      if (!showingEntry) return;
    }
    console.log(`[postgres] ${line}`);
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes

type AppName = "rest" | "trpc" | "worker";
const APP_NAMES: readonly AppName[] = ["rest", "trpc", "worker"];

interface App {
  name: AppName;
  child: ChildProcess;
  exited: Promise<void>;
  /** every line it printed so far (stdout and stderr), for readiness checks */
  lines: string[];
}

/**
 * Preloaded into each app: if this launcher dies without stopping them (kill -9), the app notices
 * it has been re-parented and sends itself SIGTERM, so it does not keep its port and connections.
 */
const PARENT_WATCH = `data:text/javascript,${encodeURIComponent(`
import { readFileSync } from "node:fs";
const parent = process.ppid;
const parentAlive = () => {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
  } catch {
    try { process.kill(parent, 0); return true; } catch { return false; }
  }
};
const timer = setInterval(() => {
  if (!parentAlive()) { clearInterval(timer); process.kill(process.pid, "SIGTERM"); }
}, 1000);
timer.unref();
`)}`;

let shuttingDown = false;
let postgresStarting: Promise<EmbeddedPostgresServer> | undefined;
const apps: App[] = [];

function startApp(name: AppName, databaseUrl: string): App {
  const child = spawn(
    process.execPath,
    ["--import", PARENT_WATCH, "--import", "tsx", join(repoRoot, "apps", name, "src", "main.ts")],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        HOST: env.HOST,
        REST_PORT: String(env.REST_PORT),
        TRPC_PORT: String(env.TRPC_PORT),
        LEGACY_PORT: String(env.LEGACY_PORT),
        DATA_DIR: env.DATA_DIR,
        SKIP_MIGRATIONS: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
      // Own process group: a terminal Ctrl-C reaches only this launcher, which stops each app once.
      detached: true,
    },
  );
  const lines: string[] = [];
  pipeLines(child.stdout, `[${name}] `, process.stdout, lines);
  pipeLines(child.stderr, `[${name}] `, process.stderr, lines);
  const exited = new Promise<void>((done) => {
    child.once("exit", (code, signal) => {
      if (!shuttingDown) {
        console.error(`[start] ${name} exited unexpectedly (${describeExit(code, signal)}); stopping everything`);
        void shutdown(1);
      }
      done();
    });
    child.once("error", (error) => {
      if (child.pid === undefined) {
        console.error(`[start] could not start ${name}: ${error.message}`);
        if (!shuttingDown) void shutdown(1);
        done();
      }
    });
  });
  return { name, child, exited, lines };
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

/** SIGTERM, then SIGKILL to its process group after STOP_TIMEOUT_MS. True when it stopped on its own. */
async function stopApp(app: App): Promise<boolean> {
  const { child } = app;
  if (child.pid === undefined) return false;
  const wasRunning = child.exitCode === null && child.signalCode === null;
  if (wasRunning) {
    child.kill("SIGTERM");
    const stopped = await Promise.race([app.exited.then(() => true), sleep(STOP_TIMEOUT_MS, false, { ref: false })]);
    if (!stopped) {
      console.error(`[start] ${app.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing it`);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      await app.exited;
      return false;
    }
  }
  const clean = child.exitCode === 0 || child.signalCode === "SIGTERM";
  if (!clean && wasRunning)
    console.error(`[start] ${app.name} stopped with ${describeExit(child.exitCode, child.signalCode)}`);
  return clean;
}

async function shutdown(exitCode: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  let code = exitCode;
  const running = apps.filter((app) => app.child.exitCode === null && app.child.signalCode === null);
  if (running.length > 0) say(`stopping ${running.map((app) => app.name).join(", ")}`);
  const clean = await Promise.all(apps.map(stopApp));
  if (code === 0 && clean.includes(false)) code = 1;

  const postgres = await postgresStarting?.catch(() => undefined);
  if (postgres) {
    say("stopping PostgreSQL");
    try {
      await postgres.stop();
    } catch (error) {
      console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
      code = code || 1;
    }
  }
  say(code === 0 ? "stopped" : `stopped (exit code ${code})`);
  process.exit(code);
}

let firstSignalAt = 0;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (shuttingDown) {
      // A terminal's Ctrl-C arrives twice (directly, and relayed by pnpm): only mention later ones.
      if (Date.now() - firstSignalAt > 1000) {
        say(`${signal} received again; still stopping (apps are killed after ${STOP_TIMEOUT_MS / 1000} s)`);
      }
      return;
    }
    firstSignalAt = Date.now();
    say(`${signal} received`);
    void shutdown(0);
  });
}

/** If whatever started us is killed (e.g. the tsx wrapper gets kill -9), stop as if told to. */
function watchParent(): void {
  const parent = process.ppid;
  if (parent <= 1) return;
  const parentAlive = () => {
    try {
      const stat = readFileSync("/proc/self/stat", "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
    } catch {
      try {
        process.kill(parent, 0);
        return true;
      } catch {
        return false;
      }
    }
  };
  const timer = setInterval(() => {
    if (parentAlive()) return;
    clearInterval(timer);
    say("parent process is gone; stopping");
    void shutdown(1);
  }, 1000);
  timer.unref();
}

// ---------------------------------------------------------------------------------------------
// Readiness

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => done(error.code !== "EADDRINUSE"));
    probe.listen({ port, host: env.HOST, exclusive: true }, () => probe.close(() => done(true)));
  });
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

async function waitUntilUp(): Promise<void> {
  const worker = apps.find((app) => app.name === "worker");
  const checks: Array<{ what: string; ok: () => Promise<boolean> }> = [
    { what: `rest (GET ${restUrl}/v1/health → 200)`, ok: () => httpOk(`${restUrl}/v1/health`) },
    { what: `trpc (GET ${trpcUrl}/platform.health → 200)`, ok: () => httpOk(`${trpcUrl}/platform.health`) },
    { what: "worker (its 'worker running' line)", ok: async () => worker?.lines.includes("worker running") ?? false },
  ];
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (checks.length > 0 && !shuttingDown) {
    for (const check of [...checks]) {
      if (await check.ok()) checks.splice(checks.indexOf(check), 1);
    }
    if (checks.length === 0 || shuttingDown) return;
    if (Date.now() > deadline) {
      throw new Error(
        `not up after ${READY_TIMEOUT_MS / 1000} s, still waiting for: ${checks.map((c) => c.what).join("; ")}`,
      );
    }
    await sleep(250);
  }
}

/**
 * The apps' ports must be free, or the health check could be answered by someone else. Apps of a
 * launcher that was just killed release theirs within a few seconds, so wait a little first.
 */
async function waitForFreePorts(): Promise<void> {
  const ports = [
    ["REST_PORT", env.REST_PORT],
    ["TRPC_PORT", env.TRPC_PORT],
    ["LEGACY_PORT", env.LEGACY_PORT],
  ] as const;
  const deadline = Date.now() + PORT_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const taken: string[] = [];
    for (const [name, port] of ports) if (!(await portFree(port))) taken.push(`${name}=${port}`);
    if (taken.length === 0 || shuttingDown) return;
    if (Date.now() > deadline) {
      throw new Error(
        `port already in use on ${env.HOST}: ${taken.join(", ")}. Is another \`pnpm start\` running? ` +
          "Stop it, or choose other ports (REST_PORT, TRPC_PORT, LEGACY_PORT).",
      );
    }
    if (attempt === 0) say(`waiting for ${taken.join(", ")} to be released`);
    await sleep(250);
  }
}

// ---------------------------------------------------------------------------------------------

/** The legacy listener's line: served by the REST app, its 2026-06-11 window open or closed. */
function legacyStatus(): string {
  const sunset = new Date(env.LEGACY_SUNSET);
  return !isRetired({ deprecatedAt: new Date(LEGACY_DEPRECATED_AT), sunset }, new Date())
    ? `up, served by REST (2026-06-11, window open until ${sunset.toISOString()})`
    : `up, served by REST (2026-06-11, window closed ${sunset.toISOString()}: operations answer 410)`;
}

/** The banner's copy-paste line: mints a sandbox key and keeps it in $KEY (node is there wherever this runs). */
function mintKeyCommand(): string {
  return (
    `KEY=$(curl -s -X POST ${restUrl}/api/sandbox-key -H 'content-type: application/json' -d '{}'` +
    ` | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).key')`
  );
}

function printBanner(databaseUrl: string, embedded: boolean): void {
  const pidOf = (name: AppName) => apps.find((app) => app.name === name)?.child.pid;
  const rows: Array<[string, string, string]> = [
    ["REST API", restUrl, `up, pid ${pidOf("rest")} (GET /v1/health answers 200)`],
    ["API docs", `${restUrl}/docs`, "served by REST"],
    ["OpenAPI", `${restUrl}/v1/openapi.json`, "served by REST"],
    ["tRPC", trpcUrl, `up, pid ${pidOf("trpc")} (pass this URL to createInternalClient)`],
    ["Worker", "(no port)", `running, pid ${pidOf("worker")}`],
    ["Legacy", legacyUrl, legacyStatus()],
    [
      "Database",
      // The embedded server's password is the fixed development one: shown, so operator commands can use the URL.
      embedded ? databaseUrl : redactDatabaseUrl(databaseUrl),
      embedded ? `up, embedded PostgreSQL, data in ${join(env.DATA_DIR, "postgres")}` : "up (DATABASE_URL)",
    ],
  ];
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const urlWidth = Math.max(...rows.map(([, url]) => url.length));
  console.log(
    [
      "",
      "[start] ready",
      ...rows.map(([label, url, state]) => `  ${label.padEnd(labelWidth)}  ${url.padEnd(urlWidth)}  ${state}`),
      "",
      "  Mint a sandbox key into $KEY, then use it:",
      `    ${mintKeyCommand()}`,
      `    curl -s ${restUrl}/v1/organization -H "Authorization: Bearer $KEY"`,
      "",
      "  Guide: docs/README.md. Ctrl-C stops everything.",
      "",
    ].join("\n"),
  );
}

/** A failure before anything was started (bad DATABASE_URL, database unreachable, ports taken): one line, exit 1. */
function failBeforeStart(error: unknown): never {
  console.error(`[start] not started: ${describeStartupError(error)}`);
  process.exit(1);
}

async function main(): Promise<void> {
  watchParent();

  await waitForFreePorts().catch(failBeforeStart);
  if (shuttingDown) return;

  let databaseUrl: string;
  if (env.DATABASE_URL) {
    databaseUrl = env.DATABASE_URL;
    say(`using DATABASE_URL ${redactDatabaseUrl(databaseUrl)}`);
    await assertDatabaseReachable(databaseUrl).catch(failBeforeStart);
  } else {
    say(`DATABASE_URL is not set: starting an embedded PostgreSQL, data in ${join(env.DATA_DIR, "postgres")}`);
    postgresStarting = startEmbeddedPostgres({ dataDir: env.DATA_DIR, log: postgresLogger() });
    databaseUrl = (await postgresStarting).url;
    say(`PostgreSQL is up: ${databaseUrl}`);
  }
  if (shuttingDown) return;

  const migrationStart = performance.now();
  await migrateDatabase(databaseUrl);
  say(`migrations applied (${Math.round(performance.now() - migrationStart)} ms)`);
  if (shuttingDown) return;

  for (const name of APP_NAMES) apps.push(startApp(name, databaseUrl));
  await waitUntilUp();
  if (shuttingDown) return;
  printBanner(databaseUrl, !env.DATABASE_URL);
}

main().catch((error: unknown) => {
  if (shuttingDown) return;
  console.error(`[start] ${describeStartupError(error)}`);
  void shutdown(1);
});
