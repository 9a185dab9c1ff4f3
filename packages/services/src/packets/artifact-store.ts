import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";

export interface StoredArtifact {
  bytes: Uint8Array;
  contentType: string;
  sha256: string;
}

/**
 * Where export artifacts live. `put` runs inside the export's transaction (the Postgres store writes
 * there, so an artifact exists iff its export committed); a store elsewhere (object storage) would
 * write first under a key nobody can guess and let the export row make it visible.
 */
export interface ArtifactStore {
  put(tx: Queryable, tenant: Tenant, key: string, artifact: StoredArtifact & { createdAt: Date }): Promise<void>;
  get(db: Queryable, tenant: Tenant, key: string): Promise<StoredArtifact | null>;
}

/** The default store: bytes in the `artifacts` table, keyed by organization, environment and export id. */
export const postgresArtifactStore: ArtifactStore = {
  async put(tx, tenant, key, artifact) {
    await tx.insert(schema.artifacts).values({
      organizationId: tenant.organizationId,
      environment: tenant.environment,
      key,
      contentType: artifact.contentType,
      sha256: artifact.sha256,
      bytes: Buffer.from(artifact.bytes),
      createdAt: artifact.createdAt,
    });
  },
  async get(db, tenant, key) {
    const a = schema.artifacts;
    const [row] = await db
      .select({ bytes: a.bytes, contentType: a.contentType, sha256: a.sha256 })
      .from(a)
      .where(and(tenantScope(a, tenant), eq(a.key, key)));
    return row ? { bytes: new Uint8Array(row.bytes), contentType: row.contentType, sha256: row.sha256 } : null;
  },
};
