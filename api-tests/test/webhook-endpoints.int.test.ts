/**
 * Webhook endpoints over REST and tRPC, the outbox every write fills, and the operator procedures.
 * No worker runs here, so nothing is ever sent: deliveries stay queued, which is what these tests read.
 */
import {
  CreatedWebhookEndpoint,
  operatorOperations,
  SCOPES,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookFallback,
  webhookEndpointOperations,
} from "@crs/contract";
import { decryptWebhookSecret, MAX_WEBHOOK_ENDPOINTS } from "@crs/core";
import { WEBHOOK_DELIVERY_TASK } from "@crs/db";
import { runWrite, systemActor } from "@crs/services";
import { createMatter as createMatterInService } from "@crs/services/matters/create-matter";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, expectError, expectStandardHeaders, record, ValidationDetails } from "./support/expectations";
import { allEvents, createMatter, sleep } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { TEST_SECRETS, type TestKey, type TestResponse, useTestApp } from "./support/test-app";
import { TEST_HOSTS } from "./support/test-resolver";

const app = useTestApp();

/** Sandbox accepts loopback http targets; nothing listens on the discard port and nothing is sent here. */
const SANDBOX_URL = "http://127.0.0.1:9/hooks";
const LIVE_URL = `https://${TEST_HOSTS.public}/hooks`;

const operatorKey = () => app().keyWithScopes([...SCOPES, "operator:write"]);

async function createEndpoint(owner: TestKey, body: Record<string, unknown> = {}) {
  const url = owner.environment === "live" ? LIVE_URL : SANDBOX_URL;
  const response = await app().request("POST", "/v1/webhook_endpoints", { key: owner.key, body: { url, ...body } });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return { response, endpoint: CreatedWebhookEndpoint.parse(response.json) };
}

async function patchEndpoint(owner: TestKey, id: string, body: Record<string, unknown>) {
  return app().request("PATCH", `/v1/webhook_endpoints/${id}`, { key: owner.key, body });
}

interface DeliveryRow {
  id: string;
  webhook_endpoint_id: string | null;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_error: string | null;
}

async function deliveriesOf(organizationId: string): Promise<DeliveryRow[]> {
  return app().sql<DeliveryRow[]>`
    select id, webhook_endpoint_id, event_id, event_type, status, attempts, last_error
      from webhook_deliveries where organization_id = ${organizationId} order by id`;
}

/** The pending graphile-worker jobs of these deliveries, by job key. */
async function deliveryJobs(deliveryIds: readonly string[]) {
  return app().sql<{ key: string; task_identifier: string; payload: Record<string, unknown> }[]>`
    select j.key, t.identifier as task_identifier, j.payload
      from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where j.key = any(${deliveryIds as string[]}) order by j.key`;
}

async function countEndpoints(organizationId: string, status?: string): Promise<number> {
  const [row] = await app().sql<{ n: number }[]>`
    select count(*)::int as n from webhook_endpoints
     where organization_id = ${organizationId} and deleted_at is null and (${status ?? null}::text is null or status = ${status ?? null})`;
  return row?.n ?? 0;
}

async function countDeliveries(organizationId: string, status: string): Promise<number> {
  const [row] = await app().sql<{ n: number }[]>`
    select count(*)::int as n from webhook_deliveries where organization_id = ${organizationId} and status = ${status}`;
  return row?.n ?? 0;
}

/** A matter write whose event reaches the owner's endpoints: one delivery per matching endpoint. */
async function dead(owner: TestKey): Promise<string> {
  await createMatter(app(), owner);
  const [delivery] = await app().sql<{ id: string }[]>`
    update webhook_deliveries set status = 'dead', last_error = 'the receiver answered 500', next_attempt_at = null
     where id = (select id from webhook_deliveries where organization_id = ${owner.organizationId} and status = 'queued'
                  order by id desc limit 1)
    returning id`;
  if (!delivery) throw new Error("the write queued no delivery");
  return delivery.id;
}

const ownEndpoint = async (owner: TestKey) => ({ webhook_endpoint_id: (await createEndpoint(owner)).endpoint.id });

describeSecuritySuite(webhookEndpointOperations.create, {
  app,
  request: async () => ({ body: { url: SANDBOX_URL, enabled_events: ["matter.created", "matter.closed"] } }),
  badBody: {
    body: { enabled_events: "all", extra: true },
    missing: ["url"],
    invalid: ["enabled_events"],
  },
  idempotency: {
    effects: async (owner) => ({
      endpoints: await countEndpoints(owner.organizationId),
      created_events: await countEvents(app().sql, owner.organizationId, "webhook_endpoint.created"),
    }),
    perWrite: { endpoints: 1, created_events: 1 },
    changedBody: { url: "http://127.0.0.1:9/elsewhere" },
  },
});

describeSecuritySuite(webhookEndpointOperations.list, { app, request: async () => ({ query: { limit: "5" } }) });

describeSecuritySuite(webhookEndpointOperations.get, {
  app,
  request: async (owner) => ({ params: await ownEndpoint(owner) }),
});

describeSecuritySuite(webhookEndpointOperations.update, {
  app,
  request: async (owner) => ({ params: await ownEndpoint(owner), body: { status: "disabled" } }),
  badBody: {
    body: { status: "paused", url: 7, enabled_events: [] },
    missing: [],
    invalid: ["status", "url", "enabled_events"],
  },
  idempotency: {
    effects: async (owner) => ({
      disabled: await countEndpoints(owner.organizationId, "disabled"),
      updated_events: await countEvents(app().sql, owner.organizationId, "webhook_endpoint.updated"),
    }),
    perWrite: { disabled: 1, updated_events: 1 },
    changedBody: { status: "disabled", url: "http://127.0.0.1:9/other" },
  },
});

describeSecuritySuite(webhookEndpointOperations.delete, {
  app,
  request: async (owner) => ({ params: await ownEndpoint(owner) }),
});

describeSecuritySuite(webhookEndpointOperations.listDeliveries, {
  app,
  request: async (owner) => {
    const target = await ownEndpoint(owner);
    await createMatter(app(), owner);
    return { params: target, query: { limit: "10" } };
  },
});

describeSecuritySuite(operatorOperations.setWebhookFallback, {
  app,
  owner: operatorKey,
  request: async () => ({ body: { url: `https://${TEST_HOSTS.public}/fallback` } }),
  badBody: { body: { note: "no url" }, missing: ["url"], invalid: [] },
  idempotency: {
    effects: async (owner) => {
      const [row] = await app().sql<{ n: number }[]>`
        select count(*)::int as n from organizations where id = ${owner.organizationId} and webhook_fallback_url is not null`;
      return { with_fallback: row?.n ?? 0 };
    },
    perWrite: { with_fallback: 1 },
    changedBody: { url: `https://${TEST_HOSTS.public}/other-fallback` },
  },
});

describeSecuritySuite(operatorOperations.redeliverWebhook, {
  app,
  owner: operatorKey,
  request: async (owner) => {
    await createEndpoint(owner);
    return { body: { webhook_delivery_id: await dead(owner) } };
  },
  badBody: { body: { webhook_delivery_id: 42 }, missing: [], invalid: ["webhook_delivery_id"] },
  idempotency: {
    effects: async (owner) => ({ queued: await countDeliveries(owner.organizationId, "queued") }),
    perWrite: { queued: 1 },
    changedBody: { webhook_delivery_id: "whd_00000000000000000000000000" },
  },
});

const EndpointList = z.object({
  object: z.literal("list"),
  data: z.array(WebhookEndpoint.strict()),
  has_more: z.boolean(),
  url: z.literal("/v1/webhook_endpoints"),
  audit_ref: z.string(),
});

const DeliveryList = z.object({
  object: z.literal("list"),
  data: z.array(WebhookDelivery.strict()),
  has_more: z.boolean(),
  url: z.string(),
  audit_ref: z.string(),
});

describe("webhook endpoints: the signing secret", () => {
  it("is returned by create only, and is stored only encrypted", async () => {
    const owner = await app().mintKey();
    const { response, endpoint } = await createEndpoint(owner);
    expect(endpoint.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const secret = endpoint.signing_secret;

    const answers: TestResponse[] = [
      await app().request("GET", `/v1/webhook_endpoints/${endpoint.id}`, { key: owner.key }),
      await app().request("GET", "/v1/webhook_endpoints", { key: owner.key }),
      await patchEndpoint(owner, endpoint.id, { enabled_events: ["matter.created"] }),
      await app().request("GET", "/v1/events?limit=100", { key: owner.key }),
      await app().rpc("query", "webhookEndpoints.get", { key: owner.key, input: { webhook_endpoint_id: endpoint.id } }),
      await app().rpc("query", "webhookEndpoints.list", { key: owner.key }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(secret);
      expect(answer.text).not.toContain("signing_secret");
    }
    expect(WebhookEndpoint.strict().parse(withoutAudit(answers[0]))).toEqual(withoutSecret(endpoint));
    expect(response.text).toContain(secret);

    const [row] = await app().sql<{ box: string }[]>`
      select signing_secret_box as box from webhook_endpoints where id = ${endpoint.id}`;
    expect(row?.box).toMatch(/^v1\./);
    expect(row?.box).not.toContain(secret);
    const key = Buffer.from(TEST_SECRETS.webhookSecretKey, "hex");
    expect(decryptWebhookSecret(row?.box ?? "", key, { associatedData: endpoint.id })).toBe(secret);
    // Bound to its row: the same box does not open as another endpoint's.
    expect(() => decryptWebhookSecret(row?.box ?? "", key, { associatedData: "we_other" })).toThrow();

    const created = (await allEvents(app(), owner)).find((event) => event.type === "webhook_endpoint.created");
    expect(created?.data.object).toEqual(withoutSecret(endpoint));
    expect(
      JSON.stringify(await app().sql`select * from events where organization_id = ${owner.organizationId}`),
    ).not.toContain(secret);
  });

  it("is kept encrypted in the answer stored for an Idempotency-Key, and a retry of the create shows it again", async () => {
    const owner = await app().mintKey();
    const send = () =>
      app().request("POST", "/v1/webhook_endpoints", {
        key: owner.key,
        headers: { "idempotency-key": "create-the-endpoint" },
        body: { url: SANDBOX_URL },
      });
    const first = await send();
    expect(first.status).toBe(201);
    const secret = CreatedWebhookEndpoint.parse(first.json).signing_secret;
    const [stored] = await app().sql<{ body: string }[]>`
      select response_body as body from idempotency_records where organization_id = ${owner.organizationId}`;
    expect(stored?.body).toBeDefined();
    expect(stored?.body).not.toContain(secret);
    const replay = await send();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect(await countEndpoints(owner.organizationId)).toBe(1);
  });

  it("differs for every endpoint", async () => {
    const owner = await app().mintKey();
    const secrets = new Set<string>();
    for (let i = 0; i < 3; i++) secrets.add((await createEndpoint(owner)).endpoint.signing_secret);
    expect(secrets.size).toBe(3);
  });
});

function withoutSecret(endpoint: CreatedWebhookEndpoint): WebhookEndpoint {
  const { signing_secret: _secret, ...rest } = endpoint;
  return rest;
}

function withoutAudit(response: TestResponse | undefined): Record<string, unknown> {
  const { audit_ref: _auditRef, ...rest } = record(response?.json);
  return rest;
}

describe("webhook endpoints: enabled_events", () => {
  it("defaults to every event, and collapses a list holding * to [*]", async () => {
    const owner = await app().mintKey();
    expect((await createEndpoint(owner)).endpoint.enabled_events).toEqual(["*"]);
    expect((await createEndpoint(owner, { enabled_events: ["matter.created", "*"] })).endpoint.enabled_events).toEqual([
      "*",
    ]);
    const listed = await createEndpoint(owner, {
      enabled_events: ["matter.closed", "matter.created", "matter.closed"],
    });
    expect(listed.endpoint.enabled_events).toEqual(["matter.closed", "matter.created"]);
  });

  it("refuses unknown event types with 422 listing every one of them, on create and on update", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/webhook_endpoints", {
      key: owner.key,
      body: { url: SANDBOX_URL, enabled_events: ["matter.created", "matter.exploded", "judgment.intaken", "nope"] },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("enabled_events");
    expect(envelope.error.details?.unknown_events).toEqual(["matter.exploded", "judgment.intaken", "nope"]);
    for (const name of ["matter.exploded", "judgment.intaken", "nope"]) expect(envelope.error.message).toContain(name);
    expect(envelope.error.details?.allowed).toContain("judgment.created");
    expect(await countEndpoints(owner.organizationId)).toBe(0);

    const { endpoint } = await createEndpoint(owner);
    const patched = await patchEndpoint(owner, endpoint.id, { enabled_events: ["party.exploded"] });
    expect(expectError(patched, 422, "invalid_request").error.details?.unknown_events).toEqual(["party.exploded"]);
  });

  it("names a bad url and unknown events in one 422", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/webhook_endpoints", {
      key: owner.key,
      body: { url: "ftp://127.0.0.1/hooks", enabled_events: ["nope"] },
    });
    const envelope = expectError(response, 422, "invalid_request");
    const details = ValidationDetails.parse(envelope.error.details);
    expect(details.invalid?.map((field) => field.param)).toEqual(["url", "enabled_events"]);
  });

  it("accepts judgment.intaken for a 2026-06-11 key, stored as judgment.created", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/webhook_endpoints", {
      key: owner.key,
      headers: { "svc-version": "2026-06-11" },
      body: { url: SANDBOX_URL, enabled_events: ["judgment.intaken", "matter.created"] },
    });
    expect(response.status).toBe(201);
    expect(CreatedWebhookEndpoint.parse(response.json).enabled_events).toEqual(["judgment.created", "matter.created"]);
  });
});

describe("webhook endpoints: target rules at create and update", () => {
  it.each([
    ["http on live", "http://hooks.example.com/h", /https/],
    ["a loopback address", "https://127.0.0.1/h", /loopback/],
    ["localhost", "https://localhost/h", /not a public name/],
    ["a name resolving to a private address", `https://${TEST_HOSTS.private}/h`, /10\.0\.0\.7 is private/],
    [
      "a name resolving to a public and a private address",
      `https://${TEST_HOSTS.mixed}/h`,
      /192\.168\.1\.5 is private/,
    ],
    ["the cloud metadata address", "https://169.254.169.254/latest", /cloud metadata/],
    ["a name that does not resolve", "https://nowhere.example.com/h", /could not be resolved/],
    ["credentials in the URL", `https://user:pw@${TEST_HOSTS.public}/h`, /user name or password/],
  ])("refuses a live endpoint with %s (422 naming url)", async (_, url, reason) => {
    const owner = await app().keyWithScopes(["webhook_endpoints:write", "webhook_endpoints:read"]);
    const response = await app().request("POST", "/v1/webhook_endpoints", { key: owner.key, body: { url } });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("url");
    expect(envelope.error.message).toMatch(reason);
    expect(await countEndpoints(owner.organizationId)).toBe(0);
  });

  it("accepts a live https endpoint whose name resolves only to public addresses, normalized", async () => {
    const owner = await app().keyWithScopes(["webhook_endpoints:write"]);
    const { endpoint } = await createEndpoint(owner, { url: `https://HOOKS.example.com` });
    expect(endpoint).toMatchObject({ url: "https://hooks.example.com/", livemode: true, status: "enabled" });
  });

  it("accepts http and loopback in the sandbox, but not the metadata service or link-local", async () => {
    const owner = await app().mintKey();
    expect((await createEndpoint(owner, { url: "http://localhost:4000/hooks" })).endpoint.url).toBe(
      "http://localhost:4000/hooks",
    );
    for (const url of ["http://169.254.169.254/", "http://169.254.10.10/", "gopher://127.0.0.1/"]) {
      const response = await app().request("POST", "/v1/webhook_endpoints", { key: owner.key, body: { url } });
      expect(expectError(response, 422, "invalid_request").error.param).toBe("url");
    }
  });

  it("refuses to re-point a live endpoint at a private address", async () => {
    const owner = await app().keyWithScopes(["webhook_endpoints:write"]);
    const { endpoint } = await createEndpoint(owner);
    const response = await patchEndpoint(owner, endpoint.id, { url: `https://${TEST_HOSTS.private}/h` });
    expect(expectError(response, 422, "invalid_request").error.param).toBe("url");
    const [row] = await app().sql<{ url: string }[]>`select url from webhook_endpoints where id = ${endpoint.id}`;
    expect(row?.url).toBe(endpoint.url);
  });

  it(`refuses a ${MAX_WEBHOOK_ENDPOINTS + 1}th endpoint with 409, and accepts one again after a delete`, async () => {
    const owner = await app().mintKey();
    const ids: string[] = [];
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) ids.push((await createEndpoint(owner)).endpoint.id);
    const refused = await app().request("POST", "/v1/webhook_endpoints", {
      key: owner.key,
      body: { url: SANDBOX_URL },
    });
    expect(expectError(refused, 409, "conflict").error.message).toContain(String(MAX_WEBHOOK_ENDPOINTS));
    expect((await app().request("DELETE", `/v1/webhook_endpoints/${ids[0]}`, { key: owner.key })).status).toBe(200);
    await createEndpoint(owner);
  });
});

describe("webhook endpoints: retrieve, list, update, delete", () => {
  it("lists endpoints most recent first with cursors, never deleted ones", async () => {
    const owner = await app().mintKey();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await createEndpoint(owner)).endpoint.id);
      await sleep(2);
    }
    const [e1, e2, e3, e4] = ids as [string, string, string, string];
    const page = async (query: string) => {
      const response = await app().request("GET", `/v1/webhook_endpoints${query}`, { key: owner.key });
      expect(response.status).toBe(200);
      const list = EndpointList.parse(response.json);
      return { ids: list.data.map((e) => e.id), has_more: list.has_more };
    };
    expect(await page("")).toEqual({ ids: [e4, e3, e2, e1], has_more: false });
    expect(await page("?limit=2")).toEqual({ ids: [e4, e3], has_more: true });
    expect(await page(`?limit=2&starting_after=${e3}`)).toEqual({ ids: [e2, e1], has_more: false });
    expect(await page(`?limit=2&ending_before=${e1}`)).toEqual({ ids: [e3, e2], has_more: true });
    expect((await app().request("DELETE", `/v1/webhook_endpoints/${e2}`, { key: owner.key })).status).toBe(200);
    expect(await page("")).toEqual({ ids: [e4, e3, e1], has_more: false });
  });

  it("updates url, filter and status, recording what changed; a PATCH that changes nothing appends no event", async () => {
    const owner = await app().mintKey();
    const { endpoint } = await createEndpoint(owner);
    const response = await patchEndpoint(owner, endpoint.id, {
      url: "http://127.0.0.1:9/v2",
      enabled_events: ["matter.closed"],
      status: "disabled",
    });
    expect(response.status).toBe(200);
    const updated = WebhookEndpoint.parse(response.json);
    expect(updated).toMatchObject({
      url: "http://127.0.0.1:9/v2",
      enabled_events: ["matter.closed"],
      status: "disabled",
    });
    const event = (await allEvents(app(), owner)).find((e) => e.type === "webhook_endpoint.updated");
    expect(event?.data).toMatchObject({
      webhook_endpoint_id: endpoint.id,
      status: "disabled",
      previous_attributes: { url: SANDBOX_URL, enabled_events: ["*"], status: "enabled" },
    });
    const before = await countEvents(app().sql, owner.organizationId);
    const unchanged = await patchEndpoint(owner, endpoint.id, { status: "disabled", url: "http://127.0.0.1:9/v2" });
    expect(unchanged.status).toBe(200);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });

  it("deletes: the endpoint is unknown afterwards, its secret erased, the event recorded", async () => {
    const owner = await app().mintKey();
    const { endpoint } = await createEndpoint(owner);
    const response = await app().request("DELETE", `/v1/webhook_endpoints/${endpoint.id}`, { key: owner.key });
    expect(response.status).toBe(200);
    expect(record(response.json)).toMatchObject({
      object: "webhook_endpoint",
      id: endpoint.id,
      webhook_endpoint_id: endpoint.id,
      deleted: true,
    });
    for (const [method, path] of [
      ["GET", `/v1/webhook_endpoints/${endpoint.id}`],
      ["PATCH", `/v1/webhook_endpoints/${endpoint.id}`],
      ["DELETE", `/v1/webhook_endpoints/${endpoint.id}`],
      ["GET", `/v1/webhook_endpoints/${endpoint.id}/deliveries`],
    ] as const) {
      const answer = await app().request(method, path, { key: owner.key, ...(method === "PATCH" ? { body: {} } : {}) });
      expectError(answer, 404, "not_found");
    }
    const [row] = await app().sql<{ box: string | null; deleted_at: Date | null }[]>`
      select signing_secret_box as box, deleted_at from webhook_endpoints where id = ${endpoint.id}`;
    expect(row).toMatchObject({ box: null });
    expect(row?.deleted_at).not.toBeNull();
    const event = (await allEvents(app(), owner)).find((e) => e.type === "webhook_endpoint.deleted");
    expect(event?.data).toMatchObject({ webhook_endpoint_id: endpoint.id, deleted: true });
  });

  it.each([
    ["an unknown endpoint id", "we_00000000000000000000000000"],
    ["an id of another kind", "matter_00000000000000000000000000"],
    ["a malformed id", "not-an-id"],
  ])("returns 404 for %s", async (_, id) => {
    const owner = await app().mintKey();
    expectError(await app().request("GET", `/v1/webhook_endpoints/${id}`, { key: owner.key }), 404, "not_found");
  });
});

describe("the outbox: deliveries are written with the event", () => {
  it("queues one delivery and one job per enabled endpoint whose filter matches, and none for the others", async () => {
    const owner = await app().mintKey();
    const all = (await createEndpoint(owner)).endpoint;
    const closedOnly = (await createEndpoint(owner, { enabled_events: ["matter.closed"] })).endpoint;
    const createdOnly = (await createEndpoint(owner, { enabled_events: ["matter.created"] })).endpoint;
    expect((await patchEndpoint(owner, createdOnly.id, { status: "disabled" })).status).toBe(200);
    const startingAt = (await deliveriesOf(owner.organizationId)).length;

    const { matter } = await createMatter(app(), owner);
    const created = (await allEvents(app(), owner)).filter((e) => e.type === "matter.created").at(-1);
    const afterCreate = (await deliveriesOf(owner.organizationId)).slice(startingAt);
    expect(afterCreate).toEqual([
      expect.objectContaining({
        webhook_endpoint_id: all.id,
        event_id: created?.id,
        event_type: "matter.created",
        status: "queued",
        attempts: 0,
      }),
    ]);

    const closed = await app().request("POST", `/v1/matters/${matter.id}/close`, {
      key: owner.key,
      body: { reason: "paid" },
    });
    expect(closed.status).toBe(200);
    const afterClose = (await deliveriesOf(owner.organizationId)).slice(startingAt + 1);
    expect(afterClose.map((d) => [d.webhook_endpoint_id, d.event_type]).sort()).toEqual(
      [
        [all.id, "matter.closed"],
        [closedOnly.id, "matter.closed"],
      ].sort(),
    );
    for (const delivery of [...afterCreate, ...afterClose]) expect(delivery.id).toMatch(/^whd_[0-9a-z]{26}$/);

    const ids = [...afterCreate, ...afterClose].map((d) => d.id);
    const jobs = await deliveryJobs(ids);
    expect(jobs.map((job) => job.key)).toEqual([...ids].sort());
    for (const job of jobs) {
      expect(job.task_identifier).toBe(WEBHOOK_DELIVERY_TASK);
      expect(job.payload).toEqual({
        organization_id: owner.organizationId,
        environment: "sandbox",
        webhook_delivery_id: job.key,
      });
    }
  });

  it("writes no delivery and no job for a write that rolls back, and both for one that commits", async () => {
    const owner = await app().mintKey();
    await createEndpoint(owner);
    const before = await deliveriesOf(owner.organizationId);
    const actor = systemActor(owner, "test.rollback", "req_rollbackprobe00000000000000");
    const body = { name: "Rolled back v. Doe", mode: "recovery" as const };
    await expect(
      runWrite(app().deps, actor, async (write) => {
        await createMatterInService(write, { params: {}, body });
        throw new Error("the write fails after its event was appended");
      }),
    ).rejects.toThrow(/fails after its event/);
    expect(await deliveriesOf(owner.organizationId)).toEqual(before);
    expect(await countEvents(app().sql, owner.organizationId, "matter.created")).toBe(0);

    await runWrite(app().deps, actor, (write) => createMatterInService(write, { params: {}, body }));
    const after = await deliveriesOf(owner.organizationId);
    expect(after).toHaveLength(before.length + 1);
    expect(await deliveryJobs(after.map((d) => d.id))).toHaveLength(after.length);
  });

  it("gives each of an event's deliveries its own id, one per endpoint, up to the endpoint limit", async () => {
    const owner = await app().mintKey();
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) await createEndpoint(owner, { enabled_events: ["matter.created"] });
    await createMatter(app(), owner);
    const deliveries = (await deliveriesOf(owner.organizationId)).filter((d) => d.event_type === "matter.created");
    expect(deliveries).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(MAX_WEBHOOK_ENDPOINTS);
    expect(new Set(deliveries.map((d) => d.webhook_endpoint_id)).size).toBe(MAX_WEBHOOK_ENDPOINTS);
  });

  it("delivers nothing to another organization's or environment's endpoints", async () => {
    const owner = await app().mintKey();
    const stranger = await app().mintKey();
    const live = await app().keyWithScopes("all");
    await createEndpoint(stranger);
    await createEndpoint(live);
    await createMatter(app(), owner);
    for (const other of [stranger, live]) {
      const theirs = await deliveriesOf(other.organizationId);
      expect(theirs.every((d) => d.event_type === "webhook_endpoint.created")).toBe(true);
    }
  });

  it("stops queueing for an endpoint the moment it is disabled, ends its waiting deliveries, and resumes once enabled", async () => {
    const owner = await app().mintKey();
    const { endpoint } = await createEndpoint(owner, { enabled_events: ["matter.created"] });
    await createMatter(app(), owner);
    expect(await countDeliveries(owner.organizationId, "queued")).toBe(1);

    expect((await patchEndpoint(owner, endpoint.id, { status: "disabled" })).status).toBe(200);
    expect(await deliveriesOf(owner.organizationId)).toEqual([
      expect.objectContaining({ status: "dead", last_error: "endpoint disabled" }),
    ]);
    await createMatter(app(), owner);
    expect(await deliveriesOf(owner.organizationId)).toHaveLength(1);

    expect((await patchEndpoint(owner, endpoint.id, { status: "enabled" })).status).toBe(200);
    await createMatter(app(), owner);
    expect(await countDeliveries(owner.organizationId, "queued")).toBe(1);
  });

  it("ends a deleted endpoint's waiting deliveries as dead and queues nothing more for it", async () => {
    const owner = await app().mintKey();
    const { endpoint } = await createEndpoint(owner);
    await createMatter(app(), owner);
    const queued = await countDeliveries(owner.organizationId, "queued");
    expect(queued).toBeGreaterThan(0);
    expect((await app().request("DELETE", `/v1/webhook_endpoints/${endpoint.id}`, { key: owner.key })).status).toBe(
      200,
    );
    expect(await countDeliveries(owner.organizationId, "queued")).toBe(0);
    const ended = (await deliveriesOf(owner.organizationId)).filter((d) => d.status === "dead");
    expect(ended).toHaveLength(queued);
    for (const delivery of ended) expect(delivery.last_error).toBe("endpoint deleted");
  });
});

describe("webhook deliveries: the list", () => {
  it("lists an endpoint's deliveries most recent first, with cursors, and nothing of the payload", async () => {
    const owner = await app().mintKey();
    const { endpoint } = await createEndpoint(owner, { enabled_events: ["matter.created"] });
    for (let i = 0; i < 3; i++) {
      await createMatter(app(), owner);
      await sleep(2);
    }
    const path = `/v1/webhook_endpoints/${endpoint.id}/deliveries`;
    const page = async (query: string) => {
      const response = await app().request("GET", `${path}${query}`, { key: owner.key });
      expect(response.status).toBe(200);
      return DeliveryList.parse(response.json);
    };
    const all = await page("");
    expect(all.url).toBe(path);
    const ids = all.data.map((d) => d.id);
    expect(ids).toHaveLength(3);
    expect([...ids].sort().reverse()).toEqual(ids);
    const [d3, d2, d1] = ids as [string, string, string];
    expect((await page("?limit=1")).data.map((d) => d.id)).toEqual([d3]);
    expect((await page(`?limit=5&starting_after=${d3}`)).data.map((d) => d.id)).toEqual([d2, d1]);
    expect((await page(`?limit=1&ending_before=${d1}`)).data.map((d) => d.id)).toEqual([d2]);
    const events = (await allEvents(app(), owner)).filter((e) => e.type === "matter.created");
    for (const delivery of all.data) {
      expect(Object.keys(delivery).sort()).toEqual(
        [
          "object",
          "id",
          "webhook_endpoint_id",
          "event_id",
          "event_type",
          "status",
          "attempts",
          "last_status_code",
          "last_error",
          "created_at",
          "next_attempt_at",
          "delivered_at",
        ].sort(),
      );
      expect(delivery).toMatchObject({ webhook_endpoint_id: endpoint.id, status: "queued", attempts: 0 });
      expect(events.map((e) => e.id)).toContain(delivery.event_id);
    }
    const rpc = await app().rpc("query", "webhookEndpoints.listDeliveries", {
      key: owner.key,
      input: { webhook_endpoint_id: endpoint.id, limit: 2 },
    });
    expect(rpc.status).toBe(200);
    expect(
      DeliveryList.omit({ audit_ref: true })
        .parse(rpc.json)
        .data.map((d) => d.id),
    ).toEqual([d3, d2]);
  });
});

describe("operator: the fallback URL", () => {
  async function setFallback(owner: TestKey, url: string | null) {
    return app().rpc("mutation", "operator.setWebhookFallback", { key: owner.key, input: { url } });
  }

  it("receives every event while the organization has no endpoint, signed with a secret shown once", async () => {
    const owner = await operatorKey();
    const response = await setFallback(owner, `https://${TEST_HOSTS.public}/fallback`);
    expect(response.status).toBe(200);
    const fallback = WebhookFallback.parse(response.json);
    expect(fallback).toMatchObject({
      object: "webhook_fallback",
      organization_id: owner.organizationId,
      livemode: true,
      url: `https://${TEST_HOSTS.public}/fallback`,
    });
    expect(fallback.signing_secret).toMatch(/^whsec_/);
    const organization = await app().request("GET", "/v1/organization", { key: owner.key });
    expect(record(organization.json).webhook_fallback_url).toBe(`https://${TEST_HOSTS.public}/fallback`);
    expect(organization.text).not.toContain(fallback.signing_secret ?? "unset");
    const [row] = await app().sql<{ box: string }[]>`
      select webhook_fallback_secret_box as box from organizations where id = ${owner.organizationId}`;
    expect(row?.box).not.toContain(fallback.signing_secret ?? "unset");

    await createMatter(app(), owner);
    expect(await deliveriesOf(owner.organizationId)).toEqual([
      expect.objectContaining({ webhook_endpoint_id: null, event_type: "matter.created", status: "queued" }),
    ]);

    // An endpoint, even a disabled one, means the organization has chosen its own: the fallback stops.
    const { endpoint } = await createEndpoint(owner, { enabled_events: ["matter.closed"] });
    expect((await patchEndpoint(owner, endpoint.id, { status: "disabled" })).status).toBe(200);
    await createMatter(app(), owner);
    expect((await deliveriesOf(owner.organizationId)).filter((d) => d.webhook_endpoint_id === null)).toHaveLength(1);
  });

  it("follows the target rules, and clearing it ends the fallback deliveries still waiting", async () => {
    const owner = await operatorKey();
    for (const url of [`https://${TEST_HOSTS.private}/h`, "http://hooks.example.com/h", "https://10.1.2.3/h"]) {
      const refused = await setFallback(owner, url);
      expect(expectError(refused, 422, "invalid_request").error.param).toBe("url");
    }
    expect((await setFallback(owner, `https://${TEST_HOSTS.public}/fb`)).status).toBe(200);
    await createMatter(app(), owner);
    const cleared = await setFallback(owner, null);
    expect(WebhookFallback.parse(cleared.json)).toMatchObject({ url: null, signing_secret: null });
    expect(await deliveriesOf(owner.organizationId)).toEqual([
      expect.objectContaining({ status: "dead", last_error: "fallback URL cleared" }),
    ]);
    await createMatter(app(), owner);
    expect(await deliveriesOf(owner.organizationId)).toHaveLength(1);
  });

  it("is not served over REST, and a sandbox key never holds operator:write", async () => {
    const owner = await app().mintKey();
    const refused = await setFallback(owner, "http://127.0.0.1:9/fb");
    expect(expectError(refused, 403, "insufficient_scope").error.details).toMatchObject({
      required_scope: "operator:write",
    });
    const everything = await app().keyWithScopes("all");
    expectError(await setFallback(everything, "https://hooks.example.com/fb"), 403, "insufficient_scope");
  });
});

describe("operator: redelivering a dead delivery", () => {
  async function redeliver(owner: TestKey, id: string) {
    return app().rpc("mutation", "operator.redeliverWebhook", { key: owner.key, input: { webhook_delivery_id: id } });
  }

  it("puts a dead delivery back in the queue with a fresh job and a new window", async () => {
    const owner = await operatorKey();
    await createEndpoint(owner);
    const id = await dead(owner);
    await app()
      .sql`update webhook_deliveries set attempts = 9, first_attempt_at = now() - interval '3 days' where id = ${id}`;
    await app().sql`delete from graphile_worker._private_jobs where key = ${id}`;

    const response = await redeliver(owner, id);
    expect(response.status).toBe(200);
    expect(WebhookDelivery.parse(response.json)).toMatchObject({ id, status: "queued", attempts: 0 });
    const [row] = await app().sql<{ first_attempt_at: Date | null }[]>`
      select first_attempt_at from webhook_deliveries where id = ${id}`;
    expect(row?.first_attempt_at).toBeNull();
    expect((await deliveryJobs([id])).map((job) => job.key)).toEqual([id]);
  });

  it("refuses a delivery that is not dead (409): one already delivered is never sent again", async () => {
    const owner = await operatorKey();
    await createEndpoint(owner, { enabled_events: ["matter.created"] });
    await createMatter(app(), owner);
    const [queued] = await deliveriesOf(owner.organizationId);
    if (!queued) throw new Error("no delivery");
    expect(expectError(await redeliver(owner, queued.id), 409, "conflict").error.message).toContain("queued");
    await app().sql`update webhook_deliveries set status = 'delivered', delivered_at = now() where id = ${queued.id}`;
    await app().sql`delete from graphile_worker._private_jobs where key = ${queued.id}`;
    expect(expectError(await redeliver(owner, queued.id), 409, "conflict").error.message).toContain("delivered");
    expect(await deliveriesOf(owner.organizationId)).toEqual([expect.objectContaining({ status: "delivered" })]);
    expect(await deliveryJobs([queued.id])).toEqual([]);
  });

  it("refuses while the endpoint is disabled or deleted", async () => {
    const owner = await operatorKey();
    const { endpoint } = await createEndpoint(owner);
    const id = await dead(owner);
    expect((await patchEndpoint(owner, endpoint.id, { status: "disabled" })).status).toBe(200);
    expect(expectError(await redeliver(owner, id), 409, "conflict").error.message).toMatch(/disabled/);
    expect((await app().request("DELETE", `/v1/webhook_endpoints/${endpoint.id}`, { key: owner.key })).status).toBe(
      200,
    );
    expect(expectError(await redeliver(owner, id), 409, "conflict").error.message).toMatch(/deleted/);
  });

  it("returns 404 for another organization's delivery, another environment's, or an unknown id", async () => {
    const owner = await operatorKey();
    await createEndpoint(owner);
    const id = await dead(owner);
    const stranger = await operatorKey();
    expectError(await redeliver(stranger, id), 404, "not_found");
    const sandboxOwner = await app().mintKey();
    await createEndpoint(sandboxOwner);
    const sandboxDead = await dead(sandboxOwner);
    expectError(await redeliver(owner, sandboxDead), 404, "not_found");
    expectError(await redeliver(owner, "whd_00000000000000000000000000"), 404, "not_found");
    const [row] = await app().sql<{ status: string }[]>`select status from webhook_deliveries where id = ${id}`;
    expect(row?.status).toBe("dead");
  });
});
