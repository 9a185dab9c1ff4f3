import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startEmbeddedPostgres } from "../src/embedded";
import { migrateDatabase } from "../src/migrate";

const TIMEOUT = 120_000;
const repoRoot = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const embeddedModule = pathToFileURL(fileURLToPath(new URL("../src/embedded.ts", import.meta.url))).href;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by init) counts as gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

async function query<T>(url: string, run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Starts the launcher in a separate Node process, like `pnpm start` would, and reports the server it started. */
function launchInChild(dataDir: string, port: number): Promise<{ child: ChildProcess; pid: number; url: string }> {
  const code = [
    `import { startEmbeddedPostgres } from ${JSON.stringify(embeddedModule)};`,
    `const server = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${port} });`,
    "console.log(JSON.stringify({ pid: server.pid, url: server.url }));",
    "setInterval(() => {}, 60_000);",
  ].join("\n");
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", code], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done, fail) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => {
      const reported = JSON.parse(line) as { pid: number; url: string };
      done({ child, ...reported });
    });
    child.once("exit", (code) => fail(new Error(`launcher child exited with ${code}: ${stderr}`)));
  });
}

describe("startEmbeddedPostgres", { timeout: TIMEOUT }, () => {
  let dataDir: string;
  let port: number;
  const stops: Array<() => Promise<void>> = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "crs-embedded-"));
    port = await freePort();
  }, TIMEOUT);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    // Whatever a failed test left running on this data dir
    const pidFile = join(dataDir, "postgres", "postmaster.pid");
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
      if (pid > 0 && alive(pid)) {
        process.kill(pid, "SIGINT");
        for (let i = 0; i < 200 && alive(pid); i++) await sleep(50);
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  }, TIMEOUT);

  it("initialises a new cluster, answers queries, migrates and stops", async () => {
    const server = await startEmbeddedPostgres({ dataDir, port });
    stops.push(server.stop);
    expect(server.url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/crs`);
    expect(existsSync(join(dataDir, "postgres", "PG_VERSION"))).toBe(true);

    const [row] = await query(server.url, (sql) => sql<{ one: number }[]>`select 1 as one`);
    expect(row?.one).toBe(1);

    await migrateDatabase(server.url);
    const schemas = await query(
      server.url,
      (sql) => sql<{ name: string }[]>`
        select schema_name as name from information_schema.schemata
        where schema_name in ('drizzle', 'graphile_worker') order by 1`,
    );
    expect(schemas.map((s) => s.name)).toEqual(["drizzle", "graphile_worker"]);

    await server.stop();
    expect(alive(server.pid)).toBe(false);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  });

  it("restarts on the existing data dir and keeps its data", async () => {
    const server = await startEmbeddedPostgres({ dataDir, port });
    stops.push(server.stop);
    const [row] = await query(
      server.url,
      (sql) => sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    expect(row?.n).toBeGreaterThan(0);
    await migrateDatabase(server.url); // a no-op the second time
    await server.stop();
  });

  it("stops a server orphaned by a killed launcher, then starts again on the same dir", async () => {
    const launched = await launchInChild(dataDir, port);
    children.push(launched.child);
    expect(launched.url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/crs`);

    // While its launcher lives, the server is in use: a second launcher must not take it over.
    await expect(startEmbeddedPostgres({ dataDir, port })).rejects.toThrow(/already running/);
    expect(alive(launched.pid)).toBe(true);

    const exited = new Promise((done) => launched.child.once("exit", done));
    launched.child.kill("SIGKILL");
    await exited;
    expect(alive(launched.pid)).toBe(true); // the orphan keeps running

    const server = await startEmbeddedPostgres({ dataDir, port });
    stops.push(server.stop);
    expect(server.pid).not.toBe(launched.pid);
    expect(alive(launched.pid)).toBe(false);
    const [row] = await query(
      server.url,
      (sql) => sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    expect(row?.n).toBeGreaterThan(0);
    await server.stop();
  });
});
