import type { KeyObject } from "node:crypto";
import type { EventType } from "@crs/contract";
import {
  type ChainEvent,
  type Environment,
  formatTimestamp,
  GENESIS_PREV_HASH,
  sealEvent,
  type UnsignedChainEvent,
} from "@crs/core";
import { sql } from "drizzle-orm";
import { executePrepared, type Transaction } from "./client";
import { chainHeads, type events } from "./schema";
import { webhookDeliveryJobsSelect, webhookOutboxCtes } from "./webhook-outbox";

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

/**
 * Appends one event to its organization's chain inside the caller's transaction. The chain head
 * row is locked FOR UPDATE, so concurrent writers of one organization queue here and never fork
 * the chain; unique (organization, environment, sequence) is the backstop. The id and `created`
 * are taken after the lock, so along a chain they follow the sequence.
 *
 * The same statement that writes the event is the webhook outbox: it inserts a queued delivery for every
 * enabled endpoint whose filter matches (or the organization's fallback URL) and adds its job, so a
 * committed event always has its deliveries and a rolled-back one never does.
 */
export async function appendEvent(tx: Transaction, event: NewEvent, sealing: EventSealing): Promise<ChainEvent> {
  // One statement takes the head: a no-op DO UPDATE locks the existing row like FOR UPDATE and returns it.
  const [head] = await tx
    .insert(chainHeads)
    .values({
      organizationId: event.organizationId,
      environment: event.environment,
      headSequence: 0,
      headHash: GENESIS_PREV_HASH,
    })
    .onConflictDoUpdate({
      target: [chainHeads.organizationId, chainHeads.environment],
      set: { headSequence: sql`${chainHeads.headSequence}` },
    })
    .returning({ headSequence: chainHeads.headSequence, headHash: chainHeads.headHash });
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
    sequence: head.headSequence + 1,
    prev_hash: head.headHash,
  };
  const sealed = sealEvent(unsigned, sealing.signingKey);
  // And one more writes the event, moves the head and fills the outbox, so the lock is held for as few round
  // trips as possible and a write with no webhook endpoints pays one indexed lookup for them.
  const outbox = {
    organizationId: event.organizationId,
    environment: event.environment,
    eventId: sealed.id,
    eventType: sealed.type,
    now: created,
    deliveryIdBase: sealing.newDeliveryId(),
  };
  await executePrepared(
    tx,
    sql`
    with appended as (
      insert into events (organization_id, environment, sequence, id, type, created, livemode, api_version, data,
                          audit_ref, matter_id, prev_hash, hash, signature)
      values (${event.organizationId}, ${event.environment}, ${sealed.sequence}, ${sealed.id}, ${sealed.type},
              ${created.toISOString()}::timestamptz, ${sealed.livemode}, ${sealed.api_version},
              ${JSON.stringify(sealed.data)}::jsonb, ${sealed.audit_ref}, ${event.matterId}, ${sealed.prev_hash},
              ${sealed.hash}, ${sealed.signature})
      returning organization_id, environment, sequence, hash
    ),
    moved as (
      update chain_heads h set head_sequence = appended.sequence, head_hash = appended.hash
        from appended
       where h.organization_id = appended.organization_id and h.environment = appended.environment
    ),
    ${webhookOutboxCtes(outbox)}
    ${webhookDeliveryJobsSelect()}`,
  );
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
