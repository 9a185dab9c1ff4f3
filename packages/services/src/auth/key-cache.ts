import type { Sql } from "postgres";

/** The channel the database notifies on whenever a key row or an organization row changes (migration 0010). */
export const KEY_METADATA_CHANNEL = "api_key_metadata";

/** Longest an entry is trusted even with no notification: a bound in case a notification is ever lost. */
const MAX_AGE_MS = 30_000;
const MAX_ENTRIES = 10_000;

interface Entry<Row> {
  row: Row;
  organizationId: string;
  storedAt: number;
}

/**
 * Key metadata kept in this process so a request does not read the key row each time. It is trusted
 * only while this process LISTENs on KEY_METADATA_CHANNEL: a trigger on api_keys and organizations
 * notifies every process when a key is revoked (or its pin changes) and when an organization's rate
 * changes, and the entry goes at once. Notifications arrive after the change commits, within
 * milliseconds, so a revoked key is refused by every process well within a second.
 *
 * A read that raced a notification must not put back what the notification removed: every
 * notification moves `generation`, and a row read before it is not stored. While the listening
 * connection is not (yet, or again) established, nothing is served from memory, and re-listening
 * clears everything, since notifications sent in between are lost.
 */
export class KeyMetadataCache<Row> {
  private readonly entries = new Map<string, Entry<Row>>();
  private listening = false;
  private generation = 0;
  private started: Promise<void> | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** Starts listening once; requests served before it is established read the database. */
  start(sql: Sql): void {
    this.started ??= sql
      .listen(
        KEY_METADATA_CHANNEL,
        (payload) => this.invalidate(payload),
        () => {
          // Called at the first LISTEN and again after every reconnection: what was missed is unknown.
          this.clear();
          this.listening = true;
        },
      )
      .then(
        () => undefined,
        () => {
          this.listening = false;
          this.started = null;
        },
      );
  }

  /** The current generation: read it before querying the row, hand it back to `set`. */
  get token(): number {
    return this.generation;
  }

  get(keyId: string): Row | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(keyId);
    if (!entry) return undefined;
    if (this.now() - entry.storedAt > MAX_AGE_MS) {
      this.entries.delete(keyId);
      return undefined;
    }
    return entry.row;
  }

  set(keyId: string, organizationId: string, row: Row, token: number): void {
    if (!this.listening || token !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyId, { row, organizationId, storedAt: this.now() });
  }

  /** `key:<key_id>` drops that key; `org:<organization_id>` every key of that organization; anything else, all. */
  invalidate(payload: string): void {
    this.generation++;
    if (payload.startsWith("key:")) {
      this.entries.delete(payload.slice(4));
    } else if (payload.startsWith("org:")) {
      const organizationId = payload.slice(4);
      for (const [keyId, entry] of this.entries)
        if (entry.organizationId === organizationId) this.entries.delete(keyId);
    } else {
      this.entries.clear();
    }
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

const caches = new WeakMap<Sql, KeyMetadataCache<unknown>>();

/** One cache per database client (each process builds its deps once), listening from its first use. */
export function keyMetadataCacheFor<Row>(sql: Sql): KeyMetadataCache<Row> {
  let cache = caches.get(sql) as KeyMetadataCache<Row> | undefined;
  if (!cache) {
    cache = new KeyMetadataCache<Row>();
    caches.set(sql, cache as KeyMetadataCache<unknown>);
    cache.start(sql);
  }
  return cache;
}
