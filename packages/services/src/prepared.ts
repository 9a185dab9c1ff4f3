import type { Database } from "@crs/db";

/**
 * Builds a prepared query once per database handle. The hot per-request queries (key lookup,
 * token bucket, single-row reads) run this way: building a drizzle query each time cost about
 * twice the database round trip itself (see bench/).
 */
export function preparedPerDatabase<Prepared>(build: (db: Database) => Prepared): (db: Database) => Prepared {
  const cache = new WeakMap<Database, Prepared>();
  return (db) => {
    let prepared = cache.get(db);
    if (!prepared) {
      prepared = build(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}
