import { randomUUID } from "node:crypto";
import { Matter, MatterDashboard, matterOperations } from "@crs/contract";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  countEvents,
  countMatters,
  expectAuditRef,
  expectError,
  expectStandardHeaders,
  ISO_MILLIS,
  record,
  ValidationDetails,
  withoutAuditRef,
} from "./support/expectations";
import { createMatter, eventsOfRequest, sleep } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp();

const MatterList = z.object({
  object: z.literal("list"),
  data: z.array(Matter),
  has_more: z.boolean(),
  url: z.literal("/v1/matters"),
  audit_ref: z.string(),
});

async function listMatters(owner: TestKey, query: string) {
  const response = await app().request("GET", `/v1/matters${query}`, { key: owner.key });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  const list = MatterList.parse(response.json);
  return { ids: list.data.map((m) => m.id), has_more: list.has_more };
}

const ownMatter = async (owner: TestKey) => ({ matter_id: (await createMatter(app(), owner)).matter.id });

describeSecuritySuite(matterOperations.create, {
  app,
  request: async () => ({ body: { name: "Acme Holdings v. Doe", mode: "receivership" } }),
  badBody: {
    body: { mode: "bogus", economics: { counsel_fee_percentage: 101, currency: "usd" }, notes: 5 },
    missing: ["name"],
    invalid: ["mode", "economics.counsel_fee_percentage", "economics.currency", "notes"],
  },
  idempotency: {
    effects: async (owner) => ({
      matters: await countMatters(app().sql, owner.organizationId),
      created_events: await countEvents(app().sql, owner.organizationId, "matter.created"),
      events: await countEvents(app().sql, owner.organizationId),
    }),
    perWrite: { matters: 1, created_events: 1, events: 1 },
    changedBody: { name: "Another matter entirely" },
  },
});

describeSecuritySuite(matterOperations.list, {
  app,
  request: async () => ({ query: { limit: "5" } }),
});

describeSecuritySuite(matterOperations.get, {
  app,
  request: async (owner) => ({ params: await ownMatter(owner) }),
});

describeSecuritySuite(matterOperations.update, {
  app,
  request: async (owner) => ({ params: await ownMatter(owner), body: { name: "Renamed", status: "on_hold" } }),
  badBody: {
    body: { name: "", status: "closed", economics: { platform_percentage: -1 }, lead_counsel: 7 },
    missing: [],
    invalid: ["name", "status", "economics.platform_percentage", "lead_counsel"],
  },
  idempotency: {
    effects: async (owner) => ({
      on_hold: await countMatters(app().sql, owner.organizationId, "on_hold"),
      updated_events: await countEvents(app().sql, owner.organizationId, "matter.updated"),
    }),
    perWrite: { on_hold: 1, updated_events: 1 },
    changedBody: { name: "Renamed otherwise" },
  },
});

describeSecuritySuite(matterOperations.dashboard, {
  app,
  request: async (owner) => ({ params: await ownMatter(owner) }),
});

describeSecuritySuite(matterOperations.close, {
  app,
  request: async (owner) => ({
    params: await ownMatter(owner),
    body: { reason: "paid", notes: "Paid in full." },
  }),
  badBody: { body: { notes: 7 }, missing: ["reason"], invalid: ["notes"] },
  idempotency: {
    effects: async (owner) => ({
      closed: await countMatters(app().sql, owner.organizationId, "closed"),
      closed_events: await countEvents(app().sql, owner.organizationId, "matter.closed"),
      events: await countEvents(app().sql, owner.organizationId),
    }),
    perWrite: { closed: 1, closed_events: 1, events: 1 },
    changedBody: { reason: "settled" },
  },
});

describe("matters: behaviour", () => {
  it("answers 404 for an empty matter id, as for any unknown id, even under an Idempotency-Key", async () => {
    const owner = await app().mintKey();
    const attempts: Array<[string, string, unknown]> = [
      ["GET", "/v1/matters/", undefined],
      ["GET", "/v1/matters//dashboard", undefined],
      ["PATCH", "/v1/matters/", { name: "Nobody" }],
      ["POST", "/v1/matters//close", { reason: "paid" }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await app().request(method, path, {
        key: owner.key,
        headers: { "idempotency-key": `empty-id-${randomUUID()}` },
        ...(body !== undefined ? { body } : {}),
      });
      expectStandardHeaders(response);
      const envelope = expectError(response, 404, "not_found");
      expect(envelope.error.message).toBe("No such matter: ''.");
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(0);
  });

  it("creates a matter with the documented defaults", async () => {
    const owner = await app().mintKey();
    const { response, matter } = await createMatter(app(), owner, { name: "  Acme Holdings v. Doe  " });
    expect(matter).toMatchObject({
      object: "matter",
      name: "Acme Holdings v. Doe",
      mode: "recovery",
      status: "active",
      organization_id: owner.organizationId,
      livemode: false,
      lead_counsel: null,
      notes: null,
      retention_policy: null,
      close_reason: null,
      closed_at: null,
      economics: { currency: "USD", counsel_fee_percentage: 0, platform_percentage: 0, holdback_percentage: 0 },
    });
    expect(matter.id).toMatch(/^matter_[0-9a-z]{26}$/);
    expect(matter.matter_id).toBe(matter.id);
    expect(matter.created_at).toMatch(ISO_MILLIS);
    const auditRef = expectAuditRef(response);
    expect(matter.audit).toEqual({
      request_id: auditRef,
      actor_id: owner.keyId,
      organization_id: owner.organizationId,
      matter_id: matter.id,
      timestamp: matter.updated_at,
    });
  });

  it("keeps the fields a caller sets, and ignores unknown fields", async () => {
    const owner = await app().mintKey();
    const { response, matter } = await createMatter(app(), owner, {
      name: "Receivership of Example LLC",
      mode: "receivership",
      lead_counsel: "J. Counsel",
      notes: "Opened on referral.",
      economics: { counsel_fee_percentage: 33.33, holdback_percentage: 5 },
      favourite_colour: "blue",
    });
    expect(matter).toMatchObject({
      mode: "receivership",
      lead_counsel: "J. Counsel",
      notes: "Opened on referral.",
      economics: { currency: "USD", counsel_fee_percentage: 33.33, platform_percentage: 0, holdback_percentage: 5 },
    });
    expect(record(response.json)).not.toHaveProperty("favourite_colour");
  });

  it("answers every matter operation with an audit_ref equal to Svc-Request-Id", async () => {
    const owner = await app().mintKey();
    const { response: created, matter } = await createMatter(app(), owner);
    const path = `/v1/matters/${matter.id}`;
    const responses = [
      created,
      await app().request("GET", "/v1/matters", { key: owner.key }),
      await app().request("GET", path, { key: owner.key }),
      await app().request("PATCH", path, { key: owner.key, body: { notes: "n" } }),
      await app().request("GET", `${path}/dashboard`, { key: owner.key }),
      await app().request("POST", `${path}/close`, { key: owner.key, body: { reason: "exhausted" } }),
      await app().request("PATCH", path, { key: owner.key, body: { notes: "too late" } }),
    ];
    const ids = new Set<string>();
    for (const response of responses) {
      expectStandardHeaders(response);
      ids.add(expectAuditRef(response));
    }
    expect(ids.size).toBe(responses.length);
  });

  it("lists matters most recent first, with cursors both ways and a correct has_more", async () => {
    const owner = await app().mintKey();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.push((await createMatter(app(), owner, { name: `Matter ${i}` })).matter.id);
      await sleep(2); // distinct milliseconds, so creation order is id order
    }
    const [m1, m2, m3, m4, m5] = ids as [string, string, string, string, string];

    expect(await listMatters(owner, "")).toEqual({ ids: [m5, m4, m3, m2, m1], has_more: false });
    expect(await listMatters(owner, "?limit=2")).toEqual({ ids: [m5, m4], has_more: true });
    expect(await listMatters(owner, `?limit=2&starting_after=${m4}`)).toEqual({ ids: [m3, m2], has_more: true });
    expect(await listMatters(owner, `?limit=2&starting_after=${m2}`)).toEqual({ ids: [m1], has_more: false });
    expect(await listMatters(owner, `?limit=2&ending_before=${m1}`)).toEqual({ ids: [m3, m2], has_more: true });
    expect(await listMatters(owner, `?limit=2&ending_before=${m3}`)).toEqual({ ids: [m5, m4], has_more: false });
    expect(await listMatters(owner, `?limit=5&starting_after=${m1}`)).toEqual({ ids: [], has_more: false });
    expect(await listMatters(owner, "?limit=5")).toEqual({ ids: [m5, m4, m3, m2, m1], has_more: false });
    expect(await listMatters(owner, "?limit=4")).toEqual({ ids: [m5, m4, m3, m2], has_more: true });
    // Unknown filters are ignored.
    expect(await listMatters(owner, "?limit=1&colour=blue")).toEqual({ ids: [m5], has_more: true });
  });

  it("lists only the caller's organization and environment", async () => {
    const owner = await app().mintKey();
    const stranger = await app().mintKey();
    const live = await app().keyWithScopes(["matters:read", "matters:write"]);
    await createMatter(app(), owner);
    const { matter: liveMatter } = await createMatter(app(), live);
    expect(liveMatter.livemode).toBe(true);
    expect(await listMatters(stranger, "")).toEqual({ ids: [], has_more: false });
    const seenByLive = await listMatters(live, "");
    expect(seenByLive.ids).toEqual([liveMatter.id]);
  });

  it.each(["0", "101", "abc", "1.5", "-3", ""])("returns 400 naming limit for limit=%j", async (limit) => {
    const owner = await app().mintKey();
    const response = await app().request("GET", `/v1/matters?limit=${limit}`, { key: owner.key });
    expectStandardHeaders(response);
    const envelope = expectError(response, 400, "invalid_request");
    expect(envelope.error.param).toBe("limit");
    expect(envelope.error.message).toContain("limit");
  });

  it("returns 400 for starting_after and ending_before together, or a cursor that is not an id", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const both = await app().request("GET", `/v1/matters?starting_after=${matter.id}&ending_before=${matter.id}`, {
      key: owner.key,
    });
    const envelope = expectError(both, 400, "invalid_request");
    expect(envelope.error.message).toMatch(/starting_after/);
    expect(envelope.error.message).toMatch(/ending_before/);

    const garbage = await app().request("GET", "/v1/matters?starting_after=not%20an%20id", { key: owner.key });
    expect(expectError(garbage, 400, "invalid_request").error.param).toBe("starting_after");
  });

  it("retrieves a matter as it was created", async () => {
    const owner = await app().mintKey();
    const { response: created, matter } = await createMatter(app(), owner);
    const response = await app().request("GET", `/v1/matters/${matter.id}`, { key: owner.key });
    expect(response.status).toBe(200);
    expectAuditRef(response);
    expect(withoutAuditRef(response.json)).toEqual(withoutAuditRef(created.json));
  });

  it.each([
    ["an unknown matter id", "matter_00000000000000000000000000"],
    ["an id of another kind", "evt_01jzzzzzzzzzzzzzzzzzzzzzzz"],
    ["a malformed id", "not-an-id"],
  ])("returns 404 for %s", async (_label, id) => {
    const owner = await app().mintKey();
    for (const [method, path, body] of [
      ["GET", `/v1/matters/${id}`, undefined],
      ["PATCH", `/v1/matters/${id}`, { name: "x" }],
      ["GET", `/v1/matters/${id}/dashboard`, undefined],
      ["POST", `/v1/matters/${id}/close`, { reason: "paid" }],
    ] as const) {
      const response = await app().request(method, path, { key: owner.key, ...(body ? { body } : {}) });
      expectStandardHeaders(response);
      expectError(response, 404, "not_found");
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(0);
  });

  it("updates name, status and counsel, and merges economics partially", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner, {
      name: "Original",
      lead_counsel: "A. Counsel",
      economics: { counsel_fee_percentage: 20, currency: "EUR" },
    });
    const response = await app().request("PATCH", `/v1/matters/${matter.id}`, {
      key: owner.key,
      body: { name: "Renamed", status: "on_hold", economics: { platform_percentage: 5 }, retention_policy: "7y" },
    });
    expect(response.status).toBe(200);
    const updated = Matter.parse(response.json);
    expect(updated).toMatchObject({
      id: matter.id,
      name: "Renamed",
      status: "on_hold",
      lead_counsel: "A. Counsel",
      retention_policy: "7y",
      economics: { currency: "EUR", counsel_fee_percentage: 20, platform_percentage: 5, holdback_percentage: 0 },
      created_at: matter.created_at,
    });
    expect(updated.audit.request_id).toBe(expectAuditRef(response));

    const back = await app().request("PATCH", `/v1/matters/${matter.id}`, {
      key: owner.key,
      body: { status: "active", lead_counsel: null },
    });
    expect(Matter.parse(back.json)).toMatchObject({ status: "active", lead_counsel: null, name: "Renamed" });
  });

  it("answers a PATCH that changes nothing with the matter as it is, writing nothing and appending no event", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner, { name: "Unchanged", economics: { platform_percentage: 5 } });
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    for (const body of [{}, { name: "Unchanged" }, { economics: { platform_percentage: 5 } }, { unknown_field: 1 }]) {
      const response = await app().request("PATCH", `/v1/matters/${matter.id}`, { key: owner.key, body });
      expect(response.status).toBe(200);
      expect(withoutAuditRef(response.json)).toEqual(withoutAuditRef(matter));
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
  });

  it("lets exactly one of ten concurrent closes win; the rest get 409 and append nothing", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner, { name: "Raced" });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        app().request("POST", `/v1/matters/${matter.id}/close`, {
          key: owner.key,
          body: { reason: i % 2 ? "paid" : "settled" },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(9).fill(409)]);
    for (const refused of answers.filter((answer) => answer.status === 409)) expectError(refused, 409, "conflict");
    expect(await countEvents(app().sql, owner.organizationId, "matter.closed")).toBe(1);
  });

  it("refuses status 'closed' through PATCH with 422 listing the allowed values, and appends nothing", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const response = await app().request("PATCH", `/v1/matters/${matter.id}`, {
      key: owner.key,
      body: { status: "closed" },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("status");
    expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual(["active", "on_hold"]);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    const unchanged = await app().request("GET", `/v1/matters/${matter.id}`, { key: owner.key });
    expect(Matter.parse(unchanged.json).status).toBe("active");
  });

  it("closes a matter with a reason, then refuses every further write with 409 and appends nothing", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const response = await app().request("POST", `/v1/matters/${matter.id}/close`, {
      key: owner.key,
      body: { reason: "settled", notes: "Settled at mediation." },
    });
    expect(response.status).toBe(200);
    const closed = Matter.parse(response.json);
    expect(closed).toMatchObject({ status: "closed", close_reason: "settled", close_notes: "Settled at mediation." });
    expect(closed.closed_at).toMatch(ISO_MILLIS);

    const before = await countEvents(app().sql, owner.organizationId);
    const patch = await app().request("PATCH", `/v1/matters/${matter.id}`, {
      key: owner.key,
      body: { name: "Reopen?" },
    });
    expect(expectError(patch, 409, "conflict").error.message).toContain(matter.id);
    const reopen = await app().request("PATCH", `/v1/matters/${matter.id}`, {
      key: owner.key,
      body: { status: "active" },
    });
    expectError(reopen, 409, "conflict");
    const again = await app().request("POST", `/v1/matters/${matter.id}/close`, {
      key: owner.key,
      body: { reason: "paid" },
    });
    expectError(again, 409, "conflict");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);

    const still = Matter.parse((await app().request("GET", `/v1/matters/${matter.id}`, { key: owner.key })).json);
    expect(still).toMatchObject({ status: "closed", close_reason: "settled", name: matter.name });
  });

  it("returns the dashboard with zero figures and the intake phase, then the closed phase", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner, { name: "Dash", economics: { currency: "GBP" } });
    const response = await app().request("GET", `/v1/matters/${matter.id}/dashboard`, { key: owner.key });
    expect(response.status).toBe(200);
    expectAuditRef(response);
    const dashboard = MatterDashboard.parse(response.json);
    expect(dashboard).toEqual({
      object: "matter_dashboard",
      matter_id: matter.id,
      judgment_value: { amount: 0, currency: "GBP", valuation_time: expect.stringMatching(ISO_MILLIS) },
      other_judgment_values: [],
      known_crypto_exposure: { amount: 0, currency: "USD", valuation_time: expect.stringMatching(ISO_MILLIS) },
      open_actions: 0,
      open_packets: 0,
      alerts: 0,
      recovery_events: 0,
      platform_economics: { amount: 0, currency: "GBP", valuation_time: expect.stringMatching(ISO_MILLIS) },
      recovery_phase: "intake",
      phase_index: 0,
      packets: 0,
      remittances: 0,
    });

    await app().request("POST", `/v1/matters/${matter.id}/close`, { key: owner.key, body: { reason: "exhausted" } });
    const after = MatterDashboard.parse(
      (await app().request("GET", `/v1/matters/${matter.id}/dashboard`, { key: owner.key })).json,
    );
    expect(after).toMatchObject({ recovery_phase: "closed", phase_index: 6 });
  });

  it("appends matter.created, matter.updated and matter.closed carrying the object as returned", async () => {
    const owner = await app().mintKey();
    const created = await createMatter(app(), owner);
    const path = `/v1/matters/${created.matter.id}`;
    const updated = await app().request("PATCH", path, { key: owner.key, body: { status: "on_hold", name: "Held" } });
    const closed = await app().request("POST", `${path}/close`, { key: owner.key, body: { reason: "stayed" } });

    for (const [response, type, status] of [
      [created.response, "matter.created", "active"],
      [updated, "matter.updated", "on_hold"],
      [closed, "matter.closed", "closed"],
    ] as const) {
      const requestId = expectAuditRef(response);
      const events = await eventsOfRequest(app(), owner, requestId);
      expect(events).toHaveLength(1);
      const [event] = events;
      expect(event).toMatchObject({ type, audit_ref: requestId, livemode: false, api_version: "2026-07-05" });
      expect(event?.data).toMatchObject({ matter_id: created.matter.id, status, audit_ref: requestId });
      expect(event?.data.object).toEqual(withoutAuditRef(response.json));
    }
    const updatedEvent = (await eventsOfRequest(app(), owner, expectAuditRef(updated)))[0];
    expect(updatedEvent?.data.previous_attributes).toEqual({ status: "active", name: created.matter.name });
    const closedEvent = (await eventsOfRequest(app(), owner, expectAuditRef(closed)))[0];
    expect(closedEvent?.data.close_reason).toBe("stayed");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(3);
  });

  it("appends no event for a refused write", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const before = await countEvents(app().sql, owner.organizationId);
    expectError(
      await app().request("POST", "/v1/matters", { key: owner.key, body: { name: 5 } }),
      422,
      "invalid_request",
    );
    expectError(
      await app().request("PATCH", `/v1/matters/${matter.id}`, {
        key: owner.key,
        body: { economics: { currency: "x" } },
      }),
      422,
      "invalid_request",
    );
    expectError(
      await app().request("POST", `/v1/matters/${matter.id}/close`, { key: owner.key, body: { reason: "bored" } }),
      422,
      "invalid_request",
    );
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countMatters(app().sql, owner.organizationId)).toBe(1);
  });

  it("refuses an Idempotency-Key reused on another route, and one longer than 255 characters", async () => {
    const owner = await app().mintKey();
    const idempotencyKey = `route-${randomUUID()}`;
    const created = await app().request("POST", "/v1/matters", {
      key: owner.key,
      body: { name: "First" },
      headers: { "idempotency-key": idempotencyKey },
    });
    const matterId = Matter.parse(created.json).id;
    const before = await countEvents(app().sql, owner.organizationId);
    const otherRoute = await app().request("POST", `/v1/matters/${matterId}/close`, {
      key: owner.key,
      body: { name: "First" },
      headers: { "idempotency-key": idempotencyKey },
    });
    expect(expectError(otherRoute, 409, "conflict").error.param).toBe("Idempotency-Key");
    expect(Matter.parse((await app().request("GET", `/v1/matters/${matterId}`, { key: owner.key })).json).status).toBe(
      "active",
    );

    const tooLong = await app().request("POST", "/v1/matters", {
      key: owner.key,
      body: { name: "Second" },
      headers: { "idempotency-key": "k".repeat(256) },
    });
    expect(expectError(tooLong, 400, "invalid_request").error.param).toBe("Idempotency-Key");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });

  it("stores a refused write's 4xx under its Idempotency-Key and replays it, writing nothing", async () => {
    const owner = await app().mintKey();
    const headers = { "idempotency-key": `refused-${randomUUID()}` };
    const first = await app().request("POST", "/v1/matters", { key: owner.key, body: { mode: "bogus" }, headers });
    expectError(first, 422, "invalid_request");
    const again = await app().request("POST", "/v1/matters", { key: owner.key, body: { mode: "bogus" }, headers });
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const corrected = await app().request("POST", "/v1/matters", { key: owner.key, body: { name: "Fixed" }, headers });
    expect(expectError(corrected, 409, "conflict").error.param).toBe("Idempotency-Key");
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(0);
  });

  it("scopes Idempotency-Keys per organization", async () => {
    const first = await app().mintKey();
    const second = await app().mintKey();
    const headers = { "idempotency-key": `shared-${randomUUID()}` };
    const a = await app().request("POST", "/v1/matters", { key: first.key, body: { name: "Same" }, headers });
    const b = await app().request("POST", "/v1/matters", { key: second.key, body: { name: "Same" }, headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(Matter.parse(b.json).organization_id).toBe(second.organizationId);
  });

  it("refuses money-like percentages with more than two decimals or outside 0..100", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/matters", {
      key: owner.key,
      body: { name: "Pct", economics: { counsel_fee_percentage: 10.125, holdback_percentage: -0.01 } },
    });
    const envelope = expectError(response, 422, "invalid_request");
    const invalid = ValidationDetails.parse(envelope.error.details).invalid?.map((f) => f.param);
    expect(invalid?.sort()).toEqual(["economics.counsel_fee_percentage", "economics.holdback_percentage"]);
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
  });
});
