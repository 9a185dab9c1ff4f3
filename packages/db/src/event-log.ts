import {
  type ChainEvent,
  type Environment,
  formatTimestamp,
  GENESIS_PREV_HASH,
  sealEvent,
  type UnsignedChainEvent,
} from "@crs/core";
import { and, eq } from "drizzle-orm";
import type { KeyObject } from "node:crypto";
import type { Transaction } from "./client";
import { chainHeads, events } from "./schema";

export interface NewEvent {
  organizationId: string;
  environment: Environment;
  type: string;
  apiVersion: string;
  auditRef: string;
  matterId: string | null;
  data: Record<string, unknown>;
}

export interface EventSealing {
  signingKey: KeyObject;
  newEventId: () => string;
  clock: () => Date;
}

/**
 * Appends one event to its organization's chain inside the caller's transaction. The chain head
 * row is locked FOR UPDATE, so concurrent writers of one organization queue here and never fork
 * the chain; unique (organization, environment, sequence) is the backstop. The id and `created`
 * are taken after the lock, so along a chain they follow the sequence.
 */
export async function appendEvent(tx: Transaction, event: NewEvent, sealing: EventSealing): Promise<ChainEvent> {
  await tx
    .insert(chainHeads)
    .values({
      organizationId: event.organizationId,
      environment: event.environment,
      headSequence: 0,
      headHash: GENESIS_PREV_HASH,
    })
    .onConflictDoNothing();
  const [head] = await tx
    .select()
    .from(chainHeads)
    .where(and(eq(chainHeads.organizationId, event.organizationId), eq(chainHeads.environment, event.environment)))
    .for("update");
  if (!head) throw new Error("chain head vanished inside its own transaction");
  const created = sealing.clock();

  // jsonb keeps numbers and strings but not key order or undefined members; hash what will be read back.
  const data = JSON.parse(JSON.stringify(event.data)) as Record<string, unknown>;
  const unsigned: UnsignedChainEvent = {
    id: sealing.newEventId(),
    object: "event",
    type: event.type,
    created: formatTimestamp(created),
    livemode: event.environment === "live",
    api_version: event.apiVersion,
    data,
    audit_ref: event.auditRef,
    sequence: head.headSequence + 1,
    prev_hash: head.headHash,
  };
  const sealed = sealEvent(unsigned, sealing.signingKey);
  await tx.insert(events).values({
    organizationId: event.organizationId,
    environment: event.environment,
    sequence: sealed.sequence,
    id: sealed.id,
    type: sealed.type,
    created,
    livemode: sealed.livemode,
    apiVersion: sealed.api_version,
    data: sealed.data,
    auditRef: sealed.audit_ref,
    matterId: event.matterId,
    prevHash: sealed.prev_hash,
    hash: sealed.hash,
    signature: sealed.signature,
  });
  await tx
    .update(chainHeads)
    .set({ headSequence: sealed.sequence, headHash: sealed.hash })
    .where(and(eq(chainHeads.organizationId, event.organizationId), eq(chainHeads.environment, event.environment)));
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
