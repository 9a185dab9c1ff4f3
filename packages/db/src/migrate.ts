import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { Logger, runMigrations } from "graphile-worker";
import pg from "pg";
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
    // graphile-worker ends a pool it made itself without waiting, after removing its error
    // handlers: a server stopped right after could then kill a connection no one listens to (an
    // unhandled error). With our own pool, the migration returns once every connection is closed.
    // Errors of idle and checked-out clients: a failed migration query still rejects on its own.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on("error", () => {});
    pool.on("connect", (client) => client.on("error", () => {}));
    try {
      await runMigrations({ pgPool: pool, logger: quietLogger });
    } finally {
      await pool.end();
    }
  } finally {
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`;
    await lock.end();
  }
}
