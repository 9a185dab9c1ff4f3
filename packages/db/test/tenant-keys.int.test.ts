import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../src/testing";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = postgres(database.url, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

/** Every primary key and unique constraint of the public schema, with its columns in order. */
async function keys() {
  return sql<{ table: string; constraint: string; columns: string[] }[]>`
    select c.conrelid::regclass::text as table, c.conname as constraint,
           array_agg(a.attname order by k.ord) as columns
      from pg_constraint c
      join pg_namespace n on n.oid = c.connamespace and n.nspname = 'public'
      cross join lateral unnest(c.conkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
     where c.contype in ('p', 'u')
     group by c.conrelid, c.conname`;
}

async function tenantTables(): Promise<string[]> {
  const rows = await sql<{ table: string }[]>`
    select table_name as table from information_schema.columns
     where table_schema = 'public' and column_name = 'organization_id'`;
  return rows.map((row) => row.table).sort();
}

describe("tenant tables can be distributed by organization", () => {
  it("every tenant table also carries environment", async () => {
    const tables = await tenantTables();
    expect(tables.length).toBeGreaterThan(0);
    const [withEnvironment] = await sql<{ tables: string[] }[]>`
      select coalesce(array_agg(table_name::text order by table_name), '{}') as tables from information_schema.columns
       where table_schema = 'public' and column_name = 'environment' and table_name = any(${tables})`;
    expect(withEnvironment?.tables).toEqual(tables);
  });

  it("every primary key and unique constraint of a tenant table starts with organization_id", async () => {
    const tables = new Set(await tenantTables());
    const tenantKeys = (await keys()).filter((key) => tables.has(key.table));
    expect(tenantKeys.length).toBeGreaterThanOrEqual(tables.size);
    for (const key of tenantKeys) expect(key.columns[0], `${key.table}.${key.constraint}`).toBe("organization_id");
  });
});
