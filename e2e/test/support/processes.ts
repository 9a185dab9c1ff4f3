/**
 * Starting, watching and stopping the service's real processes from a test. Every wait is bounded,
 * and every failure message carries what the process printed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const HOST = "127.0.0.1";

/** Fixed secrets, so a test and the processes it starts sign and verify with the same keys. */
export const TEST_SECRETS = {
  keySigningSecret: "e2e-key-signing-secret-0123456789abcdef0123456789",
  eventSigningSeed: "1f".repeat(32),
  webhookSecretKey: "2e".repeat(32),
} as const;

export const TEST_SECRETS_ENV = {
  KEY_SIGNING_SECRET: TEST_SECRETS.keySigningSecret,
  EVENT_SIGNING_SEED: TEST_SECRETS.eventSigningSeed,
  WEBHOOK_SECRET_KEY: TEST_SECRETS.webhookSecretKey,
} as const;

/** Everything the service reads from its environment: a child gets only what the test gives it. */
const SERVICE_VARIABLES = [
  "DATABASE_URL",
  "DATA_DIR",
  "HOST",
  "REST_PORT",
  "TRPC_PORT",
  "LEGACY_PORT",
  "PUBLIC_BASE_URL",
  "APP_ENV",
  "KEY_SIGNING_SECRET",
  "EVENT_SIGNING_SEED",
  "WEBHOOK_SECRET_KEY",
  "DATABASE_POOL_SIZE",
  "WORKER_CONCURRENCY",
  "SKIP_MIGRATIONS",
  "LOG_LEVEL",
  "SANCTIONS_LIST_PATH",
  "NODE_ENV",
];

/** The parent's environment without the service's settings or vitest's own, plus `settings`. */
export function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (SERVICE_VARIABLES.includes(name) || name.startsWith("VITEST") || name.startsWith("__VITEST")) continue;
    env[name] = value;
  }
  return { ...env, ...settings };
}

/** `count` distinct ports that were free a moment ago (all held open at once, so never the same twice). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((done, fail) => {
        server.once("error", fail);
        server.listen({ port: 0, host: HOST, exclusive: true }, () => done());
      });
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("listen(0) gave no port");
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done()))));
  }
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  /** everything it printed so far (stdout and stderr, interleaved as received) */
  output(): string;
  exited: Promise<Exit>;
  exit(): Exit | undefined;
}

const MAX_OUTPUT_CHARS = 200_000;

/** Starts `node <args>` in the repository root with exactly `env`. */
export function startNode(name: string, args: string[], env: NodeJS.ProcessEnv): RunningProcess {
  return startProcess(name, process.execPath, args, env);
}

/**
 * Starts `command <args>` in the repository root with exactly `env`. `processGroup: true` gives it
 * a process group of its own (its pid is the group id), so a signal can reach the whole group as a
 * terminal's Ctrl-C does.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { processGroup?: boolean } = {},
): RunningProcess {
  const child = spawn(command, args, {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.processGroup ?? false,
  });
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    if (output.length > MAX_OUTPUT_CHARS) output = output.slice(-MAX_OUTPUT_CHARS);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((done) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      done(exit);
    });
    child.once("error", (error) => {
      append(Buffer.from(`\n[spawn error] ${error.message}\n`));
      if (child.pid === undefined) {
        exit = { code: null, signal: null };
        done(exit);
      }
    });
  });
  if (child.pid === undefined) throw new Error(`could not start ${name}: no pid`);
  return { name, child, pid: child.pid, output: () => output, exited, exit: () => exit };
}

/** Where a failure message shows what a process printed. */
export function describeOutput(proc: RunningProcess): string {
  const exit = proc.exit();
  const state = exit ? `exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}` : "still running";
  return `--- ${proc.name} (pid ${proc.pid}, ${state}) output ---\n${proc.output() || "(nothing)"}\n--- end of ${proc.name} output ---`;
}

/**
 * Polls `check` until it is true. Gives up at the deadline, or as soon as one of `watched` exits,
 * with an error that includes their output.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  watched: RunningProcess[],
  ms = 60_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const dead = watched.find((proc) => proc.exit() !== undefined);
    if (dead)
      throw new Error(`${dead.name} exited while waiting for ${what}\n${watched.map(describeOutput).join("\n")}`);
    if (await check()) return;
    if (Date.now() > deadline) {
      throw new Error(`gave up after ${ms / 1000} s waiting for ${what}\n${watched.map(describeOutput).join("\n")}`);
    }
    await sleep(100);
  }
}

/** Resolves with the exit, or rejects (with the output) when it has not exited within `ms`. */
export async function exitWithin(proc: RunningProcess, ms: number): Promise<Exit> {
  const timeout = Symbol("timeout");
  const result = await Promise.race([proc.exited, sleep(ms, timeout, { ref: false })]);
  if (result === timeout) throw new Error(`${proc.name} did not exit within ${ms / 1000} s\n${describeOutput(proc)}`);
  return result as Exit;
}

export async function httpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** True when something accepts TCP connections on the port. */
export function acceptsConnections(port: number, host = HOST): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const finish = (open: boolean) => {
      socket.destroy();
      done(open);
    };
    socket.setTimeout(2_000, () => finish(false));
    socket.once("connect", () => finish(true));
    socket.once("error", () => finish(false));
  });
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** The process ids below `pid` (children, grandchildren, …), read from /proc. */
export function descendantsOf(pid: number): number[] {
  let pids: number[];
  try {
    pids = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const candidate of pids) {
    const parent = parentOf(candidate);
    if (parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), candidate]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}

/** The process's command line, arguments joined by spaces ("" once it is gone). */
export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** The process started from this repository (guards against a recycled pid). */
function isOurs(pid: number): boolean {
  return commandLineOf(pid).includes(repoRoot);
}

/**
 * Cleanup for afterAll: SIGKILL the process, every descendant it still has, and `alsoKnown`
 * (pids seen earlier that may have been re-parented), each by its own pid.
 */
export async function killTree(proc: RunningProcess | undefined, alsoKnown: Iterable<number> = []): Promise<void> {
  const targets = new Set<number>(alsoKnown);
  if (proc && proc.exit() === undefined) {
    for (const pid of descendantsOf(proc.pid)) targets.add(pid);
    proc.child.kill("SIGKILL");
  }
  for (const pid of targets) {
    if (isAlive(pid) && isOurs(pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  if (proc && proc.exit() === undefined) await exitWithin(proc, 10_000).catch(() => undefined);
}

/**
 * `count` REST processes on one migrated database (SKIP_MIGRATIONS), each on a free port, answering
 * GET /v1/health before this returns their URLs: what the cross-process tests start. Each process is
 * pushed onto `processes` as it is spawned, so the caller's cleanup stops it even if a start fails.
 */
export async function startRestProcesses(
  count: number,
  settings: { databaseUrl: string; dataDir: string },
  processes: RunningProcess[],
): Promise<string[]> {
  const urls: string[] = [];
  for (const port of await freePorts(count)) {
    const url = `http://${HOST}:${port}`;
    urls.push(url);
    processes.push(
      startNode(
        `rest :${port}`,
        ["--import", "tsx", join(repoRoot, "apps", "rest", "src", "main.ts")],
        childEnv({
          DATABASE_URL: settings.databaseUrl,
          REST_PORT: String(port),
          // Each process serves the legacy listener too: on a port of its own (0: any free one).
          LEGACY_PORT: "0",
          HOST,
          DATA_DIR: settings.dataDir,
          SKIP_MIGRATIONS: "1",
          LOG_LEVEL: "warn",
          APP_ENV: "development",
          ...TEST_SECRETS_ENV,
        }),
      ),
    );
  }
  await Promise.all(
    urls.map((url) =>
      waitUntil(`REST at ${url} to answer GET /v1/health`, () => httpOk(`${url}/v1/health`), processes),
    ),
  );
  return urls;
}

/**
 * Runs `pnpm start` (scripts/start.ts) on `databaseUrl` with three free ports, as a developer would, and
 * waits for its ready banner and for REST to answer GET /v1/health. `seen` is called with the launcher as
 * soon as it is spawned, on every poll and once ready, so the caller can keep it and record the processes
 * below it for cleanup, even if the start fails.
 */
export async function startPnpmStart(
  settings: { databaseUrl: string; dataDir: string },
  seen: (launcher: RunningProcess) => void,
): Promise<{ restUrl: string; trpcUrl: string; restPort: number }> {
  const [rest, trpc, legacy] = await freePorts(3);
  if (rest === undefined || trpc === undefined || legacy === undefined) throw new Error("no free ports");
  const restUrl = `http://${HOST}:${rest}`;
  const launcher = startNode(
    "pnpm start",
    ["--import", "tsx", join(repoRoot, "scripts", "start.ts")],
    childEnv({
      DATABASE_URL: settings.databaseUrl,
      REST_PORT: String(rest),
      TRPC_PORT: String(trpc),
      LEGACY_PORT: String(legacy),
      HOST,
      DATA_DIR: settings.dataDir,
      APP_ENV: "development",
    }),
  );
  seen(launcher);
  await waitUntil(
    "`pnpm start` to print its ready banner and REST to answer GET /v1/health",
    async () => {
      seen(launcher);
      return launcher.output().includes("[start] ready") && (await httpOk(`${restUrl}/v1/health`));
    },
    [launcher],
    60_000,
  );
  seen(launcher);
  return { restUrl, trpcUrl: `http://${HOST}:${trpc}/trpc`, restPort: rest };
}
