/**
 * Key metadata is cached in each REST process; a revocation reaches every process by LISTEN/NOTIFY.
 * Two real REST processes serve one live key, the operator revokes it with `pnpm keys:revoke`, and
 * both refuse it within a second of the command returning. A rate change by `pnpm keys:issue` reaches
 * them the same way.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@crs/db/testing";
import { createServiceDeps, issueLiveKey } from "@crs/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./support/http";
import {
  childEnv,
  describeOutput,
  exitWithin,
  killTree,
  type RunningProcess,
  startNode,
  startRestProcesses,
  TEST_SECRETS,
  TEST_SECRETS_ENV,
} from "./support/processes";

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let dataDir: string | undefined;
const processes: RunningProcess[] = [];
const urls: string[] = [];
let issued: { key: string; keyId: string; organizationId: string } = { key: "", keyId: "", organizationId: "" };

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), "crs-e2e-revoke-"));
  const deps = createServiceDeps({
    databaseUrl: database.url,
    secrets: TEST_SECRETS,
    publicBaseUrl: "http://127.0.0.1:3000",
  });
  try {
    const live = await issueLiveKey(deps, {
      plan: "institutional",
      organizationName: "Revoked Soon LLP",
      scopes: ["matters:read"],
      rateLimit: { perSecond: 1000, burst: 1000 },
    });
    issued = { key: live.key, keyId: live.key_id, organizationId: live.organization_id };
  } finally {
    await deps.close();
  }
  urls.push(...(await startRestProcesses(2, { databaseUrl: database.url, dataDir }, processes)));
});

afterAll(async () => {
  for (const proc of processes) await killTree(proc);
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function runKeysCommand(...args: string[]) {
  const env = { DATABASE_URL: database?.url ?? "", SKIP_MIGRATIONS: "1", ...TEST_SECRETS_ENV };
  const proc = startNode("keys", ["--import", "tsx", "scripts/keys.ts", ...args], childEnv(env));
  const exit = await exitWithin(proc, 60_000);
  return { code: exit.code, output: proc.output() };
}

async function statusAt(url: string): Promise<{ status: number; limit: string | null; code?: string }> {
  const response = await api<{ error?: { code: string } }>(`${url}/v1/matters`, { key: issued.key });
  return {
    status: response.status,
    limit: response.headers.get("svc-ratelimit-limit"),
    ...(response.body.error ? { code: response.body.error.code } : {}),
  };
}

/** Polls every process until each refuses the key; returns how long the slowest took. */
async function msUntilEveryProcessRefuses(): Promise<number> {
  const start = performance.now();
  const took = await Promise.all(
    urls.map(async (url) => {
      for (;;) {
        const { status } = await statusAt(url);
        if (status === 401) return performance.now() - start;
        if (performance.now() - start > 10_000) return Number.POSITIVE_INFINITY;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
  return Math.max(...took);
}

describe("a key's metadata across two REST processes on one database", () => {
  it("picks up a rate change made by the operator command in every process", async () => {
    for (const url of urls) {
      // Several calls each, so both processes hold the key in memory.
      for (let i = 0; i < 3; i++) expect(await statusAt(url)).toEqual({ status: 200, limit: "1000" });
    }
    const changed = await runKeysCommand(
      "issue",
      "--plan",
      "institutional",
      "--org",
      issued.organizationId,
      "--scopes",
      "matters:read",
      "--rate",
      "500",
      "--burst",
      "600",
    );
    expect(changed.code, changed.output).toBe(0);
    const start = performance.now();
    for (const url of urls) {
      let seen = await statusAt(url);
      while (seen.limit !== "600" && performance.now() - start < 10_000) seen = await statusAt(url);
      expect(seen).toEqual({ status: 200, limit: "600" });
    }
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it("refuses a key revoked by `pnpm keys:revoke` in every process within a second", async () => {
    for (const url of urls) expect((await statusAt(url)).status).toBe(200);
    const revoked = await runKeysCommand("revoke", issued.keyId);
    expect(revoked.code, revoked.output).toBe(0);
    const ms = await msUntilEveryProcessRefuses();
    expect(ms, processes.map(describeOutput).join("\n")).toBeLessThan(1000);
    for (const url of urls) expect(await statusAt(url)).toMatchObject({ status: 401, code: "unauthenticated" });
  });
});
