import { type KeyObject, randomUUID } from "node:crypto";
import type { EventType } from "@crs/contract";
import {
  type ChainEvent,
  canonicalize,
  type Environment,
  formatTimestamp,
  GENESIS_PREV_HASH,
  sealEvent,
  type UnsignedChainEvent,
} from "@crs/core";
import { type SQL, sql } from "drizzle-orm";
import { statementBuiltOnce, type Transaction } from "./client";
import type { events } from "./schema";
import { type WebhookOutboxValues, webhookDeliveryJobsSelect, webhookOutboxCtes } from "./webhook-outbox";

export interface NewEvent {
  organizationId: string;
  environment: Environment;
  type: EventType;
  apiVersion: string;
  auditRef: string;
  matterId: string | null;
  /**
   * As jsonb will read it back (plain JSON: jsonb keeps numbers and strings but not key order or undefined
   * members): it is hashed as given, and the hash must hold for what verify-chain reads.
   */
  data: Record<string, unknown>;
}

export interface EventSealing {
  signingKey: KeyObject;
  newEventId: () => string;
  /** a fresh `whd_` id, the base of the ids of the event's webhook deliveries */
  newDeliveryId: () => string;
  clock: () => Date;
}

const placeholder = (name: string) => sql.placeholder(name);

/** Takes the head: a no-op DO UPDATE locks the existing row like FOR UPDATE and returns it. */
const takeChainHead = statementBuiltOnce<{ head_sequence: string; head_hash: string }>(
  () => sql`
    insert into chain_heads (organization_id, environment, head_sequence, head_hash)
    values (${placeholder("organizationId")}, ${placeholder("environment")}, 0, ${GENESIS_PREV_HASH})
    on conflict (organization_id, environment) do update set head_sequence = chain_heads.head_sequence
    returning head_sequence::text as head_sequence, head_hash`,
);

/**
 * Event data from this many characters of canonical JSON on is staged before the chain head is taken
 * (`prepareEventData`). Sending and parsing it is most of an append's time once it is large: a 46 MiB
 * trace result took about 5 s that way, copying it from the stage 0.2 s (bench:jobs).
 */
const STAGE_FROM_CHARS = 256 * 1024;

/**
 * A session's stage for large event data, never seen by another session. A commit empties it; a rolled
 * back write's rows stay as dead space until the session's next staging write commits (temporary tables
 * are not vacuumed), so a connection keeps at most one failed write's worth.
 */
const createStage = sql`create temporary table if not exists event_data_stage (key text primary key, data jsonb not null)
  on commit delete rows`;
const stageData = statementBuiltOnce(
  () => sql`insert into event_data_stage (key, data) values (${placeholder("key")}, ${placeholder("data")}::jsonb)`,
);

/** An event's data made ready ahead of its append: canonical text, its UTF-8 length, and the stage key when staged. */
export interface PreparedEventData {
  canonical: string;
  /** recorded as the event's `data_bytes`, by which a list page weighs it without reading it */
  bytes: number;
  stageKey: string | null;
}

/**
 * Canonicalizes an event's data and, when it is large, sends it to the transaction's stage: a caller
 * that prepares every event of its write before the first append keeps the chain head locked only while
 * the events are hashed and written, not while megabytes cross the wire and are parsed.
 */
export async function prepareEventData(tx: Transaction, event: NewEvent): Promise<PreparedEventData> {
  const canonical = canonicalize(event.data);
  const bytes = Buffer.byteLength(canonical);
  if (canonical.length < STAGE_FROM_CHARS) return { canonical, bytes, stageKey: null };
  const stageKey = randomUUID();
  await tx.execute(createStage);
  // The canonical text is JSON too: jsonb reads the same value from it.
  await stageData(tx, { key: stageKey, data: canonical });
  return { canonical, bytes, stageKey };
}

/** Writes the event, moves the head and fills the outbox, in one round trip; its data sent, or taken from the stage. */
const writeEventSql = (data: SQL) => sql`
    with appended as (
      insert into events (organization_id, environment, sequence, id, type, created, livemode, api_version, data,
                          data_bytes, audit_ref, matter_id, prev_hash, hash, signature)
      values (${placeholder("organizationId")}, ${placeholder("environment")}, ${placeholder("sequence")},
              ${placeholder("eventId")}, ${placeholder("eventType")}, ${placeholder("at")}::timestamptz,
              ${placeholder("livemode")}, ${placeholder("apiVersion")}, ${data}, ${placeholder("dataBytes")},
              ${placeholder("auditRef")}, ${placeholder("matterId")}, ${placeholder("prevHash")},
              ${placeholder("hash")}, ${placeholder("signature")})
      returning organization_id, environment, sequence, hash
    ),
    moved as (
      update chain_heads h set head_sequence = appended.sequence, head_hash = appended.hash
        from appended
       where h.organization_id = appended.organization_id and h.environment = appended.environment
    ),
    ${webhookOutboxCtes()}
    ${webhookDeliveryJobsSelect()}`;
const writeEvent = statementBuiltOnce(() => writeEventSql(sql`${placeholder("data")}::jsonb`));
const writeStagedEvent = statementBuiltOnce(() =>
  writeEventSql(sql`(select data from event_data_stage where key = ${placeholder("stageKey")})`),
);

/**
 * Appends one event to its organization's chain inside the caller's transaction. The chain head
 * row is locked FOR UPDATE, so concurrent writers of one organization queue here and never fork
 * the chain; unique (organization, environment, sequence) is the backstop. The id and `created`
 * are taken after the lock, so along a chain they follow the sequence.
 *
 * The same statement that writes the event is the webhook outbox: it inserts a queued delivery for every
 * enabled endpoint whose filter matches (or the organization's fallback URL) and adds its job, so a
 * committed event always has its deliveries and a rolled-back one never does. Both statements are
 * rendered once and run prepared.
 *
 * `prepared` is `prepareEventData`'s for this event, made before the first append of the transaction.
 */
export async function appendEvent(
  tx: Transaction,
  event: NewEvent,
  sealing: EventSealing,
  prepared: PreparedEventData,
): Promise<ChainEvent> {
  const tenant = { organizationId: event.organizationId, environment: event.environment };
  const [head] = await takeChainHead(tx, tenant);
  if (!head) throw new Error("chain head vanished inside its own transaction");
  const created = sealing.clock();

  const unsigned: UnsignedChainEvent = {
    id: sealing.newEventId(),
    object: "event",
    type: event.type,
    created: formatTimestamp(created),
    livemode: event.environment === "live",
    api_version: event.apiVersion,
    data: event.data,
    audit_ref: event.auditRef,
    sequence: Number(head.head_sequence) + 1,
    prev_hash: head.head_hash,
  };
  const sealed = sealEvent(unsigned, sealing.signingKey, { canonicalData: prepared.canonical });
  const outbox: WebhookOutboxValues = {
    ...tenant,
    eventId: sealed.id,
    eventType: sealed.type,
    at: sealed.created,
    deliveryIdBase: sealing.newDeliveryId(),
  };
  const values = {
    ...outbox,
    sequence: sealed.sequence,
    livemode: sealed.livemode,
    apiVersion: sealed.api_version,
    dataBytes: prepared.bytes,
    auditRef: sealed.audit_ref,
    matterId: event.matterId,
    prevHash: sealed.prev_hash,
    hash: sealed.hash,
    signature: sealed.signature,
  };
  if (prepared.stageKey === null) await writeEvent(tx, { ...values, data: prepared.canonical });
  else await writeStagedEvent(tx, { ...values, stageKey: prepared.stageKey });
  return sealed;
}

export function toChainEvent(row: typeof events.$inferSelect): ChainEvent {
  return {
    id: row.id,
    object: "event",
    type: row.type,
    created: formatTimestamp(row.created),
    livemode: row.livemode,
    api_version: row.apiVersion,
    data: row.data,
    audit_ref: row.auditRef,
    sequence: row.sequence,
    prev_hash: row.prevHash,
    hash: row.hash,
    signature: row.signature,
  };
}

/**
 * An event as a raw query reads it so that nothing is reinterpreted before hashing: `created` formatted
 * by PostgreSQL (`to_char(created at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`), `data` and
 * `sequence` as text. CHAIN_EVENT_TEXT_COLUMNS is its select list over `events`.
 */
export interface ChainEventTextRow {
  id: string;
  type: string;
  created: string;
  livemode: boolean;
  api_version: string;
  data: string;
  audit_ref: string;
  sequence: string;
  prev_hash: string;
  hash: string;
  signature: string;
}

/**
 * The select list of a ChainEventTextRow from `events`, for raw readers (drizzle's `sql.raw`, postgres.js's
 * `sql.unsafe`). Its `sequence` is a text alias: order and compare by the table's qualified column.
 */
export const CHAIN_EVENT_TEXT_COLUMNS =
  `id, type, to_char(created at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created, livemode, ` +
  "api_version, data::text as data, audit_ref, sequence::text as sequence, prev_hash, hash, signature";

export function chainEventFromText(row: ChainEventTextRow): ChainEvent {
  return {
    id: row.id,
    object: "event",
    type: row.type,
    created: row.created,
    livemode: row.livemode,
    api_version: row.api_version,
    data: JSON.parse(row.data) as Record<string, unknown>,
    audit_ref: row.audit_ref,
    sequence: Number(row.sequence),
    prev_hash: row.prev_hash,
    hash: row.hash,
    signature: row.signature,
  };
}
