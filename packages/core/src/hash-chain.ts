import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { canonicalize, canonicalizeWithMembers } from "./canonical-json";
import { sha256Hex } from "./hashing";

export const GENESIS_PREV_HASH = "0".repeat(64);

/** The event as it is hashed: everything except `hash` and `signature`. */
export interface UnsignedChainEvent {
  id: string;
  object: "event";
  type: string;
  created: string;
  livemode: boolean;
  api_version: string;
  data: Record<string, unknown>;
  audit_ref: string;
  sequence: number;
  prev_hash: string;
}

export interface ChainEvent extends UnsignedChainEvent {
  hash: string;
  signature: string;
}

export type ChainBreakReason =
  | "hash_mismatch"
  | "prev_hash_mismatch"
  | "sequence_gap"
  | "signature_invalid"
  | "truncated"
  | "rollback";

export interface ChainBreak {
  sequence: number;
  /** the event found at `sequence`; null when the log has none there (`truncated`, most `rollback`s) */
  event_id: string | null;
  reason: ChainBreakReason;
}

/** A point of one chain: the event at `sequence` has `hash` (sequence 0 and the genesis hash: the empty log). */
export interface ChainPoint {
  sequence: number;
  hash: string;
}

/** The head of a chain at `issued_at`, signed by the service: a client keeps it to prove the log later. */
export interface ChainCheckpoint extends ChainPoint {
  object: "chain_checkpoint";
  livemode: boolean;
  issued_at: string;
  signature: string;
}

/** hash = sha256(prev_hash + "\n" + JCS(event without hash and signature)), lowercase hex. */
export function computeEventHash(event: UnsignedChainEvent): string {
  return computeEventHashOver(event, canonicalize(event.data));
}

/** `computeEventHash` with `canonicalize(event.data)` made ahead of time, by a caller that needs it early. */
export function computeEventHashOver(event: UnsignedChainEvent, canonicalData: string): string {
  const { id, object, type, created, livemode, api_version, audit_ref, sequence, prev_hash } = event;
  const envelope = { id, object, type, created, livemode, api_version, audit_ref, sequence, prev_hash };
  return sha256Hex(`${prev_hash}\n${canonicalizeWithMembers(envelope, { data: canonicalData })}`);
}

/** Ed25519 signature over the UTF-8 bytes of the lowercase hex hash, encoded as lowercase hex. */
export function signEventHash(hash: string, privateKey: KeyObject): string {
  return sign(null, Buffer.from(hash, "utf8"), privateKey).toString("hex");
}

/** A signature as the service writes it: 64 bytes as 128 lowercase hex digits; anything else never verifies. */
export function isWellFormedSignature(signature: string): boolean {
  return /^[0-9a-f]{128}$/.test(signature);
}

export function verifyEventSignature(hash: string, signature: string, publicKey: KeyObject): boolean {
  if (!isWellFormedSignature(signature)) return false;
  return verify(null, Buffer.from(hash, "utf8"), publicKey, Buffer.from(signature, "hex"));
}

/** `options.canonicalData`: `canonicalize(event.data)`, when the caller made it ahead of time. */
export function sealEvent(
  event: UnsignedChainEvent,
  privateKey: KeyObject,
  options: { canonicalData?: string } = {},
): ChainEvent {
  const hash = computeEventHashOver(event, options.canonicalData ?? canonicalize(event.data));
  return { ...event, hash, signature: signEventHash(hash, privateKey) };
}

/**
 * What a checkpoint's signature covers: the UTF-8 bytes of JCS({object, livemode, sequence, hash, issued_at}).
 * It starts with "{", so it can never be mistaken for an event's signed input (64 hex characters).
 */
export function checkpointSigningInput(checkpoint: Omit<ChainCheckpoint, "signature">): string {
  const { object, livemode, sequence, hash, issued_at } = checkpoint;
  return canonicalize({ object, livemode, sequence, hash, issued_at });
}

export function signCheckpoint(
  checkpoint: Omit<ChainCheckpoint, "signature" | "object">,
  privateKey: KeyObject,
): ChainCheckpoint {
  const unsigned = { object: "chain_checkpoint" as const, ...checkpoint };
  const signature = sign(null, Buffer.from(checkpointSigningInput(unsigned), "utf8"), privateKey).toString("hex");
  return { ...unsigned, signature };
}

export function verifyCheckpointSignature(checkpoint: ChainCheckpoint, publicKey: KeyObject): boolean {
  if (!isWellFormedSignature(checkpoint.signature)) return false;
  const input = Buffer.from(checkpointSigningInput(checkpoint), "utf8");
  return verify(null, input, publicKey, Buffer.from(checkpoint.signature, "hex"));
}

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** An Ed25519 private key from its 32-byte seed (hex); deterministic, so it can live in config. */
export function eventSigningKeyFromSeed(seedHex: string): KeyObject {
  const seed = Buffer.from(seedHex, "hex");
  if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes (64 hex characters)");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The raw 32-byte public key, hex, as published by GET /v1/capabilities. */
export function publicKeyHex(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return publicKey.export({ format: "der", type: "spki" }).subarray(SPKI_ED25519_PREFIX.length).toString("hex");
}

export function publicKeyFromHex(hex: string): KeyObject {
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hex, "hex")]),
    format: "der",
    type: "spki",
  });
}

export interface ChainVerifierOptions {
  /**
   * A point the caller trusts (a signed checkpoint it kept): the walk starts at the event of that sequence,
   * which must still have that hash (otherwise `rollback`), and checks it and everything after it. Absent,
   * the walk starts at sequence 1.
   */
  from?: ChainPoint;
  /** A point the log must still contain (a kept checkpoint): `rollback` when it is gone or has another hash. */
  checkpoint?: ChainPoint;
}

/**
 * Verifies a chain one event at a time, in sequence order, holding only the previous link,
 * so a log of any length is checked in constant memory. `check` returns the first break, or null;
 * `finish` then compares the end of the log with what must be in it: a head the service recorded
 * beyond the end is `truncated` (at the first missing sequence), and otherwise a kept checkpoint
 * beyond the end is a `rollback` (at the checkpoint's sequence).
 */
export function createChainVerifier(publicKey: KeyObject, options: ChainVerifierOptions = {}) {
  const from = options.from && options.from.sequence > 0 ? options.from : undefined;
  const mustContain = [options.checkpoint, from].filter((p): p is ChainPoint => p !== undefined && p.sequence > 0);
  let expectedSequence = from ? from.sequence : 1;
  // Starting at a checkpoint, its own event's link backwards is not checked: the checkpoint vouches for it.
  let previousHash: string | null = from ? null : GENESIS_PREV_HASH;
  let lastHash = from ? from.hash : GENESIS_PREV_HASH;
  let checked = 0;
  return {
    /**
     * `signatureValid`, when given, is the outcome of verifyEventSignature(event.hash, event.signature, key)
     * computed elsewhere (the service checks signatures on worker threads); absent, it is computed here.
     */
    check(event: ChainEvent, signatureValid?: boolean): ChainBreak | null {
      const at = (reason: ChainBreakReason): ChainBreak => ({ sequence: event.sequence, event_id: event.id, reason });
      if (from && checked === 0 && event.sequence !== from.sequence) {
        return { sequence: from.sequence, event_id: null, reason: "rollback" };
      }
      checked++;
      if (event.sequence !== expectedSequence) return at("sequence_gap");
      if (previousHash !== null && event.prev_hash !== previousHash) return at("prev_hash_mismatch");
      if (computeEventHash(event) !== event.hash) return at("hash_mismatch");
      if (!(signatureValid ?? verifyEventSignature(event.hash, event.signature, publicKey))) {
        return at("signature_invalid");
      }
      if (mustContain.some((p) => p.sequence === event.sequence && p.hash !== event.hash)) return at("rollback");
      expectedSequence++;
      previousHash = event.hash;
      lastHash = event.hash;
      return null;
    },
    /**
     * Called once the log is exhausted without a break. `recordedHead` is the head the service recorded
     * (read before the walk, so the walk always reaches it unless events are missing).
     */
    finish(recordedHead?: ChainPoint | null): ChainBreak | null {
      const last = expectedSequence - 1;
      // The first missing event is the break: while the service's own head still counts it, the log was cut
      // short; only a head gone back too (a restored backup of the whole database) leaves the kept checkpoint.
      if (recordedHead && recordedHead.sequence > last) {
        return { sequence: last + 1, event_id: null, reason: "truncated" };
      }
      const beyond = mustContain.filter((p) => p.sequence > last).sort((a, b) => a.sequence - b.sequence)[0];
      if (beyond) return { sequence: beyond.sequence, event_id: null, reason: "rollback" };
      return null;
    },
    get eventsChecked() {
      return checked;
    },
    /** The last event verified (the starting checkpoint itself while nothing was). */
    get head(): ChainPoint {
      if (from && checked === 0) return { sequence: from.sequence, hash: from.hash };
      return { sequence: expectedSequence - 1, hash: lastHash };
    },
  };
}
