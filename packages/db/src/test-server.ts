import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort, startEmbeddedPostgres } from "./embedded";
import { createRunTemplate, dropRunDatabases, newTestRunTag, recordTestRun, TEST_RUN_TAG_VARIABLE } from "./testing";

const LOCAL_SERVER = "postgres://postgres@127.0.0.1:5432/postgres";

async function answers(url: string): Promise<boolean> {
  const probe = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await probe`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await probe.end({ timeout: 1 });
  }
}

/** Where this run's databases live: TEST_DATABASE_URL, the local server, or a throwaway embedded one. */
async function chooseServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => {} };
  if (process.env.TEST_DATABASE !== "embedded" && (await answers(LOCAL_SERVER))) {
    return { url: LOCAL_SERVER, stop: async () => {} };
  }
  const dataDir = mkdtempSync(join(tmpdir(), "crs-test-postgres-"));
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const url = new URL(server.url);
  url.pathname = "/postgres";
  return {
    url: url.toString(),
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * vitest globalSetup shared by every package with database tests. TEST_DATABASE_URL wins; else a
 * local server on 5432 if one answers; else (a fresh machine, or TEST_DATABASE=embedded) a
 * throwaway embedded PostgreSQL in a temporary folder for this run. The chosen server and this
 * run's tag reach the test workers as TEST_DATABASE_URL and CRS_TEST_RUN_TAG; the run's template
 * is migrated here, once. The teardown drops every database of the run, the template included,
 * even those a failed or interrupted test did not drop itself.
 */
export default async function setupTestServer(): Promise<() => Promise<void>> {
  const server = await chooseServer();
  const runTag = newTestRunTag();
  process.env.TEST_DATABASE_URL = server.url;
  process.env[TEST_RUN_TAG_VARIABLE] = runTag;
  recordTestRun(runTag);
  try {
    await createRunTemplate(server.url, runTag);
  } catch (error) {
    await dropRunDatabases(server.url, runTag).catch(() => undefined);
    await server.stop();
    throw error;
  }
  return async () => {
    try {
      await dropRunDatabases(server.url, runTag);
    } finally {
      await server.stop();
    }
  };
}
