/**
 * `pnpm bench:verify-chain`: GET /v1/events/verify-chain over a long log, against a bare walk of the same rows.
 *
 * - A fresh database (createTestDatabase), dropped at the end. Two sandbox organizations are given
 *   valid, signed, chained logs written with COPY: BENCH_EVENTS events (default 100,000; the issue's
 *   figure is 1,000,000) and a tenth of that, so peak memory can be compared across sizes.
 * - ours: the real REST app in a child process (bench/bench-server.ts), one GET /v1/events/verify-chain
 *   per organization; its signatures are checked on worker threads.
 * - inline: the same service walk with every check on one thread, in a child process.
 * - baseline: a child process streaming the same rows with postgres.js (same query, 500 a batch),
 *   sha256 of each row and an Ed25519 verify of its signature, on one thread.
 * - Memory: resident set of each process before the walk and its peak (VmHWM) after it, from /proc.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { type ChainEvent, eventSigningKeyFromSeed, GENESIS_PREV_HASH, sealEvent } from "@crs/core";
import { newId } from "@crs/db";
import { createTestDatabase } from "@crs/db/testing";
import { createServiceDeps, issueSandboxKey } from "@crs/services";
import postgres from "postgres";
import { z } from "zod";
import type { BenchServerReady } from "./bench-server";
import { residentMiB } from "./resident-memory";

const Config = z.object({
  BENCH_EVENTS: z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(1_000).max(10_000_000).default(100_000),
  ),
});
const config = Config.parse(process.env);

const SERVER_SCRIPT = fileURLToPath(new URL("./bench-server.ts", import.meta.url));
const WALKER_SCRIPT = fileURLToPath(new URL("./verify-chain-walker.ts", import.meta.url));
const children = new Set<ChildProcess>();

interface Figures {
  walk: string;
  events: number;
  ms: number;
  rssStartMiB: number;
  peakRssMiB: number;
}

/** A log of `count` events shaped like the service's own (a matter in `data.object`), sealed with `seed`'s key. */
function* signedLog(count: number, seed: string): Generator<ChainEvent> {
  const key = eventSigningKeyFromSeed(seed);
  let prevHash = GENESIS_PREV_HASH;
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  for (let sequence = 1; sequence <= count; sequence++) {
    const created = new Date(start + sequence * 1_000).toISOString();
    const matterId = newId("matter");
    const event = sealEvent(
      {
        id: newId("event"),
        object: "event",
        type: "matter.updated",
        created,
        livemode: false,
        api_version: "2026-07-05",
        data: {
          object: {
            id: matterId,
            object: "matter",
            name: `Bench Holdings ${sequence} v. Doe`,
            mode: "recovery",
            status: "active",
            economics: { judgment_amount: { value: "125000.00", currency: "USD" }, contingency_rate: "0.3" },
            created: created,
            updated: created,
          },
          previous_attributes: { name: `Bench Holdings ${sequence - 1} v. Doe` },
        },
        audit_ref: newId("request"),
        sequence,
        prev_hash: prevHash,
      },
      key,
    );
    prevHash = event.hash;
    yield event;
  }
}

/** COPY text format: tab-separated, backslash escaped (JSON text carries no raw tab or newline). */
const copyField = (value: string) => value.replaceAll("\\", "\\\\");

async function seedLog(sql: postgres.Sql, organizationId: string, count: number, seed: string): Promise<void> {
  let last: ChainEvent | undefined;
  const lines = Readable.from(
    (function* () {
      for (const event of signedLog(count, seed)) {
        last = event;
        yield `${[
          organizationId,
          "sandbox",
          String(event.sequence),
          event.id,
          event.type,
          event.created,
          "f",
          event.api_version,
          copyField(JSON.stringify(event.data)),
          event.audit_ref,
          "\\N",
          event.prev_hash,
          event.hash,
          event.signature,
        ].join("\t")}\n`;
      }
    })(),
  );
  const copy = await sql`
    copy events (organization_id, environment, sequence, id, type, created, livemode, api_version, data, audit_ref,
                 matter_id, prev_hash, hash, signature) from stdin`.writable();
  await pipeline(lines, copy);
  if (!last) throw new Error("seed: no events written");
  await sql`
    insert into chain_heads (organization_id, environment, head_sequence, head_hash)
    values (${organizationId}, 'sandbox', ${last.sequence}, ${last.hash})
    on conflict (organization_id, environment) do update
      set head_sequence = excluded.head_sequence, head_hash = excluded.head_hash`;
}

function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(SERVER_SCRIPT, ["ours"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return new Promise((resolve, reject) => {
    child.once("message", (message) =>
      resolve({ url: `http://127.0.0.1:${(message as BenchServerReady).port}`, child }),
    );
    child.once("exit", (code) => reject(new Error(`ours server exited with code ${code} before it was ready`)));
  });
}

function runWalker(mode: "baseline" | "inline", env: Record<string, string>): Promise<Omit<Figures, "walk">> {
  const child = fork(WALKER_SCRIPT, [mode], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  children.add(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      children.delete(child);
      if (code !== 0) return reject(new Error(`${mode} walker exited with code ${code}`));
      resolve(JSON.parse(output.trim().split("\n").at(-1) ?? "") as Omit<Figures, "walk">);
    });
  });
}

async function verifyOverRest(
  server: { url: string; child: ChildProcess },
  key: string,
  walk: string,
): Promise<Figures> {
  const pid = server.child.pid;
  if (pid === undefined) throw new Error("ours server has no pid");
  const rssStartMiB = residentMiB(pid).rss;
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/events/verify-chain`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { valid?: boolean; events_checked?: number; first_break?: unknown };
  const ms = performance.now() - started;
  if (response.status !== 200 || body.valid !== true) {
    throw new Error(`ours: verify-chain answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return { walk, events: body.events_checked ?? 0, ms, rssStartMiB, peakRssMiB: residentMiB(pid).peak };
}

function table(rows: Figures[], baseline: Figures): string {
  const header = ["walk", "events", "seconds", "events/s", "time vs baseline", "RSS before MiB", "peak RSS MiB"];
  const body = rows.map((row) => [
    row.walk,
    row.events.toLocaleString("en-US"),
    (row.ms / 1000).toFixed(1),
    Math.round(row.events / (row.ms / 1000)).toLocaleString("en-US"),
    row.events === baseline.events ? (row.ms / baseline.ms).toFixed(2) : "",
    row.rssStartMiB.toFixed(0),
    row.peakRssMiB.toFixed(0),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => cells[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ");
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  console.log(`database: ${database.name} (fresh, dropped at the end)`);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const secrets = {
      keySigningSecret: randomBytes(32).toString("hex"),
      eventSigningSeed: randomBytes(32).toString("hex"),
      webhookSecretKey: randomBytes(32).toString("hex"),
    };
    const deps = createServiceDeps({
      databaseUrl: database.url,
      secrets,
      publicBaseUrl: "http://127.0.0.1",
      poolSize: 1,
    });
    const [small, large] = await Promise.all([issueSandboxKey(deps), issueSandboxKey(deps)]).finally(() =>
      deps.close(),
    );
    if (!small || !large) throw new Error("could not mint the bench keys");
    const sizes = [
      { key: small, count: Math.round(config.BENCH_EVENTS / 10) },
      { key: large, count: config.BENCH_EVENTS },
    ];
    let seeding = performance.now();
    for (const { key, count } of sizes) await seedLog(sql, key.organization_id, count, secrets.eventSigningSeed);
    await sql`analyze events`;
    seeding = performance.now() - seeding;
    console.log(
      `seeded: ${sizes.map(({ count }) => count.toLocaleString("en-US")).join(" and ")} signed, chained events ` +
        `with COPY in ${(seeding / 1000).toFixed(1)} s`,
    );

    const env = {
      BENCH_DATABASE_URL: database.url,
      BENCH_POOL_SIZE: "2",
      BENCH_SECRETS: JSON.stringify(secrets),
    };
    const [load1] = loadavg();
    console.log(`machine: ${availableParallelism()} CPUs, 1-min load average ${load1?.toFixed(2)} before the walks`);
    const server = await startServer(env);
    const rows: Figures[] = [];
    for (const { key, count } of sizes) {
      rows.push(await verifyOverRest(server, key.key, `ours, ${count.toLocaleString("en-US")} events`));
      console.log(`  done: ${rows.at(-1)?.walk}`);
    }
    server.child.kill("SIGTERM");
    const largeEnv = { ...env, BENCH_ORGANIZATION_ID: large.organization_id };
    rows.push({ walk: "inline (one thread)", ...(await runWalker("inline", largeEnv)) });
    console.log("  done: inline");
    const baseline: Figures = { walk: "baseline (bare, one thread)", ...(await runWalker("baseline", largeEnv)) };
    rows.push(baseline);
    console.log("  done: baseline\n");
    console.log(table(rows, baseline));
    const ours = rows[1];
    if (ours) {
      console.log(
        `\nverify-chain of ${ours.events.toLocaleString("en-US")} events: ${(ours.ms / baseline.ms).toFixed(2)}× the ` +
          `bare single-threaded walk's time (aim: ≤ 1.0). Peak RSS of the server: ${rows[0]?.peakRssMiB.toFixed(0)} MiB ` +
          `after the ${rows[0]?.events.toLocaleString("en-US")}-event walk, ${ours.peakRssMiB.toFixed(0)} MiB after ` +
          `the ${ours.events.toLocaleString("en-US")}-event walk.`,
      );
    }
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await sql.end({ timeout: 5 });
    await database.drop();
    console.log(`dropped ${database.name}`);
  }
}

await main();
