import {
  Deadline,
  EnforcementPosture,
  Judgment,
  JudgmentValidation,
  JudgmentValidationLegacy,
  judgmentOperations,
  MatterDashboard,
} from "@crs/contract";
import { JUDGMENT_INTAKE_FIELDS } from "@crs/core";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  countEvents,
  countRows,
  expectAuditRef,
  expectError,
  ISO_MILLIS,
  ValidationDetails,
  withoutAuditRef,
} from "./support/expectations";
import {
  createCase,
  createMatter,
  createParty,
  eventsOfRequest,
  intakeJudgment,
  judgmentBody,
  validate,
} from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { type TestKey, useTestApp } from "./support/test-app";

/** The service's clock: the wall clock unless a test pins it (and afterEach unpins it). */
let pinnedNow: Date | null = null;
const app = useTestApp({ clock: () => pinnedNow ?? new Date() });
afterEach(() => {
  pinnedNow = null;
});

const DeadlineList = z.object({
  object: z.literal("list"),
  data: z.array(Deadline),
  has_more: z.literal(false),
  url: z.string(),
  audit_ref: z.string(),
});

const ownMatter = async (owner: TestKey) => (await createMatter(app(), owner)).matter.id;

/** A case whose judgment has a ready validation: the matter has authority. */
async function readyCase(owner: TestKey) {
  const record = await createCase(app(), owner);
  const { validation } = await validate(app(), owner, record.judgment.id, { consumer_debt: false });
  expect(validation.ready).toBe(true);
  return record;
}

async function getJudgment(owner: TestKey, judgmentId: string): Promise<Judgment> {
  const response = await app().request("GET", `/v1/judgments/${judgmentId}`, { key: owner.key });
  expect(response.status).toBe(200);
  return Judgment.parse(response.json);
}

async function patchJudgment(owner: TestKey, judgmentId: string, body: Record<string, unknown>) {
  return app().request("PATCH", `/v1/judgments/${judgmentId}`, { key: owner.key, body });
}

async function setEnforcement(owner: TestKey, judgmentId: string, body: Record<string, unknown> = {}) {
  return app().request("POST", `/v1/judgments/${judgmentId}/enforcement`, { key: owner.key, body });
}

describeSecuritySuite(judgmentOperations.intake, {
  app,
  request: async (owner) => ({ body: judgmentBody(await ownMatter(owner)) }),
  badBody: {
    body: { court: " ", jurisdiction: 7, amount: -5, date_entered: "2024-02-30" },
    missing: ["matter_id", "case_number", "creditor", "debtor"],
    invalid: ["court", "jurisdiction", "amount", "date_entered"],
  },
  idempotency: {
    effects: async (owner) => ({
      judgments: await countRows(app().sql, "judgments", owner.organizationId),
      created_events: await countEvents(app().sql, owner.organizationId, "judgment.created"),
    }),
    perWrite: { judgments: 1, created_events: 1 },
    changedBody: judgmentBody("matter_00000000000000000000000000", { case_number: "other" }),
  },
});

describeSecuritySuite(judgmentOperations.get, {
  app,
  request: async (owner) => ({ params: { judgment_id: (await createCase(app(), owner)).judgment.id } }),
});

describeSecuritySuite(judgmentOperations.update, {
  app,
  request: async (owner) => ({
    params: { judgment_id: (await createCase(app(), owner)).judgment.id },
    body: { appeal_stay_status: "appeal_pending" },
  }),
  badBody: {
    body: { status: "bogus", renewal_deadline: "2024-02-30", court: "Another court", amount: 5 },
    missing: [],
    invalid: ["status", "renewal_deadline", "court", "amount"],
  },
  idempotency: {
    effects: async (owner) => ({
      updated_events: await countEvents(app().sql, owner.organizationId, "judgment.updated"),
    }),
    perWrite: { updated_events: 1 },
    changedBody: { status: "satisfied" },
  },
});

describeSecuritySuite(judgmentOperations.validate, {
  app,
  request: async (owner) => ({
    params: { judgment_id: (await createCase(app(), owner)).judgment.id },
    body: { consumer_debt: false },
  }),
  badBody: {
    body: { checks: ["tarot_reading"], consumer_debt: "yes" },
    missing: [],
    invalid: ["checks.0", "consumer_debt"],
  },
  idempotency: {
    effects: async (owner) => ({
      validations: await countRows(app().sql, "judgment_validations", owner.organizationId),
      validated_events: await countEvents(app().sql, owner.organizationId, "judgment.validated"),
    }),
    perWrite: { validations: 1, validated_events: 1 },
    changedBody: { consumer_debt: false, bankruptcy_known: false },
  },
});

describeSecuritySuite(judgmentOperations.deadlines, {
  app,
  request: async (owner) => ({ params: { judgment_id: (await createCase(app(), owner)).judgment.id } }),
});

describeSecuritySuite(judgmentOperations.enforcement, {
  app,
  request: async (owner) => ({
    params: { judgment_id: (await readyCase(owner)).judgment.id },
    body: { strategy: "Freeze, then turnover", venues: ["Coinbase"] },
  }),
  badBody: {
    body: { venues: "Coinbase", notes: 5, priorities: [""] },
    missing: [],
    invalid: ["venues", "notes", "priorities.0"],
  },
  idempotency: {
    effects: async (owner) => ({
      postures: await countRows(app().sql, "enforcement_postures", owner.organizationId),
      set_events: await countEvents(app().sql, owner.organizationId, "judgment.enforcement_set"),
    }),
    perWrite: { postures: 1, set_events: 1 },
    changedBody: { strategy: "Something else" },
  },
});

describe("judgments: intake", () => {
  it("records a judgment with its lifecycle defaults, deadlines, matter, balance and audit", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner, { name: "Acme v. Doe", lead_counsel: "Jane Counsel" });
    const { response, judgment } = await intakeJudgment(
      app(),
      owner,
      judgmentBody(matter.id, {
        amount: { amount: 1234.5, currency: "USD", valuation_time: "2024-03-15T12:00:00+02:00" },
      }),
    );
    expect(judgment).toMatchObject({
      object: "judgment",
      matter_id: matter.id,
      livemode: false,
      court: "Superior Court of California, County of Los Angeles",
      case_number: "23STCV01234",
      jurisdiction: "US-CA",
      creditor: "Acme Holdings LLC",
      debtor: "Doe Trading Ltd",
      amount: { amount: 1234.5, currency: "USD", valuation_time: "2024-03-15T10:00:00.000Z" },
      currency: "USD",
      date_entered: "2024-03-15",
      status: "active",
      appeal_stay_status: "none",
      bankruptcy_status: "none",
      renewal_deadline: null,
      review_state: { review_required: false, review_status: "not_required", review_owner: "", review_notes: "" },
      validation: null,
      enforcement: null,
      matter: {
        object: "matter_summary",
        matter_id: matter.id,
        name: "Acme v. Doe",
        status: "active",
        lead_counsel: "Jane Counsel",
      },
      balance: { object: "judgment_balance", currency: "USD", judgment_amount: 1234.5, recovered: 0, remitted: 0 },
    });
    expect(judgment.id).toMatch(/^judgment_[0-9a-z]{26}$/);
    expect(judgment.judgment_id).toBe(judgment.id);
    const renewal = judgment.deadlines.find((deadline) => deadline.type === "renewal");
    expect(renewal).toMatchObject({
      key: "renewal",
      date: "2034-03-15",
      owner: "Jane Counsel",
      status: "open",
      judgment_id: judgment.id,
    });
    expect(renewal?.basis).toContain("Cal. Code Civ. Proc. § 683.020");
    expect(renewal?.deadline_id).toMatch(/^dl_[0-9a-z]{26}$/);
    expect(judgment.deadlines.map((deadline) => deadline.type).sort()).toEqual(["monitoring", "renewal"]);
    expect(judgment.audit).toMatchObject({ request_id: expectAuditRef(response), matter_id: matter.id });

    const [event] = await eventsOfRequest(app(), owner, expectAuditRef(response));
    expect(event).toMatchObject({ type: "judgment.created", data: { judgment_id: judgment.id, status: "active" } });
    expect(event?.data.object).toEqual(withoutAuditRef(response.json));
    expect(
      withoutAuditRef((await app().request("GET", `/v1/judgments/${judgment.id}`, { key: owner.key })).json),
    ).toEqual(withoutAuditRef(response.json));
  });

  it("echoes a plain-number amount as a number, in the matter's currency", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner, { name: "Euro matter", economics: { currency: "EUR" } });
    const { judgment } = await intakeJudgment(app(), owner, judgmentBody(matter.id, { amount: 98765.43 }));
    expect(judgment.amount).toBe(98765.43);
    expect(judgment.currency).toBe("EUR");
    expect(judgment.balance).toMatchObject({ currency: "EUR", judgment_amount: 98765.43 });
  });

  it.each(JUDGMENT_INTAKE_FIELDS)("refuses a body without %s with 422 naming it, and writes nothing", async (field) => {
    const owner = await app().mintKey();
    const { [field]: _left, ...body } = judgmentBody(await ownMatter(owner));
    const response = await app().request("POST", "/v1/judgments/intake", { key: owner.key, body });
    const envelope = expectError(response, 422, "invalid_request");
    expect(ValidationDetails.parse(envelope.error.details).missing).toEqual([field]);
    expect(envelope.error.param).toBe(field);
    expect(envelope.error.message).toContain(field);
    expect(await countRows(app().sql, "judgments", owner.organizationId)).toBe(0);
  });

  it("names all eight fields, in order, when the body has none of them", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/judgments/intake", { key: owner.key, body: {} });
    const envelope = expectError(response, 422, "invalid_request");
    expect(ValidationDetails.parse(envelope.error.details).missing).toEqual([...JUDGMENT_INTAKE_FIELDS]);
    for (const field of JUDGMENT_INTAKE_FIELDS) expect(envelope.error.message).toContain(field);
  });

  it.each([
    ["2024-02-30", "a day that does not exist"],
    ["2023-02-29", "29 February of a common year"],
    ["2024-13-01", "a thirteenth month"],
    ["15/03/2024", "another format"],
  ])("refuses date_entered %s (%s) with 422 naming it", async (date) => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/judgments/intake", {
      key: owner.key,
      body: judgmentBody(await ownMatter(owner), { date_entered: date }),
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("date_entered");
    expect(ValidationDetails.parse(envelope.error.details).invalid?.map((f) => f.param)).toEqual(["date_entered"]);
  });

  it("refuses a judgment entered after today", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    pinnedNow = new Date("2026-07-05T23:59:59.999Z");
    const tomorrow = await app().request("POST", "/v1/judgments/intake", {
      key: owner.key,
      body: judgmentBody(matterId, { date_entered: "2026-07-06" }),
    });
    expect(expectError(tomorrow, 422, "invalid_request").error.param).toBe("date_entered");
    await intakeJudgment(app(), owner, judgmentBody(matterId, { date_entered: "2026-07-05" }));
  });

  it.each([
    [-1, "must not be negative"],
    [10.125, "at most 2 decimal places"],
    [10_000_000_000_000, "at most"],
    [{ amount: 10, currency: "usd" }, "three-letter"],
    [{ amount: -10, currency: "USD" }, "must not be negative"],
    ["100", "Invalid input"],
  ])("refuses amount %j with 422 naming it", async (amount, why) => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/judgments/intake", {
      key: owner.key,
      body: judgmentBody(await ownMatter(owner), { amount }),
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toMatch(/^amount/);
    expect(envelope.error.message).toContain(why);
  });

  it("refuses intake on a closed matter with 409 conflict", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    await app().request("POST", `/v1/matters/${matterId}/close`, { key: owner.key, body: { reason: "paid" } });
    const response = await app().request("POST", "/v1/judgments/intake", {
      key: owner.key,
      body: judgmentBody(matterId),
    });
    expectError(response, 409, "conflict");
    expect(await countRows(app().sql, "judgments", owner.organizationId)).toBe(0);
  });
});

describe("judgments: update", () => {
  it.each(JUDGMENT_INTAKE_FIELDS)("refuses a PATCH carrying the core field %s with 422 naming it", async (field) => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const response = await patchJudgment(owner, judgment.id, {
      status: "satisfied",
      [field]: judgmentBody("x")[field],
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe(field);
    expect(envelope.error.message).toContain(`${field} (is a core field`);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect((await getJudgment(owner, judgment.id)).status).toBe("active");
  });

  it("updates the lifecycle fields and records what changed", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const response = await patchJudgment(owner, judgment.id, {
      appeal_stay_status: "appeal_pending",
      bankruptcy_status: "filed",
      review_state: { review_owner: "R. Viewer", review_notes: "Watching the appeal." },
    });
    expect(response.status).toBe(200);
    const updated = Judgment.parse(response.json);
    expect(updated).toMatchObject({
      appeal_stay_status: "appeal_pending",
      bankruptcy_status: "filed",
      review_state: { review_required: false, review_status: "not_required", review_owner: "R. Viewer" },
      court: judgment.court,
    });
    const [event] = await eventsOfRequest(app(), owner, expectAuditRef(response));
    expect(event?.type).toBe("judgment.updated");
    expect(event?.data.previous_attributes).toMatchObject({
      appeal_stay_status: "none",
      bankruptcy_status: "none",
      review_state: judgment.review_state,
    });
    const before = await countEvents(app().sql, owner.organizationId);
    const same = await patchJudgment(owner, judgment.id, { appeal_stay_status: "appeal_pending" });
    expect(same.status).toBe(200);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });

  it("moves the renewal deadline to a PATCHed renewal_deadline, keeping its deadline_id, and back", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const renewalOf = (j: Judgment) => j.deadlines.find((deadline) => deadline.type === "renewal");
    const original = renewalOf(judgment);
    const moved = Judgment.parse((await patchJudgment(owner, judgment.id, { renewal_deadline: "2044-03-15" })).json);
    expect(moved.renewal_deadline).toBe("2044-03-15");
    expect(renewalOf(moved)).toMatchObject({ deadline_id: original?.deadline_id, date: "2044-03-15" });
    expect(renewalOf(moved)?.basis).toContain("recorded on the judgment");
    const back = Judgment.parse((await patchJudgment(owner, judgment.id, { renewal_deadline: null })).json);
    expect(renewalOf(back)).toEqual(original);

    const bad = await patchJudgment(owner, judgment.id, { renewal_deadline: "2044-02-30" });
    expect(expectError(bad, 422, "invalid_request").error.param).toBe("renewal_deadline");
  });

  it("refuses a review_required that contradicts the review status", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const response = await patchJudgment(owner, judgment.id, {
      review_state: { review_status: "approved", review_required: true },
    });
    expect(expectError(response, 422, "invalid_request").error.param).toBe("review_state.review_required");
    const agreeing = await patchJudgment(owner, judgment.id, {
      review_state: { review_status: "pending", review_required: true },
    });
    expect(Judgment.parse(agreeing.json).review_state).toMatchObject({
      review_required: true,
      review_status: "pending",
    });
  });

  it.each([
    ["an unknown judgment id", "judgment_00000000000000000000000000"],
    ["an id of another kind", "matter_00000000000000000000000000"],
    ["a malformed id", "nope"],
  ])("returns 404 for %s on every judgment route", async (_label, id) => {
    const owner = await app().mintKey();
    for (const [method, path, body] of [
      ["GET", `/v1/judgments/${id}`, undefined],
      ["PATCH", `/v1/judgments/${id}`, { status: "satisfied" }],
      ["POST", `/v1/judgments/${id}/validate`, {}],
      ["GET", `/v1/judgments/${id}/deadlines`, undefined],
      ["POST", `/v1/judgments/${id}/enforcement`, {}],
    ] as const) {
      const response = await app().request(method, path, { key: owner.key, ...(body ? { body } : {}) });
      expect(expectError(response, 404, "not_found").error.message).toContain("judgment");
    }
  });
});

describe("judgments: deadlines", () => {
  it("computes the renewal from the jurisdiction's judgment life: open on the day, missed the day after", async () => {
    const owner = await app().mintKey();
    pinnedNow = new Date("2025-06-01T12:00:00.000Z");
    const { judgment } = await createCase(app(), owner, { jurisdiction: "Illinois", date_entered: "2019-01-10" });
    const renewal = async () => {
      const response = await app().request("GET", `/v1/judgments/${judgment.id}/deadlines`, { key: owner.key });
      expect(response.status).toBe(200);
      const list = DeadlineList.parse(response.json);
      expect(list.url).toBe(`/v1/judgments/${judgment.id}/deadlines`);
      return list.data.find((deadline) => deadline.type === "renewal");
    };
    const first = await renewal();
    expect(first).toMatchObject({ date: "2026-01-10", status: "open" });
    expect(first?.basis).toContain("735 ILCS 5/12-108(a)");
    pinnedNow = new Date("2026-01-10T23:59:59.999Z");
    expect(await renewal()).toEqual(first);
    pinnedNow = new Date("2026-01-11T00:00:00.000Z");
    expect(await renewal()).toEqual({ ...first, status: "missed" });
  });

  it("falls back to a 10-year life where the jurisdiction is unknown, and says so", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner, { jurisdiction: "Atlantis", date_entered: "2020-02-29" });
    const renewal = judgment.deadlines.find((deadline) => deadline.type === "renewal");
    expect(renewal?.date).toBe("2030-02-28");
    expect(renewal?.basis).toContain("default judgment life");
  });

  it("lists the next 90-day monitoring cycle while the matter is active, a new deadline per cycle", async () => {
    const owner = await app().mintKey();
    pinnedNow = new Date("2026-01-01T09:00:00.000Z");
    const { judgment, matter } = await createCase(app(), owner);
    const monitoringOf = (j: Judgment) => j.deadlines.find((deadline) => deadline.type === "monitoring");
    const first = monitoringOf(judgment);
    expect(first).toMatchObject({ key: "monitoring:1", date: "2026-04-01", status: "open", owner: "Jane Counsel" });
    pinnedNow = new Date("2026-04-02T09:00:00.000Z");
    const second = monitoringOf(await getJudgment(owner, judgment.id));
    expect(second).toMatchObject({ key: "monitoring:2", date: "2026-06-30" });
    expect(second?.deadline_id).not.toBe(first?.deadline_id);
    pinnedNow = new Date("2026-01-01T09:00:00.000Z");
    expect(monitoringOf(await getJudgment(owner, judgment.id))?.deadline_id).toBe(first?.deadline_id);

    await app().request("PATCH", `/v1/matters/${matter.id}`, { key: owner.key, body: { status: "on_hold" } });
    expect(monitoringOf(await getJudgment(owner, judgment.id))).toBeUndefined();
  });

  it("marks the renewal met once the judgment is satisfied", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const satisfied = Judgment.parse((await patchJudgment(owner, judgment.id, { status: "satisfied" })).json);
    expect(satisfied.deadlines.find((deadline) => deadline.type === "renewal")?.status).toBe("met");
  });
});

describe("judgments: validation", () => {
  it("is ready when the gates pass and the parties link, stores the result and appends judgment.validated", async () => {
    const owner = await app().mintKey();
    const { judgment, matter } = await createCase(app(), owner);
    const { response, validation } = await validate(app(), owner, judgment.id, {
      consumer_debt: false,
      checks: ["certified_judgment"],
    });
    expect(validation).toMatchObject({
      object: "judgment_validation",
      judgment_id: judgment.id,
      matter_id: matter.id,
      ready: true,
      valid: true,
      enforcement_ready: true,
      review_required: true,
      gates: { judgment_present: true, amount_set: true, court_set: true, parties_linked: true, not_expired: true },
      missing_items: [],
    });
    expect(validation.checks.map((check) => [check.gate, check.status])).toEqual([
      ["authority", "pass"],
      ["stay_appeal", "pass"],
      ["bankruptcy", "pass"],
      ["consumer_commercial", "pass"],
      ["required_documents", "review"],
    ]);
    expect(validation.validated_at).toMatch(ISO_MILLIS);
    const [event] = await eventsOfRequest(app(), owner, expectAuditRef(response));
    expect(event).toMatchObject({
      type: "judgment.validated",
      data: { judgment_id: judgment.id, matter_id: matter.id, status: "active", audit_ref: expectAuditRef(response) },
    });
    expect(event?.data.object).toEqual(withoutAuditRef(response.json));
    expect((await getJudgment(owner, judgment.id)).validation).toEqual(validation);
  });

  it("names every failing gate with its reasons and actions, appends nothing, and still stores the result", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const { judgment } = await intakeJudgment(app(), owner, judgmentBody(matter.id, { amount: 0 }));
    await patchJudgment(owner, judgment.id, { appeal_stay_status: "stayed" });
    const before = await countEvents(app().sql, owner.organizationId);
    const { validation } = await validate(app(), owner, judgment.id);
    expect(validation).toMatchObject({ ready: false, enforcement_ready: false });
    expect(validation.gates).toMatchObject({ amount_set: false, parties_linked: false, court_set: true });
    expect(validation.checks.find((check) => check.gate === "authority")?.status).toBe("fail");
    expect(validation.checks.find((check) => check.gate === "stay_appeal")?.status).toBe("fail");
    const sources = new Set(validation.issues.map((issue) => issue.source));
    expect(sources).toEqual(new Set(["amount_set", "parties_linked", "stay_appeal"]));
    for (const issue of validation.issues) expect(issue.required_actions.length).toBeGreaterThan(0);
    expect(validation.missing_items.length).toBe(validation.issues.filter((i) => i.severity === "blocking").length);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countRows(app().sql, "judgment_validations", owner.organizationId)).toBe(1);
    expect((await getJudgment(owner, judgment.id)).validation).toEqual(validation);
  });

  it("answers 2026-06-11 callers with the array of gates, and 2026-07-05 callers with the current shape", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const legacy = await app().request("POST", `/v1/judgments/${judgment.id}/validate`, {
      key: owner.key,
      body: {},
      headers: { "svc-version": "2026-06-11" },
    });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get("svc-version")).toBe("2026-06-11");
    const shapeB = JudgmentValidationLegacy.strict().extend({ audit_ref: z.string() }).parse(legacy.json);
    expect(shapeB.gates.map((gate) => gate.gate)).toEqual([
      "judgment_present",
      "amount_set",
      "court_set",
      "parties_linked",
      "not_expired",
      "authority",
      "stay_appeal",
      "bankruptcy",
      "consumer_commercial",
      "required_documents",
    ]);
    expect(shapeB).toMatchObject({ judgment_id: judgment.id, enforcement_ready: true, missing_items: [] });
    // Silent on consumer debt with an entity debtor: commercial, so nothing to review.
    expect(shapeB.review_required).toBe(false);

    const current = await app().request("POST", `/v1/judgments/${judgment.id}/validate`, {
      key: owner.key,
      body: {},
      headers: { "svc-version": "2026-07-05" },
    });
    const shapeA = JudgmentValidation.strict().extend({ audit_ref: z.string() }).parse(current.json);
    expect(shapeA).toMatchObject({ ready: true, enforcement_ready: true });

    const rpc = await app().rpc("mutation", "judgments.validate", {
      key: owner.key,
      input: { judgment_id: judgment.id },
    });
    expect(JudgmentValidation.strict().parse(rpc.json).ready).toBe(true);
  });

  it("fails a gate in the 2026-06-11 shape with its reasons", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const { judgment } = await intakeJudgment(app(), owner, judgmentBody(matter.id));
    const legacy = await app().request("POST", `/v1/judgments/${judgment.id}/validate`, {
      key: owner.key,
      body: {},
      headers: { "svc-version": "2026-06-11" },
    });
    const shapeB = JudgmentValidationLegacy.parse(legacy.json);
    const linked = shapeB.gates.find((gate) => gate.gate === "parties_linked");
    expect(linked).toMatchObject({ status: "fail" });
    expect(linked?.reasons).toContain("the matter has no active debtor party");
    expect(linked?.required_actions.length).toBeGreaterThan(0);
    expect(shapeB.missing_items).toContain("the matter has no active debtor party");
  });

  it("refuses an unknown check with 422 listing the allowed ones", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const response = await app().request("POST", `/v1/judgments/${judgment.id}/validate`, {
      key: owner.key,
      body: { checks: ["horoscope"] },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("checks.0");
    expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual(
      expect.arrayContaining(["authority", "required_documents", "certified_judgment", "writ_of_execution"]),
    );
  });

  it("links the parties through legal names and aliases, whatever their case", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    await createParty(app(), owner, { matter_id: matterId, role: "debtor", name: "DT", aliases: ["doe trading LTD"] });
    await createParty(app(), owner, {
      matter_id: matterId,
      role: "claimant",
      name: "Acme",
      legal_name: "ACME HOLDINGS LLC",
    });
    const { judgment } = await intakeJudgment(app(), owner, judgmentBody(matterId));
    const { validation } = await validate(app(), owner, judgment.id);
    expect(validation.gates.parties_linked).toBe(true);
  });
});

describe("judgments: enforcement posture", () => {
  it("sets the posture once authority is granted, under review until a reviewer clears it through PATCH", async () => {
    const owner = await app().mintKey();
    const { judgment, matter } = await readyCase(owner);
    const response = await setEnforcement(owner, judgment.id, {
      strategy: "Freeze, then turnover",
      venues: ["Coinbase", "Kraken"],
      priorities: ["exchange_freeze"],
      notes: "Two exchanges.",
    });
    expect(response.status).toBe(200);
    const posture = EnforcementPosture.parse(response.json);
    expect(posture).toMatchObject({
      object: "enforcement",
      judgment_id: judgment.id,
      matter_id: matter.id,
      strategy: "Freeze, then turnover",
      venues: ["Coinbase", "Kraken"],
      priorities: ["exchange_freeze"],
      notes: "Two exchanges.",
      review_required: true,
      review_status: "pending",
    });
    const [event] = await eventsOfRequest(app(), owner, expectAuditRef(response));
    expect(event).toMatchObject({ type: "judgment.enforcement_set", data: { judgment_id: judgment.id } });
    expect(event?.data.object).toEqual(withoutAuditRef(response.json));

    const read = await getJudgment(owner, judgment.id);
    expect(read.enforcement).toEqual(posture);
    expect(read.review_state).toMatchObject({ review_required: true, review_status: "pending" });

    const approved = Judgment.parse(
      (
        await patchJudgment(owner, judgment.id, {
          review_state: { review_status: "approved", review_owner: "R. Viewer" },
        })
      ).json,
    );
    expect(approved.enforcement).toMatchObject({ review_required: false, review_status: "approved" });

    // A new posture replaces the old one whole, and needs review again.
    const replaced = EnforcementPosture.parse((await setEnforcement(owner, judgment.id, { venues: ["Binance"] })).json);
    expect(replaced).toMatchObject({
      strategy: null,
      venues: ["Binance"],
      priorities: [],
      notes: null,
      review_required: true,
    });
    expect(await countRows(app().sql, "enforcement_postures", owner.organizationId)).toBe(1);
  });

  it("refuses a posture without authority with 409 authority_required, writing nothing", async () => {
    const owner = await app().mintKey();
    const { judgment } = await createCase(app(), owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const response = await setEnforcement(owner, judgment.id, { strategy: "Too early" });
    const envelope = expectError(response, 409, "authority_required");
    expect(envelope.error.details).toMatchObject({ authority: { granted: false, basis: "none" } });
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });

  it.each([[{ appeal_stay_status: "stayed" }], [{ bankruptcy_status: "automatic_stay" }]])(
    "refuses a posture while %j with 409 stay_in_effect",
    async (stay) => {
      const owner = await app().mintKey();
      const { judgment } = await readyCase(owner);
      expect((await patchJudgment(owner, judgment.id, stay)).status).toBe(200);
      const before = await countEvents(app().sql, owner.organizationId);
      const response = await setEnforcement(owner, judgment.id, { strategy: "Stayed" });
      expect(expectError(response, 409, "stay_in_effect").error.details).toMatchObject(stay);
      expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
      expect((await getJudgment(owner, judgment.id)).enforcement).toBeNull();
    },
  );

  it("withdraws authority when a stay follows the ready validation", async () => {
    const owner = await app().mintKey();
    const { judgment, matter } = await readyCase(owner);
    const second = await intakeJudgment(app(), owner, judgmentBody(matter.id, { case_number: "second" }));
    await patchJudgment(owner, judgment.id, { bankruptcy_status: "automatic_stay" });
    // The stayed judgment no longer carries authority, and the second was never validated.
    expectError(await setEnforcement(owner, second.judgment.id), 409, "authority_required");
  });
});

describe("judgments: closed matters and the dashboard", () => {
  it("refuses every write to a closed matter's judgments with 409 conflict, and appends nothing", async () => {
    const owner = await app().mintKey();
    const { judgment, matter } = await readyCase(owner);
    await app().request("POST", `/v1/matters/${matter.id}/close`, { key: owner.key, body: { reason: "settled" } });
    const before = await countEvents(app().sql, owner.organizationId);
    expectError(await patchJudgment(owner, judgment.id, { status: "satisfied" }), 409, "conflict");
    expectError(
      await app().request("POST", `/v1/judgments/${judgment.id}/validate`, { key: owner.key, body: {} }),
      409,
      "conflict",
    );
    expectError(await setEnforcement(owner, judgment.id), 409, "conflict");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect((await getJudgment(owner, judgment.id)).matter.status).toBe("closed");
  });

  it("counts judgment value, reviews, deadlines, stays and sanctions hits", async () => {
    const owner = await app().mintKey();
    pinnedNow = new Date("2026-07-05T12:00:00.000Z");
    const { judgment, matter } = await readyCase(owner);
    const dashboard = async () =>
      MatterDashboard.parse(
        (await app().request("GET", `/v1/matters/${matter.id}/dashboard`, { key: owner.key })).json,
      );

    const start = await dashboard();
    expect(start).toMatchObject({ judgment_value: { amount: 250000, currency: "USD" }, open_actions: 0, alerts: 0 });
    expect(start.other_judgment_values).toEqual([]);

    // Another judgment in USD adds up exactly; one in EUR is kept apart; a satisfied one is left out.
    await intakeJudgment(app(), owner, judgmentBody(matter.id, { amount: 0.1, case_number: "b" }));
    await intakeJudgment(app(), owner, judgmentBody(matter.id, { amount: 0.2, case_number: "c" }));
    await intakeJudgment(
      app(),
      owner,
      judgmentBody(matter.id, { amount: { amount: 500, currency: "EUR" }, case_number: "d" }),
    );
    const satisfied = await intakeJudgment(app(), owner, judgmentBody(matter.id, { amount: 99, case_number: "e" }));
    await patchJudgment(owner, satisfied.judgment.id, { status: "satisfied" });
    const valued = await dashboard();
    expect(valued.judgment_value.amount).toBe(250000.3);
    expect(valued.other_judgment_values).toEqual([
      { amount: 500, currency: "EUR", valuation_time: expect.any(String) },
    ]);

    // A pending review is an open action; a stay is an alert.
    await setEnforcement(owner, judgment.id, { strategy: "Freeze" });
    await patchJudgment(owner, satisfied.judgment.id, { appeal_stay_status: "stayed" });
    expect(await dashboard()).toMatchObject({ open_actions: 1, alerts: 1 });

    // A renewal due within 7 days is an open action and an alert; once missed, an alert only.
    await patchJudgment(owner, judgment.id, { renewal_deadline: "2026-07-10" });
    expect(await dashboard()).toMatchObject({ open_actions: 2, alerts: 2 });
    pinnedNow = new Date("2026-07-11T12:00:00.000Z");
    expect(await dashboard()).toMatchObject({ open_actions: 1, alerts: 2 });
  });
});
