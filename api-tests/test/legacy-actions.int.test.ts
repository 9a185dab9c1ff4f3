import { Action, actionOperations, ClawCampaign, type ErrorCode, Matter, Packet } from "@crs/contract";
import { SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  countEvents,
  countRows,
  ErrorEnvelope,
  expectAuditRef,
  expectError,
  ValidationDetails,
} from "./support/expectations";
import { type Case, createCase } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestApp, type TestKey, type TestResponse, useTestApp } from "./support/test-app";

const app = useTestApp({
  legacyWindow: OPEN_LEGACY_WINDOW,
});

const ActionList = z.object({
  object: z.literal("list"),
  data: z.array(Action),
  has_more: z.boolean(),
  url: z.string(),
});
const LISTED_WALLET = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";

/** The test app with its REST calls sent to the legacy listener, so the shared fixtures run there. */
const legacyApp = (): TestApp => ({ ...app(), request: app().legacyRequest });
const call = (owner: TestKey, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  app().legacyRequest(method, path, {
    key: owner.key,
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });

/** A case whose judgment has a ready validation: the matter has granted authority. */
async function authorizedCase(owner: TestKey): Promise<Case> {
  const record = await createCase(legacyApp(), owner);
  const validated = await call(owner, "POST", `/v1/judgments/${record.judgment.id}/validate`, { consumer_debt: false });
  expect({ status: validated.status, body: validated.json }).toMatchObject({
    status: 200,
    body: { enforcement_ready: true },
  });
  return record;
}

async function createAction(owner: TestKey, matterId: string, body: Record<string, unknown> = {}): Promise<Action> {
  const response = await call(owner, "POST", "/v1/actions", {
    matter_id: matterId,
    type: "call_exchange",
    title: "Call the exchange",
    ...body,
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return Action.parse(response.json);
}

/** An open action on a new authorized case. */
async function openAction(owner: TestKey, body: Record<string, unknown> = {}) {
  const record = await authorizedCase(owner);
  return { record, action: await createAction(owner, record.matter.id, body) };
}

async function patch(owner: TestKey, actionId: string, body: Record<string, unknown>) {
  return call(owner, "PATCH", `/v1/actions/${actionId}`, body);
}

async function startedAction(owner: TestKey) {
  const opened = await openAction(owner);
  const started = await patch(owner, opened.action.id, { status: "in_progress" });
  expect(started.status).toBe(200);
  return { ...opened, action: Action.parse(started.json) };
}

async function retrieve(owner: TestKey, actionId: string): Promise<Action> {
  const response = await call(owner, "GET", `/v1/actions/${actionId}`);
  expect(response.status).toBe(200);
  return Action.parse(response.json);
}

/** The events one request appended, read from the log itself. */
async function eventsOf(owner: TestKey, response: TestResponse) {
  return app().sql<{ type: string; data: Record<string, unknown> }[]>`
    select type, data from events
     where organization_id = ${owner.organizationId} and audit_ref = ${response.headers.get("svc-request-id") ?? ""}
     order by sequence`;
}

const actionCount = (owner: TestKey) => countRows(app().sql, "actions", owner.organizationId);
const matterUpdates = async (owner: TestKey) =>
  Number(
    (
      await app().sql<{ n: string }[]>`
        select count(*)::text as n from events
         where organization_id = ${owner.organizationId} and type = 'matter.updated'`
    )[0]?.n,
  );
const completedCount = async (owner: TestKey) =>
  Number(
    (
      await app().sql<{ n: string }[]>`
        select count(*)::text as n from actions where organization_id = ${owner.organizationId} and status = 'completed'`
    )[0]?.n,
  );

/** The idempotency check of a write that records one matter.updated event. */
const recordsOneMatterUpdate = (changedBody: Record<string, unknown>) => ({
  effects: async (owner: TestKey) => ({ updates: await matterUpdates(owner) }),
  perWrite: { updates: 1 },
  changedBody,
});

/** Runs `attempt` and checks that the organization's events and actions are as they were. */
async function writesNothing(owner: TestKey, attempt: () => Promise<void>) {
  const events = await countEvents(app().sql, owner.organizationId);
  const actions = await app().sql`select * from actions where organization_id = ${owner.organizationId} order by id`;
  await attempt();
  expect(await countEvents(app().sql, owner.organizationId)).toBe(events);
  expect(await app().sql`select * from actions where organization_id = ${owner.organizationId} order by id`).toEqual(
    actions,
  );
}

function expectRefusedMove(response: TestResponse, status: string, allowed: string[]): ErrorEnvelope {
  const envelope = expectError(response, 409, "conflict");
  expect(envelope.error.param).toBe("status");
  expect(envelope.error.details).toMatchObject({ status, allowed });
  return envelope;
}

/** A create of an action linked through `field` to each of `ids` answers 404 naming the field, writing nothing. */
async function expectUnknownLinks(owner: TestKey, matterId: string, field: string, ids: string[]) {
  await writesNothing(owner, async () => {
    for (const id of ids) {
      const envelope = expectError(
        await call(owner, "POST", "/v1/actions", { matter_id: matterId, type: "t", title: "T", [field]: id }),
        404,
        "not_found",
      );
      expect(envelope.error.param).toBe(field);
    }
  });
}

const assign = (owner: TestKey, actionId: string) =>
  call(owner, "POST", `/v1/actions/${actionId}/assign`, { owner_id: "x" });
const complete = (owner: TestKey, actionId: string, notes = "Done") =>
  call(owner, "POST", `/v1/actions/${actionId}/complete`, { completion_notes: notes });

/** An update (`edit`), an assign and a complete of the action each answer `status` with `code`. */
async function expectWritesRefused(
  owner: TestKey,
  actionId: string,
  status: number,
  code: ErrorCode,
  edit: Record<string, unknown> = { title: "X" },
) {
  expectError(await patch(owner, actionId, edit), status, code);
  expectError(await assign(owner, actionId), status, code);
  expectError(await complete(owner, actionId), status, code);
}

/**
 * A canceled or completed action refuses every status move, an update (`edit`), an assign and a
 * complete as a refused move from `status` with no allowed moves, writing nothing.
 */
async function expectFinal(
  owner: TestKey,
  actionId: string,
  status: string,
  edit: Record<string, unknown>,
  notes: string,
) {
  await writesNothing(owner, async () => {
    for (const next of ["open", "in_progress", "canceled"]) {
      expectRefusedMove(await patch(owner, actionId, { status: next }), status, []);
    }
    expectRefusedMove(await patch(owner, actionId, edit), status, []);
    expectRefusedMove(await assign(owner, actionId), status, []);
    expectRefusedMove(await complete(owner, actionId, notes), status, []);
  });
}

describeSecuritySuite(actionOperations.create, {
  app,
  request: async (owner) => ({
    body: { matter_id: (await authorizedCase(owner)).matter.id, type: "call_exchange", title: "Call the exchange" },
  }),
  badBody: {
    body: { type: " ", title: 5, priority: "asap", due_at: "tomorrow", linked_packet_id: "" },
    missing: ["matter_id"],
    invalid: ["type", "title", "priority", "due_at", "linked_packet_id"],
  },
  idempotency: {
    effects: async (owner) => ({ actions: await actionCount(owner) }),
    perWrite: { actions: 1 },
    changedBody: { title: "Something else" },
  },
});

describeSecuritySuite(actionOperations.list, {
  app,
  request: async (owner) => {
    await openAction(owner);
    return { query: { limit: "5" } };
  },
});

describeSecuritySuite(actionOperations.get, {
  app,
  request: async (owner) => ({ params: { action_id: (await openAction(owner)).action.id } }),
});

describeSecuritySuite(actionOperations.update, {
  app,
  request: async (owner) => ({
    params: { action_id: (await openAction(owner)).action.id },
    body: { title: "Renamed" },
  }),
  badBody: {
    body: { title: "", status: "done", priority: 3, due_at: "soon" },
    missing: [],
    invalid: ["title", "status", "priority", "due_at"],
  },
  idempotency: recordsOneMatterUpdate({ title: "Renamed again" }),
});

describeSecuritySuite(actionOperations.assign, {
  app,
  request: async (owner) => ({
    params: { action_id: (await openAction(owner)).action.id },
    body: { owner_id: "sam.paralegal", notes: "Sam has the contact." },
  }),
  badBody: { body: { notes: 5 }, missing: ["owner_id"], invalid: ["notes"] },
  idempotency: recordsOneMatterUpdate({ owner_id: "someone.else" }),
});

describeSecuritySuite(actionOperations.complete, {
  app,
  request: async (owner) => ({
    params: { action_id: (await startedAction(owner)).action.id },
    body: { completion_notes: "The exchange confirmed the freeze." },
  }),
  badBody: { body: { evidence_refs: "email" }, missing: ["completion_notes"], invalid: ["evidence_refs"] },
  idempotency: {
    effects: async (owner) => ({ completed: await completedCount(owner) }),
    perWrite: { completed: 1 },
    changedBody: { completion_notes: "Other notes." },
  },
});

describeSecuritySuite(actionOperations.listOfMatter, {
  app,
  request: async (owner) => ({
    params: { matter_id: (await openAction(owner)).record.matter.id },
    query: { limit: "5" },
  }),
});

describe("legacy actions: create", () => {
  it("creates an open action with defaults, shows it, and records matter.updated with the action", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    const response = await call(owner, "POST", "/v1/actions", {
      matter_id: record.matter.id,
      type: "call_exchange",
      title: "Call the exchange's compliance desk",
      due_at: "2026-07-01T19:00:00+02:00",
      campaign_id: null,
    });
    expect(response.status).toBe(201);
    expectAuditRef(response);
    const action = Action.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(action).toMatchObject({
      object: "action",
      id: action.action_id,
      matter_id: record.matter.id,
      campaign_id: null,
      type: "call_exchange",
      title: "Call the exchange's compliance desk",
      owner_id: null,
      priority: "normal",
      status: "open",
      due_at: "2026-07-01T17:00:00.000Z",
      linked_packet_id: null,
      assignment_notes: null,
      completion_notes: null,
      review_required: false,
      evidence_refs: [],
      completed_at: null,
    });
    expect(action.action_id).toMatch(/^act_[0-9a-z]{26}$/);
    const { audit_ref: _auditRef, ...shown } = action;
    expect(await retrieve(owner, action.id)).toEqual(shown);

    const events = await eventsOf(owner, response);
    expect(events.map((event) => event.type)).toEqual(["matter.updated"]);
    expect(events[0]?.data).toMatchObject({
      matter_id: record.matter.id,
      action_id: action.id,
      action_change: "created",
      action: shown,
      object: { object: "matter", id: record.matter.id },
    });
  });

  it("refuses without granted authority: 403 authority_required, nothing written", async () => {
    const owner = await app().mintLegacyKey();
    const record = await createCase(legacyApp(), owner); // never validated
    await writesNothing(owner, async () => {
      const envelope = expectError(
        await call(owner, "POST", "/v1/actions", { matter_id: record.matter.id, type: "t", title: "T" }),
        403,
        "authority_required",
      );
      expect(envelope.error.param).toBe("matter_id");
    });
    expect(await actionCount(owner)).toBe(0);
  });

  it("refuses under an open sanctions hit even with authority: 403 sanctions_gate, nothing written", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    const hit = await call(owner, "POST", "/v1/parties", {
      matter_id: record.matter.id,
      role: "counterparty",
      name: "Mixer",
      wallets: [LISTED_WALLET],
    });
    expect(hit.status).toBe(201);
    await writesNothing(owner, async () => {
      expectError(
        await call(owner, "POST", "/v1/actions", { matter_id: record.matter.id, type: "t", title: "T" }),
        403,
        "sanctions_gate",
      );
    });
    expect(await actionCount(owner)).toBe(0);
  });

  it("links a packet of the same matter; 404 naming linked_packet_id for another matter's or an unknown one", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    const other = await authorizedCase(owner);
    const packetOf = async (matterId: string) => {
      const response = await call(owner, "POST", "/v1/packets", { matter_id: matterId, type: "sanctions_review" });
      expect(response.status).toBe(201);
      return Packet.parse(response.json);
    };
    const own = await packetOf(record.matter.id);
    const foreign = await packetOf(other.matter.id);
    const linked = await createAction(owner, record.matter.id, { linked_packet_id: own.id });
    expect(linked.linked_packet_id).toBe(own.id);
    await expectUnknownLinks(owner, record.matter.id, "linked_packet_id", [
      foreign.id,
      "pkt_01k1z9r5ht3q7mxw2c4d8e6f0g",
      record.matter.id,
    ]);
  });

  it("links a campaign of the same matter; 404 naming campaign_id for another matter's, an unknown or a malformed one", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    const other = await authorizedCase(owner);
    const campaignOf = async (of: Case) => {
      const response = await call(owner, "POST", "/v1/claw/campaigns", {
        matter_id: of.matter.id,
        judgment_id: of.judgment.id,
      });
      expect(response.status).toBe(200);
      return ClawCampaign.parse(response.json);
    };
    const own = await campaignOf(record);
    const foreign = await campaignOf(other);
    const linked = await createAction(owner, record.matter.id, { campaign_id: own.id, review_required: true });
    expect(linked).toMatchObject({ campaign_id: own.id, review_required: true });
    await expectUnknownLinks(owner, record.matter.id, "campaign_id", [
      foreign.id,
      "camp_01k1z9r5ht3q7mxw2c4d8e6f0g",
      "anything",
    ]);
  });

  it("refuses writes on a closed matter with 409, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const { record, action } = await openAction(owner);
    const closed = await call(owner, "POST", `/v1/matters/${record.matter.id}/close`, { reason: "settled" });
    expect(closed.status).toBe(200);
    await writesNothing(owner, async () => {
      expectError(
        await call(owner, "POST", "/v1/actions", { matter_id: record.matter.id, type: "t", title: "T" }),
        409,
        "conflict",
      );
      expectError(await patch(owner, action.id, { title: "X" }), 409, "conflict");
      expectError(await assign(owner, action.id), 409, "conflict");
    });
  });
});

describe("legacy actions: gates on every write", () => {
  it("refuses update, assign and complete once the matter loses authority (a stay) or gets a sanctions hit", async () => {
    const owner = await app().mintLegacyKey();
    const { record, action } = await startedAction(owner);
    const stay = await call(owner, "PATCH", `/v1/judgments/${record.judgment.id}`, { appeal_stay_status: "stayed" });
    expect(stay.status).toBe(200);
    await writesNothing(owner, () => expectWritesRefused(owner, action.id, 403, "authority_required"));
    const lifted = await call(owner, "PATCH", `/v1/judgments/${record.judgment.id}`, { appeal_stay_status: "none" });
    expect(lifted.status).toBe(200);
    expect((await patch(owner, action.id, { title: "Authority is back" })).status).toBe(200);

    const hit = await call(owner, "POST", "/v1/parties", {
      matter_id: record.matter.id,
      role: "counterparty",
      name: "Mixer",
      wallets: [LISTED_WALLET],
    });
    expect(hit.status).toBe(201);
    await writesNothing(owner, () => expectWritesRefused(owner, action.id, 403, "sanctions_gate"));
  });
});

describe("legacy actions: the status path", () => {
  it("moves open → in_progress → canceled, and refuses every other move naming status with the allowed moves", async () => {
    const owner = await app().mintLegacyKey();
    const { action } = await openAction(owner);

    await writesNothing(owner, async () => {
      expectRefusedMove(await patch(owner, action.id, { status: "canceled" }), "open", ["in_progress"]);
      expectRefusedMove(await complete(owner, action.id), "open", []);
      const viaPatch = expectError(await patch(owner, action.id, { status: "completed" }), 422, "invalid_request");
      expect(viaPatch.error.param).toBe("status");
      expect(viaPatch.error.message).toContain("/complete");
      expect(ValidationDetails.parse(viaPatch.error.details).invalid?.map((f) => f.param)).toEqual(["status"]);
      const unknown = expectError(await patch(owner, action.id, { status: "done" }), 422, "invalid_request");
      expect(ValidationDetails.parse(unknown.error.details).allowed).toEqual([
        "open",
        "in_progress",
        "completed",
        "canceled",
      ]);
    });
    // Asking for the status it has is no move: nothing is written.
    await writesNothing(owner, async () => {
      expect((await patch(owner, action.id, { status: "open" })).status).toBe(200);
    });

    const started = await patch(owner, action.id, { status: "in_progress" });
    expect(started.status).toBe(200);
    expect(Action.parse(started.json).status).toBe("in_progress");
    expect((await eventsOf(owner, started))[0]?.data).toMatchObject({
      action_change: "updated",
      action_previous_attributes: { status: "open" },
    });

    await writesNothing(owner, async () => {
      expectRefusedMove(await patch(owner, action.id, { status: "open" }), "in_progress", ["canceled"]);
      expectError(await patch(owner, action.id, { status: "completed" }), 422, "invalid_request");
    });

    const canceled = await patch(owner, action.id, { status: "canceled" });
    expect(canceled.status).toBe(200);
    expect(Action.parse(canceled.json)).toMatchObject({ status: "canceled", completed_at: null });

    await expectFinal(owner, action.id, "canceled", { title: "Too late" }, "Done");
  });

  it("completes an in-progress action with notes and evidence; a completed action refuses every write", async () => {
    const owner = await app().mintLegacyKey();
    const { action } = await startedAction(owner);
    const response = await call(owner, "POST", `/v1/actions/${action.id}/complete`, {
      completion_notes: "The exchange confirmed the freeze by email.",
      evidence_refs: [
        { source_id: "email-1", source_type: "email", title: "Freeze confirmation", hash: "ab".repeat(32) },
      ],
    });
    expect(response.status).toBe(200);
    const completed = Action.parse(response.json);
    expect(completed).toMatchObject({
      status: "completed",
      completion_notes: "The exchange confirmed the freeze by email.",
      evidence_refs: [
        {
          source_id: "email-1",
          source_type: "email",
          title: "Freeze confirmation",
          uri: null,
          hash: "ab".repeat(32),
          chain_of_custody_id: null,
          admissibility_notes: null,
        },
      ],
    });
    expect(completed.completed_at).toBe(completed.updated_at);
    expect(await retrieve(owner, action.id)).toEqual(completed);
    const events = await eventsOf(owner, response);
    expect(events.map((event) => [event.type, event.data.action_change])).toEqual([["matter.updated", "completed"]]);

    await expectFinal(owner, action.id, "completed", { priority: "low" }, "Again");
  });

  it("refuses a complete without completion_notes (422 naming it), changing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const { action } = await startedAction(owner);
    await writesNothing(owner, async () => {
      for (const body of [{}, { completion_notes: "   " }, { evidence_refs: [{ source_id: "x" }] }]) {
        const envelope = expectError(
          await call(owner, "POST", `/v1/actions/${action.id}/complete`, body),
          422,
          "invalid_request",
        );
        expect(envelope.error.param).toBe("completion_notes");
      }
    });
    expect((await retrieve(owner, action.id)).status).toBe("in_progress");
  });

  it("updates title, priority, owner and due time, and records only the fields that changed", async () => {
    const owner = await app().mintLegacyKey();
    const { action } = await openAction(owner, { owner_id: "jane", priority: "low" });
    const response = await patch(owner, action.id, {
      title: "New title",
      priority: "urgent",
      owner_id: "jane",
      due_at: "2026-08-01T00:00:00Z",
    });
    expect(response.status).toBe(200);
    expect(Action.parse(response.json)).toMatchObject({
      title: "New title",
      priority: "urgent",
      owner_id: "jane",
      due_at: "2026-08-01T00:00:00.000Z",
    });
    expect((await eventsOf(owner, response))[0]?.data.action_previous_attributes).toEqual({
      title: "Call the exchange",
      priority: "low",
      due_at: null,
    });
    const cleared = await patch(owner, action.id, { due_at: null, owner_id: null });
    expect(Action.parse(cleared.json)).toMatchObject({ due_at: null, owner_id: null });
  });
});

describe("legacy actions: assign", () => {
  it("sets the owner and the assignment notes, keeping the status, and records the hand-over", async () => {
    const owner = await app().mintLegacyKey();
    const { action } = await startedAction(owner);
    const response = await call(owner, "POST", `/v1/actions/${action.id}/assign`, {
      owner_id: "sam.paralegal",
      notes: "Sam has the exchange contact.",
    });
    expect(response.status).toBe(200);
    expect(Action.parse(response.json)).toMatchObject({
      owner_id: "sam.paralegal",
      assignment_notes: "Sam has the exchange contact.",
      status: "in_progress",
    });
    expect((await eventsOf(owner, response))[0]?.data).toMatchObject({
      action_change: "assigned",
      action_previous_attributes: { owner_id: null, assignment_notes: null },
    });
    const reassigned = await call(owner, "POST", `/v1/actions/${action.id}/assign`, { owner_id: "jane.counsel" });
    expect(Action.parse(reassigned.json)).toMatchObject({ owner_id: "jane.counsel", assignment_notes: null });
  });
});

describe("legacy actions: lists", () => {
  it("filters by matter, owner, status, priority and due time, pages most recent first, and 400s a bad filter", async () => {
    const owner = await app().mintLegacyKey();
    const first = await authorizedCase(owner);
    const second = await authorizedCase(owner);
    const a = await createAction(owner, first.matter.id, { owner_id: "jane", due_at: "2026-07-01T00:00:00Z" });
    const b = await createAction(owner, second.matter.id, { owner_id: "sam", priority: "urgent" });
    const c = await createAction(owner, first.matter.id, { owner_id: "sam", due_at: "2026-07-02T00:00:00Z" });
    const d = await createAction(owner, second.matter.id, { due_at: "2026-07-03T00:00:00Z" });
    expect((await patch(owner, c.id, { status: "in_progress" })).status).toBe(200);

    const list = async (query: string) => {
      const response = await call(owner, "GET", `/v1/actions${query}`);
      expect(response.status).toBe(200);
      return ActionList.parse(response.json);
    };
    const ids = async (query: string) => (await list(query)).data.map((action) => action.id);
    expect(await ids("")).toEqual([d.id, c.id, b.id, a.id]);
    expect(await ids(`?matter_id=${first.matter.id}`)).toEqual([c.id, a.id]);
    expect(await ids("?owner_id=sam")).toEqual([c.id, b.id]);
    expect(await ids("?status=in_progress")).toEqual([c.id]);
    expect(await ids("?status=open&owner_id=sam")).toEqual([b.id]);
    expect(await ids("?priority=urgent")).toEqual([b.id]);
    expect(await ids("?due_after=2026-07-02T00:00:00Z")).toEqual([d.id, c.id]);
    expect(await ids("?due_before=2026-07-02T00:00:00Z")).toEqual([a.id]);
    expect(await ids("?due_after=2026-07-01T00:00:00Z&due_before=2026-07-03T00:00:00Z")).toEqual([c.id, a.id]);
    expect(await ids("?campaign_id=camp_01k1z9r5ht3q7mxw2c4d8e6f0g")).toEqual([]);

    const page1 = await list("?limit=3");
    expect(page1.data.map((action) => action.id)).toEqual([d.id, c.id, b.id]);
    expect(page1).toMatchObject({ has_more: true, url: "/v1/actions" });
    const page2 = await list(`?limit=3&starting_after=${b.id}`);
    expect(page2.data.map((action) => action.id)).toEqual([a.id]);
    expect(page2.has_more).toBe(false);
    expect(await ids(`?limit=2&ending_before=${a.id}`)).toEqual([c.id, b.id]);

    for (const [query, param] of [
      ["?status=done", "status"],
      ["?priority=asap", "priority"],
      ["?due_before=tomorrow", "due_before"],
      ["?due_after=2026-13-01", "due_after"],
      ["?matter_id=not-an-id", "matter_id"],
      ["?campaign_id=42", "campaign_id"],
      ["?limit=0", "limit"],
    ] as const) {
      const envelope = expectError(await call(owner, "GET", `/v1/actions${query}`), 400, "invalid_request");
      expect(envelope.error.param, query).toBe(param);
    }
  });

  it("lists one matter's actions under /v1/actions/matters/{matter_id}, with the same filters; 404 for an unknown matter", async () => {
    const owner = await app().mintLegacyKey();
    const first = await authorizedCase(owner);
    const second = await authorizedCase(owner);
    const a = await createAction(owner, first.matter.id, { owner_id: "jane" });
    await createAction(owner, second.matter.id, { owner_id: "jane" });
    const c = await createAction(owner, first.matter.id, { owner_id: "sam" });

    const response = await call(owner, "GET", `/v1/actions/matters/${first.matter.id}`);
    expect(response.status).toBe(200);
    const list = ActionList.parse(response.json);
    expect(list.data.map((action) => action.id)).toEqual([c.id, a.id]);
    expect(list.url).toBe(`/v1/actions/matters/${first.matter.id}`);
    const filtered = ActionList.parse(
      (await call(owner, "GET", `/v1/actions/matters/${first.matter.id}?owner_id=jane`)).json,
    );
    expect(filtered.data.map((action) => action.id)).toEqual([a.id]);
    const paged = ActionList.parse((await call(owner, "GET", `/v1/actions/matters/${first.matter.id}?limit=1`)).json);
    expect(paged).toMatchObject({ has_more: true });
    expect(paged.data.map((action) => action.id)).toEqual([c.id]);

    const empty = Matter.parse((await call(owner, "POST", "/v1/matters", { name: "No actions" })).json);
    expect(ActionList.parse((await call(owner, "GET", `/v1/actions/matters/${empty.id}`)).json).data).toEqual([]);
    expectError(await call(owner, "GET", "/v1/actions/matters/matter_01k1z9r5ht3q7mxw2c4d8e6f0g"), 404, "not_found");
    expectError(await call(owner, "GET", `/v1/actions/matters/${a.id}`), 404, "not_found");
  });
});

describe("legacy actions: isolation", () => {
  it("answers 404 to another organization for every action operation, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const stranger = await app().mintLegacyKey();
    const { record, action } = await startedAction(owner);
    await writesNothing(owner, async () => {
      expectError(await call(stranger, "GET", `/v1/actions/${action.id}`), 404, "not_found");
      await expectWritesRefused(stranger, action.id, 404, "not_found", { title: "Mine" });
      expectError(await call(stranger, "GET", `/v1/actions/matters/${record.matter.id}`), 404, "not_found");
      const listed = ActionList.parse((await call(stranger, "GET", `/v1/actions?matter_id=${record.matter.id}`)).json);
      expect(listed.data).toEqual([]);
    });
    // An id of the wrong prefix is simply unknown.
    expectError(await call(owner, "GET", `/v1/actions/${record.matter.id}`), 404, "not_found");
  });

  it("is served only on the legacy listener", async () => {
    const owner = await app().mintKey();
    expectError(await app().request("GET", "/v1/actions", { key: owner.key }), 404, "not_found");
  });
});

describe("legacy actions: concurrency", () => {
  it("of 10 concurrent completes of one action exactly one completes; the others get the refused move", async () => {
    const owner = await app().mintLegacyKey();
    const { action } = await startedAction(owner);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(owner, "POST", `/v1/actions/${action.id}/complete`, { completion_notes: `Completion ${i}` }),
      ),
    );
    const completed = responses.filter((response) => response.status === 200);
    expect(completed).toHaveLength(1);
    for (const refused of responses.filter((response) => response.status !== 200)) {
      expectRefusedMove(refused, "completed", []);
    }
    const stored = await retrieve(owner, action.id);
    expect(stored.completion_notes).toBe(Action.parse(completed[0]?.json).completion_notes);
    const completions = await app().sql`
      select 1 from events where organization_id = ${owner.organizationId} and data->>'action_change' = 'completed'`;
    expect(completions).toHaveLength(1);
  });

  it("of concurrent completes and cancels of one action exactly one wins", async () => {
    const owner = await app().mintLegacyKey();
    const { action } = await startedAction(owner);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0 ? complete(owner, action.id) : patch(owner, action.id, { status: "canceled" }),
      ),
    );
    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    const final = Action.parse(winners[0]?.json).status;
    expect(["completed", "canceled"]).toContain(final);
    for (const refused of responses.filter((response) => response.status !== 200)) {
      expectRefusedMove(refused, final, []);
    }
    expect((await retrieve(owner, action.id)).status).toBe(final);
  });
});

describe("legacy actions: date-times PostgreSQL cannot hold", () => {
  it("refuses year 0000 in a due date or a due filter with a 4xx naming the field, never a 500", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    const created = await call(owner, "POST", "/v1/actions", {
      matter_id: record.matter.id,
      type: "call_exchange",
      title: "Call the exchange",
      due_at: "0000-01-01T00:00:00Z",
    });
    expect(expectError(created, 422, "invalid_request").error.param).toBe("due_at");
    const listed = await app().legacyRequest("GET", "/v1/actions?due_after=0000-01-01T00:00:00Z", { key: owner.key });
    expect(listed.status).toBe(400);
    expect(ErrorEnvelope.parse(listed.json).error.param).toBe("due_after");
  });
});

describe("legacy actions: text PostgreSQL cannot hold in a filter", () => {
  it("refuses a NUL character in the owner filter with 400 naming it, never a 500", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    // owner_id is free text: nothing but the screen stands between it and the query.
    for (const path of ["/v1/actions", `/v1/actions/matters/${record.matter.id}`]) {
      for (const text of ["%00", "sam%00"]) {
        const listed = await app().legacyRequest("GET", `${path}?owner_id=${text}`, { key: owner.key });
        expect(expectError(listed, 400, "invalid_request").error.param).toBe("owner_id");
      }
    }
  });
});
