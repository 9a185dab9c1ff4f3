import type { KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalize } from "../src/canonical-json";
import {
  type ChainEvent,
  checkpointSigningInput,
  computeEventHash,
  computeEventHashOver,
  createChainVerifier,
  eventSigningKeyFromSeed,
  GENESIS_PREV_HASH,
  publicKeyFromHex,
  publicKeyHex,
  sealEvent,
  signCheckpoint,
  signEventHash,
  type UnsignedChainEvent,
  verifyCheckpointSignature,
  verifyEventSignature,
} from "../src/hash-chain";

// RFC 8032 §7.1, TEST 1.
const RFC8032_SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const RFC8032_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const RFC8032_EMPTY_MESSAGE_SIGNATURE =
  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

const signingKey = eventSigningKeyFromSeed(RFC8032_SECRET);
const verifyingKey = publicKeyFromHex(RFC8032_PUBLIC);
const otherKey = eventSigningKeyFromSeed(`${"00".repeat(31)}01`);

const FIRST_EVENT: UnsignedChainEvent = {
  id: "evt_01h00000000000000000000000",
  object: "event",
  type: "matter.created",
  created: "2026-01-15T12:00:00.000Z",
  livemode: false,
  api_version: "2026-01-01",
  data: {
    object: {
      status: "active",
      id: "matter_01h00000000000000000000002",
      caption: "Acme v. \u00d1o\u00f1o \u20ac",
      amount: 1250.5,
    },
  },
  audit_ref: "req_01h00000000000000000000001",
  sequence: 1,
  prev_hash: GENESIS_PREV_HASH,
};

// Written out by hand: keys sorted, no whitespace, non-ASCII left literal.
const FIRST_EVENT_CANONICAL =
  '{"api_version":"2026-01-01","audit_ref":"req_01h00000000000000000000001","created":"2026-01-15T12:00:00.000Z",' +
  '"data":{"object":{"amount":1250.5,"caption":"Acme v. \u00d1o\u00f1o \u20ac","id":"matter_01h00000000000000000000002","status":"active"}},' +
  '"id":"evt_01h00000000000000000000000","livemode":false,"object":"event",' +
  '"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","sequence":1,"type":"matter.created"}';

// Computed once, independently of src/, with node:crypto:
//   createHash("sha256").update("0".repeat(64) + "\n" + FIRST_EVENT_CANONICAL, "utf8").digest("hex")
const FIRST_EVENT_HASH = "851f07601f82779d807fb1a4970976064006baf0cb3cb0920517f75ee3723653";
// Computed once with crypto.sign(null, Buffer.from(FIRST_EVENT_HASH, "utf8"), <RFC 8032 TEST 1 key imported as JWK>).
const FIRST_EVENT_SIGNATURE =
  "1d92076d6c0e83fbf4ba4b650227a392dd921165a0171a14410bb8a98472ba37d9ff19e34adc8735b7f0bf01295e43f14cff268e5acc6086e557b2c906af160f";

/** The hex string with the lowest bit of its first byte flipped. */
function flipFirstBit(hex: string): string {
  const bytes = Buffer.from(hex, "hex");
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return bytes.toString("hex");
}

function unsignedEvent(sequence: number, prevHash: string): UnsignedChainEvent {
  return {
    id: `evt_01h0000000000000000000000${sequence}`,
    object: "event",
    type: "matter.updated",
    created: `2026-01-15T12:00:0${sequence}.000Z`,
    livemode: false,
    api_version: "2026-01-01",
    data: { object: { id: "matter_01h00000000000000000000002", revision: sequence } },
    audit_ref: `req_01h0000000000000000000000${sequence}`,
    sequence,
    prev_hash: prevHash,
  };
}

/** Five correctly sealed, correctly linked events, sequences 1..5. */
function buildChain(length = 5, key: KeyObject = signingKey): ChainEvent[] {
  const events: ChainEvent[] = [];
  let prev = GENESIS_PREV_HASH;
  for (let sequence = 1; sequence <= length; sequence++) {
    const event = sealEvent(unsignedEvent(sequence, prev), key);
    events.push(event);
    prev = event.hash;
  }
  return events;
}

function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`no item at ${index}`);
  return item;
}

/** Runs every event through a fresh verifier and returns each check result. */
function verifyAll(events: readonly ChainEvent[], key: KeyObject = verifyingKey) {
  const verifier = createChainVerifier(key);
  const results = events.map((event) => verifier.check(event));
  return { verifier, results };
}

describe("Ed25519 keys", () => {
  it("derives the RFC 8032 TEST 1 public key from its secret seed", () => {
    expect(publicKeyHex(signingKey)).toBe(RFC8032_PUBLIC);
  });

  it("signs the empty message with the RFC 8032 TEST 1 signature", () => {
    expect(signEventHash("", signingKey)).toBe(RFC8032_EMPTY_MESSAGE_SIGNATURE);
    expect(verifyEventSignature("", RFC8032_EMPTY_MESSAGE_SIGNATURE, verifyingKey)).toBe(true);
  });

  it("round-trips a public key through publicKeyHex and publicKeyFromHex", () => {
    const hex = publicKeyHex(otherKey);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(hex).not.toBe(RFC8032_PUBLIC);
    const restored = publicKeyFromHex(hex);
    expect(restored.type).toBe("public");
    expect(publicKeyHex(restored)).toBe(hex);
    const signature = signEventHash(FIRST_EVENT_HASH, otherKey);
    expect(verifyEventSignature(FIRST_EVENT_HASH, signature, restored)).toBe(true);
  });

  it("rejects a seed that is not 32 bytes", () => {
    expect(() => eventSigningKeyFromSeed("00".repeat(31))).toThrow(RangeError);
    expect(() => eventSigningKeyFromSeed("00".repeat(33))).toThrow(RangeError);
    expect(() => eventSigningKeyFromSeed("")).toThrow(RangeError);
  });
});

describe("event hash: golden vector", () => {
  it("hashes exactly the documented fields, in RFC 8785 canonical form", () => {
    const { hash, signature, ...withoutHashAndSignature } = sealEvent(FIRST_EVENT, signingKey);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    expect(canonicalize(withoutHashAndSignature)).toBe(FIRST_EVENT_CANONICAL);
  });

  it('computes the golden hash sha256(prev_hash + "\\n" + JCS(event))', () => {
    expect(computeEventHash(FIRST_EVENT)).toBe(FIRST_EVENT_HASH);
  });

  it("gives the golden hash from data canonicalized ahead of time, and seals with it", () => {
    const canonicalData = canonicalize(FIRST_EVENT.data);
    expect(computeEventHashOver(FIRST_EVENT, canonicalData)).toBe(FIRST_EVENT_HASH);
    expect(sealEvent(FIRST_EVENT, signingKey, { canonicalData })).toEqual(sealEvent(FIRST_EVENT, signingKey));
    // The text given is what is hashed: other data, another hash.
    expect(computeEventHashOver(FIRST_EVENT, canonicalize({ ...FIRST_EVENT.data, extra: 1 }))).not.toBe(
      FIRST_EVENT_HASH,
    );
  });

  it("ignores hash, signature and any unknown extra field when hashing", () => {
    const sealed = sealEvent(FIRST_EVENT, signingKey);
    expect(computeEventHash(sealed)).toBe(FIRST_EVENT_HASH);
    const withExtra = { ...FIRST_EVENT, hash: "x", signature: "y", delivered_at: "2026-01-16T00:00:00.000Z" };
    expect(computeEventHash(withExtra)).toBe(FIRST_EVENT_HASH);
  });

  it("changes the hash when any hashed field changes", () => {
    const variants: UnsignedChainEvent[] = [
      { ...FIRST_EVENT, id: "evt_01h00000000000000000000009" },
      { ...FIRST_EVENT, type: "matter.updated" },
      { ...FIRST_EVENT, created: "2026-01-15T12:00:00.001Z" },
      { ...FIRST_EVENT, livemode: true },
      { ...FIRST_EVENT, api_version: "2026-01-02" },
      { ...FIRST_EVENT, data: { object: { amount: 1250.51 } } },
      { ...FIRST_EVENT, audit_ref: "req_01h00000000000000000000009" },
      { ...FIRST_EVENT, sequence: 2 },
      { ...FIRST_EVENT, prev_hash: "1".repeat(64) },
    ];
    const hashes = new Set(variants.map(computeEventHash));
    expect(hashes.size).toBe(variants.length);
    expect(hashes.has(FIRST_EVENT_HASH)).toBe(false);
  });

  it("does not depend on the key order of data", () => {
    const reordered: UnsignedChainEvent = {
      ...FIRST_EVENT,
      data: {
        object: {
          amount: 1250.5,
          caption: "Acme v. \u00d1o\u00f1o \u20ac",
          id: "matter_01h00000000000000000000002",
          status: "active",
        },
      },
    };
    expect(computeEventHash(reordered)).toBe(FIRST_EVENT_HASH);
  });
});

describe("event signature: golden vector", () => {
  it("produces the golden deterministic Ed25519 signature over the hex hash", () => {
    expect(signEventHash(FIRST_EVENT_HASH, signingKey)).toBe(FIRST_EVENT_SIGNATURE);
  });

  it("seals an event with the golden hash and signature", () => {
    const sealed = sealEvent(FIRST_EVENT, signingKey);
    expect(sealed.hash).toBe(FIRST_EVENT_HASH);
    expect(sealed.signature).toBe(FIRST_EVENT_SIGNATURE);
    expect(sealed.data).toEqual(FIRST_EVENT.data);
    expect(sealed.sequence).toBe(1);
  });

  it("accepts the golden signature", () => {
    expect(verifyEventSignature(FIRST_EVENT_HASH, FIRST_EVENT_SIGNATURE, verifyingKey)).toBe(true);
  });

  it("rejects the golden signature with one bit flipped", () => {
    expect(verifyEventSignature(FIRST_EVENT_HASH, flipFirstBit(FIRST_EVENT_SIGNATURE), verifyingKey)).toBe(false);
  });

  it("rejects the golden signature for a different hash", () => {
    expect(verifyEventSignature(flipFirstBit(FIRST_EVENT_HASH), FIRST_EVENT_SIGNATURE, verifyingKey)).toBe(false);
  });

  it("rejects the golden signature under another public key", () => {
    expect(
      verifyEventSignature(FIRST_EVENT_HASH, FIRST_EVENT_SIGNATURE, publicKeyFromHex(publicKeyHex(otherKey))),
    ).toBe(false);
  });

  it("rejects signatures that are not 128 lowercase hex characters", () => {
    expect(verifyEventSignature(FIRST_EVENT_HASH, FIRST_EVENT_SIGNATURE.toUpperCase(), verifyingKey)).toBe(false);
    expect(verifyEventSignature(FIRST_EVENT_HASH, FIRST_EVENT_SIGNATURE.slice(2), verifyingKey)).toBe(false);
    expect(verifyEventSignature(FIRST_EVENT_HASH, `${FIRST_EVENT_SIGNATURE}00`, verifyingKey)).toBe(false);
    expect(verifyEventSignature(FIRST_EVENT_HASH, "", verifyingKey)).toBe(false);
  });
});

describe("createChainVerifier", () => {
  it("starts at the genesis head with nothing checked", () => {
    const verifier = createChainVerifier(verifyingKey);
    expect(verifier.eventsChecked).toBe(0);
    expect(verifier.head).toEqual({ sequence: 0, hash: GENESIS_PREV_HASH });
  });

  it("accepts a valid chain, counting every event and ending at its last hash", () => {
    const events = buildChain();
    const { verifier, results } = verifyAll(events);
    expect(results).toEqual([null, null, null, null, null]);
    expect(verifier.eventsChecked).toBe(5);
    expect(verifier.head).toEqual({ sequence: 5, hash: at(events, 4).hash });
  });

  it("accepts a chain whose first event is the golden vector", () => {
    const first = sealEvent(FIRST_EVENT, signingKey);
    const second = sealEvent(unsignedEvent(2, first.hash), signingKey);
    const { verifier, results } = verifyAll([first, second]);
    expect(results).toEqual([null, null]);
    expect(verifier.head).toEqual({ sequence: 2, hash: second.hash });
  });

  it("detects a sequence gap at the exact sequence", () => {
    // Sequences 1, 2, 4, 5, 6: correctly linked and signed, only the numbering skips 3.
    const events: ChainEvent[] = [];
    let prev = GENESIS_PREV_HASH;
    for (const sequence of [1, 2, 4, 5, 6]) {
      const event = sealEvent(unsignedEvent(sequence, prev), signingKey);
      events.push(event);
      prev = event.hash;
    }
    const { verifier, results } = verifyAll(events);
    expect(results[0]).toBeNull();
    expect(results[1]).toBeNull();
    expect(results[2]).toEqual({ sequence: 4, event_id: at(events, 2).id, reason: "sequence_gap" });
    expect(verifier.head).toEqual({ sequence: 2, hash: at(events, 1).hash });
  });

  it("detects a sequence gap when the chain does not start at sequence 1", () => {
    const events = buildChain().slice(1);
    const { results } = verifyAll(events);
    expect(results[0]).toEqual({ sequence: 2, event_id: at(events, 0).id, reason: "sequence_gap" });
  });

  it("detects reordered events as a sequence gap at the first out-of-place event", () => {
    const chain = buildChain();
    const events = [at(chain, 0), at(chain, 2), at(chain, 1), at(chain, 3), at(chain, 4)];
    const { results } = verifyAll(events);
    expect(results[0]).toBeNull();
    expect(results[1]).toEqual({ sequence: 3, event_id: at(chain, 2).id, reason: "sequence_gap" });
  });

  it("detects a wrong prev_hash at the exact sequence", () => {
    const events = buildChain();
    // Event 3 is re-sealed (valid hash and signature) but links to event 1 instead of event 2.
    events[2] = sealEvent(unsignedEvent(3, at(events, 0).hash), signingKey);
    const { verifier, results } = verifyAll(events);
    expect(results.slice(0, 2)).toEqual([null, null]);
    expect(results[2]).toEqual({ sequence: 3, event_id: at(events, 2).id, reason: "prev_hash_mismatch" });
    expect(verifier.head).toEqual({ sequence: 2, hash: at(events, 1).hash });
  });

  it("detects a genesis event whose prev_hash is not all zeros", () => {
    const events = buildChain(1);
    events[0] = sealEvent(unsignedEvent(1, "f".repeat(64)), signingKey);
    const { results } = verifyAll(events);
    expect(results[0]).toEqual({ sequence: 1, event_id: at(events, 0).id, reason: "prev_hash_mismatch" });
  });

  it("detects data altered after sealing as a hash mismatch at the exact sequence", () => {
    const events = buildChain();
    const sealed = at(events, 3);
    events[3] = { ...sealed, data: { object: { id: "matter_01h00000000000000000000002", revision: 999 } } };
    const { verifier, results } = verifyAll(events);
    expect(results.slice(0, 3)).toEqual([null, null, null]);
    expect(results[3]).toEqual({ sequence: 4, event_id: sealed.id, reason: "hash_mismatch" });
    expect(verifier.head).toEqual({ sequence: 3, hash: at(events, 2).hash });
  });

  it("detects a replaced hash value as a hash mismatch", () => {
    const events = buildChain();
    const sealed = at(events, 1);
    const forgedHash = flipFirstBit(sealed.hash);
    events[1] = { ...sealed, hash: forgedHash, signature: signEventHash(forgedHash, signingKey) };
    const { results } = verifyAll(events);
    expect(results[1]).toEqual({ sequence: 2, event_id: sealed.id, reason: "hash_mismatch" });
  });

  it("detects a signature from another key at the exact sequence", () => {
    const events = buildChain();
    events[1] = sealEvent(unsignedEvent(2, at(events, 0).hash), otherKey);
    // Same hash as before, so the rest of the chain still links.
    expect(at(events, 1).hash).toBe(at(events, 2).prev_hash);
    const { verifier, results } = verifyAll(events);
    expect(results[0]).toBeNull();
    expect(results[1]).toEqual({ sequence: 2, event_id: at(events, 1).id, reason: "signature_invalid" });
    expect(verifier.head).toEqual({ sequence: 1, hash: at(events, 0).hash });
  });

  it("detects an altered signature at the exact sequence", () => {
    const events = buildChain();
    const sealed = at(events, 4);
    events[4] = { ...sealed, signature: flipFirstBit(sealed.signature) };
    const { verifier, results } = verifyAll(events);
    expect(results.slice(0, 4)).toEqual([null, null, null, null]);
    expect(results[4]).toEqual({ sequence: 5, event_id: sealed.id, reason: "signature_invalid" });
    expect(verifier.eventsChecked).toBe(5);
    expect(verifier.head).toEqual({ sequence: 4, hash: at(events, 3).hash });
  });

  it("rejects a whole valid chain when verified with the wrong public key", () => {
    const events = buildChain();
    const { results } = verifyAll(events, publicKeyFromHex(publicKeyHex(otherKey)));
    expect(results[0]).toEqual({ sequence: 1, event_id: at(events, 0).id, reason: "signature_invalid" });
  });
});

/** Checks events until the first break, then the end of the log against the recorded head. */
function walk(events: readonly ChainEvent[], options: Parameters<typeof createChainVerifier>[1], head?: ChainEvent) {
  const verifier = createChainVerifier(verifyingKey, options);
  for (const event of events) {
    const found = verifier.check(event);
    if (found) return { verifier, found };
  }
  return { verifier, found: verifier.finish(head ? { sequence: head.sequence, hash: head.hash } : null) };
}

describe("the end of the log and checkpoints", () => {
  const chain = buildChain();
  const point = (index: number) => ({ sequence: at(chain, index).sequence, hash: at(chain, index).hash });

  it("signs a checkpoint over its canonical form, and refuses any changed field or another key", () => {
    const checkpoint = signCheckpoint(
      { livemode: false, sequence: 5, hash: at(chain, 4).hash, issued_at: "2026-01-15T12:00:09.000Z" },
      signingKey,
    );
    expect(checkpointSigningInput(checkpoint)).toBe(
      `{"hash":"${at(chain, 4).hash}","issued_at":"2026-01-15T12:00:09.000Z","livemode":false,"object":"chain_checkpoint","sequence":5}`,
    );
    expect(verifyCheckpointSignature(checkpoint, verifyingKey)).toBe(true);
    expect(verifyCheckpointSignature({ ...checkpoint, hash: at(chain, 3).hash }, verifyingKey)).toBe(false);
    expect(
      verifyCheckpointSignature({ ...checkpoint, signature: flipFirstBit(checkpoint.signature) }, verifyingKey),
    ).toBe(false);
    expect(verifyCheckpointSignature(signCheckpoint(checkpoint, otherKey), verifyingKey)).toBe(false);
    // An event signature is over 64 hex characters, a checkpoint's over JSON: one never passes for the other.
    expect(verifyCheckpointSignature({ ...checkpoint, signature: at(chain, 4).signature }, verifyingKey)).toBe(false);
  });

  it("reports truncated at the first missing sequence when the log ends before the recorded head", () => {
    expect(walk(chain.slice(0, 3), {}, at(chain, 4)).found).toEqual({
      sequence: 4,
      event_id: null,
      reason: "truncated",
    });
    expect(walk([], {}, at(chain, 4)).found).toEqual({ sequence: 1, event_id: null, reason: "truncated" });
    expect(walk(chain, {}, at(chain, 4)).found).toBeNull();
    // Events appended after the head was read are checked like the rest.
    expect(walk(chain, {}, at(chain, 2)).found).toBeNull();
  });

  it("reports rollback when a kept checkpoint is beyond the end, or another event holds its sequence", () => {
    expect(walk(chain.slice(0, 3), { checkpoint: point(4) }).found).toEqual({
      sequence: 5,
      event_id: null,
      reason: "rollback",
    });
    const fork = sealEvent({ ...unsignedEvent(4, at(chain, 2).hash), data: { forked: true } }, signingKey);
    expect(walk([...chain.slice(0, 3), fork], { checkpoint: point(3) }).found).toEqual({
      sequence: 4,
      event_id: fork.id,
      reason: "rollback",
    });
    // Cut short while the recorded head still counts the missing events: truncated, the first missing one.
    expect(walk(chain.slice(0, 3), { checkpoint: point(4) }, at(chain, 4)).found).toMatchObject({
      sequence: 4,
      reason: "truncated",
    });
    expect(walk(chain, { checkpoint: point(2) }).found).toBeNull();
  });

  it("starts from a checkpoint, checking its event and what follows", () => {
    const { verifier, found } = walk(chain.slice(2), { from: point(2), checkpoint: point(2) });
    expect(found).toBeNull();
    expect(verifier.eventsChecked).toBe(3);
    expect(verifier.head).toEqual(point(4));
    const edited = [...chain];
    edited[2] = { ...at(chain, 2), data: { edited: true } };
    expect(walk(edited.slice(2), { from: point(2) }).found).toMatchObject({ sequence: 3, reason: "hash_mismatch" });
    // The checkpoint's event is gone: rollback at its sequence.
    expect(walk(chain.slice(3), { from: point(2) }).found).toEqual({ sequence: 3, event_id: null, reason: "rollback" });
    expect(walk([], { from: point(2) }).found).toEqual({ sequence: 3, event_id: null, reason: "rollback" });
  });
});
