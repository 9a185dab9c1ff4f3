import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import postgres from "postgres";
import { MIGRATIONS_FOLDER, migrateDatabase } from "./migrate";
import type { idempotencyRecords } from "./schema";

/** Where tests find a Postgres server they may create databases on. */
export function testServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A template name that changes whenever a migration file changes, so stale templates are never reused. */
function templateName(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MIGRATIONS_FOLDER).sort()) {
    if (file.endsWith(".sql")) hash.update(file).update(readFileSync(`${MIGRATIONS_FOLDER}/${file}`));
  }
  return `crs_template_${hash.digest("hex").slice(0, 12)}`;
}

const TEMPLATE_LOCK = 72707370;

/** Migrates the template database once per migration set (safe across parallel test runs). */
export async function prepareTemplateDatabase(serverUrl: string = testServerUrl()): Promise<string> {
  const name = templateName();
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK})`;
    const [existing] = await admin`select datname from pg_database where datname = ${name}`;
    if (!existing) {
      await admin.unsafe(`create database "${name}"`);
      await migrateDatabase(withDatabase(serverUrl, name));
      await admin.unsafe(`alter database "${name}" is_template true`);
    }
    await admin`select pg_advisory_unlock(${TEMPLATE_LOCK})`;
  } finally {
    await admin.end();
  }
  return name;
}

/** A fresh, migrated database cloned from the template; drop it with the returned function. */
export async function createTestDatabase(
  serverUrl: string = testServerUrl(),
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const template = await prepareTemplateDatabase(serverUrl);
  const name = `crs_test_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}" template "${template}"`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(serverUrl, name),
    name,
    drop: async () => {
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end();
      }
    },
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
    route: "POST /v1/matters",
    requestHash: "0".repeat(64),
    responseStatus: 201,
    responseBody: "{}",
    responseRequestId: "req_test",
    createdAt: new Date(expiresAt.getTime() - 24 * HOUR_MS),
    expiresAt,
  };
}
