import { fillPlaceholders, type SQL } from "drizzle-orm";
import { type PgDatabase, PgDialect } from "drizzle-orm/pg-core";
import { drizzle, type PostgresJsQueryResultHKT } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export function connectDatabase(url: string, options: { max?: number } = {}) {
  const client = postgres(url, { max: options.max ?? 10, onnotice: () => {} });
  const db = drizzle(client, { schema });
  return { client, db, close: () => client.end({ timeout: 5 }) };
}

export type Database = ReturnType<typeof connectDatabase>["db"];
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** A pooled handle or a transaction: what a query that runs in either needs. */
export type Queryable = PgDatabase<PostgresJsQueryResultHKT, typeof schema>;
const dialect = new PgDialect();

/** The postgres.js handle under a drizzle database or transaction (a transaction's is its reserved connection). */
function clientOf(handle: Database | Transaction): postgres.Sql {
  return (handle._.session as unknown as { client: postgres.Sql }).client;
}

/**
 * Runs a statement as a prepared statement, parsed and planned once per connection, inside `handle`'s
 * transaction when it is one: for the statements every write or delivery runs, whose planning would
 * otherwise cost about as much as running them (drizzle's `execute` never prepares).
 */
export function executePrepared<Row>(handle: Database | Transaction, query: SQL): Promise<Row[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return clientOf(handle).unsafe(text, params as postgres.ParameterOrJSON<never>[], {
    prepare: true,
  }) as unknown as Promise<Row[]>;
}

/**
 * A statement rendered to SQL text once, on first use, with `sql.placeholder(name)` where its values
 * go; each call fills them and runs it prepared, like executePrepared. For the statements every write
 * runs: rendering a drizzle template walks all of its chunks, and for the event append with its
 * outbox that walk cost more CPU than the rest of the write's JavaScript.
 */
export function statementBuiltOnce<Row>(
  build: () => SQL,
): (handle: Database | Transaction, values: Record<string, unknown>) => Promise<Row[]> {
  let rendered: { sql: string; params: unknown[] } | undefined;
  return (handle, values) => {
    rendered ??= dialect.sqlToQuery(build());
    return clientOf(handle).unsafe(
      rendered.sql,
      fillPlaceholders(rendered.params, values) as postgres.ParameterOrJSON<never>[],
      { prepare: true },
    ) as unknown as Promise<Row[]>;
  };
}
