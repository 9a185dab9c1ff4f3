import {
  Action,
  Alert,
  AssetMap,
  ClawBoard,
  ClawCampaign,
  ClawExpansion,
  ClawFocus,
  clawOperations,
  Matter,
  Packet,
  Watchlist,
} from "@crs/contract";
import { SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { createTraceProviders, sandboxSyntheticChain, sweepMonitoring } from "@crs/services";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, countRows, expectAuditRef, expectError, ValidationDetails } from "./support/expectations";
import { type Case, createCase } from "./support/fixtures";
import { runTraceJob } from "./support/legacy";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestApp, type TestKey, type TestResponse, useTestApp } from "./support/test-app";

const app = useTestApp({ legacyWindow: OPEN_LEGACY_WINDOW });

const CampaignList = z.object({
  object: z.literal("list"),
  data: z.array(ClawCampaign),
  has_more: z.boolean(),
  url: z.string(),
});
const LISTED_WALLET = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
const peel = sandboxSyntheticChain().scenarios.find((s) => s.kind === "peel_to_exchange");
if (!peel?.deposit) throw new Error("the sandbox chain lacks its peel-to-exchange scenario");

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

async function createCampaign(owner: TestKey, record: Case, body: Record<string, unknown> = {}) {
  const response = await call(owner, "POST", "/v1/claw/campaigns", {
    matter_id: record.matter.id,
    judgment_id: record.judgment.id,
    ...body,
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  return ClawCampaign.parse(response.json);
}

/** A campaign on a new authorized case. */
async function openCampaign(owner: TestKey, body: Record<string, unknown> = {}) {
  const record = await authorizedCase(owner);
  return { record, campaign: await createCampaign(owner, record, body) };
}

/** An asset map of the matter, traced to success by the job runner's own steps (claim, execute, record). */
async function tracedAssetMap(owner: TestKey, matterId: string, wallets: unknown[]): Promise<string> {
  const created = await call(owner, "POST", "/v1/crypto/asset-map", { matter_id: matterId, wallets });
  expect(created.status).toBe(202);
  const map = AssetMap.omit({ status: true }).passthrough().parse(created.json);
  await runTraceJob(app(), owner, map.job_id);
  return map.map_id;
}

/** A campaign whose debtor holds the peel chain's subject wallet, traced to an exchange deposit. */
async function tracedCampaign(owner: TestKey) {
  const { record, campaign } = await openCampaign(owner);
  const wallet = { address: peel?.subject, network: "synthetic:eth" };
  const patched = await call(owner, "PATCH", `/v1/parties/${record.debtor.id}`, { wallets: [wallet] });
  expect(patched.status).toBe(200);
  const mapId = await tracedAssetMap(owner, record.matter.id, [
    { address: peel?.subject, incident_block: peel?.incident_block },
  ]);
  return { record, campaign, mapId };
}

/** On the sandbox's synthetic chain (seed 7): a user that deals with an exchange. */
const EXCHANGE_USER = "0x5eed0000000700000000000000000000000000a8";

/**
 * A watchlist of the matter holding EXCHANGE_USER, swept with only exchange proximity on: its alerts
 * (new), as GET /v1/alerts lists them.
 */
async function exchangeAlerts(owner: TestKey, matterId: string): Promise<Alert[]> {
  const created = await call(owner, "POST", "/v1/watchlists", {
    matter_id: matterId,
    name: "Exchange user",
    thresholds: {
      wallet_movement: false,
      stablecoin_exposure: false,
      sanctions: false,
      deadline: false,
      compliance: false,
    },
  });
  expect(created.status).toBe(201);
  const watchlist = Watchlist.parse(created.json);
  const watched = await call(owner, "POST", `/v1/watchlists/${watchlist.watchlist_id}/addresses`, {
    addresses: [EXCHANGE_USER],
    reason: "Named in exhibit 4",
    source_refs: [{ source_id: "exhibit-4", source_type: "court_record" }],
  });
  expect(watched.status).toBe(200);
  await sweepMonitoring(app().deps, createTraceProviders(null), {
    tenant: { organizationId: owner.organizationId, environment: "sandbox" },
  });
  const listed = await call(owner, "GET", `/v1/alerts?limit=100&watchlist_id=${watchlist.watchlist_id}`);
  expect(listed.status).toBe(200);
  return z
    .object({ data: z.array(Alert) })
    .passthrough()
    .parse(listed.json).data;
}

async function retrieve(owner: TestKey, campaignId: string): Promise<ClawCampaign> {
  const response = await call(owner, "GET", `/v1/claw/campaigns/${campaignId}`);
  expect(response.status).toBe(200);
  return ClawCampaign.parse(response.json);
}

/** The events one request appended, read from the log itself. */
async function eventsOf(owner: TestKey, response: TestResponse) {
  return app().sql<{ type: string; data: Record<string, unknown> }[]>`
    select type, data from events
     where organization_id = ${owner.organizationId} and audit_ref = ${response.headers.get("svc-request-id") ?? ""}
     order by sequence`;
}

const campaignCount = (owner: TestKey) => countRows(app().sql, "claw_campaigns", owner.organizationId);
const actionCount = (owner: TestKey) => countRows(app().sql, "actions", owner.organizationId);
const campaignEvents = async (owner: TestKey, change: string) =>
  Number(
    (
      await app().sql<{ n: string }[]>`
        select count(*)::text as n from events
         where organization_id = ${owner.organizationId} and data->>'campaign_change' = ${change}`
    )[0]?.n,
  );

/** Runs `attempt` and checks that the organization's events, campaigns and actions are as they were. */
async function writesNothing(owner: TestKey, attempt: () => Promise<void>) {
  const events = await countEvents(app().sql, owner.organizationId);
  const rows = async () => ({
    campaigns: await app()
      .sql`select * from claw_campaigns where organization_id = ${owner.organizationId} order by id`,
    actions: await app().sql`select * from actions where organization_id = ${owner.organizationId} order by id`,
  });
  const before = await rows();
  await attempt();
  expect(await countEvents(app().sql, owner.organizationId)).toBe(events);
  expect(await rows()).toEqual(before);
}

function expectInvalid(response: TestResponse, params: string[]) {
  const envelope = expectError(response, 422, "invalid_request");
  const details = ValidationDetails.parse(envelope.error.details);
  const named = [...(details.missing ?? []), ...(details.invalid ?? []).map((field) => field.param)];
  expect([...new Set(named)].sort()).toEqual([...params].sort());
  expect(params).toContain(envelope.error.param);
  return envelope;
}

describeSecuritySuite(clawOperations.create, {
  app,
  request: async (owner) => {
    const record = await authorizedCase(owner);
    return { body: { matter_id: record.matter.id, judgment_id: record.judgment.id } };
  },
  badBody: {
    body: { judgment_id: 5, mode: "reckless", target_set: { party_ids: [""] } },
    missing: ["matter_id"],
    invalid: ["judgment_id", "mode", "target_set.party_ids.0"],
  },
  idempotency: {
    effects: async (owner) => ({ campaigns: await campaignCount(owner) }),
    perWrite: { campaigns: 1 },
    changedBody: { mode: "assertive" },
  },
});

describeSecuritySuite(clawOperations.list, {
  app,
  request: async (owner) => {
    await openCampaign(owner);
    return { query: { limit: "5" } };
  },
});

describeSecuritySuite(clawOperations.get, {
  app,
  request: async (owner) => ({ params: { campaign_id: (await openCampaign(owner)).campaign.id } }),
});

describeSecuritySuite(clawOperations.update, {
  app,
  request: async (owner) => ({
    params: { campaign_id: (await openCampaign(owner)).campaign.id },
    body: { mode: "assertive" },
  }),
  badBody: {
    body: { mode: 3, pressure_level: 7, target_set: null, reason: "" },
    missing: [],
    invalid: ["mode", "pressure_level", "target_set", "reason"],
  },
  idempotency: {
    effects: async (owner) => ({ updates: await campaignEvents(owner, "updated") }),
    perWrite: { updates: 1 },
    changedBody: { mode: "emergency" },
  },
});

describeSecuritySuite(clawOperations.focus, {
  app,
  request: async (owner) => ({
    params: { campaign_id: (await openCampaign(owner)).campaign.id },
    body: { criteria: ["exposure", "confidence"] },
  }),
  badBody: {
    body: { criteria: ["exposure", "vibes"], weights: { exposure: -1, confidence: "high" } },
    missing: [],
    invalid: ["criteria.1", "weights.exposure", "weights.confidence"],
  },
  idempotency: {
    effects: async (owner) => ({ focused: await campaignEvents(owner, "focused") }),
    perWrite: { focused: 1 },
    changedBody: { criteria: ["confidence"] },
  },
});

describeSecuritySuite(clawOperations.expand, {
  app,
  request: async (owner) => ({
    params: { campaign_id: (await openCampaign(owner)).campaign.id },
    body: { expansion_types: ["wallets"], max_leads: 5 },
  }),
  badBody: {
    body: { expansion_types: ["rumours"], max_leads: 0 },
    missing: [],
    invalid: ["expansion_types.0", "max_leads"],
  },
  idempotency: {
    effects: async (owner) => ({ expanded: await campaignEvents(owner, "expanded") }),
    perWrite: { expanded: 1 },
    changedBody: { max_leads: 6 },
  },
});

describeSecuritySuite(clawOperations.pressure, {
  app,
  request: async (owner) => ({
    params: { campaign_id: (await openCampaign(owner)).campaign.id },
    body: { pressure_level: 1, reason: "Preparing the freeze requests." },
  }),
  badBody: {
    body: { pressure_level: "high", counsel_approval_id: 12 },
    missing: ["reason"],
    invalid: ["pressure_level", "counsel_approval_id"],
  },
  idempotency: {
    effects: async (owner) => ({ moves: await campaignEvents(owner, "pressure_changed") }),
    perWrite: { moves: 1 },
    changedBody: { pressure_level: 1, reason: "Another reason." },
  },
});

describeSecuritySuite(clawOperations.createAction, {
  app,
  request: async (owner) => ({
    params: { campaign_id: (await openCampaign(owner)).campaign.id },
    body: { type: "call_exchange", title: "Call the exchange" },
  }),
  badBody: {
    body: { type: " ", due_at: "soon", review_required: "yes" },
    missing: ["title"],
    invalid: ["type", "due_at", "review_required"],
  },
  idempotency: {
    effects: async (owner) => ({ actions: await actionCount(owner) }),
    perWrite: { actions: 1 },
    changedBody: { type: "call_exchange", title: "Call the exchange again" },
  },
});

describeSecuritySuite(clawOperations.board, {
  app,
  request: async (owner) => ({ params: { campaign_id: (await openCampaign(owner)).campaign.id } }),
});

describe("legacy claw campaigns: create and read", () => {
  it("starts a campaign at level 0 in measured mode, shows it, and records matter.updated with it", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    const response = await call(owner, "POST", "/v1/claw/campaigns", {
      matter_id: record.matter.id,
      judgment_id: record.judgment.id,
    });
    expect(response.status).toBe(200);
    expectAuditRef(response);
    const campaign = ClawCampaign.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(campaign).toMatchObject({
      object: "claw_campaign",
      id: campaign.campaign_id,
      matter_id: record.matter.id,
      judgment_id: record.judgment.id,
      mode: "measured",
      pressure_level: 0,
      pressure_name: "observe",
      pressure_reason: null,
      counsel_approval_id: null,
      target_set: { party_ids: [] },
      operator_state: { focus_score: 0, expand_queue: 0, next_claw_action: "focus" },
      focused_at: null,
      expanded_at: null,
    });
    expect(campaign.campaign_id).toMatch(/^camp_[0-9a-z]{26}$/);
    expect(campaign.gates.map((gate) => [gate.gate, gate.status])).toEqual([
      ["sanctions", "pass"],
      ["stay", "pass"],
      ["authority", "pass"],
      ["counsel_approval", "not_required"],
    ]);
    const { audit_ref: _auditRef, ...shown } = campaign;
    expect(await retrieve(owner, campaign.id)).toEqual(shown);
    const events = await eventsOf(owner, response);
    expect(events.map((event) => event.type)).toEqual(["matter.updated"]);
    expect(events[0]?.data).toMatchObject({
      matter_id: record.matter.id,
      campaign_id: campaign.id,
      campaign_change: "created",
      campaign: shown,
    });
  });

  it("refuses a judgment or target party of another matter (404 naming it) and a claimant target (422), writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const record = await authorizedCase(owner);
    const other = await authorizedCase(owner);
    await writesNothing(owner, async () => {
      const send = (body: Record<string, unknown>) =>
        call(owner, "POST", "/v1/claw/campaigns", {
          matter_id: record.matter.id,
          judgment_id: record.judgment.id,
          ...body,
        });
      for (const judgmentId of [other.judgment.id, "judgment_01k1z9r5ht3q7mxw2c4d8e6f0g", record.matter.id]) {
        const envelope = expectError(await send({ judgment_id: judgmentId }), 404, "not_found");
        expect(envelope.error.param).toBe("judgment_id");
      }
      const foreign = expectError(await send({ target_set: { party_ids: [other.debtor.id] } }), 404, "not_found");
      expect(foreign.error.param).toBe("target_set.party_ids.0");
      const claimant = record.claimants[0]?.id ?? "";
      expectInvalid(await send({ target_set: { party_ids: [record.debtor.id, claimant] } }), [
        "target_set.party_ids.1",
      ]);
      expectError(
        await call(owner, "POST", "/v1/claw/campaigns", {
          matter_id: "matter_01k1z9r5ht3q7mxw2c4d8e6f0g",
          judgment_id: record.judgment.id,
        }),
        404,
        "not_found",
      );
    });
  });

  it("answers 422 naming the field for odd types, nulls and huge strings, never a 5xx", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign } = await openCampaign(owner);
    const huge = "x".repeat(100_000);
    await writesNothing(owner, async () => {
      const create = (body: Record<string, unknown>) => call(owner, "POST", "/v1/claw/campaigns", body);
      expectInvalid(await create({ matter_id: record.matter.id, judgment_id: null }), ["judgment_id"]);
      expectInvalid(await create({ matter_id: huge, judgment_id: record.judgment.id }), ["matter_id"]);
      expectInvalid(await create({ matter_id: record.matter.id, judgment_id: record.judgment.id, target_set: [] }), [
        "target_set",
      ]);
      expectInvalid(
        await create({
          matter_id: record.matter.id,
          judgment_id: record.judgment.id,
          target_set: { party_ids: [record.debtor.id, record.debtor.id] },
        }),
        ["target_set.party_ids"],
      );
      const path = `/v1/claw/campaigns/${campaign.id}`;
      expectInvalid(await call(owner, "POST", `${path}/pressure`, { pressure_level: 1.5, reason: huge }), [
        "pressure_level",
        "reason",
      ]);
      expectInvalid(await call(owner, "POST", `${path}/pressure`, { pressure_level: null, reason: "r" }), [
        "pressure_level",
      ]);
      // Beyond the safe integers it fails two checks that say the same: named once.
      const beyondSafe = expectInvalid(
        await call(owner, "POST", `${path}/pressure`, { pressure_level: 2 ** 60, reason: "r" }),
        ["pressure_level"],
      );
      expect(ValidationDetails.parse(beyondSafe.error.details).invalid).toEqual([
        { param: "pressure_level", message: "must be an integer from 0 to 6" },
      ]);
      expectInvalid(await call(owner, "POST", `${path}/focus`, { criteria: [] }), ["criteria"]);
      expectInvalid(await call(owner, "POST", `${path}/focus`, { criteria: "exposure" }), ["criteria"]);
      expectInvalid(await call(owner, "POST", `${path}/focus`, { criteria: ["exposure", "exposure"] }), ["criteria"]);
      expectInvalid(
        await call(owner, "POST", `${path}/focus`, { criteria: ["exposure"], weights: { confidence: 1 } }),
        ["weights.confidence"],
      );
      expectInvalid(await call(owner, "POST", `${path}/focus`, { criteria: ["exposure"], weights: { exposure: 0 } }), [
        "weights",
      ]);
      expectInvalid(
        await call(owner, "POST", `${path}/focus`, { criteria: ["exposure"], weights: { exposure: 1e9 } }),
        ["weights.exposure"],
      );
      expectInvalid(await call(owner, "POST", `${path}/focus`, { criteria: ["exposure"], weights: [1] }), ["weights"]);
      expectInvalid(await call(owner, "POST", `${path}/expand`, { max_leads: 101 }), ["max_leads"]);
      expectInvalid(await call(owner, "POST", `${path}/expand`, { max_leads: "5", expansion_types: null }), [
        "max_leads",
        "expansion_types",
      ]);
      expectInvalid(await call(owner, "PATCH", path, { counsel_approval_id: "ca-1" }), ["counsel_approval_id"]);
      expectInvalid(await call(owner, "POST", `${path}/actions`, { type: "t", title: huge }), ["title"]);
    });
  });

  it("lists campaigns most recent first, by matter, paged; 400 for a bad filter", async () => {
    const owner = await app().mintLegacyKey();
    const first = await openCampaign(owner);
    const second = await openCampaign(owner);
    const third = await createCampaign(owner, first.record, { mode: "emergency" });
    const list = async (query: string) => {
      const response = await call(owner, "GET", `/v1/claw/campaigns${query}`);
      expect(response.status).toBe(200);
      return CampaignList.parse(response.json);
    };
    expect((await list("")).data.map((c) => c.id)).toEqual([third.id, second.campaign.id, first.campaign.id]);
    expect((await list(`?matter_id=${first.record.matter.id}`)).data.map((c) => c.id)).toEqual([
      third.id,
      first.campaign.id,
    ]);
    const page = await list("?limit=2");
    expect(page).toMatchObject({ has_more: true, url: "/v1/claw/campaigns" });
    expect((await list(`?limit=2&starting_after=${second.campaign.id}`)).data.map((c) => c.id)).toEqual([
      first.campaign.id,
    ]);
    for (const [query, param] of [
      ["?matter_id=nope", "matter_id"],
      ["?limit=0", "limit"],
    ] as const) {
      expect(
        expectError(await call(owner, "GET", `/v1/claw/campaigns${query}`), 400, "invalid_request").error.param,
      ).toBe(param);
    }
  });
});

describe("legacy claw campaigns: gates", () => {
  it("refuses to start without granted authority: 403 authority_required, nothing written", async () => {
    const owner = await app().mintLegacyKey();
    const record = await createCase(legacyApp(), owner); // never validated
    await writesNothing(owner, async () => {
      const envelope = expectError(
        await call(owner, "POST", "/v1/claw/campaigns", {
          matter_id: record.matter.id,
          judgment_id: record.judgment.id,
        }),
        403,
        "authority_required",
      );
      expect(envelope.error.param).toBe("matter_id");
    });
    expect(await campaignCount(owner)).toBe(0);
  });

  it("refuses every write under a sanctions hit (403 sanctions_gate) and a stay on its judgment (409 stay_in_effect)", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign } = await openCampaign(owner);
    const path = `/v1/claw/campaigns/${campaign.id}`;
    const writes = () => [
      call(owner, "POST", "/v1/claw/campaigns", { matter_id: record.matter.id, judgment_id: record.judgment.id }),
      call(owner, "PATCH", path, { mode: "assertive" }),
      call(owner, "POST", `${path}/focus`, { criteria: ["exposure"] }),
      call(owner, "POST", `${path}/expand`, {}),
      call(owner, "POST", `${path}/pressure`, { pressure_level: 1, reason: "r" }),
      call(owner, "POST", `${path}/actions`, { type: "t", title: "T" }),
      call(owner, "POST", "/v1/actions", {
        matter_id: record.matter.id,
        campaign_id: campaign.id,
        type: "t",
        title: "T",
      }),
    ];

    // A stay also withdraws the derived authority; the stay is the bar reported, as core orders the gates.
    const stay = await call(owner, "PATCH", `/v1/judgments/${record.judgment.id}`, { appeal_stay_status: "stayed" });
    expect(stay.status).toBe(200);
    await writesNothing(owner, async () => {
      for (const response of await Promise.all(writes())) {
        expect(expectError(response, 409, "stay_in_effect").error.param).toBe("judgment_id");
      }
    });
    const stayed = await retrieve(owner, campaign.id);
    expect(stayed.gates.find((gate) => gate.gate === "stay")?.status).toBe("blocked");
    expect(stayed.operator_state.next_claw_action).toBe("wait_for_stay_to_lift");
    const board = ClawBoard.parse((await call(owner, "GET", `${path}/board`)).json);
    expect(board.blockers.filter((b) => b.type === "stay")).toEqual([
      { type: "stay", message: expect.stringContaining("stayed"), object_id: record.judgment.id },
    ]);
    const lifted = await call(owner, "PATCH", `/v1/judgments/${record.judgment.id}`, { appeal_stay_status: "none" });
    expect(lifted.status).toBe(200);
    expect((await call(owner, "PATCH", path, { mode: "assertive" })).status).toBe(200);

    const hit = await call(owner, "POST", "/v1/parties", {
      matter_id: record.matter.id,
      role: "counterparty",
      name: "Mixer",
      wallets: [LISTED_WALLET],
    });
    expect(hit.status).toBe(201);
    await writesNothing(owner, async () => {
      for (const response of await Promise.all(writes())) expectError(response, 403, "sanctions_gate");
    });
    const held = ClawBoard.parse((await call(owner, "GET", `${path}/board`)).json);
    expect(held.blockers.map((b) => b.type)).toContain("sanctions");
    expect(held.campaign.operator_state.next_claw_action).toBe("clear_sanctions_hold");
  });

  it("refuses writes once authority is revoked (403 authority_required), and reads stay open", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign } = await openCampaign(owner);
    // An operator's revoke (operator.revokeAuthority is served to operator keys, which hold no legacy matter).
    await app().sql`
      insert into matter_authority_decisions (organization_id, environment, matter_id, decision, notes, decided_at, request_id, actor_id)
      values (${owner.organizationId}, ${owner.environment}, ${record.matter.id}, 'revoke', 'Counsel withdrew.', now(), 'req_test', 'key_operator')`;
    await writesNothing(owner, async () => {
      expectError(
        await call(owner, "POST", `/v1/claw/campaigns/${campaign.id}/pressure`, { pressure_level: 1, reason: "r" }),
        403,
        "authority_required",
      );
    });
    const board = ClawBoard.parse((await call(owner, "GET", `/v1/claw/campaigns/${campaign.id}/board`)).json);
    expect(board.blockers).toContainEqual({
      type: "authority",
      message: expect.stringContaining("no granted authority"),
      object_id: record.matter.id,
    });
    expect(board.campaign.operator_state.next_claw_action).toBe("obtain_authority");
  });
});

describe("legacy claw campaigns: pressure", () => {
  it("raises one level at a time in measured mode, needs counsel_approval_id from level 4, and records each move", async () => {
    const owner = await app().mintLegacyKey();
    const { campaign } = await openCampaign(owner);
    const path = `/v1/claw/campaigns/${campaign.id}/pressure`;
    await writesNothing(owner, async () => {
      const tooFar = expectError(await call(owner, "POST", path, { pressure_level: 2, reason: "r" }), 409, "conflict");
      expect(tooFar.error).toMatchObject({
        param: "pressure_level",
        details: { pressure_level: 0, requested: 2, mode: "measured", allowed: [0, 1] },
      });
      // Asking for the level it has is no move.
      const same = await call(owner, "POST", path, { pressure_level: 0, reason: "r" });
      expect(ClawCampaign.parse(same.json).pressure_level).toBe(0);
    });
    for (const level of [1, 2, 3]) {
      const moved = await call(owner, "POST", path, { pressure_level: level, reason: `Step ${level}` });
      expect(moved.status).toBe(200);
      expect(ClawCampaign.parse(moved.json)).toMatchObject({ pressure_level: level, pressure_reason: `Step ${level}` });
      expect((await eventsOf(owner, moved))[0]?.data).toMatchObject({
        campaign_change: "pressure_changed",
        pressure_reason: `Step ${level}`,
        campaign_previous_attributes: { pressure_level: level - 1 },
      });
    }
    await writesNothing(owner, async () => {
      expectInvalid(await call(owner, "POST", path, { pressure_level: 4, reason: "Freeze" }), ["counsel_approval_id"]);
      expectInvalid(await call(owner, "PATCH", `/v1/claw/campaigns/${campaign.id}`, { pressure_level: 4 }), [
        "counsel_approval_id",
      ]);
    });
    const frozen = ClawCampaign.parse(
      (await call(owner, "POST", path, { pressure_level: 4, reason: "Freeze", counsel_approval_id: "ca-117" })).json,
    );
    expect(frozen).toMatchObject({ pressure_level: 4, pressure_name: "freeze_block", counsel_approval_id: "ca-117" });
    expect(frozen.gates.find((gate) => gate.gate === "counsel_approval")?.status).toBe("pass");
    // Lowering needs no approval; below 4 the approval is dropped, so the next raise needs a new one.
    const lowered = ClawCampaign.parse((await call(owner, "POST", path, { pressure_level: 3, reason: "Back" })).json);
    expect(lowered).toMatchObject({ pressure_level: 3, counsel_approval_id: null });
    expectInvalid(await call(owner, "POST", path, { pressure_level: 4, reason: "Again" }), ["counsel_approval_id"]);
  });

  it("lets a PATCH change the mode and move by the new mode's step", async () => {
    const owner = await app().mintLegacyKey();
    const { campaign } = await openCampaign(owner);
    const path = `/v1/claw/campaigns/${campaign.id}`;
    const response = await call(owner, "PATCH", path, {
      mode: "emergency",
      pressure_level: 5,
      counsel_approval_id: "ca-9",
      reason: "Dissipation",
    });
    expect(response.status).toBe(200);
    expect(ClawCampaign.parse(response.json)).toMatchObject({
      mode: "emergency",
      pressure_level: 5,
      pressure_name: "seize_turn_over",
      counsel_approval_id: "ca-9",
      pressure_reason: "Dissipation",
    });
    expect((await eventsOf(owner, response))[0]?.data).toMatchObject({
      campaign_change: "updated",
      campaign_previous_attributes: { mode: "measured", pressure_level: 0, pressure_name: "observe" },
    });
    // A PATCH that changes nothing writes nothing.
    await writesNothing(owner, async () => {
      expect((await call(owner, "PATCH", path, { mode: "emergency", pressure_level: 5 })).status).toBe(200);
    });
  });

  it("of ten concurrent pressure moves on one campaign, each is recorded once and the records chain to the final level", async () => {
    const owner = await app().mintLegacyKey();
    const { campaign } = await openCampaign(owner, { mode: "emergency" });
    const levels = [1, 2, 3, 1, 2, 3, 0, 2, 1, 3];
    const responses = await Promise.all(
      levels.map((level, i) =>
        call(owner, "POST", `/v1/claw/campaigns/${campaign.id}/pressure`, {
          pressure_level: level,
          reason: `Move ${i}`,
        }),
      ),
    );
    for (const response of responses) expect(response.status).toBe(200);
    // Every move locks the matter row (SELECT … FOR UPDATE) before reading the campaign, so the moves
    // run one after another: each event's previous level is the level the one before it set.
    const moves = await app().sql<{ audit_ref: string; data: Record<string, unknown> }[]>`
      select audit_ref, data from events
       where organization_id = ${owner.organizationId} and data->>'campaign_change' = 'pressure_changed'
       order by sequence`;
    const requestIds = responses.map((response) => response.headers.get("svc-request-id"));
    expect(new Set(moves.map((move) => move.audit_ref)).size).toBe(moves.length);
    for (const move of moves) expect(requestIds).toContain(move.audit_ref);
    let level = 0;
    for (const move of moves) {
      const data = z
        .object({
          campaign: z.object({ pressure_level: z.number() }),
          campaign_previous_attributes: z.object({ pressure_level: z.number() }),
        })
        .parse(move.data);
      expect(data.campaign_previous_attributes.pressure_level).toBe(level);
      expect(data.campaign.pressure_level).not.toBe(level);
      level = data.campaign.pressure_level;
    }
    expect((await retrieve(owner, campaign.id)).pressure_level).toBe(level);
    // A move that found its level already set wrote nothing; every other one is recorded exactly once.
    const changed = responses.filter((response, i) => {
      const answered = ClawCampaign.parse(response.json);
      return answered.pressure_reason === `Move ${i}`;
    });
    expect(moves).toHaveLength(changed.length);
  });
});

describe("legacy claw campaigns: focus, expand and the board", () => {
  it("ranks the debtor, its wallets and exchange hypotheses from the traced map, and keeps the ranking", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign } = await tracedCampaign(owner);
    const response = await call(owner, "POST", `/v1/claw/campaigns/${campaign.id}/focus`, {
      criteria: ["exposure", "packet_readiness", "confidence"],
      weights: { packet_readiness: 3 },
    });
    expect(response.status).toBe(200);
    const focus = ClawFocus.parse(response.json);
    expect(focus).toMatchObject({
      campaign_id: campaign.id,
      criteria: ["exposure", "packet_readiness", "confidence"],
      weights: { exposure: 1, packet_readiness: 3, confidence: 1 },
    });
    const types = new Set(focus.ranked_targets.map((target) => target.target_type));
    expect(types).toEqual(new Set(["party", "wallet", "exchange_hypothesis"]));
    expect(focus.ranked_targets.find((t) => t.target_type === "party")?.target_id).toBe(record.debtor.id);
    const hypothesis = focus.ranked_targets.find((t) => t.target_type === "exchange_hypothesis");
    expect(hypothesis?.label.toLowerCase()).toContain(peel?.deposit?.address.toLowerCase());
    expect(hypothesis?.source_refs.map((ref) => ref.record_type)).toEqual(["asset_map"]);
    const scores = focus.ranked_targets.map((target) => target.focus_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const target of focus.ranked_targets) {
      expect(Object.keys(target.criteria_scores).sort()).toEqual(["confidence", "exposure", "packet_readiness"]);
      expect(target.reason).toContain("packet_readiness");
    }
    // The same request ranks the same way: the scorer is deterministic.
    const again = ClawFocus.parse(
      (
        await call(owner, "POST", `/v1/claw/campaigns/${campaign.id}/focus`, {
          criteria: ["exposure", "packet_readiness", "confidence"],
          weights: { packet_readiness: 3 },
        })
      ).json,
    );
    expect(again.ranked_targets).toEqual(focus.ranked_targets);
    expect((await eventsOf(owner, response))[0]?.data).toMatchObject({ campaign_change: "focused" });

    const stored = await retrieve(owner, campaign.id);
    expect(stored.operator_state).toEqual({
      focus_score: focus.ranked_targets[0]?.focus_score,
      expand_queue: 0,
      next_claw_action: "expand",
    });
    expect(stored.focused_at).toBe(again.focused_at);
  });

  it("proposes leads only from the debtor graph, keeps them as the expand queue, and shows both queues on the board", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign, mapId } = await tracedCampaign(owner);
    const counterparty = await call(owner, "POST", "/v1/parties", {
      matter_id: record.matter.id,
      role: "counterparty",
      name: "Doe Logistics",
    });
    expect(counterparty.status).toBe(201);
    const path = `/v1/claw/campaigns/${campaign.id}`;
    const response = await call(owner, "POST", `${path}/expand`, {});
    expect(response.status).toBe(200);
    const expansion = ClawExpansion.parse(response.json);
    expect(expansion).toMatchObject({
      campaign_id: campaign.id,
      expansion_types: ["parties", "wallets", "exchanges", "assets"],
      max_leads: 20,
      truncated: expansion.total_leads > 20,
    });
    const leadTypes = new Set(expansion.leads.map((lead) => lead.lead_type));
    expect(leadTypes.has("party")).toBe(true);
    expect(leadTypes.has("wallet")).toBe(true);
    expect(leadTypes.has("exchange")).toBe(true);
    expect(expansion.leads.find((lead) => lead.lead_type === "party")?.record_id).toBe(
      z.object({ id: z.string() }).passthrough().parse(counterparty.json).id,
    );
    // Each lead rests on the record: a party row, or the traced asset map.
    for (const lead of expansion.leads) {
      expect(lead.claim_ids.length).toBeGreaterThan(0);
      for (const ref of lead.source_refs) {
        expect([
          record.debtor.id,
          mapId,
          z.object({ id: z.string() }).passthrough().parse(counterparty.json).id,
        ]).toContain(ref.record_id);
      }
    }
    // The debtor's own wallet is pursued already: it is no lead.
    expect(expansion.leads.map((lead) => lead.node_id)).not.toContain(`wallet:${peel?.subject.toLowerCase()}`);

    const capped = ClawExpansion.parse(
      (await call(owner, "POST", `${path}/expand`, { expansion_types: ["wallets"], max_leads: 1 })).json,
    );
    expect(capped.leads).toHaveLength(1);
    expect(capped.leads[0]?.lead_type).toBe("wallet");
    expect(capped.truncated).toBe(capped.total_leads > 1);

    const focus = ClawFocus.parse(
      (await call(owner, "POST", `${path}/focus`, { criteria: ["freeze_capability"] })).json,
    );
    const boardResponse = await call(owner, "GET", `${path}/board`);
    expect(boardResponse.status).toBe(200);
    const board = ClawBoard.strict().extend({ audit_ref: z.string() }).parse(boardResponse.json);
    expect(board.focus_queue).toEqual(focus.ranked_targets);
    expect(board.expand_queue).toEqual(capped.leads);
    expect(board.campaign.operator_state).toMatchObject({ expand_queue: 1, next_claw_action: "escalate" });
    expect(board.blockers).toEqual([]);
  });

  it("shows the matter's packets awaiting review, its open alerts, and review and deadline blockers", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign } = await openCampaign(owner);
    const packet = Packet.parse(
      (await call(owner, "POST", "/v1/packets", { matter_id: record.matter.id, type: "sanctions_review" })).json,
    );
    const reviewed = await call(owner, "POST", `/v1/claw/campaigns/${campaign.id}/actions`, {
      type: "review_freeze",
      title: "Counsel reviews the freeze letter",
      review_required: true,
    });
    expect(reviewed.status).toBe(200);
    const action = Action.parse(reviewed.json);
    // Another matter's packet and alerts are not this board's.
    const other = await authorizedCase(owner);
    const foreignPacket = await call(owner, "POST", "/v1/packets", {
      matter_id: other.matter.id,
      type: "sanctions_review",
    });
    expect(foreignPacket.status).toBe(201);
    const emptyBoard = ClawBoard.parse((await call(owner, "GET", `/v1/claw/campaigns/${campaign.id}/board`)).json);
    expect(emptyBoard.alerts).toEqual([]);
    // A watched address that deals with an exchange raises exchange-proximity alerts on each matter.
    // Two watchlists of the matter, each raising its own; one is dismissed as a false positive.
    const shown = await exchangeAlerts(owner, record.matter.id);
    const [dismissed] = await exchangeAlerts(owner, record.matter.id);
    if (shown.length === 0 || !dismissed) throw new Error("the sweep raised no alert");
    await exchangeAlerts(owner, other.matter.id);
    const triaged = await call(owner, "POST", `/v1/alerts/${dismissed.alert_id}/triage`, {
      status: "false_positive",
      notes: "Known counterparty.",
    });
    expect(triaged.status).toBe(200);
    const board = ClawBoard.parse((await call(owner, "GET", `/v1/claw/campaigns/${campaign.id}/board`)).json);
    expect(packet.review_state.review_required).toBe(true);
    expect(board.packet_queue.map((p) => p.id)).toEqual([packet.id]);
    expect(board.alerts.map((a) => a.alert_id).sort()).toEqual(shown.map((a) => a.alert_id).sort());
    expect(board.alerts.every((a) => a.matter_id === record.matter.id && a.status === "new")).toBe(true);
    expect(board.blockers).toContainEqual({
      type: "review",
      message: expect.stringContaining("Counsel reviews the freeze letter"),
      object_id: action.id,
    });
    // Completing the action clears its review blocker.
    expect((await call(owner, "PATCH", `/v1/actions/${action.id}`, { status: "in_progress" })).status).toBe(200);
    expect(
      (await call(owner, "POST", `/v1/actions/${action.id}/complete`, { completion_notes: "Approved." })).status,
    ).toBe(200);
    const after = ClawBoard.parse((await call(owner, "GET", `/v1/claw/campaigns/${campaign.id}/board`)).json);
    expect(after.blockers.filter((b) => b.object_id === action.id)).toEqual([]);

    // A judgment entered long ago has a renewal deadline past: a deadline blocker names it.
    const old = await authorizedCase(owner);
    const late = await call(owner, "PATCH", `/v1/judgments/${old.judgment.id}`, { renewal_deadline: "2020-01-01" });
    expect(late.status).toBe(200);
    const oldCampaign = await createCampaign(owner, old);
    const lateBoard = ClawBoard.parse((await call(owner, "GET", `/v1/claw/campaigns/${oldCampaign.id}/board`)).json);
    expect(lateBoard.blockers).toContainEqual({
      type: "deadline",
      message: expect.stringContaining("2020-01-01"),
      object_id: old.judgment.id,
    });
  });
});

describe("legacy claw campaigns: actions", () => {
  it("creates an action linked to the campaign through the action write, and POST /v1/actions accepts the campaign too", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign } = await openCampaign(owner);
    const response = await call(owner, "POST", `/v1/claw/campaigns/${campaign.id}/actions`, {
      type: "call_exchange",
      title: "Call the exchange",
      owner_id: "jane.counsel",
      due_at: "2026-07-01T17:00:00Z",
    });
    expect(response.status).toBe(200);
    const action = Action.parse(response.json);
    expect(action).toMatchObject({
      matter_id: record.matter.id,
      campaign_id: campaign.id,
      status: "open",
      priority: "normal",
      review_required: false,
      owner_id: "jane.counsel",
    });
    expect((await eventsOf(owner, response))[0]?.data).toMatchObject({
      action_change: "created",
      action_id: action.id,
    });

    const direct = await call(owner, "POST", "/v1/actions", {
      matter_id: record.matter.id,
      campaign_id: campaign.id,
      type: "t",
      title: "T",
    });
    expect(direct.status).toBe(201);
    const listed = z
      .object({ data: z.array(Action) })
      .passthrough()
      .parse((await call(owner, "GET", `/v1/actions?campaign_id=${campaign.id}`)).json);
    expect(listed.data.map((a) => a.id)).toEqual([Action.parse(direct.json).id, action.id]);

    const other = await authorizedCase(owner);
    await writesNothing(owner, async () => {
      const foreign = expectError(
        await call(owner, "POST", "/v1/actions", {
          matter_id: other.matter.id,
          campaign_id: campaign.id,
          type: "t",
          title: "T",
        }),
        404,
        "not_found",
      );
      expect(foreign.error.param).toBe("campaign_id");
      expectError(
        await call(owner, "POST", "/v1/claw/campaigns/camp_01k1z9r5ht3q7mxw2c4d8e6f0g/actions", {
          type: "t",
          title: "T",
        }),
        404,
        "not_found",
      );
    });
  });
});

describe("legacy claw campaigns: isolation", () => {
  it("answers 404 to another organization for every campaign operation, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const stranger = await app().mintLegacyKey();
    const { record, campaign } = await openCampaign(owner);
    const path = `/v1/claw/campaigns/${campaign.id}`;
    await writesNothing(owner, async () => {
      for (const response of [
        await call(stranger, "GET", path),
        await call(stranger, "GET", `${path}/board`),
        await call(stranger, "PATCH", path, { mode: "assertive" }),
        await call(stranger, "POST", `${path}/focus`, { criteria: ["exposure"] }),
        await call(stranger, "POST", `${path}/expand`, {}),
        await call(stranger, "POST", `${path}/pressure`, { pressure_level: 1, reason: "r" }),
        await call(stranger, "POST", `${path}/actions`, { type: "t", title: "T" }),
      ]) {
        expect(expectError(response, 404, "not_found").error.message).toContain("campaign");
      }
      const listed = CampaignList.parse(
        (await call(stranger, "GET", `/v1/claw/campaigns?matter_id=${record.matter.id}`)).json,
      );
      expect(listed.data).toEqual([]);
    });
    // An id of another prefix is simply unknown.
    expectError(await call(owner, "GET", `/v1/claw/campaigns/${record.matter.id}`), 404, "not_found");
  });

  it("is served only on the legacy listener", async () => {
    const owner = await app().mintKey();
    expectError(await app().request("GET", "/v1/claw/campaigns", { key: owner.key }), 404, "not_found");
  });

  it("refuses writes on a closed matter with 409, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const { record, campaign } = await openCampaign(owner);
    expect((await call(owner, "POST", `/v1/matters/${record.matter.id}/close`, { reason: "settled" })).status).toBe(
      200,
    );
    await writesNothing(owner, async () => {
      expectError(
        await call(owner, "PATCH", `/v1/claw/campaigns/${campaign.id}`, { mode: "assertive" }),
        409,
        "conflict",
      );
      expectError(
        await call(owner, "POST", "/v1/claw/campaigns", {
          matter_id: record.matter.id,
          judgment_id: record.judgment.id,
        }),
        409,
        "conflict",
      );
    });
    const matter = Matter.parse((await call(owner, "GET", `/v1/matters/${record.matter.id}`)).json);
    expect(matter.status).toBe("closed");
  });
});
