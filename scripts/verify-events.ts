/**
 * Verifies a file of events without the service:
 *   pnpm verify-events --capabilities capabilities.json [--checkpoint kept.json [--since-checkpoint]]
 *                      [--head head.json] events-1.json [events-2.json …]
 * Prints the result as JSON (verify-chain's fields) and exits 0 when valid, 1 at a break, 2 on bad usage or
 * input (an unreadable file, a checkpoint the key did not sign).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CheckpointSignatureError, type EventsInput, verifyEventLog } from "@crs/client";
import { Capabilities, ChainCheckpoint } from "@crs/contract";

const HELP = `Usage: pnpm verify-events (--capabilities FILE | --public-key HEX) [options] EVENTS_FILE…

Checks every hash, link and signature of the events in the files (pages of GET /v1/events, single events
of GET /v1/events/{id}, or arrays of them; any order, overlaps allowed) against the service's published
Ed25519 key, and names the first break with verify-chain's reasons.

Options:
  --capabilities FILE   the answer of GET /v1/capabilities (its event_signing_key.public_key)
  --public-key HEX      the raw 32-byte public key in hex, instead of --capabilities
  --checkpoint FILE     a checkpoint kept earlier (GET /v1/events/checkpoint): 'rollback' unless the
                        events still contain it
  --since-checkpoint    check only the --checkpoint's event and what came after it
  --head FILE           a checkpoint taken when the events were fetched: 'truncated' if they end before it
  -h, --help            this text

Exit status: 0 valid, 1 a break (printed), 2 usage or unreadable input.`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    fail(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function readCheckpoint(path: string | undefined): ChainCheckpoint | undefined {
  if (path === undefined) return undefined;
  const parsed = ChainCheckpoint.safeParse(readJson(path));
  if (!parsed.success) fail(`${path} is not a checkpoint (GET /v1/events/checkpoint): ${parsed.error.message}`);
  return parsed.data;
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        capabilities: { type: "string" },
        "public-key": { type: "string" },
        checkpoint: { type: "string" },
        "since-checkpoint": { type: "boolean" },
        head: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    fail(`${(error as Error).message}\n\n${HELP}`);
  }
})();

if (values.help) {
  console.log(HELP);
  process.exit(0);
}
if (positionals.length === 0) fail(`no events file given\n\n${HELP}`);
if (values["since-checkpoint"] && !values.checkpoint) fail("--since-checkpoint needs --checkpoint");

let publicKey = values["public-key"];
if (values.capabilities) {
  const capabilities = Capabilities.safeParse(readJson(values.capabilities));
  if (!capabilities.success) fail(`${values.capabilities} is not the answer of GET /v1/capabilities`);
  publicKey = capabilities.data.event_signing_key.public_key;
}
if (!publicKey || !/^[0-9a-f]{64}$/.test(publicKey)) fail("give --capabilities FILE or --public-key <64 hex>");

const checkpoint = readCheckpoint(values.checkpoint);
const head = readCheckpoint(values.head);
const events = positionals.map((path) => readJson(path) as EventsInput);
try {
  const result = verifyEventLog(events, {
    publicKey,
    ...(checkpoint ? { checkpoint } : {}),
    ...(head ? { head } : {}),
    sinceCheckpoint: values["since-checkpoint"] === true,
  });
  console.log(JSON.stringify(result, null, 2));
  process.exit(result.valid ? 0 : 1);
} catch (error) {
  if (error instanceof CheckpointSignatureError) fail(error.message);
  throw error;
}
