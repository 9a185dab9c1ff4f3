/**
 * Webhook delivery with the real worker, the real sender and real HTTP receivers on 127.0.0.1, on a
 * shrunk retry schedule (the production one is core's). Endpoints and events are made with the same
 * service functions the API runs.
 */
import { randomUUID } from "node:crypto";
import { verifyWebhookSignature } from "@crs/client";
import type { CreatedWebhookEndpoint } from "@crs/contract";
import { WEBHOOK_SIGNATURE_HEADER, type WebhookRetrySchedule } from "@crs/core";
import { createTestDatabase } from "@crs/db/testing";
import { createSigningSecret, issueLiveKey, type runWrite, systemActor } from "@crs/services";
import { retrieveEvent } from "@crs/services/events/retrieve-event";
import { createMatter } from "@crs/services/matters/create-matter";
import { createWebhookEndpoint } from "@crs/services/webhooks/create-webhook-endpoint";
import { deleteWebhookEndpoint } from "@crs/services/webhooks/delete-webhook-endpoint";
import { updateWebhookEndpoint } from "@crs/services/webhooks/update-webhook-endpoint";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../../src/runner";
import { createCapturingLogger, createTestServiceDeps, deferred, startTestWorker, waitUntil } from "../helpers";
import {
  createSwitchableResolver,
  guardLoopbackOnly,
  mintSandboxOrg,
  type Org,
  type Receiver,
  startReceiver,
  writeAs,
} from "./support";

const SCHEDULE: WebhookRetrySchedule = {
  baseDelayMs: 100,
  factor: 2,
  maxDelayMs: 400,
  windowMs: 3_000,
  jitterRatio: 0,
};
const TIMEOUT_MS = 2_000;

const guard = guardLoopbackOnly();
const resolver = createSwitchableResolver();
const logger = createCapturingLogger();
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createTestServiceDeps>;
let worker: RunningWorker;
const receivers: Receiver[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createTestServiceDeps(database.url, { resolveHostname: resolver, poolSize: 8 });
  worker = await startTestWorker(database.url, deps, {
    concurrency: 4,
    logger,
    pollInterval: 50,
    webhookDelivery: { retrySchedule: SCHEDULE, timeoutMs: TIMEOUT_MS, leaseMarginMs: 500, jitter: () => 0 },
    webhookRecoveryIntervalMs: 200,
  });
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await deps?.close();
  await database?.drop();
  guard.restore();
});

afterEach(() => {
  // Nothing in this file may ever try to leave the machine, whatever a test did.
  expect(guard.refused).toEqual([]);
});

async function receiver(respond: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(respond);
  receivers.push(started);
  return started;
}

const sandboxOrg = () => mintSandboxOrg(deps);

async function liveOrg(): Promise<Org> {
  const issued = await issueLiveKey(deps, { plan: "operator", scopes: "all", organizationName: "Live" });
  return { organizationId: issued.organization_id, environment: "live" };
}

function write<T>(org: Org, run: Parameters<typeof runWrite<T>>[2]): Promise<T> {
  return writeAs(deps, org, run);
}

function createEndpoint(org: Org, url: string, events: string[] = ["matter.created"]) {
  return write<CreatedWebhookEndpoint>(org, (w) =>
    createWebhookEndpoint(w, { params: {}, body: { url, enabled_events: events } }),
  );
}

function patchEndpoint(org: Org, id: string, body: { status?: "enabled" | "disabled"; url?: string }) {
  return write(org, (w) => updateWebhookEndpoint(w, { params: { webhook_endpoint_id: id }, body }));
}

async function newMatter(org: Org): Promise<string> {
  const matter = await write(org, (w) =>
    createMatter(w, { params: {}, body: { name: `Matter ${randomUUID()}`, mode: "recovery" } }),
  );
  return matter.id;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  webhook_endpoint_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** timestamps come back as text: drizzle swaps this postgres.js client's parsers */
  next_attempt_at: string | null;
  delivered_at: string | null;
  lease_expires_at: string | null;
}

async function deliveriesOf(org: Org): Promise<DeliveryRow[]> {
  return deps.sql<DeliveryRow[]>`
    select id, event_id, webhook_endpoint_id, status, attempts, last_status_code, last_error, next_attempt_at,
           delivered_at, lease_expires_at
      from webhook_deliveries where organization_id = ${org.organizationId} order by id`;
}

async function theDelivery(org: Org): Promise<DeliveryRow> {
  const rows = await deliveriesOf(org);
  expect(rows).toHaveLength(1);
  return rows[0] as DeliveryRow;
}

async function untilStatus(org: Org, statuses: string[], what: string): Promise<DeliveryRow> {
  await waitUntil(async () => {
    const rows = await deliveriesOf(org);
    return rows.length > 0 && rows.every((row) => statuses.includes(row.status));
  }, what);
  return theDelivery(org);
}

async function pendingJobs(deliveryId: string): Promise<number> {
  const [row] = await deps.sql<{ n: number }[]>`
    select count(*)::int as n from graphile_worker.jobs where key = ${deliveryId} and attempts < max_attempts`;
  return row?.n ?? 0;
}

function expectSigned(request: { body: string; headers: Record<string, unknown> }, secret: string) {
  const header = request.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()] as string;
  expect(() => verifyWebhookSignature(request.body, header, secret)).not.toThrow();
}

describe("webhook delivery", () => {
  it("POSTs the event exactly as GET /v1/events/{id} returns it, signed, once, and records it delivered", async () => {
    const org = await sandboxOrg();
    const target = await receiver(() => ({ status: 204 }));
    const endpoint = await createEndpoint(org, target.url);
    await newMatter(org);

    const delivery = await untilStatus(org, ["delivered"], "the delivery to be delivered");
    expect(delivery).toMatchObject({
      webhook_endpoint_id: endpoint.id,
      attempts: 1,
      last_status_code: 204,
      last_error: null,
      next_attempt_at: null,
      lease_expires_at: null,
    });
    expect(delivery.delivered_at).not.toBeNull();
    expect(target.received).toHaveLength(1);
    const [request] = target.received;
    if (!request) throw new Error("nothing received");
    const event = await retrieveEvent(
      { ...deps, actor: systemActor(org, "test", "req_read") },
      {
        params: { event_id: delivery.event_id },
      },
    );
    expect(request.body).toBe(JSON.stringify(event));
    expect(request).toMatchObject({ method: "POST", url: "/hooks" });
    expect(request.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "svc-event-id": event.id,
      "svc-event-type": "matter.created",
    });
    expectSigned(request, endpoint.signing_secret);
    expect(() =>
      verifyWebhookSignature(request.body, request.headers["svc-signature"] as string, "whsec_other"),
    ).toThrow();
    expect(await pendingJobs(delivery.id)).toBe(0);
  });

  it("retries a receiver that fails three times on the schedule, then records one delivery with attempts 4", async () => {
    const org = await sandboxOrg();
    const statuses = [500, 503, 500, 200];
    const target = await receiver((_, index) => ({ status: statuses[index] ?? 200 }));
    const endpoint = await createEndpoint(org, target.url);
    await newMatter(org);

    const delivery = await untilStatus(org, ["delivered"], "the fourth attempt to succeed");
    expect(delivery).toMatchObject({ attempts: 4, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(target.answered.map((answer) => answer.status)).toEqual([500, 503, 500, 200]);
    expect(new Set(target.received.map((r) => r.headers["svc-event-id"]))).toEqual(new Set([delivery.event_id]));
    for (const request of target.received) expectSigned(request, endpoint.signing_secret);
    // Each retry came no sooner than the schedule allows: 100, 200, then 400 ms (capped) after a failure.
    const expectedDelays = [100, 200, 400];
    for (let i = 1; i < target.received.length; i++) {
      const failedAt = target.answered[i - 1]?.at ?? 0;
      expect((target.received[i]?.receivedAt ?? 0) - failedAt).toBeGreaterThanOrEqual((expectedDelays[i - 1] ?? 0) - 5);
    }
    // The 2xx was seen once: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(target.received).toHaveLength(4);
  });

  it("keeps attempts, status code, error and next_attempt_at current while it retries, and ends dead after the window", async () => {
    const org = await sandboxOrg();
    const target = await receiver(() => ({ status: 500 }));
    await createEndpoint(org, target.url);
    await newMatter(org);

    await waitUntil(
      async () => (await theDelivery(org)).attempts >= 1 && (await theDelivery(org)).status === "queued",
      "a first failure",
    );
    const retrying = await theDelivery(org);
    expect(retrying).toMatchObject({
      status: "queued",
      last_status_code: 500,
      last_error: "the receiver answered 500",
    });
    expect(retrying.next_attempt_at).not.toBeNull();
    expect(await pendingJobs(retrying.id)).toBe(1);

    const ended = await untilStatus(org, ["dead"], "the window to close");
    expect(ended).toMatchObject({
      last_status_code: 500,
      last_error: "the receiver answered 500",
      next_attempt_at: null,
    });
    expect(ended.delivered_at).toBeNull();
    // 100, 200, 400, 400, … ms apart within 3 s: about nine attempts, the last one at the window's end.
    expect(ended.attempts).toBeGreaterThanOrEqual(6);
    expect(target.received).toHaveLength(ended.attempts);
    // The job of the last attempt is completed just after it records `dead`: wait for that, then
    // no job is left to try again and nothing more arrives.
    await waitUntil(async () => (await pendingJobs(ended.id)) === 0, "the last attempt's job to complete");
    expect(target.received).toHaveLength(ended.attempts);
  });

  it("counts a receiver that does not answer within the deadline as a failed attempt", async () => {
    const org = await sandboxOrg();
    const target = await receiver((_, index) => ({ status: 200, delay: index === 0 ? TIMEOUT_MS + 500 : 0 }));
    await createEndpoint(org, target.url);
    await newMatter(org);
    const delivery = await untilStatus(org, ["delivered"], "the retry after the timeout");
    expect(delivery.attempts).toBe(2);
    expect(target.received).toHaveLength(2);
    expect(target.answered.map((answer) => answer.status)).toEqual([200]);
  });

  it("does not follow a redirect: the status is recorded and the other address hears nothing", async () => {
    const org = await sandboxOrg();
    const elsewhere = await receiver(() => ({ status: 200 }));
    const target = await receiver(() => ({ status: 302, headers: { location: elsewhere.url } }));
    await createEndpoint(org, target.url);
    await newMatter(org);
    await waitUntil(async () => (await theDelivery(org)).last_status_code === 302, "the redirect to be recorded");
    const delivery = await theDelivery(org);
    expect(delivery.last_error).toMatch(/redirects are not followed/);
    expect(elsewhere.connections()).toBe(0);
    await patchEndpoint(org, delivery.webhook_endpoint_id ?? "", { status: "disabled" });
  });

  it("sends nothing more to an endpoint disabled while an attempt was in flight", async () => {
    const org = await sandboxOrg();
    const release = deferred();
    const target = await receiver(() => ({ status: 500, delay: release.promise }));
    const endpoint = await createEndpoint(org, target.url);
    await newMatter(org);
    await waitUntil(async () => target.received.length === 1, "the first attempt to arrive");

    await patchEndpoint(org, endpoint.id, { status: "disabled" });
    release.resolve();
    const delivery = await untilStatus(org, ["dead"], "the delivery to end");
    expect(delivery).toMatchObject({ attempts: 1, last_error: "endpoint disabled" });
    await newMatter(org);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(target.received).toHaveLength(1);
    expect(await deliveriesOf(org)).toHaveLength(1);
  });

  it("stops a deleted endpoint's delivery after its in-flight attempt", async () => {
    const org = await sandboxOrg();
    const release = deferred();
    const target = await receiver(() => ({ status: 502, delay: release.promise }));
    const endpoint = await createEndpoint(org, target.url);
    await newMatter(org);
    await waitUntil(async () => target.received.length === 1, "the first attempt to arrive");

    await write(org, (w) => deleteWebhookEndpoint(w, { params: { webhook_endpoint_id: endpoint.id } }));
    release.resolve();
    const delivery = await untilStatus(org, ["dead"], "the delivery to end");
    expect(delivery).toMatchObject({ attempts: 1, last_error: "endpoint deleted" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(target.received).toHaveLength(1);
  });

  it("never delays one endpoint behind another that is slow", async () => {
    const org = await sandboxOrg();
    const release = deferred();
    const slow = await receiver(() => ({ status: 200, delay: release.promise }));
    const fast = await receiver(() => ({ status: 200 }));
    const slowEndpoint = await createEndpoint(org, slow.url);
    const fastEndpoint = await createEndpoint(org, fast.url);
    for (let i = 0; i < 3; i++) await newMatter(org);

    await waitUntil(async () => {
      const rows = await deliveriesOf(org);
      return (
        rows.filter((row) => row.webhook_endpoint_id === fastEndpoint.id && row.status === "delivered").length === 3
      );
    }, "every delivery to the fast endpoint");
    expect(slow.answered).toHaveLength(0);
    expect(slow.received.length).toBeGreaterThan(0);
    release.resolve();
    await waitUntil(async () => {
      const rows = await deliveriesOf(org);
      return (
        rows.filter((row) => row.webhook_endpoint_id === slowEndpoint.id && row.status === "delivered").length === 3
      );
    }, "the slow endpoint's deliveries");
  });

  it("never sends one endpoint's delivery of one event twice at once, however many jobs name it", async () => {
    const org = await sandboxOrg();
    const release = deferred();
    const target = await receiver(() => ({ status: 200, delay: release.promise }));
    await createEndpoint(org, target.url);
    await newMatter(org);
    await waitUntil(async () => target.received.length === 1, "the attempt to arrive");
    const [delivery] = await deliveriesOf(org);
    if (!delivery) throw new Error("no delivery");
    // Three more jobs for the same delivery, without its job key: each claims nothing while one holds it.
    const payload = JSON.stringify({
      organization_id: org.organizationId,
      environment: "sandbox",
      webhook_delivery_id: delivery.id,
    });
    for (let i = 0; i < 3; i++) await deps.sql`select graphile_worker.add_job('webhook.deliver', ${payload}::json)`;
    await waitUntil(async () => {
      const [row] = await deps.sql<{ n: number }[]>`
        select count(*)::int as n from graphile_worker.jobs where task_identifier = 'webhook.deliver' and key is null`;
      return row?.n === 0;
    }, "the extra jobs to run");
    release.resolve();
    await untilStatus(org, ["delivered"], "the delivery");
    expect(target.received).toHaveLength(1);
    expect(target.maxInFlight()).toBe(1);
    expect((await theDelivery(org)).attempts).toBe(1);
  });
});

describe("webhook delivery: target rules at send time", () => {
  it("refuses a live endpoint whose name now resolves to a private address (DNS rebinding), connecting nowhere", async () => {
    const org = await liveOrg();
    resolver.set("rebind.example.com", ["93.184.216.34"]);
    const endpoint = await createEndpoint(org, "https://rebind.example.com/hooks");
    resolver.set("rebind.example.com", ["10.0.0.9"]);
    await newMatter(org);

    await waitUntil(
      async () => (await theDelivery(org)).attempts >= 1 && (await theDelivery(org)).status !== "delivering",
      "the refused attempt",
    );
    const delivery = await theDelivery(org);
    expect(delivery.webhook_endpoint_id).toBe(endpoint.id);
    expect(delivery.last_error).toMatch(/10\.0\.0\.9 is private/);
    expect(delivery.last_status_code).toBeNull();
    expect(delivery.delivered_at).toBeNull();
    expect(guard.refused).toEqual([]);
    await patchEndpoint(org, endpoint.id, { status: "disabled" });
  });

  it("refuses a live endpoint at 127.0.0.1 even if one got stored, without opening a connection", async () => {
    const org = await liveOrg();
    const target = await receiver(() => ({ status: 200 }));
    // The API refuses this URL at create; write the row directly, as a rule change or a bug might leave it.
    const id = deps.newId("webhookEndpoint");
    const { box } = createSigningSecret(deps.webhookSecretKey, id);
    await deps.sql`
      insert into webhook_endpoints (organization_id, environment, id, url, enabled_events, status, signing_secret_box,
                                     created_at, updated_at)
      values (${org.organizationId}, 'live', ${id}, ${`https://127.0.0.1:${target.port}/hooks`}, '{*}', 'enabled', ${box},
              now(), now())`;
    await newMatter(org);
    await waitUntil(
      async () => (await theDelivery(org)).attempts >= 1 && (await theDelivery(org)).status !== "delivering",
      "the refused attempt",
    );
    expect((await theDelivery(org)).last_error).toMatch(/loopback/);
    expect(target.connections()).toBe(0);
    await deps.sql`update webhook_endpoints set status = 'disabled' where id = ${id}`;
  });
});

describe("webhook delivery: recovery", () => {
  /** A queued delivery of the org's matter.created event to its endpoint, written directly with no job. */
  async function orphanDelivery(org: Org, state: "queued" | "delivering"): Promise<string> {
    const [event] = await deps.sql<{ id: string }[]>`
      select id from events where organization_id = ${org.organizationId} and type = 'matter.created'`;
    const [endpoint] = await deps.sql<{ id: string }[]>`
      select id from webhook_endpoints where organization_id = ${org.organizationId}`;
    const id = deps.newId("webhookDelivery");
    const dying = state === "delivering";
    await deps.sql`
      insert into webhook_deliveries (organization_id, environment, id, webhook_endpoint_id, event_id, event_type, status,
                                      attempts, created_at, updated_at, next_attempt_at, first_attempt_at, lease_expires_at)
      values (${org.organizationId}, 'sandbox', ${id}, ${endpoint?.id ?? ""}, ${event?.id ?? ""}, 'matter.created',
              ${state}, ${dying ? 1 : 0}, now(), now(),
              case when ${dying} then null else now() end,
              case when ${dying} then now() end,
              case when ${dying} then now() - interval '1 millisecond' end)`;
    return id;
  }

  it("hands back a delivery whose worker died mid-attempt once its lease lapses, and completes it", async () => {
    const org = await sandboxOrg();
    const target = await receiver(() => ({ status: 200 }));
    // The endpoint wants other events, so only the row written below delivers matter.created to it.
    await createEndpoint(org, target.url, ["matter.closed"]);
    await newMatter(org);
    // What a worker killed mid-attempt leaves: the delivery `delivering` under a lapsed lease, and its job
    // locked by a worker that will never finish it (graphile-worker would wait 4 hours for that lock).
    const id = await orphanDelivery(org, "delivering");
    const payload = JSON.stringify({
      organization_id: org.organizationId,
      environment: "sandbox",
      webhook_delivery_id: id,
    });
    await deps.sql`
      update graphile_worker._private_jobs set locked_at = now(), locked_by = 'killed-worker'
       where id = (select (graphile_worker.add_job('webhook.deliver', ${payload}::json, job_key => ${id},
                                                   run_at => now() + interval '1 hour')).id)`;

    const delivery = await untilStatus(org, ["delivered"], "the sweep to hand it back and a worker to deliver it");
    expect(delivery).toMatchObject({ id, attempts: 2, last_status_code: 200 });
    expect(target.received).toHaveLength(1);
  });

  it("re-adds the job of a queued delivery that lost it", async () => {
    const org = await sandboxOrg();
    const target = await receiver(() => ({ status: 200 }));
    await createEndpoint(org, target.url, ["matter.closed"]);
    await newMatter(org);
    const id = await orphanDelivery(org, "queued");
    expect(await pendingJobs(id)).toBe(0);
    const delivery = await untilStatus(org, ["delivered"], "the sweep to restore its job");
    expect(delivery).toMatchObject({ id, attempts: 1 });
    expect(target.received).toHaveLength(1);
  });
});

describe("webhook delivery: the signing secret", () => {
  it("appears in no log line and no delivery record", async () => {
    const org = await sandboxOrg();
    const target = await receiver((_, index) => ({ status: index === 0 ? 500 : 200 }));
    const endpoint = await createEndpoint(org, target.url);
    await newMatter(org);
    await untilStatus(org, ["delivered"], "the delivery");
    expect(JSON.stringify(logger.entries)).not.toContain(endpoint.signing_secret);
    const rows = await deps.sql`select * from webhook_deliveries where organization_id = ${org.organizationId}`;
    expect(JSON.stringify(rows)).not.toContain(endpoint.signing_secret);
    expect(logger.entries.some((entry) => entry.message === "webhook attempt failed")).toBe(true);
  });
});
