import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { migrateDatabase } from "./migrate";
import type { idempotencyRecords } from "./schema";

/** Where tests find a Postgres server they may create databases on. */
export function testServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

/**
 * Every database a test run creates is named `crs_test_<run tag>_…`, the run's migrated template
 * included, so the run's end (the vitest globalSetup teardown) drops exactly its own databases and
 * never another run's, even when several runs share one server. The tag travels to the test
 * workers in this variable.
 */
export const TEST_RUN_TAG_VARIABLE = "CRS_TEST_RUN_TAG";
/** Prefix of every database a test run (or the bench) creates; `listTestDatabases` finds them by it. */
export const TEST_DATABASE_PREFIX = "crs_test_";

/**
 * Each test run appends its tag here (git-ignored), so a check after `pnpm test` can look for
 * exactly the databases those runs created, even while other runs share the server.
 */
export const TEST_RUNS_LOG = fileURLToPath(new URL("../../../node_modules/.cache/crs/test-runs.log", import.meta.url));

/** Records a run's tag in TEST_RUNS_LOG. */
export function recordTestRun(runTag: string): void {
  mkdirSync(dirname(TEST_RUNS_LOG), { recursive: true });
  appendFileSync(TEST_RUNS_LOG, `${runTag}\n`);
}

/** The databases still on the server that belong to any of `runTags`. */
export async function listRunDatabases(serverUrl: string, runTags: readonly string[]): Promise<string[]> {
  const names = await listTestDatabases(serverUrl);
  return names.filter((name) => runTags.some((tag) => name.startsWith(`${TEST_DATABASE_PREFIX}${tag}_`)));
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 8).padEnd(6, "0");
}

/** A fresh tag for one run: process id, time and randomness, lowercase letters and digits only. */
export function newTestRunTag(): string {
  return `${process.pid.toString(36)}${Date.now().toString(36)}${randomSuffix()}`;
}

function templateNameFor(runTag: string): string {
  return `${TEST_DATABASE_PREFIX}${runTag}_template`;
}

async function withAdmin<T>(serverUrl: string, run: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    return await run(admin);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Creates and migrates the run's template database once; test databases are cloned from it. */
export async function createRunTemplate(serverUrl: string, runTag: string): Promise<string> {
  const name = templateNameFor(runTag);
  await withAdmin(serverUrl, (admin) => admin.unsafe(`create database "${name}"`));
  await migrateDatabase(withDatabase(serverUrl, name));
  await withAdmin(serverUrl, (admin) => admin.unsafe(`alter database "${name}" is_template true`));
  return name;
}

/** Names of the databases on the server that tests or the bench created (any run's). */
export async function listTestDatabases(serverUrl: string = testServerUrl()): Promise<string[]> {
  return withAdmin(serverUrl, async (admin) => {
    const rows = await admin<{ datname: string }[]>`
      select datname from pg_database
      where left(datname, ${TEST_DATABASE_PREFIX.length}) = ${TEST_DATABASE_PREFIX}
      order by datname`;
    return rows.map((row) => row.datname);
  });
}

/**
 * Gives connections that are closing (a pool ending just before the drop) up to `graceMs` to leave:
 * `with (force)` terminates a client mid-close, and the FATAL it then receives has no listener left
 * and surfaces as an uncaught exception in the test process.
 */
async function waitForConnectionsToLeave(admin: postgres.Sql, name: string, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    const [row] = await admin<{ connections: number }[]>`
      select count(*)::int as connections from pg_stat_activity where datname = ${name}`;
    if (!row || row.connections === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function dropDatabase(admin: postgres.Sql, name: string, graceMs = 2_000): Promise<void> {
  await admin.unsafe(`alter database "${name}" is_template false`).catch(() => undefined);
  await waitForConnectionsToLeave(admin, name, graceMs);
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
}

/** Drops every database of one run (its template included), whoever still holds connections to them. */
export async function dropRunDatabases(serverUrl: string, runTag: string): Promise<string[]> {
  const prefix = `${TEST_DATABASE_PREFIX}${runTag}_`;
  return withAdmin(serverUrl, async (admin) => {
    const rows = await admin<{ datname: string }[]>`
      select datname from pg_database where left(datname, ${prefix.length}) = ${prefix}`;
    // The run has ended: whatever still holds a connection is a leftover, not a pool closing.
    for (const { datname } of rows) await dropDatabase(admin, datname, 0);
    return rows.map((row) => row.datname);
  });
}

/**
 * A fresh, migrated database. Inside a test run (the globalSetup set the run tag) it is cloned
 * from the run's template; elsewhere (the bench) it is created and migrated directly. Drop it with
 * the returned function; the run's teardown drops whatever a test left behind.
 */
export async function createTestDatabase(
  serverUrl: string = testServerUrl(),
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const runTag = process.env[TEST_RUN_TAG_VARIABLE];
  const name = `${TEST_DATABASE_PREFIX}${runTag ?? newTestRunTag()}_${Date.now().toString(36)}${randomSuffix()}`;
  const url = withDatabase(serverUrl, name);
  if (runTag) {
    await withAdmin(serverUrl, (admin) =>
      admin.unsafe(`create database "${name}" template "${templateNameFor(runTag)}"`),
    );
  } else {
    await withAdmin(serverUrl, (admin) => admin.unsafe(`create database "${name}"`));
    await migrateDatabase(url);
  }
  return {
    url,
    name,
    drop: () => withAdmin(serverUrl, (admin) => dropDatabase(admin, name)),
  };
}

const HOUR_MS = 60 * 60 * 1000;

/** A stored idempotency record that expires at `expiresAt` (for tests of the expiry sweep). */
export function idempotencyRecordFixture(
  key: string,
  expiresAt: Date,
  organizationId = "org_sweep",
): typeof idempotencyRecords.$inferInsert {
  return {
    organizationId,
    environment: "sandbox",
    key,
    operation: "createMatter",
    requestHash: "0".repeat(64),
    responseStatus: 201,
    responseBody: "{}",
    responseRequestId: "req_test",
    createdAt: new Date(expiresAt.getTime() - 24 * HOUR_MS),
    expiresAt,
  };
}
