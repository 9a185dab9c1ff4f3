// Verifies events offline, with nothing but Node.js: every hash, every link, every signature, and the
// log's end against signed checkpoints. The same rules as GET /v1/events/verify-chain and `pnpm verify-events`
// (which uses packages/client's verifyEventLog); this file is the whole algorithm in one place to read.
//
//   node verify-events.mjs [--checkpoint kept.json [--since-checkpoint]] [--head head.json] \
//        capabilities.json events-page-1.json [events-page-2.json …]
//
// capabilities.json is the answer of GET /v1/capabilities (for the public key); each events file is a page
// of GET /v1/events (or a single event from GET /v1/events/{id}). Pages may come in any order and overlap.
// --checkpoint: a checkpoint (GET /v1/events/checkpoint) kept earlier: `rollback` unless the log still has it.
// --since-checkpoint: check only that checkpoint's event and what came after it.
// --head: a checkpoint taken when the pages were fetched: `truncated` if the pages end before it.
// Exit status 0 when everything verifies, 1 at the first break (which it names), 2 on bad usage.
import { createHash, createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

/** RFC 8785 canonical JSON: keys sorted by UTF-16 code units, no whitespace, ECMAScript number and string forms. */
const canonical = (value) => {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
};

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args.splice(at, 2)[1];
};
const flag = (name) => {
  const at = args.indexOf(name);
  if (at !== -1) args.splice(at, 1);
  return at !== -1;
};
const checkpointFile = option("--checkpoint");
const headFile = option("--head");
const sinceCheckpoint = flag("--since-checkpoint");
const [capabilitiesFile, ...eventFiles] = args;
if (!capabilitiesFile || eventFiles.length === 0 || (sinceCheckpoint && !checkpointFile)) {
  console.error(
    "usage: node verify-events.mjs [--checkpoint kept.json [--since-checkpoint]] [--head head.json] " +
      "capabilities.json events.json [more event pages…]",
  );
  process.exit(2);
}

// The raw 32-byte Ed25519 public key, in the DER wrapping Node's crypto reads.
const rawPublicKey = Buffer.from(readJson(capabilitiesFile).event_signing_key.public_key, "hex");
const publicKey = createPublicKey({
  key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), rawPublicKey]),
  format: "der",
  type: "spki",
});
const signatureValid = (message, signature) =>
  /^[0-9a-f]{128}$/.test(signature) &&
  verify(null, Buffer.from(message, "utf8"), publicKey, Buffer.from(signature, "hex"));

// A checkpoint's signature covers JCS({object, livemode, sequence, hash, issued_at}).
const readCheckpoint = (file) => {
  if (!file) return undefined;
  const { object, livemode, sequence, hash, issued_at, signature } = readJson(file);
  if (!signatureValid(canonical({ object, livemode, sequence, hash, issued_at }), signature)) {
    console.error(`${file}: the checkpoint's signature does not verify with this public key`);
    process.exit(2);
  }
  return { sequence, hash };
};
const kept = readCheckpoint(checkpointFile);
const head = readCheckpoint(headFile);
const from = sinceCheckpoint && kept.sequence > 0 ? kept : undefined;
const mustContain = kept && kept.sequence > 0 ? [kept] : [];

const seen = new Set();
const events = eventFiles
  .flatMap((file) => {
    const body = readJson(file);
    return body.object === "list" ? body.data : [body];
  })
  .filter((event) => !seen.has(event.id) && seen.add(event.id))
  .filter((event) => !from || event.sequence >= from.sequence)
  .sort((a, b) => a.sequence - b.sequence);

let checked = 0;
let last = from ? { sequence: from.sequence - 1, hash: from.hash } : { sequence: 0, hash: "0".repeat(64) };

function firstBreak() {
  for (const event of events) {
    const { hash, signature, ...signed } = event;
    if (from && checked === 0 && event.sequence !== from.sequence) return [from.sequence, null, "rollback"];
    checked++;
    const at = (reason) => [event.sequence, event.id, reason];
    // Starting at a checkpoint, its own event's backward link is vouched for by the checkpoint.
    const linkChecked = !(from && checked === 1);
    if (event.sequence !== last.sequence + 1) return at("sequence_gap");
    if (linkChecked && event.prev_hash !== last.hash) return at("prev_hash_mismatch");
    if (
      createHash("sha256")
        .update(`${event.prev_hash}\n${canonical(signed)}`)
        .digest("hex") !== hash
    ) {
      return at("hash_mismatch");
    }
    if (!signatureValid(hash, signature)) return at("signature_invalid");
    if ([...mustContain, ...(from ? [from] : [])].some((p) => p.sequence === event.sequence && p.hash !== hash)) {
      return at("rollback");
    }
    last = { sequence: event.sequence, hash };
  }
  // The end of the log: a recorded head beyond it means it was cut off; else a kept checkpoint beyond it, rolled back.
  if (head && head.sequence > last.sequence) return [last.sequence + 1, null, "truncated"];
  const gone = mustContain.find((p) => p.sequence > last.sequence);
  if (gone) return [gone.sequence, null, "rollback"];
  return undefined;
}

const broken = firstBreak();
if (broken) {
  const [sequence, eventId, reason] = broken;
  console.log(`BROKEN at sequence ${sequence} (${eventId ?? "no event"}): ${reason}`);
  process.exit(1);
}
console.log(`valid: ${checked} events checked, head ${last.sequence} ${last.hash}`);
