/**
 * An app started alone against a database that does not answer: one line that says so, and a
 * non-zero exit, never a stack trace. The same for `pnpm start` with such a DATABASE_URL.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  childEnv,
  describeOutput,
  exitWithin,
  freePorts,
  HOST,
  repoRoot,
  startNode,
  TEST_SECRETS_ENV,
} from "./support/processes";

/** A URL on a port nothing listens on: the connection is refused at once. */
async function unreachableDatabaseUrl(): Promise<string> {
  const [port] = await freePorts(1);
  return `postgres://postgres:secret@${HOST}:${port}/crs`;
}

function linesOf(output: string): string[] {
  return output.split("\n").filter((line) => line.trim() !== "");
}

describe("a database that cannot be reached", () => {
  for (const app of ["rest", "trpc", "worker"] as const) {
    it(`stops ${app} with one line naming the server and exit code 1`, async () => {
      const databaseUrl = await unreachableDatabaseUrl();
      const [restPort, trpcPort] = await freePorts(2);
      const proc = startNode(
        app,
        ["--import", "tsx", join(repoRoot, "apps", app, "src", "main.ts")],
        childEnv({
          DATABASE_URL: databaseUrl,
          HOST,
          REST_PORT: String(restPort),
          TRPC_PORT: String(trpcPort),
          LEGACY_PORT: "0",
          ...TEST_SECRETS_ENV,
        }),
      );
      const exit = await exitWithin(proc, 30_000);
      expect(exit, describeOutput(proc)).toEqual({ code: 1, signal: null });
      const server = new URL(databaseUrl).host;
      expect(linesOf(proc.output()), describeOutput(proc)).toEqual([
        `[${app}] not started: the database server at ${server} refused the connection. ` +
          `Is PostgreSQL running there, and is DATABASE_URL right? (postgres://postgres:***@${server}/crs)`,
      ]);
    });
  }

  it("stops an app without DATABASE_URL with one line that names the variable", async () => {
    const proc = startNode(
      "rest",
      ["--import", "tsx", join(repoRoot, "apps", "rest", "src", "main.ts")],
      childEnv({ ...TEST_SECRETS_ENV }),
    );
    const exit = await exitWithin(proc, 30_000);
    expect(exit.code, describeOutput(proc)).toBe(1);
    expect(linesOf(proc.output())).toEqual([
      "[rest] not started: invalid environment: DATABASE_URL is required (pnpm start sets it for you)",
    ]);
  });

  it("stops pnpm start's launcher before it starts anything, with one line and exit code 1", async () => {
    const databaseUrl = await unreachableDatabaseUrl();
    const [rest, trpc, legacy] = await freePorts(3);
    const proc = startNode(
      "start",
      ["--import", "tsx", join(repoRoot, "scripts", "start.ts")],
      childEnv({
        DATABASE_URL: databaseUrl,
        HOST,
        REST_PORT: String(rest),
        TRPC_PORT: String(trpc),
        LEGACY_PORT: String(legacy),
      }),
    );
    const exit = await exitWithin(proc, 30_000);
    expect(exit.code, describeOutput(proc)).toBe(1);
    const lines = linesOf(proc.output());
    expect(lines.filter((line) => line.startsWith("[start] not started:"))).toEqual([
      expect.stringContaining("refused the connection"),
    ]);
    expect(
      lines.filter((line) => /^\s+at /.test(line)),
      "no stack trace",
    ).toEqual([]);
    expect(
      lines.some((line) => /^\[(rest|trpc|worker)\]/.test(line)),
      "no app was started",
    ).toBe(false);
  });
});
