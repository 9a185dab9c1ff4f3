import { connectDatabase, schema } from "@crs/db";
import { createTestDatabase, idempotencyRecordFixture } from "@crs/db/testing";
import { quickAddJob } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, toGraphileLogger } from "../src/logger";
import { startWorker } from "../src/runner";
import { IDEMPOTENCY_SWEEP } from "../src/tasks";
import { createCapturingLogger, createTestServiceDeps, waitUntil } from "./helpers";

const HOUR = 60 * 60 * 1000;

const record = (key: string, expiresAt: Date) => idempotencyRecordFixture(key, expiresAt, "org_worker_sweep");

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let connection: ReturnType<typeof connectDatabase>;
let deps: ReturnType<typeof createTestServiceDeps>;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = connectDatabase(database.url, { max: 2 });
  deps = createTestServiceDeps(database.url);
});

afterAll(async () => {
  await deps?.close();
  await connection?.close();
  await database?.drop();
});

async function remainingKeys(): Promise<string[]> {
  const rows = await connection.db.select({ key: schema.idempotencyRecords.key }).from(schema.idempotencyRecords);
  return rows.map((row) => row.key).sort();
}

describe("idempotency.sweep", () => {
  it("deletes expired idempotency records and keeps unexpired ones when the job runs", async () => {
    const now = Date.now();
    const expiredKeys = ["expired-1", "expired-2", "expired-3"];
    await connection.db
      .insert(schema.idempotencyRecords)
      .values([
        record("expired-1", new Date(now - HOUR)),
        record("expired-2", new Date(now - 25 * HOUR)),
        record("expired-3", new Date(now - 1000)),
        record("unexpired", new Date(now + 23 * HOUR)),
      ]);
    await quickAddJob(
      { connectionString: database.url, logger: toGraphileLogger(silentLogger) },
      IDEMPOTENCY_SWEEP,
      {},
    );

    const logger = createCapturingLogger();
    const worker = await startWorker({ databaseUrl: database.url, deps, concurrency: 2, logger });
    try {
      await waitUntil(async () => {
        const keys = await remainingKeys();
        return !keys.some((key) => expiredKeys.includes(key));
      }, "the expired records to be swept");
    } finally {
      await worker.stop();
    }

    expect(await remainingKeys()).toEqual(["unexpired"]);
    // The job completed (not left locked or failed) and reported what it did.
    expect(await connection.client`select id from graphile_worker._private_jobs`).toHaveLength(0);
    expect(logger.entries.map((entry) => entry.message)).toContain("deleted 3 expired idempotency records");
    expect(logger.problems()).toEqual([]);
  });

  it("registers the sweep with graphile-worker's cron when the worker starts", async () => {
    const worker = await startWorker({
      databaseUrl: database.url,
      deps,
      concurrency: 1,
      logger: createCapturingLogger(),
    });
    try {
      await waitUntil(async () => {
        const rows = await connection.client`
          select identifier from graphile_worker._private_known_crontabs where identifier = ${IDEMPOTENCY_SWEEP}`;
        return rows.length === 1;
      }, "the crontab entry to be registered");
    } finally {
      await worker.stop();
    }
  });
});
