/**
 * The rate limit holds across several REST processes on one database. Two real REST processes
 * share keys whose buckets practically never refill: one of 10 tokens (drawn one at a time) and one
 * of 160 (drawn in leases of up to 10 held in each process's memory). Each admits exactly its burst
 * across both processes, none more and none less.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@crs/db/testing";
import { createServiceDeps, issueLiveKey } from "@crs/services";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./support/http";
import {
  describeOutput,
  exitWithin,
  killTree,
  type RunningProcess,
  startRestProcesses,
  TEST_SECRETS,
} from "./support/processes";

const BURST = 10;
const WAVES = 5;
const PER_WAVE = 8;
const LEASED_BURST = 160;

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let dataDir: string | undefined;
const processes: RunningProcess[] = [];
const urls: string[] = [];
let key = "";
let leasedKey = "";
let leasedKeyId = "";

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), "crs-e2e-rate-"));

  const deps = createServiceDeps({
    databaseUrl: database.url,
    secrets: TEST_SECRETS,
    publicBaseUrl: "http://127.0.0.1:3000",
  });
  try {
    const issued = await issueLiveKey(deps, {
      plan: "institutional",
      organizationName: "x",
      scopes: ["matters:read"],
      rateLimit: { perSecond: 0.001, burst: BURST },
    });
    key = issued.key;
    const leased = await issueLiveKey(deps, {
      plan: "institutional",
      organizationName: "y",
      scopes: ["matters:read"],
      rateLimit: { perSecond: 0.001, burst: LEASED_BURST },
    });
    leasedKey = leased.key;
    leasedKeyId = leased.key_id;
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

interface Outcome {
  process: number;
  status: number;
  remaining: string | null;
  limit: string | null;
  retryAfter: string | null;
  code: string | undefined;
}

async function sendWaves(apiKey: string, waves: number, perWave: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let wave = 0; wave < waves; wave++) {
    const answers = await Promise.all(
      Array.from({ length: perWave }, async (_, i) => {
        const target = i % urls.length;
        const response = await api<{ error?: { code: string } }>(`${urls[target]}/v1/matters`, { key: apiKey });
        return {
          process: target,
          status: response.status,
          remaining: response.headers.get("svc-ratelimit-remaining"),
          limit: response.headers.get("svc-ratelimit-limit"),
          retryAfter: response.headers.get("retry-after"),
          code: response.body.error?.code,
        } satisfies Outcome;
      }),
    );
    outcomes.push(...answers);
  }
  return outcomes;
}

describe("a key's rate limit across two REST processes on one database", () => {
  it("admits exactly the bucket's burst in total, spread over both processes", async () => {
    const outcomes = await sendWaves(key, WAVES, PER_WAVE);
    const summary = JSON.stringify(outcomes);
    expect(outcomes).toHaveLength(WAVES * PER_WAVE);
    expect(new Set(outcomes.map((o) => o.process))).toEqual(new Set([0, 1]));

    const admitted = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status !== 200);
    expect(admitted, summary).toHaveLength(BURST);
    expect(
      refused.every((o) => o.status === 429),
      summary,
    ).toBe(true);
    for (const o of refused) {
      expect(o.code, summary).toBe("rate_limited");
      expect(o.remaining, summary).toBe("0");
      expect(o.retryAfter, summary).toMatch(/^[1-9]\d*$/);
    }
    for (const o of outcomes) expect(o.limit, summary).toBe(String(BURST));
    // The first wave fits in the burst, so each process admitted some of it: one bucket, two processes.
    for (const target of [0, 1]) {
      expect(admitted.filter((o) => o.process === target).length, summary).toBeGreaterThanOrEqual(1);
    }
  });

  it("admits exactly a burst of 160 drawn in leases by both processes, none more and none less", async () => {
    // 8 waves of 40 (20 per process): 320 requests for 160 tokens.
    const outcomes = await sendWaves(leasedKey, 8, 40);
    const summary = JSON.stringify(outcomes.filter((o) => o.status !== 200).slice(0, 5));
    const admitted = outcomes.filter((o) => o.status === 200);
    expect(admitted.length, summary).toBe(LEASED_BURST);
    for (const o of outcomes.filter((o) => o.status !== 200)) {
      expect([o.status, o.code, o.remaining], summary).toEqual([429, "rate_limited", "0"]);
    }
    for (const o of outcomes) {
      expect(o.limit).toBe(String(LEASED_BURST));
      expect(Number(o.remaining)).toBeLessThan(LEASED_BURST);
    }
    for (const target of [0, 1]) {
      expect(admitted.filter((o) => o.process === target).length, summary).toBeGreaterThanOrEqual(20);
    }
    // Most admissions came from leases in memory: far fewer writes to the row than admissions.
    const sql = postgres(database?.url ?? "", { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<{ version: string; tokens: number }[]>`
        select version::text as version, tokens from rate_limit_buckets where bucket = ${`key:${leasedKeyId}`}`;
      expect(Number(row?.version)).toBeLessThan(LEASED_BURST / 2);
      expect(Math.floor(Number(row?.tokens))).toBe(0);
    } finally {
      await sql.end();
    }
  });

  it("stops both processes on SIGTERM with exit code 0", async () => {
    for (const proc of processes) proc.child.kill("SIGTERM");
    for (const proc of processes) {
      const exit = await exitWithin(proc, 30_000);
      expect(exit, describeOutput(proc)).toEqual({ code: 0, signal: null });
    }
  });
});
