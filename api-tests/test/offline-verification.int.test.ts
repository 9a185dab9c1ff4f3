import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { verifyEventLog } from "@crs/client";
import { Capabilities, ChainCheckpoint, ChainVerification, type Event, VerifyChainQuery } from "@crs/contract";
import { eventSigningKeyFromSeed, sealEvent } from "@crs/core";
import type { ReadContext } from "@crs/services";
import { signaturePoolsOpen } from "@crs/services/events/signature-pool";
import { verifyEventChain } from "@crs/services/events/verify-event-chain";
import type postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { createMatter, EventList } from "./support/fixtures";
import { type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp();
const ROOT = resolve(import.meta.dirname, "../..");
const workDir = mkdtempSync(join(tmpdir(), "verify-events-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function getJson(owner: TestKey, path: string): Promise<unknown> {
  const response = await app().request("GET", path, { key: owner.key });
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return response.json;
}

/** Every page of GET /v1/events as the API returns it, newest first, two events a page. */
async function eventPages(owner: TestKey) {
  const pages: (typeof EventList._output)[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = EventList.parse(
      await getJson(owner, `/v1/events?limit=2${cursor ? `&starting_after=${cursor}` : ""}`),
    );
    pages.push(page);
    if (!page.has_more) return pages;
    cursor = page.data.at(-1)?.id;
  }
}

/** What the service gives a verify-chain request by this key. */
function readContextOf(owner: TestKey): ReadContext {
  return {
    ...app().deps,
    actor: {
      organizationId: owner.organizationId,
      environment: owner.environment,
      keyId: owner.keyId,
      scopes: new Set(["events:read"]),
      apiVersion: "2026-07-05",
      requestId: "req_threaded_walk",
    },
  };
}

async function tamper(edit: (sql: postgres.TransactionSql) => Promise<unknown>): Promise<void> {
  await app().sql.begin(async (tx) => {
    await tx`alter table events disable trigger events_append_only`;
    await edit(tx);
    await tx`alter table events enable trigger events_append_only`;
  });
}

interface Row {
  sequence: number;
  id: string;
  hash: string;
}

type Tampering = (owner: TestKey, rows: Row[]) => Promise<void>;

/** Each way of changing the log behind the service's back, and the break it must produce (sequence, event). */
const KINDS: [string, Tampering, (rows: Row[]) => { sequence: number; event_id: string | null; reason: string }][] = [
  [
    "edit",
    (owner) =>
      tamper(
        (tx) => tx`update events set data = jsonb_set(data, '{object,name}', '"Edited"')
                    where organization_id = ${owner.organizationId} and sequence = 2`,
      ),
    (rows) => ({ sequence: 2, event_id: rows[1]?.id ?? "", reason: "hash_mismatch" }),
  ],
  [
    "delete",
    (owner) => tamper((tx) => tx`delete from events where organization_id = ${owner.organizationId} and sequence = 3`),
    (rows) => ({ sequence: 4, event_id: rows[3]?.id ?? "", reason: "sequence_gap" }),
  ],
  [
    "reorder",
    (owner) =>
      tamper(async (tx) => {
        const org = owner.organizationId;
        await tx`update events set sequence = 1000 where organization_id = ${org} and sequence = 2`;
        await tx`update events set sequence = 2 where organization_id = ${org} and sequence = 3`;
        await tx`update events set sequence = 3 where organization_id = ${org} and sequence = 1000`;
      }),
    (rows) => ({ sequence: 2, event_id: rows[2]?.id ?? "", reason: "prev_hash_mismatch" }),
  ],
  [
    "insert",
    // A forger shifts events 4 and 5 up and inserts a well-linked, correctly hashed event 4 signed by another key.
    (owner, rows) =>
      tamper(async (tx) => {
        const org = owner.organizationId;
        await tx`update events set sequence = 6 where organization_id = ${org} and sequence = 5`;
        await tx`update events set sequence = 5 where organization_id = ${org} and sequence = 4`;
        const forged = sealEvent(
          {
            id: "evt_0000000000000000000000f0rg",
            object: "event",
            type: "matter.closed",
            created: "2026-01-01T00:00:00.000Z",
            livemode: false,
            api_version: "2026-07-05",
            data: { matter_id: "matter_00000000000000000000000000", status: "closed" },
            audit_ref: "req_00000000000000000000000000",
            sequence: 4,
            prev_hash: rows[2]?.hash ?? "",
          },
          eventSigningKeyFromSeed("ab".repeat(32)),
        );
        await tx`
          insert into events (organization_id, environment, sequence, id, type, created, livemode, api_version, data,
                              audit_ref, matter_id, prev_hash, hash, signature)
          values (${org}, 'sandbox', 4, ${forged.id}, ${forged.type}, ${forged.created}, false, ${forged.api_version},
                  ${tx.json(forged.data as postgres.JSONValue)}, ${forged.audit_ref}, null, ${forged.prev_hash},
                  ${forged.hash}, ${forged.signature})`;
      }),
    () => ({ sequence: 4, event_id: "evt_0000000000000000000000f0rg", reason: "signature_invalid" }),
  ],
  [
    "truncate",
    (owner) => tamper((tx) => tx`delete from events where organization_id = ${owner.organizationId} and sequence >= 4`),
    () => ({ sequence: 4, event_id: null, reason: "truncated" }),
  ],
  [
    "rollback",
    // The whole database back to when the log had three events: the events and the head row.
    (owner, rows) =>
      tamper(async (tx) => {
        const org = owner.organizationId;
        await tx`delete from events where organization_id = ${org} and sequence >= 4`;
        await tx`update chain_heads set head_sequence = 3, head_hash = ${rows[2]?.hash ?? ""} where organization_id = ${org}`;
      }),
    () => ({ sequence: 5, event_id: null, reason: "rollback" }),
  ],
];

function run(command: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, command, { cwd: ROOT, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("verify-chain on worker threads", () => {
  it("runs one threaded walk at a time: concurrent walks check their signatures on their own thread", async () => {
    const owner = await app().mintKey();
    for (let i = 1; i <= 3; i++) await createMatter(app(), owner, { name: `Matter ${i}` });
    let mostOpen = 0;
    const sampler = setInterval(() => {
      mostOpen = Math.max(mostOpen, signaturePoolsOpen());
    }, 1);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        verifyEventChain(
          readContextOf(owner),
          { params: {}, query: VerifyChainQuery.parse({}) },
          { parallelFromEvents: 0, threads: 2 },
        ),
      ),
    );
    clearInterval(sampler);
    expect(mostOpen).toBe(1);
    expect(signaturePoolsOpen()).toBe(0);
    for (const answer of answers) expect(answer).toMatchObject({ valid: true, events_checked: 3, first_break: null });
  });
});

describe("offline verification agrees with verify-chain", () => {
  it.each(KINDS)("%s", async (kind, tampering, expected) => {
    const owner = await app().mintKey();
    for (let i = 1; i <= 5; i++) await createMatter(app(), owner, { name: `Matter ${i}` });
    const rows = await app().sql<Row[]>`
      select sequence::int as sequence, id, hash from events
       where organization_id = ${owner.organizationId} order by sequence`;
    const kept = ChainCheckpoint.parse(await getJson(owner, "/v1/events/checkpoint"));
    expect(kept.sequence).toBe(5);
    const capabilities = Capabilities.parse(await getJson(owner, "/v1/capabilities"));
    const publicKey = capabilities.event_signing_key.public_key;

    // Before: both say valid.
    expect(verifyEventLog(await eventPages(owner), { publicKey, checkpoint: kept, head: kept })).toMatchObject({
      valid: true,
      events_checked: 5,
    });

    await tampering(owner, rows);
    const keptQuery = new URLSearchParams({
      checkpoint_sequence: String(kept.sequence),
      checkpoint_hash: kept.hash,
      checkpoint_issued_at: kept.issued_at,
      checkpoint_signature: kept.signature,
    });
    const online = ChainVerification.parse(await getJson(owner, `/v1/events/verify-chain?${keptQuery}`));
    // Offline: the pages as a client fetches them, with a head taken just before them and the kept checkpoint.
    const head = ChainCheckpoint.parse(await getJson(owner, "/v1/events/checkpoint"));
    const pages = await eventPages(owner);
    const offline = verifyEventLog(pages, { publicKey, checkpoint: kept, head });

    expect(online.first_break).toEqual(expected(rows));
    // The same walk with its signatures checked on worker threads (as a long log is): the same answer.
    const threaded = await verifyEventChain(
      readContextOf(owner),
      { params: {}, query: VerifyChainQuery.parse(Object.fromEntries(keptQuery)) },
      { parallelFromEvents: 0, threads: 2 },
    );
    expect({ ...threaded, verified_at: online.verified_at }).toEqual(online);
    expect(offline).toEqual({
      valid: false,
      events_checked: online.events_checked,
      first_break: online.first_break,
      head: online.head,
      started_from: null,
    });

    // The command and the standalone example, on the same files, name the same break.
    const files = {
      capabilities: join(workDir, `${kind}-capabilities.json`),
      kept: join(workDir, `${kind}-kept.json`),
      head: join(workDir, `${kind}-head.json`),
    };
    writeFileSync(files.capabilities, JSON.stringify(capabilities));
    writeFileSync(files.kept, JSON.stringify(kept));
    writeFileSync(files.head, JSON.stringify(head));
    const pageFiles = pages.map((page, i) => {
      const file = join(workDir, `${kind}-page-${i}.json`);
      writeFileSync(file, JSON.stringify(page));
      return file;
    });
    const command = run([
      "--import",
      "tsx",
      "scripts/verify-events.ts",
      "--capabilities",
      files.capabilities,
      "--checkpoint",
      files.kept,
      "--head",
      files.head,
      ...pageFiles.reverse(),
    ]);
    expect({ status: command.status, stderr: command.stderr }).toEqual({ status: 1, stderr: "" });
    expect(JSON.parse(command.stdout)).toEqual(offline);
    const example = run([
      "docs/examples/verify-events.mjs",
      "--checkpoint",
      files.kept,
      "--head",
      files.head,
      files.capabilities,
      ...pageFiles,
    ]);
    const { sequence, event_id, reason } = expected(rows);
    expect({ status: example.status, stdout: example.stdout.trim() }).toEqual({
      status: 1,
      stdout: `BROKEN at sequence ${sequence} (${event_id ?? "no event"}): ${reason}`,
    });
  });

  it("starts from a kept checkpoint like verify-chain does, and refuses a checkpoint the key did not sign", async () => {
    const owner = await app().mintKey();
    for (let i = 1; i <= 3; i++) await createMatter(app(), owner, { name: `Matter ${i}` });
    const kept = ChainCheckpoint.parse(await getJson(owner, "/v1/events/checkpoint"));
    for (let i = 4; i <= 6; i++) await createMatter(app(), owner, { name: `Matter ${i}` });
    const { public_key: publicKey } = Capabilities.parse(await getJson(owner, "/v1/capabilities")).event_signing_key;
    const query = new URLSearchParams({
      checkpoint_sequence: String(kept.sequence),
      checkpoint_hash: kept.hash,
      checkpoint_issued_at: kept.issued_at,
      checkpoint_signature: kept.signature,
      since_checkpoint: "true",
    });
    const online = ChainVerification.parse(await getJson(owner, `/v1/events/verify-chain?${query}`));
    const pages: Event[][] = (await eventPages(owner)).map((page) => page.data);
    const offline = verifyEventLog(
      pages.map((data) => ({ object: "list" as const, data })),
      { publicKey, checkpoint: kept, sinceCheckpoint: true },
    );
    expect(online).toMatchObject({ valid: true, events_checked: 4, started_from: { sequence: 3, hash: kept.hash } });
    expect(offline).toEqual({
      valid: true,
      events_checked: online.events_checked,
      first_break: null,
      head: online.head,
      started_from: online.started_from,
    });
    expect(() => verifyEventLog(pages.flat(), { publicKey, checkpoint: { ...kept, sequence: 2 } })).toThrow(
      /does not verify/,
    );
  });
});
