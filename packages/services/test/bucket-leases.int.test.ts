import { connectDatabase } from "@crs/db";
import { createTestDatabase } from "@crs/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BucketLeases, LEASE_LOCAL_MS } from "../src/rate-limits/consume-token";

/** A bucket that practically never refills, so every count below is exact. */
const POLICY = { perSecond: 0.001, burst: 320 };

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let connection: ReturnType<typeof connectDatabase>;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = connectDatabase(database.url, { max: 6 });
}, 60_000);

afterAll(async () => {
  await connection?.close();
  await database?.drop();
}, 60_000);

async function row(bucket: string) {
  const [found] = await connection.client<{ tokens: number; leases: string; version: string }[]>`
    select tokens, leases::text as leases, version::text as version from rate_limit_buckets where bucket = ${bucket}`;
  return { tokens: Number(found?.tokens), leases: JSON.parse(found?.leases ?? "{}"), version: Number(found?.version) };
}

async function admitted(holder: BucketLeases, bucket: string, count: number): Promise<number> {
  const decisions = await Promise.all(Array.from({ length: count }, () => holder.consume(bucket, POLICY)));
  return decisions.filter((decision) => decision.admitted).length;
}

describe("bucket leases (two holders on one database, as two processes would be)", () => {
  it("hands an unspent lease back when its local deadline passes, so the other holder can spend every token", async () => {
    const a = new BucketLeases(connection.client);
    const b = new BucketLeases(connection.client);
    const bucket = "test:handback";
    // a spends 30 one after another: its leases grow (1, 2, 4, ... up to 20) and it ends up holding some unspent.
    let spentByA = 0;
    for (let i = 0; i < 30; i++) if ((await a.consume(bucket, POLICY)).admitted) spentByA++;
    expect(spentByA).toBe(30);
    // Leases grew 1, 2, 4, 8, 16: five writes for thirty admissions, and part of the last lease unspent.
    expect((await row(bucket)).version).toBeLessThan(10);

    // After a's deadline its timer hands the rest back; b then admits every token left, none more.
    await new Promise((resolve) => setTimeout(resolve, LEASE_LOCAL_MS + 500));
    const returned = await row(bucket);
    expect(returned.leases).toEqual({});
    expect(Math.floor(returned.tokens)).toBe(POLICY.burst - 30);
    expect(await admitted(b, bucket, 400)).toBe(POLICY.burst - 30);
    await a.release();
    await b.release();
  });

  it("admits exactly the burst across two holders drawing at once, each in parallel", async () => {
    const a = new BucketLeases(connection.client);
    const b = new BucketLeases(connection.client);
    const bucket = "test:parallel";
    let total = 0;
    for (let wave = 0; wave < 8; wave++) {
      const [fromA, fromB] = await Promise.all([admitted(a, bucket, 50), admitted(b, bucket, 50)]);
      total += fromA + fromB;
    }
    expect(total).toBe(POLICY.burst);
    const after = await row(bucket);
    expect(Math.floor(after.tokens)).toBe(0);
    expect(after.version).toBeLessThan(POLICY.burst / 2);
    await a.release();
    await b.release();
  });

  it("hands every lease back on release", async () => {
    const a = new BucketLeases(connection.client);
    const bucket = "test:release";
    for (let i = 0; i < 12; i++) await a.consume(bucket, POLICY);
    expect(Object.keys((await row(bucket)).leases)).toEqual([a.holder]);
    await a.release();
    const released = await row(bucket);
    expect(released.leases).toEqual({});
    expect(Math.floor(released.tokens)).toBe(POLICY.burst - 12);
  });
});
