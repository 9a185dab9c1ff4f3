/**
 * One walk of an organization's event log, run as a child of verify-chain.bench.ts so that each walk's
 * peak memory is its own process's. Modes:
 *   baseline  bare postgres.js cursor over the same rows (same query, 500 a batch), sha256 of each row's
 *             prev_hash + "\n" + data, and an Ed25519 verify of its signature, on one thread;
 *   inline    the service's verify-chain walk with every check on one thread (as before worker threads).
 * Prints one JSON line: { ms, events, rssStartMiB, peakRssMiB }.
 */
import { createHash, createPublicKey, verify } from "node:crypto";
import { eventSigningKeyFromSeed } from "@crs/core";
import { createServiceDeps, type ReadContext } from "@crs/services";
import { verifyEventChain } from "@crs/services/events/verify-event-chain";
import postgres from "postgres";
import { residentMiB } from "./resident-memory";

interface WalkFigures {
  ms: number;
  events: number;
  rssStartMiB: number;
  peakRssMiB: number;
}

const databaseUrl = () => required("BENCH_DATABASE_URL");
const organizationId = () => required("BENCH_ORGANIZATION_ID");
const secrets = () => required("BENCH_SECRETS");

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`verify-chain-walker: ${name} is not set`);
  return value;
}

async function baseline(databaseUrl: string, organizationId: string, seed: string): Promise<number> {
  const publicKey = createPublicKey(eventSigningKeyFromSeed(seed));
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let events = 0;
  try {
    const cursor = sql<{ data: string; prev_hash: string; hash: string; signature: string }[]>`
      select id, type, created, livemode, api_version, data::text as data, audit_ref, sequence::text as sequence,
             prev_hash, hash, signature
        from events where organization_id = ${organizationId} and environment = 'sandbox'
       order by events.sequence asc`.cursor(500);
    for await (const rows of cursor) {
      for (const row of rows) {
        createHash("sha256").update(`${row.prev_hash}\n${row.data}`).digest("hex");
        if (!verify(null, Buffer.from(row.hash, "utf8"), publicKey, Buffer.from(row.signature, "hex"))) {
          throw new Error(`baseline: signature of event ${events + 1} does not verify`);
        }
        events++;
      }
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return events;
}

async function inline(databaseUrl: string, organizationId: string, secrets: string): Promise<number> {
  const deps = createServiceDeps({ databaseUrl, secrets: JSON.parse(secrets), publicBaseUrl: "http://127.0.0.1" });
  const read: ReadContext = {
    ...deps,
    actor: {
      organizationId,
      environment: "sandbox",
      keyId: "bench",
      scopes: new Set(["events:read"]),
      apiVersion: "2026-07-05",
      requestId: "req_bench",
    },
  };
  try {
    const result = await verifyEventChain(
      read,
      { params: {}, query: {} },
      { parallelFromEvents: Number.POSITIVE_INFINITY },
    );
    if (!result.valid) throw new Error(`inline: the log does not verify: ${JSON.stringify(result.first_break)}`);
    return result.events_checked;
  } finally {
    await deps.close();
  }
}

const mode = process.argv[2];
const walks: Record<string, () => Promise<number>> = {
  baseline: () =>
    baseline(databaseUrl(), organizationId(), (JSON.parse(secrets()) as { eventSigningSeed: string }).eventSigningSeed),
  inline: () => inline(databaseUrl(), organizationId(), secrets()),
};
const walk = mode ? walks[mode] : undefined;
if (!walk) throw new Error(`verify-chain-walker: unknown mode ${String(mode)} (baseline | inline)`);
const rssStartMiB = residentMiB("self").rss;
const started = performance.now();
const events = await walk();
const figures: WalkFigures = {
  ms: performance.now() - started,
  events,
  rssStartMiB,
  peakRssMiB: residentMiB("self").peak,
};
console.log(JSON.stringify(figures));
