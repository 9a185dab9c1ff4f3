import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort, startEmbeddedPostgres } from "./embedded";

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

/**
 * vitest globalSetup shared by every package with database tests. TEST_DATABASE_URL wins; else a
 * local server on 5432 if one answers; else (a fresh machine, or TEST_DATABASE=embedded) a
 * throwaway embedded PostgreSQL in a temporary folder for this run. The chosen server is handed to
 * the test workers as TEST_DATABASE_URL, which createTestDatabase() reads.
 */
export default async function setupTestServer(): Promise<() => Promise<void>> {
  if (process.env.TEST_DATABASE_URL) return async () => {};
  if (process.env.TEST_DATABASE !== "embedded" && (await answers(LOCAL_SERVER))) {
    process.env.TEST_DATABASE_URL = LOCAL_SERVER;
    return async () => {};
  }
  const dataDir = mkdtempSync(join(tmpdir(), "crs-test-postgres-"));
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const url = new URL(server.url);
  url.pathname = "/postgres";
  process.env.TEST_DATABASE_URL = url.toString();
  return async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
