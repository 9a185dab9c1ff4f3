import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@crs/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { within } from "./helpers";

const appDir = fileURLToPath(new URL("..", import.meta.url));

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The secrets a deployment passes every process; without them a development worker would generate its own. */
const SECRETS = {
  KEY_SIGNING_SECRET: "worker-process-test-key-signing-secret-0123",
  EVENT_SIGNING_SEED: "9a".repeat(32),
  WEBHOOK_SECRET_KEY: "1b".repeat(32),
};

/** Runs `src/main.ts` the way `pnpm start` does (node + tsx), with only the given environment and the secrets. */
function startMain(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: appDir,
    env: { PATH: process.env.PATH ?? "", ...SECRETS, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const running = new Promise<void>((resolve) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.split("\n").includes("worker running")) resolve();
    });
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<Exit>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, running, exited };
}

describe("worker process", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`migrates, logs "worker running" and exits 0 on ${signal}`, async () => {
      const main = startMain({ DATABASE_URL: database.url, WORKER_CONCURRENCY: "2" });
      try {
        await within(
          Promise.race([main.running, main.exited.then((exit) => Promise.reject(new Error(exit.stderr)))]),
          30_000,
          "worker running",
        );
      } catch (error) {
        main.child.kill("SIGKILL");
        throw error;
      }
      main.child.kill(signal);
      const exit = await within(main.exited, 30_000, "the worker to exit");
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.stdout.split("\n").filter((line) => line === "worker running")).toHaveLength(1);
      expect(exit.stderr).toBe("");
    });
  }

  it("starts with SKIP_MIGRATIONS=1 on a migrated database", async () => {
    const main = startMain({ DATABASE_URL: database.url, SKIP_MIGRATIONS: "1" });
    await within(main.running, 30_000, "worker running");
    main.child.kill("SIGTERM");
    await expect(within(main.exited, 30_000, "the worker to exit")).resolves.toMatchObject({ code: 0 });
  });

  it("exits 1 and names DATABASE_URL when it is missing", async () => {
    const exit = await within(startMain({}).exited, 30_000, "the worker to exit");
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain("DATABASE_URL");
    expect(exit.stdout).not.toContain("worker running");
  });
});
