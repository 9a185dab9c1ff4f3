import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { Logger, runMigrations } from "graphile-worker";
import postgres from "postgres";

const quietLogger = new Logger(() => () => {});
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../drizzle", import.meta.url));
const MIGRATION_LOCK = 72707369;

/**
 * Runs the drizzle migrations, then graphile-worker's, under a session advisory lock held on a
 * connection of its own: drizzle's migrator takes no lock, and concurrent starts would race.
 */
export async function migrateDatabase(url: string): Promise<void> {
  const lock = postgres(url, { max: 1, onnotice: () => {} });
  await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
  try {
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.end();
    }
    await runMigrations({ connectionString: url, logger: quietLogger });
  } finally {
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`;
    await lock.end();
  }
}
