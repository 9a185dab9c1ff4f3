import { connectDatabase, schema } from "@crs/db";
import { createTestDatabase, idempotencyRecordFixture } from "@crs/db/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sweepExpiredIdempotencyRecords } from "../src/idempotency/sweep-expired-idempotency-records";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const HOUR = 60 * 60 * 1000;

const record = idempotencyRecordFixture;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let connection: ReturnType<typeof connectDatabase>;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = connectDatabase(database.url, { max: 4 });
}, 60_000);

afterAll(async () => {
  await connection?.close();
  await database?.drop();
}, 60_000);

beforeEach(async () => {
  await connection.db.delete(schema.idempotencyRecords);
});

async function remainingKeys(): Promise<string[]> {
  const rows = await connection.db.select({ key: schema.idempotencyRecords.key }).from(schema.idempotencyRecords);
  return rows.map((row) => row.key).sort();
}

describe("sweepExpiredIdempotencyRecords", () => {
  it("deletes records expired at or before now and keeps the others", async () => {
    await connection.db
      .insert(schema.idempotencyRecords)
      .values([
        record("expired-long-ago", new Date(NOW.getTime() - 48 * HOUR)),
        record("expired-just-now", NOW),
        record("expired-other-org", new Date(NOW.getTime() - HOUR), "org_other"),
        record("still-valid", new Date(NOW.getTime() + 1)),
      ]);

    await expect(sweepExpiredIdempotencyRecords(connection.db, NOW)).resolves.toBe(3);
    expect(await remainingKeys()).toEqual(["still-valid"]);
  });

  it("returns 0 when nothing has expired", async () => {
    await connection.db.insert(schema.idempotencyRecords).values(record("valid", new Date(NOW.getTime() + HOUR)));
    await expect(sweepExpiredIdempotencyRecords(connection.db, NOW)).resolves.toBe(0);
    expect(await remainingKeys()).toEqual(["valid"]);
  });

  it("clears a backlog larger than one batch, counting every deleted row", async () => {
    const expired = Array.from({ length: 10 }, (_, i) => record(`expired-${i}`, new Date(NOW.getTime() - i * HOUR)));
    await connection.db
      .insert(schema.idempotencyRecords)
      .values([...expired, record("valid", new Date(NOW.getTime() + HOUR))]);

    await expect(sweepExpiredIdempotencyRecords(connection.db, NOW, { batchSize: 3 })).resolves.toBe(10);
    expect(await remainingKeys()).toEqual(["valid"]);
  });

  it("skips a record another transaction has locked instead of waiting for it", async () => {
    await connection.db
      .insert(schema.idempotencyRecords)
      .values([record("locked", new Date(NOW.getTime() - HOUR)), record("free", new Date(NOW.getTime() - HOUR))]);

    // A second connection holds the row lock for the whole sweep; the sweep must not block on it.
    const other = connectDatabase(database.url, { max: 1 });
    try {
      const deleted = await other.client.begin(async (tx) => {
        await tx`select key from idempotency_records where key = 'locked' for update`;
        return sweepExpiredIdempotencyRecords(connection.db, NOW, { batchSize: 1 });
      });
      expect(deleted).toBe(1);
    } finally {
      await other.close();
    }
    expect(await remainingKeys()).toEqual(["locked"]);
    // Once the lock is gone, the next sweep takes it.
    await expect(sweepExpiredIdempotencyRecords(connection.db, NOW)).resolves.toBe(1);
    expect(await remainingKeys()).toEqual([]);
  });

  it("stops after the current batch once aborted, keeping what it deleted", async () => {
    const expired = Array.from({ length: 5 }, (_, i) => record(`expired-${i}`, new Date(NOW.getTime() - HOUR)));
    await connection.db.insert(schema.idempotencyRecords).values(expired);
    const controller = new AbortController();
    controller.abort();

    await expect(
      sweepExpiredIdempotencyRecords(connection.db, NOW, { batchSize: 2, signal: controller.signal }),
    ).resolves.toBe(2);
    expect(await remainingKeys()).toHaveLength(3);
  });

  it("rejects a batch size that is not a positive integer", async () => {
    await expect(sweepExpiredIdempotencyRecords(connection.db, NOW, { batchSize: 0 })).rejects.toThrow(RangeError);
  });
});
