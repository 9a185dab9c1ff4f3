import type { KeyObject } from "node:crypto";
import {
  type ChainBreak,
  type ChainCheckpoint,
  type ChainEvent,
  type ChainPoint,
  createChainVerifier,
  type Event,
  publicKeyFromHex,
  verifyCheckpointSignature,
} from "@crs/contract";

/** The result of an offline check: verify-chain's answer without the service's request fields. */
export interface EventLogVerification {
  valid: boolean;
  events_checked: number;
  first_break: ChainBreak | null;
  head: ChainPoint;
  started_from: ChainPoint | null;
}

export interface VerifyEventLogOptions {
  /** The service's event signing key: the raw 32-byte Ed25519 key in hex, as GET /v1/capabilities publishes it. */
  publicKey: string | KeyObject;
  /** A checkpoint kept earlier: the log must still contain it (`rollback` otherwise). */
  checkpoint?: ChainCheckpoint;
  /** Start at `checkpoint` and check only its event and what came after it. */
  sinceCheckpoint?: boolean;
  /**
   * A checkpoint taken when the events were fetched (GET /v1/events/checkpoint just before the pages):
   * the head the service recorded, so a log that ends before it is `truncated`.
   */
  head?: ChainCheckpoint;
}

/** Thrown when a checkpoint handed in was not signed by the given key: nothing can be concluded from it. */
export class CheckpointSignatureError extends Error {
  constructor(readonly which: "checkpoint" | "head") {
    super(`the ${which} checkpoint's signature does not verify with this public key`);
    this.name = "CheckpointSignatureError";
  }
}

/** A `GET /v1/events` page, a single event (GET /v1/events/{id}), or an array of either. */
export type EventsInput = { object: "list"; data: readonly Event[] } | Event | readonly EventsInput[];

function flatten(input: EventsInput, into: Event[]): Event[] {
  if (Array.isArray(input)) for (const part of input as readonly EventsInput[]) flatten(part, into);
  else if ((input as { object: string }).object === "list") into.push(...(input as { data: readonly Event[] }).data);
  else into.push(input as Event);
  return into;
}

/**
 * Verifies events held outside the service against its published public key, with the rules verify-chain
 * runs and the same reasons: every hash, link and signature, a kept checkpoint (`rollback`) and a head taken
 * with the events (`truncated`). Pages may come in any order and overlap; events are put in sequence order,
 * an event present twice (same id) counting once.
 */
export function verifyEventLog(input: EventsInput, options: VerifyEventLogOptions): EventLogVerification {
  const publicKey = typeof options.publicKey === "string" ? publicKeyFromHex(options.publicKey) : options.publicKey;
  for (const which of ["checkpoint", "head"] as const) {
    const checkpoint = options[which];
    if (checkpoint && !verifyCheckpointSignature(checkpoint, publicKey)) throw new CheckpointSignatureError(which);
  }
  const kept = options.checkpoint ? { sequence: options.checkpoint.sequence, hash: options.checkpoint.hash } : null;
  const from = kept && options.sinceCheckpoint ? kept : null;
  const verifier = createChainVerifier(publicKey, { ...(kept ? { checkpoint: kept } : {}), ...(from ? { from } : {}) });

  const seen = new Set<string>();
  const events = flatten(input, [])
    .filter((event) => !seen.has(event.id) && seen.add(event.id))
    .filter((event) => !from || event.sequence >= from.sequence)
    .sort((a, b) => a.sequence - b.sequence);
  let firstBreak: ChainBreak | null = null;
  for (const event of events) {
    firstBreak = verifier.check(event as ChainEvent);
    if (firstBreak) break;
  }
  firstBreak ??= verifier.finish(options.head ? { sequence: options.head.sequence, hash: options.head.hash } : null);
  return {
    valid: firstBreak === null,
    events_checked: verifier.eventsChecked,
    first_break: firstBreak,
    head: verifier.head,
    started_from: from,
  };
}
