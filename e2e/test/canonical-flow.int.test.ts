/**
 * The canonical first session, against the real processes `pnpm start` runs: mint a sandbox key,
 * create and read matters over REST and tRPC, verify the event chain, then Ctrl-C stops everything.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInternalClient } from "@crs/client";
import { type ChainVerification, Matter, type SandboxKey } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, withoutAuditRef } from "./support/http";
import {
  acceptsConnections,
  commandLineOf,
  descendantsOf,
  describeOutput,
  exitWithin,
  isAlive,
  killTree,
  type RunningProcess,
  startPnpmStart,
} from "./support/processes";

type MatterBody = Matter & { audit_ref: string };
interface ListBody<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  url: string;
  audit_ref: string;
}

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let dataDir: string | undefined;
let start: RunningProcess | undefined;
/** Every process below `pnpm start`, seen while it ran: cleaned up even if it dies without them. */
const spawnedPids = new Set<number>();
/** Of those, the three apps (node …/apps/<name>/src/main.ts), by pid. */
const appPids = new Map<number, string>();

function recordDescendants(launcher: RunningProcess): void {
  for (const pid of descendantsOf(launcher.pid)) {
    spawnedPids.add(pid);
    const app = /\/apps\/(\w+)\/src\/main\.ts/.exec(commandLineOf(pid));
    if (app?.[1]) appPids.set(pid, app[1]);
  }
}
let restUrl = "";
let trpcUrl = "";
let restPort = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), "crs-e2e-start-"));
  ({ restUrl, trpcUrl, restPort } = await startPnpmStart({ databaseUrl: database.url, dataDir }, (launcher) => {
    start = launcher;
    recordDescendants(launcher);
  }));
  const launcher = start;
  if (!launcher) throw new Error("pnpm start was not spawned");
  expect([...appPids.values()].sort(), describeOutput(launcher)).toEqual(["rest", "trpc", "worker"]);
  expect(launcher.output()).toMatch(new RegExp(`REST API +${restUrl} `));
  expect(launcher.output()).toMatch(new RegExp(`tRPC +${trpcUrl} `));
});

afterAll(async () => {
  await killTree(start, spawnedPids);
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("pnpm start: the canonical flow over the real processes", () => {
  let key = "";
  let first: MatterBody | undefined;
  let second: Matter | undefined;

  it("mints a sandbox key at POST /api/sandbox-key", async () => {
    const minted = await api<SandboxKey & { audit_ref: string }>(`${restUrl}/api/sandbox-key`, {
      method: "POST",
      body: {},
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    expect(minted.body.key).toMatch(/^svc_test_/);
    expect(minted.body.environment).toBe("sandbox");
    expect(minted.body.base_url).toBe(restUrl);
    expect(minted.headers.get("svc-request-id")).toBe(minted.body.audit_ref);
    key = minted.body.key;
  });

  it("creates a matter with an Idempotency-Key, replays it, and reads it back", async () => {
    const request = {
      method: "POST",
      key,
      body: { name: "Acme Recovery v. Doe", mode: "recovery", lead_counsel: "Jane Counsel" },
      headers: { "Idempotency-Key": "e2e-first-matter" },
    } as const;
    const created = await api<MatterBody>(`${restUrl}/v1/matters`, request);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(Matter.safeParse(created.body).success).toBe(true);
    expect(created.body).toMatchObject({
      object: "matter",
      name: "Acme Recovery v. Doe",
      mode: "recovery",
      lead_counsel: "Jane Counsel",
      status: "active",
      livemode: false,
    });
    expect(created.body.id).toMatch(/^matter_/);
    expect(created.headers.get("svc-request-id")).toBe(created.body.audit_ref);
    first = created.body;

    // Same key, same body: the original answer, not a second matter.
    const replayed = await api<MatterBody>(`${restUrl}/v1/matters`, request);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(created.body);

    const read = await api<MatterBody>(`${restUrl}/v1/matters/${created.body.id}`, { key });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(withoutAuditRef(read.body)).toEqual(withoutAuditRef(created.body));
  });

  it("lists the matter over REST", async () => {
    const list = await api<ListBody<MatterBody>>(`${restUrl}/v1/matters`, { key });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.object).toBe("list");
    expect(list.body.has_more).toBe(false);
    expect(list.body.data.map((matter) => matter.id)).toEqual([first?.id]);
  });

  it("reads the same matter and creates another over tRPC with the same key", async () => {
    if (!first) throw new Error("the first matter was not created");
    const client = createInternalClient({ url: trpcUrl, apiKey: key });
    const viaTrpc = await client.matters.get.query({ matter_id: first.id });
    expect(viaTrpc).toEqual(withoutAuditRef(first));

    second = await client.matters.create.mutate({ name: "Beta Holdings v. Roe", mode: "monitoring" });
    expect(second).toMatchObject({ object: "matter", name: "Beta Holdings v. Roe", mode: "monitoring" });
    expect(second.organization_id).toBe(first.organization_id);

    const list = await api<ListBody<MatterBody>>(`${restUrl}/v1/matters`, { key });
    expect(list.status).toBe(200);
    // Most recent first; the tRPC-created matter reads the same over REST.
    expect(list.body.data.map((matter) => matter.id)).toEqual([second.id, first.id]);
    expect(withoutAuditRef(list.body.data[0] as MatterBody)).toEqual(second);
  });

  it("verifies the event chain: valid, two events", async () => {
    const verification = await api<ChainVerification & { audit_ref: string }>(`${restUrl}/v1/events/verify-chain`, {
      key,
    });
    expect(verification.status, JSON.stringify(verification.body)).toBe(200);
    expect(verification.body).toMatchObject({
      object: "chain_verification",
      valid: true,
      events_checked: 2,
      first_break: null,
    });
  });

  it("stops every process on SIGINT with exit code 0 and releases the ports", async () => {
    const launcher = start;
    if (!launcher) throw new Error("pnpm start is not running");
    launcher.child.kill("SIGINT");
    const exit = await exitWithin(launcher, 45_000);
    expect(exit, describeOutput(launcher)).toEqual({ code: 0, signal: null });
    expect(launcher.output()).toContain("[start] stopped");
    expect(await acceptsConnections(restPort)).toBe(false);
    // The launcher waits for its apps before it exits: none of them is left running.
    expect([...appPids.keys()].filter(isAlive), describeOutput(launcher)).toEqual([]);
  });
});
