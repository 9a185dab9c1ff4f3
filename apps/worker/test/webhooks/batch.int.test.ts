/**
 * Batched delivery: one claim takes a job's own delivery and others already due, removing their jobs. What
 * must hold however claims, workers and shutdowns interleave: no delivery is taken by two claims, none is
 * lost (a removed job is restored by the sweep when its claim dies), none is marked delivered without a 2xx,
 * and a worker stopped mid-batch leaves nothing locked.
 */
import { randomUUID } from "node:crypto";
import type { CreatedWebhookEndpoint } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import { type ClaimResult, claimWebhookDeliveries, recoverWebhookDeliveries, type runWrite } from "@crs/services";
import { createMatter } from "@crs/services/matters/create-matter";
import { createWebhookEndpoint } from "@crs/services/webhooks/create-webhook-endpoint";
import { updateWebhookEndpoint } from "@crs/services/webhooks/update-webhook-endpoint";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCapturingLogger, createTestServiceDeps, deferred, startTestWorker, waitUntil } from "../helpers";
import { guardLoopbackOnly, mintSandboxOrg, type Org, type Receiver, startReceiver, writeAs } from "./support";

const WINDOW = { windowMs: 60_000 };
const LEASE_MS = 5_000;

const guard = guardLoopbackOnly();
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url, { poolSize: 16 });
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await deps?.close();
  await database?.drop();
  guard.restore();
});

afterEach(async () => {
  expect(guard.refused).toEqual([]);
  // Claims take due deliveries of every organization: each test starts with none left by another.
  await deps.sql`update webhook_deliveries set status = 'dead', next_attempt_at = null, lease_expires_at = null
                  where status in ('queued', 'delivering')`;
  await deps.sql`delete from graphile_worker._private_jobs`;
});

const sandboxOrg = () => mintSandboxOrg(deps);

function write<T>(org: Org, run: Parameters<typeof runWrite<T>>[2]): Promise<T> {
  return writeAs(deps, org, run);
}

function createEndpoint(org: Org, url: string) {
  return write<CreatedWebhookEndpoint>(org, (w) =>
    createWebhookEndpoint(w, { params: {}, body: { url, enabled_events: ["matter.created"] } }),
  );
}

async function newMatters(org: Org, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await write(org, (w) =>
      createMatter(w, { params: {}, body: { name: `Matter ${randomUUID()}`, mode: "recovery" } }),
    );
  }
}

interface Row {
  id: string;
  webhook_endpoint_id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
}

async function deliveriesOf(org: Org): Promise<Row[]> {
  return deps.sql<Row[]>`
    select id, webhook_endpoint_id, status, attempts, last_status_code, last_error
      from webhook_deliveries where organization_id = ${org.organizationId} order by id`;
}

/** Each delivery's graphile-worker jobs that may still run: key, and whether a worker holds it. */
async function jobsOf(org: Org): Promise<{ key: string; locked: boolean }[]> {
  return deps.sql<{ key: string; locked: boolean }[]>`
    select j.key, j.locked_at is not null as locked
      from graphile_worker.jobs j
      join webhook_deliveries d on d.id = j.key
     where d.organization_id = ${org.organizationId} and j.attempts < j.max_attempts
     order by j.key`;
}

const refOf = (org: Org, deliveryId: string) => ({ ...org, deliveryId });
const idsOf = (claims: ClaimResult[]) =>
  claims.map((claim) => (claim.kind === "claimed" ? claim.delivery.deliveryId : claim.ref.deliveryId));

describe("batched webhook claims", () => {
  it("take the named delivery and others already due, oldest first, removing their jobs and leaving a held job alone", async () => {
    const org = await sandboxOrg();
    await createEndpoint(org, "http://127.0.0.1:9/unused");
    await newMatters(org, 6);
    const ids = (await deliveriesOf(org)).map((row) => row.id);
    expect(ids).toHaveLength(6);
    const [named, first, held, ...rest] = ids as [string, string, string, ...string[]];
    // A worker holds `held`'s job right now (fetched, not yet claimed): that job must stay for it to finish.
    await deps.sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'another-worker' where key = ${held}`;

    const claims = await claimWebhookDeliveries(deps, refOf(org, named), {
      leaseMs: LEASE_MS,
      schedule: WINDOW,
      batchSize: 3,
    });

    expect(claims.every((claim) => claim.kind === "claimed")).toBe(true);
    expect(new Set(idsOf(claims))).toEqual(new Set([named, first, held]));
    const rows = await deliveriesOf(org);
    for (const row of rows) {
      if ([named, first, held].includes(row.id)) expect([row.status, row.attempts]).toEqual(["delivering", 1]);
      else expect([row.status, row.attempts]).toEqual(["queued", 0]);
    }
    // The named job is the one running the claim (graphile-worker completes it); `first`'s job is gone;
    // the held one and the unclaimed ones remain.
    expect((await jobsOf(org)).map((job) => job.key)).toEqual([named, held, ...rest].sort());
  });

  it("end an ended endpoint's other deliveries as dead without an attempt, and take nothing when nothing is due", async () => {
    const org = await sandboxOrg();
    const open = await createEndpoint(org, "http://127.0.0.1:9/open");
    await newMatters(org, 1);
    const closed = await createEndpoint(org, "http://127.0.0.1:9/closed");
    await newMatters(org, 1);
    await write(org, (w) =>
      updateWebhookEndpoint(w, { params: { webhook_endpoint_id: closed.id }, body: { status: "disabled" } }),
    );
    // Disabling ended the closed endpoint's queued delivery; one more for it, queued behind the PATCH's back.
    // Due a second ago: the claim compares with the worker's clock in milliseconds, and the database's now()
    // carries microseconds, so a row due "now" could still be ahead of a claim made within the same millisecond.
    const rows = await deliveriesOf(org);
    const toOpen = rows.filter((row) => row.webhook_endpoint_id === open.id).map((row) => row.id);
    const toClosed = rows.filter((row) => row.webhook_endpoint_id === closed.id).map((row) => row.id);
    expect(toOpen).toHaveLength(2);
    await deps.sql`update webhook_deliveries
                      set status = 'queued', last_error = null, next_attempt_at = now() - interval '1 second'
                    where id = ${toClosed[0] ?? ""}`;

    const claims = await claimWebhookDeliveries(deps, refOf(org, toOpen[0] ?? ""), {
      leaseMs: LEASE_MS,
      schedule: WINDOW,
      batchSize: 10,
    });
    const ended = claims.filter((claim) => claim.kind === "ended");
    expect(ended.map((claim) => claim.ref.deliveryId)).toEqual([toClosed[0]]);
    expect(ended[0]?.kind === "ended" && ended[0].reason).toBe("endpoint disabled");
    expect(claims.filter((claim) => claim.kind === "claimed")).toHaveLength(2);
    const after = await deliveriesOf(org);
    expect(after.find((row) => row.id === toClosed[0])?.status).toBe("dead");

    // Everything is taken now: a claim naming a delivery already held takes nothing.
    const again = await claimWebhookDeliveries(deps, refOf(org, toOpen[0] ?? ""), {
      leaseMs: LEASE_MS,
      schedule: WINDOW,
      batchSize: 10,
    });
    expect(again).toEqual([]);
  });

  it("run at once never take one delivery twice", async () => {
    const org = await sandboxOrg();
    await createEndpoint(org, "http://127.0.0.1:9/unused");
    await newMatters(org, 30);
    const ids = (await deliveriesOf(org)).map((row) => row.id);
    // Twelve claims at once, each naming a different delivery, each taking up to five.
    const claims = await Promise.all(
      ids
        .slice(0, 12)
        .map((id) =>
          claimWebhookDeliveries(deps, refOf(org, id), { leaseMs: LEASE_MS, schedule: WINDOW, batchSize: 5 }),
        ),
    );
    const taken = claims.flatMap((batch) => idsOf(batch)).filter((id) => ids.includes(id));
    expect(new Set(taken).size).toBe(taken.length);
    const rows = await deliveriesOf(org);
    const delivering = rows.filter((row) => row.status === "delivering");
    expect(new Set(delivering.map((row) => row.id))).toEqual(new Set(taken));
    expect(delivering.every((row) => row.attempts === 1)).toBe(true);
    expect(rows.filter((row) => row.status === "queued").every((row) => row.attempts === 0)).toBe(true);
  });

  it("whose worker died after claiming are handed back whole by the sweep, each with its job again", async () => {
    const org = await sandboxOrg();
    await createEndpoint(org, "http://127.0.0.1:9/unused");
    await newMatters(org, 4);
    const ids = (await deliveriesOf(org)).map((row) => row.id);
    const claims = await claimWebhookDeliveries(deps, refOf(org, ids[0] ?? ""), {
      leaseMs: LEASE_MS,
      schedule: WINDOW,
      batchSize: 4,
    });
    const mine = idsOf(claims).filter((id) => ids.includes(id));
    expect(mine.sort()).toEqual(ids);
    // The claim removed the other three jobs; the named one's job is what a dead worker leaves locked.
    expect((await jobsOf(org)).map((job) => job.key)).toEqual([ids[0]]);

    const recovered = await recoverWebhookDeliveries(deps.db, new Date(Date.now() + LEASE_MS + 1_000), {
      staleLockMs: 60_000,
    });
    expect(recovered.leasesExpired).toBeGreaterThanOrEqual(4);
    const rows = await deliveriesOf(org);
    expect(rows.map((row) => [row.status, row.attempts])).toEqual(ids.map(() => ["queued", 1]));
    expect((await jobsOf(org)).map((job) => job.key)).toEqual(ids);
  });
});

describe("a worker stopped in the middle of a batch", () => {
  it("records every attempt as interrupted and leaves one unlocked job per delivery; the next worker delivers each once", async () => {
    const org = await sandboxOrg();
    const hang = deferred();
    // The first five requests never get an answer; later ones get 200.
    const target = await startReceiver((_request, index) =>
      index < 5 ? { status: 200, delay: hang.promise } : { status: 200 },
    );
    receivers.push(target);
    await createEndpoint(org, target.url);
    await newMatters(org, 5);
    const settings = { timeoutMs: 30_000, leaseMarginMs: 1_000, batchSize: 5 };
    const logger = createCapturingLogger();

    const first = await startTestWorker(database.url, deps, {
      logger,
      pollInterval: 50,
      webhookDelivery: settings,
    });
    await waitUntil(async () => target.inFlight() === 5, "one batch of five in flight");
    await first.stop();

    const stopped = await deliveriesOf(org);
    expect(stopped.map((row) => [row.status, row.attempts, row.last_error])).toEqual(
      stopped.map(() => ["queued", 1, "the delivery was stopped"]),
    );
    expect(target.answered).toHaveLength(0);
    const jobs = await jobsOf(org);
    expect(jobs.map((job) => job.key)).toEqual(stopped.map((row) => row.id));
    expect(jobs.every((job) => !job.locked)).toBe(true);

    const second = await startTestWorker(database.url, deps, {
      concurrency: 2,
      logger,
      pollInterval: 50,
      webhookDelivery: settings,
    });
    try {
      await waitUntil(
        async () => (await deliveriesOf(org)).every((row) => row.status === "delivered"),
        "every delivery delivered",
      );
      const done = await deliveriesOf(org);
      expect(done.map((row) => [row.attempts, row.last_status_code])).toEqual(done.map(() => [2, 200]));
      // Each event was answered 200 exactly once, by the second worker.
      const answeredIds = target.answered.map((answer) => answer.eventId);
      expect(new Set(answeredIds).size).toBe(5);
      expect(answeredIds).toHaveLength(5);
    } finally {
      await second.stop();
      hang.resolve();
    }
    expect(await jobsOf(org)).toEqual([]);
  }, 30_000);
});
