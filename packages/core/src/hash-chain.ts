import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { canonicalize } from "./canonical-json";
import { sha256Hex } from "./hashing";

export const GENESIS_PREV_HASH = "0".repeat(64);

/** The event as it is hashed: everything except `hash` and `signature` (DECISIONS §6). */
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

export type ChainBreakReason = "hash_mismatch" | "prev_hash_mismatch" | "sequence_gap" | "signature_invalid";

export interface ChainBreak {
  sequence: number;
  event_id: string;
  reason: ChainBreakReason;
}

/** hash = sha256(prev_hash + "\n" + JCS(event without hash and signature)), lowercase hex. */
export function computeEventHash(event: UnsignedChainEvent): string {
  const { id, object, type, created, livemode, api_version, data, audit_ref, sequence, prev_hash } = event;
  const hashed = { id, object, type, created, livemode, api_version, data, audit_ref, sequence, prev_hash };
  return sha256Hex(`${prev_hash}\n${canonicalize(hashed)}`);
}

/** Ed25519 signature over the UTF-8 bytes of the lowercase hex hash, encoded as lowercase hex. */
export function signEventHash(hash: string, privateKey: KeyObject): string {
  return sign(null, Buffer.from(hash, "utf8"), privateKey).toString("hex");
}

export function verifyEventSignature(hash: string, signature: string, publicKey: KeyObject): boolean {
  if (!/^[0-9a-f]{128}$/.test(signature)) return false;
  return verify(null, Buffer.from(hash, "utf8"), publicKey, Buffer.from(signature, "hex"));
}

export function sealEvent(event: UnsignedChainEvent, privateKey: KeyObject): ChainEvent {
  const hash = computeEventHash(event);
  return { ...event, hash, signature: signEventHash(hash, privateKey) };
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

/**
 * Verifies a chain one event at a time, in sequence order, holding only the previous link,
 * so a log of any length is checked in constant memory. Returns the first break, or null.
 */
export function createChainVerifier(publicKey: KeyObject) {
  let expectedSequence = 1;
  let previousHash = GENESIS_PREV_HASH;
  let checked = 0;
  return {
    check(event: ChainEvent): ChainBreak | null {
      checked++;
      const at = (reason: ChainBreakReason): ChainBreak => ({ sequence: event.sequence, event_id: event.id, reason });
      if (event.sequence !== expectedSequence) return at("sequence_gap");
      if (event.prev_hash !== previousHash) return at("prev_hash_mismatch");
      if (computeEventHash(event) !== event.hash) return at("hash_mismatch");
      if (!verifyEventSignature(event.hash, event.signature, publicKey)) return at("signature_invalid");
      expectedSequence++;
      previousHash = event.hash;
      return null;
    },
    get eventsChecked() {
      return checked;
    },
    get head() {
      return { sequence: expectedSequence - 1, hash: previousHash };
    },
  };
}
