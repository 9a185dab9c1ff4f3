import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";

/**
 * Every tenant-owned table carries organization_id and environment, and every primary key and
 * unique constraint includes organization_id, so the schema can be distributed by organization.
 */
const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

export const organizations = pgTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  environment: text("environment", { enum: ["sandbox", "live"] }).notNull(),
  plan: text("plan", { enum: ["sandbox", "operator", "institutional"] }).notNull(),
  ratePerSecond: doublePrecision("rate_per_second").notNull(),
  rateBurst: integer("rate_burst").notNull(),
  webhookFallbackUrl: text("webhook_fallback_url"),
  createdAt: ts("created_at").notNull(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    organizationId: text("organization_id").notNull(),
    id: text("id").notNull(),
    environment: text("environment", { enum: ["sandbox", "live"] }).notNull(),
    kind: text("kind", { enum: ["sandbox", "live", "legacy_sandbox"] }).notNull(),
    scopes: text("scopes").array().notNull(),
    pinnedVersion: text("pinned_version"),
    revokedAt: ts("revoked_at"),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.id] })],
);

/** Token buckets shared by every REST process (DECISIONS §5); refilled from the database clock. */
export const rateLimitBuckets = pgTable("rate_limit_buckets", {
  bucket: text("bucket").primaryKey(),
  tokens: doublePrecision("tokens").notNull(),
  admitted: boolean("admitted").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
});

export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    organizationId: text("organization_id").notNull(),
    environment: text("environment", { enum: ["sandbox", "live"] }).notNull(),
    key: text("key").notNull(),
    route: text("route").notNull(),
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status").notNull(),
    responseBody: text("response_body").notNull(),
    responseRequestId: text("response_request_id").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.environment, t.key] }),
    index("idempotency_records_expires_at_idx").on(t.expiresAt),
  ],
);

/** One row per chain: the lock that serializes appends, and the O(1) head. */
export const chainHeads = pgTable(
  "chain_heads",
  {
    organizationId: text("organization_id").notNull(),
    environment: text("environment", { enum: ["sandbox", "live"] }).notNull(),
    headSequence: bigint("head_sequence", { mode: "number" }).notNull(),
    headHash: text("head_hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.environment] })],
);

export const events = pgTable(
  "events",
  {
    organizationId: text("organization_id").notNull(),
    environment: text("environment", { enum: ["sandbox", "live"] }).notNull(),
    sequence: bigint("sequence", { mode: "number" }).notNull(),
    id: text("id").notNull(),
    type: text("type").notNull(),
    created: ts("created").notNull(),
    livemode: boolean("livemode").notNull(),
    apiVersion: text("api_version").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    auditRef: text("audit_ref").notNull(),
    matterId: text("matter_id"),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
    signature: text("signature").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.environment, t.sequence] }),
    unique("events_organization_id_id_key").on(t.organizationId, t.id),
    index("events_matter_idx").on(t.organizationId, t.environment, t.matterId, t.sequence),
  ],
);

export const matters = pgTable(
  "matters",
  {
    organizationId: text("organization_id").notNull(),
    environment: text("environment", { enum: ["sandbox", "live"] }).notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    mode: text("mode").notNull(),
    leadCounsel: text("lead_counsel"),
    economics: jsonb("economics").$type<Record<string, unknown>>().notNull(),
    notes: text("notes"),
    status: text("status").notNull(),
    retentionPolicy: text("retention_policy"),
    closeReason: text("close_reason"),
    closeNotes: text("close_notes"),
    closedAt: ts("closed_at"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    lastRequestId: text("last_request_id").notNull(),
    lastActorId: text("last_actor_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("matters_list_idx").on(t.organizationId, t.environment, t.id),
  ],
);
