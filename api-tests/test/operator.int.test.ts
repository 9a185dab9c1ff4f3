import {
  EnforcementPosture,
  Judgment,
  Matter,
  MatterAuthority,
  MatterDashboard,
  operatorOperations,
  Party,
  SanctionsHit,
  SCOPES,
} from "@crs/contract";
import { describe, expect, it } from "vitest";
import { countEvents, countRows, expectError } from "./support/expectations";
import { createCase, createMatter, createParty, eventsOfRequest, validate } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { type TestKey, useTestApp } from "./support/test-app";

const LISTED_ADDRESS = "0x2222222222222222222222222222222222222222";
const app = useTestApp({
  liveSanctionsList: {
    source: "operator-test.jsonl",
    entries: [{ kind: "address", value: LISTED_ADDRESS, network: null, program: "CYBER2", source: "OFAC SDN test" }],
  },
});

/** Operators are live keys issued with the privileged operator:write scope (no sandbox key has it). */
const operator = () => app().keyWithScopes([...SCOPES, "operator:write"]);

async function rpc(
  owner: TestKey,
  procedure: string,
  input: Record<string, unknown>,
  type: "query" | "mutation" = "mutation",
) {
  return app().rpc(type, `operator.${procedure}`, { key: owner.key, input });
}

async function setEnforcement(owner: TestKey, judgmentId: string) {
  return app().request("POST", `/v1/judgments/${judgmentId}/enforcement`, {
    key: owner.key,
    body: { strategy: "Freeze" },
  });
}

/** A case whose posture awaits review. */
async function caseUnderReview(owner: TestKey) {
  const record = await createCase(app(), owner);
  await validate(app(), owner, record.judgment.id, { consumer_debt: false });
  expect((await setEnforcement(owner, record.judgment.id)).status).toBe(200);
  return record;
}

/** A matter with one party whose wallet is on the live list: one open hit. */
async function matterWithHit(owner: TestKey) {
  const { matter } = await createMatter(app(), owner);
  const { party } = await createParty(app(), owner, {
    matter_id: matter.id,
    role: "debtor",
    name: "Listed Holder",
    wallets: [LISTED_ADDRESS],
  });
  const [hit] = party.sanctions_hits;
  if (!hit) throw new Error("the listed wallet raised no hit");
  return { matter, party, hit };
}

const matterDecisionSuite = (procedure: "grantAuthority" | "revokeAuthority" | "clearAuthorityDecision") => ({
  app,
  owner: operator,
  request: async (owner: TestKey) => ({
    body: { matter_id: (await createMatter(app(), owner)).matter.id, notes: "Engagement letter on file." },
  }),
  badBody: { body: { notes: 5 }, missing: ["matter_id"], invalid: ["notes"] },
  idempotency: {
    effects: async (owner: TestKey) => ({
      decisions: await countRows(app().sql, "matter_authority_decisions", owner.organizationId),
      updated_events: await countEvents(app().sql, owner.organizationId, "matter.updated"),
    }),
    perWrite: { decisions: 1, updated_events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", notes: `another ${procedure}` },
  },
});

describeSecuritySuite(operatorOperations.authority, {
  app,
  owner: operator,
  request: async (owner) => ({ query: { matter_id: (await createMatter(app(), owner)).matter.id } }),
});
describeSecuritySuite(operatorOperations.grantAuthority, matterDecisionSuite("grantAuthority"));
describeSecuritySuite(operatorOperations.revokeAuthority, matterDecisionSuite("revokeAuthority"));
describeSecuritySuite(operatorOperations.clearAuthorityDecision, matterDecisionSuite("clearAuthorityDecision"));

describeSecuritySuite(operatorOperations.clearReview, {
  app,
  owner: operator,
  request: async (owner) => ({
    body: { judgment_id: (await caseUnderReview(owner)).judgment.id, reviewer: "Ops", notes: "Posture approved." },
  }),
  badBody: { body: { reviewer: 5 }, missing: ["judgment_id"], invalid: ["reviewer"] },
  idempotency: {
    effects: async (owner) => ({
      updated_events: await countEvents(app().sql, owner.organizationId, "judgment.updated"),
    }),
    perWrite: { updated_events: 1 },
    changedBody: { judgment_id: "judgment_00000000000000000000000000" },
  },
});

describeSecuritySuite(operatorOperations.clearSanctionsHit, {
  app,
  owner: operator,
  request: async (owner) => ({ body: { hit_id: (await matterWithHit(owner)).hit.id, notes: "False positive." } }),
  badBody: { body: { notes: " " }, missing: ["hit_id"], invalid: ["notes"] },
  idempotency: {
    effects: async (owner) => ({
      updated_events: await countEvents(app().sql, owner.organizationId, "matter.updated"),
    }),
    perWrite: { updated_events: 1 },
    changedBody: { hit_id: "hit_00000000000000000000000000", notes: "Other." },
  },
});

describe("operator: matter authority", () => {
  it("is refused to a sandbox key, which never holds operator:write", async () => {
    const sandbox = await app().mintKey();
    const { matter } = await createMatter(app(), sandbox);
    const response = await rpc(sandbox, "grantAuthority", { matter_id: matter.id });
    expect(expectError(response, 403, "insufficient_scope").error.details).toMatchObject({
      required_scope: "operator:write",
    });
  });

  it("lets a grant authorize enforcement without a ready validation, appending matter.updated", async () => {
    const owner = await operator();
    const { judgment, matter } = await createCase(app(), owner);
    expectError(await setEnforcement(owner, judgment.id), 409, "authority_required");

    const response = await rpc(owner, "grantAuthority", { matter_id: matter.id, notes: "Court order on file." });
    expect(response.status).toBe(200);
    const authority = MatterAuthority.parse(response.json);
    expect(authority).toMatchObject({
      object: "matter_authority",
      matter_id: matter.id,
      granted: true,
      basis: "operator_grant",
      operator_decision: { decision: "grant", notes: "Court order on file.", actor_id: owner.keyId },
    });
    const [event] = await eventsOfRequest(app(), owner, response.headers.get("svc-request-id") ?? "");
    expect(event).toMatchObject({
      type: "matter.updated",
      data: { matter_id: matter.id, authority_decision: "grant", authority: response.json },
    });
    expect(EnforcementPosture.parse((await setEnforcement(owner, judgment.id)).json).review_required).toBe(true);
  });

  it("lets a revoke outlast a later ready validation until an operator clears it", async () => {
    const owner = await operator();
    const { judgment, matter } = await createCase(app(), owner);
    await rpc(owner, "revokeAuthority", { matter_id: matter.id, notes: "Engagement ended." });
    const { validation } = await validate(app(), owner, judgment.id, { consumer_debt: false });
    expect(validation.ready).toBe(true);
    expect(
      expectError(await setEnforcement(owner, judgment.id), 409, "authority_required").error.details,
    ).toMatchObject({ authority: { granted: false, basis: "operator_revoke" } });

    const cleared = MatterAuthority.parse((await rpc(owner, "clearAuthorityDecision", { matter_id: matter.id })).json);
    expect(cleared).toMatchObject({ granted: true, basis: "ready_judgment", judgment_ids: [judgment.id] });
    expect(cleared.operator_decision?.decision).toBe("clear");
    const read = MatterAuthority.parse((await rpc(owner, "authority", { matter_id: matter.id }, "query")).json);
    expect(read).toEqual(cleared);
    expect((await setEnforcement(owner, judgment.id)).status).toBe(200);
  });

  it("refuses a decision on a closed matter with 409 conflict", async () => {
    const owner = await operator();
    const { matter } = await createMatter(app(), owner);
    await app().request("POST", `/v1/matters/${matter.id}/close`, { key: owner.key, body: { reason: "paid" } });
    expectError(await rpc(owner, "grantAuthority", { matter_id: matter.id }), 409, "conflict");
    expect(await countRows(app().sql, "matter_authority_decisions", owner.organizationId)).toBe(0);
  });
});

describe("operator: reviews and sanctions hits", () => {
  it("clears a pending enforcement review, which then no longer counts as an open action", async () => {
    const owner = await operator();
    const { judgment, matter } = await caseUnderReview(owner);
    const dashboard = async () =>
      MatterDashboard.parse(
        (await app().request("GET", `/v1/matters/${matter.id}/dashboard`, { key: owner.key })).json,
      );
    expect((await dashboard()).open_actions).toBe(1);

    const response = await rpc(owner, "clearReview", { judgment_id: judgment.id, reviewer: "Ops", notes: "Fine." });
    const cleared = Judgment.parse(response.json);
    expect(cleared.review_state).toEqual({
      review_required: false,
      review_status: "cleared",
      review_owner: "Ops",
      review_notes: "Fine.",
    });
    expect(cleared.enforcement).toMatchObject({ review_required: false, review_status: "cleared" });
    const [event] = await eventsOfRequest(app(), owner, response.headers.get("svc-request-id") ?? "");
    expect(event).toMatchObject({ type: "judgment.updated", data: { judgment_id: judgment.id } });
    expect((await dashboard()).open_actions).toBe(0);

    const again = await rpc(owner, "clearReview", { judgment_id: judgment.id });
    expect(expectError(again, 409, "conflict").error.message).toContain("no review to clear");
  });

  it("clears a sanctions hit and releases the matter's hold once none is left open", async () => {
    const owner = await operator();
    const { matter, party, hit } = await matterWithHit(owner);
    const second = (
      await createParty(app(), owner, {
        matter_id: matter.id,
        role: "counterparty",
        name: "Exchange",
        identifiers: { deposit: LISTED_ADDRESS },
      })
    ).party.sanctions_hits[0];
    if (!second) throw new Error("the listed identifier raised no hit");
    const holdOf = async () =>
      Matter.parse((await app().request("GET", `/v1/matters/${matter.id}`, { key: owner.key })).json).sanctions_hold;
    expect(await holdOf()).toBe(true);

    const first = await rpc(owner, "clearSanctionsHit", { hit_id: hit.id, notes: "Address reused by a mixer." });
    expect(SanctionsHit.parse(first.json)).toMatchObject({
      status: "cleared",
      clear_notes: "Address reused by a mixer.",
      cleared_at: expect.any(String),
    });
    expect(await holdOf()).toBe(true);
    const last = await rpc(owner, "clearSanctionsHit", { hit_id: second.id, notes: "Licence on file." });
    expect(last.status).toBe(200);
    expect(await holdOf()).toBe(false);
    const [event] = await eventsOfRequest(app(), owner, last.headers.get("svc-request-id") ?? "");
    expect(event).toMatchObject({
      type: "matter.updated",
      data: { previous_attributes: { sanctions_hold: true }, sanctions_hit_cleared: { hit_id: second.id } },
    });
    const reread = Party.parse((await app().request("GET", `/v1/parties/${party.id}`, { key: owner.key })).json);
    expect(reread.sanctions_hits.map((h) => h.status)).toEqual(["cleared"]);
    expect(
      MatterDashboard.parse((await app().request("GET", `/v1/matters/${matter.id}/dashboard`, { key: owner.key })).json)
        .alerts,
    ).toBe(0);

    expectError(await rpc(owner, "clearSanctionsHit", { hit_id: hit.id, notes: "Again." }), 409, "conflict");
  });
});
