import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import {
  createRunTemplate,
  createTestDatabase,
  dropRunDatabases,
  listTestDatabases,
  newTestRunTag,
  TEST_RUN_TAG_VARIABLE,
  testServerUrl,
} from "../src/testing";

const server = testServerUrl();
const ownTag = process.env[TEST_RUN_TAG_VARIABLE];
const otherRuns: string[] = [];

function restoreOwnTag(): void {
  if (ownTag === undefined) delete process.env[TEST_RUN_TAG_VARIABLE];
  else process.env[TEST_RUN_TAG_VARIABLE] = ownTag;
}

afterEach(async () => {
  restoreOwnTag();
  for (const tag of otherRuns.splice(0)) await dropRunDatabases(server, tag);
});

/** A second run on the same server: its template, and one database cloned from it. */
async function startRun(): Promise<{ tag: string; database: Awaited<ReturnType<typeof createTestDatabase>> }> {
  const tag = newTestRunTag();
  otherRuns.push(tag);
  await createRunTemplate(server, tag);
  process.env[TEST_RUN_TAG_VARIABLE] = tag;
  try {
    return { tag, database: await createTestDatabase(server) };
  } finally {
    restoreOwnTag();
  }
}

describe("test databases", () => {
  it("are clones of the run's migrated template", async () => {
    const { database } = await startRun();
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<{ name: string | null }[]>`select to_regclass('public.events')::text as name`;
      expect(row?.name).toBe("events");
    } finally {
      await sql.end();
    }
  });

  it("are all dropped at the end of their run, the template and open connections included, and no other run's", async () => {
    const first = await startRun();
    const second = await startRun();
    // A test that never closed its connection must not keep its database alive.
    const lingering = postgres(first.database.url, { max: 1, onnotice: () => {} });
    await lingering`select 1`;

    const dropped = await dropRunDatabases(server, first.tag);
    expect(dropped.sort()).toEqual([first.database.name, `crs_test_${first.tag}_template`].sort());
    await lingering.end({ timeout: 1 }).catch(() => undefined);

    const remaining = await listTestDatabases(server);
    expect(remaining.filter((name) => name.includes(first.tag))).toEqual([]);
    expect(remaining).toContain(second.database.name);
    expect(remaining).toContain(`crs_test_${second.tag}_template`);
  });

  it("outside a test run (the bench) are migrated directly and dropped by their own drop()", async () => {
    delete process.env[TEST_RUN_TAG_VARIABLE];
    const database = await createTestDatabase(server);
    restoreOwnTag();
    expect(await listTestDatabases(server)).toContain(database.name);
    await database.drop();
    expect(await listTestDatabases(server)).not.toContain(database.name);
  });
});
