import { API_VERSIONS, EVENT_TYPES } from "@crs/contract";
import {
  ACTION_PRIORITIES,
  ACTION_STATUSES,
  ALERT_SEVERITIES,
  ALERT_STATUSES,
  ALERT_TYPES,
  type AlertTarget,
  APPEAL_STAY_STATUSES,
  BANKRUPTCY_STATUSES,
  CLAW_MODES,
  type ClawExpansion,
  type ClawFocusRun,
  type ClawTargetSet,
  DEADLINE_TYPES,
  ENVIRONMENTS,
  JOB_STATUSES,
  JOB_TYPES,
  type JobError,
  JUDGMENT_STATUSES,
  MATTER_CLOSE_REASONS,
  MATTER_MODES,
  MATTER_STATUSES,
  type MatterEconomics,
  NETWORK_SIGNAL_TYPES,
  PACKET_EXPORT_FORMATS,
  PACKET_STATUSES,
  PACKET_TYPES,
  PARTY_ROLES,
  PARTY_STATUSES,
  PARTY_TYPES,
  type PacketManifest,
  type PacketSourceRef,
  RECOVERY_EVENT_TYPES,
  REDACTION_PROFILES,
  REVIEW_STATUSES,
  SANCTIONS_ENTRY_KINDS,
  type SharedBucket,
  WATCHLIST_STATUSES,
  type Wallet,
  type WatchlistThresholds,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_ENDPOINT_STATUSES,
} from "@crs/core";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * Every tenant-owned table carries organization_id and environment, and every primary key and
 * unique constraint starts with organization_id, so the schema can be distributed by organization.
 * Queries on them filter through tenantScope (tenant.ts).
 */
const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });
const environment = () => text("environment", { enum: ENVIRONMENTS }).notNull();

export const organizations = pgTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  environment: environment(),
  plan: text("plan", { enum: ["sandbox", "operator", "institutional"] }).notNull(),
  ratePerSecond: doublePrecision("rate_per_second").notNull(),
  rateBurst: integer("rate_burst").notNull(),
  webhookFallbackUrl: text("webhook_fallback_url"),
  /** the fallback URL's signing secret, encrypted (AES-256-GCM box); null when no fallback is set */
  webhookFallbackSecretBox: text("webhook_fallback_secret_box"),
  createdAt: ts("created_at").notNull(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    organizationId: text("organization_id").notNull(),
    id: text("id").notNull(),
    environment: environment(),
    kind: text("kind", { enum: ["sandbox", "live", "legacy_sandbox"] }).notNull(),
    scopes: text("scopes").array().notNull(),
    pinnedVersion: text("pinned_version", { enum: API_VERSIONS }),
    revokedAt: ts("revoked_at"),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.id] })],
);

/**
 * Token buckets shared by every process on the database; refilled from the database clock. `leases`
 * holds the tokens processes took and have not yet accounted for, by holder (core's SharedBucket);
 * `version` moves on every write (the compare-and-set of a draw).
 */
export const rateLimitBuckets = pgTable("rate_limit_buckets", {
  bucket: text("bucket").primaryKey(),
  tokens: doublePrecision("tokens").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  leases: jsonb("leases").$type<SharedBucket["leases"]>().notNull().default({}),
  version: bigint("version", { mode: "bigint" }).notNull().default(sql`0`),
});

export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    key: text("key").notNull(),
    /** the operation id the key was first used with (e.g. createMatter), whatever the surface */
    operation: text("operation").notNull(),
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
    environment: environment(),
    headSequence: bigint("head_sequence", { mode: "number" }).notNull(),
    headHash: text("head_hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.environment] })],
);

export const events = pgTable(
  "events",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    sequence: bigint("sequence", { mode: "number" }).notNull(),
    id: text("id").notNull(),
    type: text("type", { enum: EVENT_TYPES }).notNull(),
    created: ts("created").notNull(),
    livemode: boolean("livemode").notNull(),
    apiVersion: text("api_version").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    /** the UTF-8 length of `data` as JSON, recorded at the append: what a list page weighs its events by */
    dataBytes: integer("data_bytes").notNull().default(0),
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
    environment: environment(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    mode: text("mode", { enum: MATTER_MODES }).notNull(),
    leadCounsel: text("lead_counsel"),
    economics: jsonb("economics").$type<MatterEconomics>().notNull(),
    notes: text("notes"),
    status: text("status", { enum: MATTER_STATUSES }).notNull(),
    retentionPolicy: text("retention_policy"),
    closeReason: text("close_reason", { enum: MATTER_CLOSE_REASONS }),
    closeNotes: text("close_notes"),
    closedAt: ts("closed_at"),
    /** true while a sanctions hit on one of its parties awaits a reviewer */
    sanctionsHold: boolean("sanctions_hold").notNull().default(false),
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

/** Who last wrote a row, under which request: every mutable tenant row carries them (see audit.ts). */
const writeStampColumns = () => ({
  updatedAt: ts("updated_at").notNull(),
  lastRequestId: text("last_request_id").notNull(),
  lastActorId: text("last_actor_id").notNull(),
});

export const parties = pgTable(
  "parties",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    role: text("role", { enum: PARTY_ROLES }).notNull(),
    name: text("name").notNull(),
    legalName: text("legal_name"),
    type: text("type", { enum: PARTY_TYPES }),
    aliases: jsonb("aliases").$type<string[]>().notNull(),
    identifiers: jsonb("identifiers").$type<Record<string, unknown>>().notNull(),
    wallets: jsonb("wallets").$type<Wallet[]>().notNull(),
    economics: jsonb("economics").$type<Record<string, unknown>>().notNull(),
    contact: jsonb("contact").$type<Record<string, unknown>>().notNull(),
    notes: text("notes"),
    /** claimants only: 0..1 in millionths, exact */
    share: numeric("share", { precision: 7, scale: 6 }),
    status: text("status", { enum: PARTY_STATUSES }).notNull(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("parties_list_idx").on(t.organizationId, t.environment, t.id),
    index("parties_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/**
 * A party's name, wallet or identifier found on the sanctions list. Recorded once per party and
 * list entry: re-saving the same party does not raise a cleared hit again.
 */
export const sanctionsHits = pgTable(
  "sanctions_hits",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    /** the party screened; null for a hit of a sanctions screen (POST /v1/sanctions/screen, 2026-06-11) */
    partyId: text("party_id"),
    /** the screen that raised the hit (`sanc_…`); null for a party's hit */
    screenId: text("screen_id"),
    /** what a screen's hit screened: wallet, entity or counterparty; null for a party's hit */
    subject: text("subject", { enum: ["wallet", "entity", "counterparty"] }),
    /**
     * sha256 of the canonical JSON of the list entry (and identifier path; for a screen's hit, the subject and
     * its matched value): what makes a hit the same hit
     */
    fingerprint: text("fingerprint").notNull(),
    matchedField: text("matched_field", { enum: ["name", "legal_name", "alias", "wallet", "identifier"] }).notNull(),
    matchedValue: text("matched_value").notNull(),
    matchedNetwork: text("matched_network"),
    matchedPath: text("matched_path"),
    entryKind: text("entry_kind", { enum: SANCTIONS_ENTRY_KINDS }).notNull(),
    entryValue: text("entry_value").notNull(),
    entryNetwork: text("entry_network"),
    entryProgram: text("entry_program"),
    entrySource: text("entry_source").notNull(),
    status: text("status", { enum: ["open", "cleared"] }).notNull(),
    clearedAt: ts("cleared_at"),
    clearNotes: text("clear_notes"),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    unique("sanctions_hits_party_fingerprint_key").on(t.organizationId, t.environment, t.partyId, t.fingerprint),
    uniqueIndex("sanctions_hits_screen_fingerprint_key")
      .on(t.organizationId, t.environment, t.matterId, t.fingerprint)
      .where(sql`party_id IS NULL`),
    index("sanctions_hits_screen_idx").on(t.organizationId, t.environment, t.screenId),
    index("sanctions_hits_matter_idx").on(t.organizationId, t.environment, t.matterId, t.status),
    // a hit is a party's or a screen's, never both nor neither
    check("sanctions_hits_party_or_screen_check", sql`(${t.partyId} IS NULL) <> (${t.screenId} IS NULL)`),
  ],
);

export const judgments = pgTable(
  "judgments",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    court: text("court").notNull(),
    caseNumber: text("case_number").notNull(),
    jurisdiction: text("jurisdiction").notNull(),
    creditor: text("creditor").notNull(),
    debtor: text("debtor").notNull(),
    /** exact, in the currency's major unit with 2 decimals */
    amount: numeric("amount", { precision: 15, scale: 2 }).notNull(),
    currency: text("currency").notNull(),
    /** how the caller sent `amount` (a plain number or the amount shape): it is echoed the same way */
    amountForm: text("amount_form", { enum: ["number", "object"] }).notNull(),
    valuationTime: ts("valuation_time"),
    dateEntered: date("date_entered", { mode: "string" }).notNull(),
    status: text("status", { enum: JUDGMENT_STATUSES }).notNull(),
    appealStayStatus: text("appeal_stay_status", { enum: APPEAL_STAY_STATUSES }).notNull(),
    bankruptcyStatus: text("bankruptcy_status", { enum: BANKRUPTCY_STATUSES }).notNull(),
    /** set by PATCH (e.g. after a renewal); null: the deadline computed from the jurisdiction */
    renewalDeadline: date("renewal_deadline", { mode: "string" }),
    reviewStatus: text("review_status", { enum: REVIEW_STATUSES }).notNull(),
    reviewOwner: text("review_owner").notNull(),
    reviewNotes: text("review_notes").notNull(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("judgments_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/** Every validation of a judgment, as answered (current shape); the latest is the judgment's. */
export const judgmentValidations = pgTable(
  "judgment_validations",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    judgmentId: text("judgment_id").notNull(),
    matterId: text("matter_id").notNull(),
    ready: boolean("ready").notNull(),
    reviewRequired: boolean("review_required").notNull(),
    /** the request's options (checks, consumer_debt, bankruptcy_known, appeal_stay_known) */
    options: jsonb("options").$type<Record<string, unknown>>().notNull(),
    result: jsonb("result").$type<Record<string, unknown>>().notNull(),
    validatedAt: ts("validated_at").notNull(),
    requestId: text("request_id").notNull(),
    actorId: text("actor_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("judgment_validations_judgment_idx").on(t.organizationId, t.environment, t.judgmentId, t.id),
  ],
);

/**
 * The identity of each deadline a judgment has had, so its `deadline_id` stays the same from one
 * read to the next. Date, owner and status are not stored: they are computed from the judgment,
 * its matter and the clock each time they are read, so they are never stale.
 */
export const deadlines = pgTable(
  "deadlines",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    judgmentId: text("judgment_id").notNull(),
    matterId: text("matter_id").notNull(),
    /** stable within the judgment: renewal, monitoring:<cycle>, packet:<export id> */
    key: text("key").notNull(),
    type: text("type", { enum: DEADLINE_TYPES }).notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    unique("deadlines_judgment_key_key").on(t.organizationId, t.environment, t.judgmentId, t.key),
  ],
);

/** One enforcement posture per judgment, replaced by each POST. Its review lives on the judgment's review_state. */
export const enforcementPostures = pgTable(
  "enforcement_postures",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    judgmentId: text("judgment_id").notNull(),
    matterId: text("matter_id").notNull(),
    strategy: text("strategy"),
    venues: jsonb("venues").$type<string[]>().notNull(),
    priorities: jsonb("priorities").$type<string[]>().notNull(),
    notes: text("notes"),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.judgmentId] })],
);

/**
 * Operator decisions on a matter's authority, appended, never changed: the latest is in force.
 * `clear` withdraws the operator's decision, so authority follows the judgments again.
 */
export const matterAuthorityDecisions = pgTable(
  "matter_authority_decisions",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    matterId: text("matter_id").notNull(),
    decision: text("decision", { enum: ["grant", "revoke", "clear"] }).notNull(),
    notes: text("notes"),
    decidedAt: ts("decided_at").notNull(),
    requestId: text("request_id").notNull(),
    actorId: text("actor_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("matter_authority_decisions_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    url: text("url").notNull(),
    /** current event names, or ["*"]; a former name is stored as its successor */
    enabledEvents: text("enabled_events").array().notNull(),
    status: text("status", { enum: WEBHOOK_ENDPOINT_STATUSES }).notNull(),
    /** the signing secret, encrypted with the endpoint id as associated data; null once deleted */
    signingSecretBox: text("signing_secret_box"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    /** a deleted endpoint is kept (its deliveries name it) but is unknown to every operation */
    deletedAt: ts("deleted_at"),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("webhook_endpoints_list_idx").on(t.organizationId, t.environment, t.id),
  ],
);

/**
 * The outbox and the delivery record: one row per (event, endpoint), written in the event's transaction.
 * A worker claims a row by moving it to `delivering` with a lease; an expired lease is recovered by a sweep.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    /** null: a delivery to the organization's fallback URL */
    webhookEndpointId: text("webhook_endpoint_id"),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull(),
    /** attempts started (a claim counts one, whatever its outcome) */
    attempts: integer("attempts").notNull(),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    nextAttemptAt: ts("next_attempt_at"),
    deliveredAt: ts("delivered_at"),
    /** the start of the retry window */
    firstAttemptAt: ts("first_attempt_at"),
    /** while `delivering`: when the claim lapses and the sweep may hand the delivery to another worker */
    leaseExpiresAt: ts("lease_expires_at"),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("webhook_deliveries_endpoint_idx").on(t.organizationId, t.environment, t.webhookEndpointId, t.id),
    index("webhook_deliveries_leases_idx").on(t.leaseExpiresAt).where(sql`status = 'delivering'`),
    index("webhook_deliveries_queued_idx").on(t.nextAttemptAt).where(sql`status = 'queued'`),
  ],
);

/**
 * The API's jobs: the row is the record, graphile-worker only the transport. A run claims the row
 * (`running`, attempts + 1, a lease); the outcome is written only by the run holding the current
 * attempt, so a run that was superseded (canceled, or handed to another worker after its lease lapsed)
 * records nothing.
 */
export const jobs = pgTable(
  "jobs",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    type: text("type", { enum: JOB_TYPES }).notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull(),
    input: jsonb("input").$type<Record<string, unknown>>().notNull(),
    result: jsonb("result").$type<Record<string, unknown>>(),
    /** the UTF-8 length of `result` as JSON (0 while there is none): what a list page weighs its jobs by */
    resultBytes: integer("result_bytes").notNull().default(0),
    error: jsonb("error").$type<JobError>(),
    matterId: text("matter_id"),
    /** runs started (a claim counts one, whatever its outcome); the current run's token */
    attempts: integer("attempts").notNull(),
    maxAttempts: integer("max_attempts").notNull(),
    /** while `running`: when the run's claim lapses and the recovery sweep may queue the job again */
    leaseExpiresAt: ts("lease_expires_at"),
    /** while `queued` after a failed run: when the next run is due */
    runAt: ts("run_at"),
    createdAt: ts("created_at").notNull(),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("jobs_list_idx").on(t.organizationId, t.environment, t.id),
    index("jobs_status_idx").on(t.organizationId, t.environment, t.status, t.id),
    index("jobs_leases_idx").on(t.leaseExpiresAt).where(sql`status = 'running'`),
  ],
);

/** A crypto asset map: the request as sent, its job, and the trace result once the job succeeded. */
export const assetMaps = pgTable(
  "asset_maps",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    jobId: text("job_id").notNull(),
    status: text("status", { enum: ["processing", "succeeded", "failed", "canceled"] }).notNull(),
    chain: text("chain").notNull(),
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    result: jsonb("result").$type<Record<string, unknown>>(),
    /** USD value of the map's token exposures, in cents; null until it succeeded or when no exposure has a price */
    exposureUsdCents: bigint("exposure_usd_cents", { mode: "bigint" }),
    reviewStatus: text("review_status", { enum: REVIEW_STATUSES }).notNull(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    unique("asset_maps_job_uq").on(t.organizationId, t.environment, t.jobId),
    index("asset_maps_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/** Money recorded in the ledger, in the matter's currency with two decimals (exact). */
const ledgerAmount = (name: string) => numeric(name, { precision: 15, scale: 2 });

/** Money recovered for a matter; written once, never changed. */
export const recoveryEvents = pgTable(
  "recovery_events",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    eventType: text("event_type", { enum: RECOVERY_EVENT_TYPES }).notNull(),
    asset: text("asset").notNull(),
    grossAmount: ledgerAmount("gross_amount").notNull(),
    currency: text("currency").notNull(),
    network: text("network"),
    source: text("source"),
    description: text("description"),
    packetId: text("packet_id"),
    status: text("status", { enum: ["recorded"] }).notNull(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("recovery_events_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/** Money sent on from a matter; written once, never changed. Their sum never exceeds the recovery events'. */
export const remittanceEvents = pgTable(
  "remittance_events",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    destination: text("destination"),
    asset: text("asset").notNull(),
    amount: ledgerAmount("amount").notNull(),
    currency: text("currency").notNull(),
    waterfallId: text("waterfall_id"),
    sourceRecoveryEventId: text("source_recovery_event_id"),
    status: text("status", { enum: ["recorded"] }).notNull(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("remittance_events_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/** Every waterfall calculated, as answered; the latest of a matter is its current waterfall. */
export const waterfalls = pgTable(
  "waterfalls",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    grossAmount: ledgerAmount("gross_amount").notNull(),
    platformEconomics: ledgerAmount("platform_economics").notNull(),
    currency: text("currency").notNull(),
    /** the waterfall as the API answered it (current shape) */
    result: jsonb("result").$type<Record<string, unknown>>().notNull(),
    createdAt: ts("created_at").notNull(),
    requestId: text("request_id").notNull(),
    actorId: text("actor_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("waterfalls_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/** A packet: its bound content (manifest) is fixed at assembly; status and review move on. */
export const packets = pgTable(
  "packets",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    type: text("type", { enum: PACKET_TYPES }).notNull(),
    status: text("status", { enum: PACKET_STATUSES }).notNull(),
    judgmentId: text("judgment_id"),
    recoveryEventIds: jsonb("recovery_event_ids").$type<string[]>().notNull(),
    manifest: jsonb("manifest").$type<PacketManifest>().notNull(),
    contentHash: text("content_hash").notNull(),
    reviewStatus: text("review_status", { enum: REVIEW_STATUSES }).notNull(),
    reviewOwner: text("review_owner").notNull(),
    reviewNotes: text("review_notes").notNull(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("packets_list_idx").on(t.organizationId, t.environment, t.id),
    index("packets_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/** One export of a packet: the artifact's hash and where its bytes are stored. Written once. */
export const packetExports = pgTable(
  "packet_exports",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    packetId: text("packet_id").notNull(),
    matterId: text("matter_id").notNull(),
    format: text("format", { enum: PACKET_EXPORT_FORMATS }).notNull(),
    redactionProfile: text("redaction_profile", { enum: REDACTION_PROFILES }).notNull(),
    includeChainOfCustody: boolean("include_chain_of_custody").notNull(),
    packetContentHash: text("packet_content_hash").notNull(),
    artifactSha256: text("artifact_sha256").notNull(),
    artifactBytes: integer("artifact_bytes").notNull(),
    contentType: text("content_type").notNull(),
    exportHash: text("export_hash").notNull(),
    createdAt: ts("created_at").notNull(),
    requestId: text("request_id").notNull(),
    actorId: text("actor_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("packet_exports_packet_idx").on(t.organizationId, t.environment, t.packetId, t.id),
  ],
);

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/** The default artifact store: bytes in Postgres, keyed like every tenant row. */
export const artifacts = pgTable(
  "artifacts",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    key: text("key").notNull(),
    contentType: text("content_type").notNull(),
    sha256: text("sha256").notNull(),
    bytes: bytea("bytes").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.environment, t.key] })],
);

/**
 * A 2026-06-11 action: an operator task on a matter. Its status moves only along core's path
 * (open → in_progress → completed | canceled); completion notes and evidence are set once, by complete.
 */
export const actions = pgTable(
  "actions",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    /** the claw campaign of the same matter the action belongs to, if any */
    campaignId: text("campaign_id"),
    type: text("type").notNull(),
    title: text("title").notNull(),
    ownerId: text("owner_id"),
    priority: text("priority", { enum: ACTION_PRIORITIES }).notNull(),
    status: text("status", { enum: ACTION_STATUSES }).notNull(),
    dueAt: ts("due_at"),
    linkedPacketId: text("linked_packet_id"),
    assignmentNotes: text("assignment_notes"),
    completionNotes: text("completion_notes"),
    /** the action is a review blocker on its campaign's board until it is completed or canceled */
    reviewRequired: boolean("review_required").notNull().default(false),
    evidenceRefs: jsonb("evidence_refs").$type<PacketSourceRef[]>().notNull(),
    completedAt: ts("completed_at"),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("actions_list_idx").on(t.organizationId, t.environment, t.id),
    index("actions_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/**
 * A claw campaign (2026-06-11): a matter's enforcement campaign against one of its judgments. The
 * pressure level and mode change only through the campaign's writes; the latest focus ranking and
 * expand leads are kept whole (each replaced by the next run) for the board and the operator state.
 */
export const clawCampaigns = pgTable(
  "claw_campaigns",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    judgmentId: text("judgment_id").notNull(),
    mode: text("mode", { enum: CLAW_MODES }).notNull(),
    /** 0 observe … 6 recover/distribute (core's CLAW_PRESSURE_LEVELS) */
    pressureLevel: integer("pressure_level").notNull(),
    /** why the pressure last changed, as the caller said */
    pressureReason: text("pressure_reason"),
    /** counsel's approval of the pressure at freeze/block or above; null below it */
    counselApprovalId: text("counsel_approval_id"),
    targetSet: jsonb("target_set").$type<ClawTargetSet>().notNull(),
    focus: jsonb("focus").$type<ClawFocusRun>(),
    expansion: jsonb("expansion").$type<ClawExpansion>(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("claw_campaigns_list_idx").on(t.organizationId, t.environment, t.id),
    index("claw_campaigns_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
    check("claw_campaigns_pressure_level_check", sql`${t.pressureLevel} BETWEEN 0 AND 6`),
  ],
);

/**
 * A network attribution signal (2026-06-11): an observation tying a wallet to network data. Only the
 * redacted value is kept (a raw IP address is refused before anything is written). Written once, never
 * changed; its confidence is derived from the matter's other signals on each read.
 */
export const networkAttributions = pgTable(
  "network_attributions",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    walletAddress: text("wallet_address").notNull(),
    signalType: text("signal_type", { enum: NETWORK_SIGNAL_TYPES }).notNull(),
    source: text("source").notNull(),
    legalProcessId: text("legal_process_id"),
    /** when the signal was observed (the request's `timestamp`) */
    observedAt: ts("observed_at").notNull(),
    rawValueRedacted: text("raw_value_redacted").notNull(),
    privacyRestrictions: jsonb("privacy_restrictions").$type<string[]>().notNull(),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("network_attributions_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/**
 * 2026-06-11 monitoring: a matter's watchlist of addresses on one chain, with the thresholds its alert
 * rules come from. The sweep reads each watched address from where it last stopped (`swept_to_block`).
 */
export const watchlists = pgTable(
  "watchlists",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    name: text("name").notNull(),
    chain: text("chain").notNull(),
    thresholds: jsonb("thresholds").$type<WatchlistThresholds>().notNull(),
    status: text("status", { enum: WATCHLIST_STATUSES }).notNull(),
    lastSweptAt: ts("last_swept_at"),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index("watchlists_list_idx").on(t.organizationId, t.environment, t.id),
    index("watchlists_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);

/** One address on a watchlist, why it is watched, and the last block the sweep read for it. */
export const watchlistAddresses = pgTable(
  "watchlist_addresses",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    watchlistId: text("watchlist_id").notNull(),
    /** lower case, as the chain provider compares it */
    address: text("address").notNull(),
    reason: text("reason").notNull(),
    sourceRefs: jsonb("source_refs").$type<Record<string, unknown>[]>().notNull(),
    /** the last block read for this address; null until its first sweep (which reads from genesis) */
    sweptToBlock: bigint("swept_to_block", { mode: "bigint" }),
    addedAt: ts("added_at").notNull(),
    requestId: text("request_id").notNull(),
    actorId: text("actor_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.environment, t.watchlistId, t.address] })],
);

/**
 * An alert a sweep raised. Raised once per (source, type, fact): `source_key` is the watchlist for a chain
 * fact and the matter for a case-record fact, `fact_key` names the fact (a transfer's tx hash and event
 * index with the watched address, a deadline and its phase, a sanctions hit). Sweeps insert with
 * ON CONFLICT DO NOTHING, so repeated or concurrent sweeps never raise one twice.
 */
export const alerts = pgTable(
  "alerts",
  {
    organizationId: text("organization_id").notNull(),
    environment: environment(),
    id: text("id").notNull(),
    matterId: text("matter_id").notNull(),
    watchlistId: text("watchlist_id"),
    sourceKey: text("source_key").notNull(),
    type: text("type", { enum: ALERT_TYPES }).notNull(),
    factKey: text("fact_key").notNull(),
    fact: jsonb("fact").$type<Record<string, unknown>>().notNull(),
    severity: text("severity", { enum: ALERT_SEVERITIES }).notNull(),
    status: text("status", { enum: ALERT_STATUSES }).notNull(),
    target: jsonb("target").$type<AlertTarget>().notNull(),
    reason: text("reason").notNull(),
    triageNotes: text("triage_notes"),
    triagedAt: ts("triaged_at"),
    packetId: text("packet_id"),
    actionId: text("action_id"),
    createdAt: ts("created_at").notNull(),
    ...writeStampColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    unique("alerts_fact_key").on(t.organizationId, t.environment, t.sourceKey, t.type, t.factKey),
    index("alerts_list_idx").on(t.organizationId, t.environment, t.id),
    index("alerts_matter_idx").on(t.organizationId, t.environment, t.matterId, t.id),
  ],
);
