/**
 * `pnpm start` as a person runs it: through pnpm, stopped by a Ctrl-C that reaches the whole
 * process group (pnpm, the launcher, the apps' parents) at once. A clean stop exits 0 and pnpm
 * prints no ELIFECYCLE line; the banner's copy-paste line really leaves a working key in $KEY.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createTestDatabase } from "@crs/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  childEnv,
  descendantsOf,
  describeOutput,
  exitWithin,
  freePorts,
  HOST,
  httpOk,
  isAlive,
  killTree,
  type RunningProcess,
  startProcess,
  waitUntil,
} from "./support/processes";

const run = promisify(execFile);

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let dataDir: string | undefined;
let start: RunningProcess | undefined;
const spawnedPids = new Set<number>();
let ports: number[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), "crs-e2e-pnpm-start-"));
  ports = await freePorts(3);
  const [rest, trpc, legacy] = ports.map(String);
  start = startProcess(
    "pnpm start",
    "pnpm",
    ["start"],
    childEnv({
      DATABASE_URL: database.url,
      REST_PORT: rest ?? "",
      TRPC_PORT: trpc ?? "",
      LEGACY_PORT: legacy ?? "",
      HOST,
      DATA_DIR: dataDir,
    }),
    { processGroup: true },
  );
  const launcher = start;
  await waitUntil(
    "`pnpm start` to print its ready banner",
    async () => {
      for (const pid of descendantsOf(launcher.pid)) spawnedPids.add(pid);
      return launcher.output().includes("[start] ready") && (await httpOk(`http://${HOST}:${rest}/v1/health`));
    },
    [launcher],
    90_000,
  );
  for (const pid of descendantsOf(launcher.pid)) spawnedPids.add(pid);
});

afterAll(async () => {
  await killTree(start, spawnedPids);
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("pnpm start", () => {
  it("prints every address exactly, tRPC with /trpc, and what each service is doing", () => {
    const [rest, trpc, legacy] = ports;
    const output = start?.output() ?? "";
    expect(output).toMatch(new RegExp(`REST API +http://${HOST}:${rest} +up`));
    expect(output).toMatch(new RegExp(`API docs +http://${HOST}:${rest}/docs `));
    expect(output).toMatch(new RegExp(`tRPC +http://${HOST}:${trpc}/trpc +up`));
    expect(output).toMatch(/Worker +\(no port\) +running/);
    // The default window closed on 2026-10-03.
    expect(output).toMatch(
      new RegExp(`Legacy +http://${HOST}:${legacy} +up, served by REST \\(2026-06-11, window closed`),
    );
    expect(output).toMatch(/Database +postgres:\/\/\S+ +up/);
  });

  it("serves the legacy listener: health answers, and with the default window closed its operations are retired", async () => {
    const legacy = ports[2];
    const health = await fetch(`http://${HOST}:${legacy}/v1/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get("svc-version")).toBe("2026-06-11");
    const mint = await fetch(`http://${HOST}:${legacy}/api/sandbox-key`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(mint.status).toBe(410);
    expect(((await mint.json()) as { error: { code: string } }).error.code).toBe("endpoint_retired");
  });

  it("prints a line that, pasted into a shell, keeps a working sandbox key in $KEY", async () => {
    const output = start?.output() ?? "";
    const mintLine = output.split("\n").find((line) => line.trim().startsWith("KEY=$(curl"));
    expect(mintLine, describeOutput(start as RunningProcess)).toBeDefined();
    const useLine = output.split("\n").find((line) => line.includes('-H "Authorization: Bearer $KEY"'));
    expect(useLine).toBeDefined();
    const { stdout } = await run("bash", ["-c", `${mintLine?.trim()}\nprintf '%s\\n' "$KEY"\n${useLine?.trim()}`], {
      timeout: 30_000,
    });
    const [key, organization] = stdout.split("\n");
    expect(key).toMatch(/^svc_test_/);
    expect(JSON.parse(organization ?? "{}")).toMatchObject({ object: "organization", environment: "sandbox" });
  });

  it("stops on a Ctrl-C to its process group with exit code 0 and no ELIFECYCLE line", async () => {
    const launcher = start;
    if (!launcher) throw new Error("pnpm start is not running");
    process.kill(-launcher.pid, "SIGINT");
    const exit = await exitWithin(launcher, 45_000);
    expect(exit, describeOutput(launcher)).toEqual({ code: 0, signal: null });
    expect(launcher.output()).toContain("[start] stopped");
    expect(launcher.output()).not.toContain("ELIFECYCLE");
    expect([...spawnedPids].filter(isAlive), describeOutput(launcher)).toEqual([]);
  });
});
