import { createHash } from "node:crypto";
import { OfacReport, Packet, SanctionsReview, SanctionsScreen, sanctionsOperations } from "@crs/contract";
import { canonicalize, SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { buildRestApp } from "@crs/rest/app";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, countRows, expectError, withoutAuditRef } from "./support/expectations";
import { type Case, createCase } from "./support/fixtures";
import { eventTypesOf as sharedEventTypesOf, packetEffects as sharedPacketEffects } from "./support/legacy";
import { describeSecuritySuite } from "./support/security-suite";
import {
  LEGACY_BASE_URL,
  OPEN_LEGACY_WINDOW,
  PUBLIC_BASE_URL,
  type TestApp,
  type TestKey,
  useTestApp,
} from "./support/test-app";

const app = useTestApp({ legacyWindow: OPEN_LEGACY_WINDOW });
const legacyApp = (): TestApp => ({ ...app(), request: app().legacyRequest });

const LISTED_WALLET = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
const LISTED_NAME = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "name")?.value ?? "";
const CLEAN_WALLET = "0x1f9090aaE28b8a3dCeaDf281B0F12828e676c326";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A case on the legacy listener, its judgment validated (so the matter has authority). */
async function legacyCase(owner: TestKey): Promise<Case> {
  const record = await createCase(legacyApp(), owner);
  const response = await app().legacyRequest("POST", `/v1/judgments/${record.judgment.id}/validate`, {
    key: owner.key,
    body: { consumer_debt: false },
  });
  expect(response.status).toBe(200);
  return record;
}

async function post(owner: TestKey, path: string, body: Record<string, unknown>) {
  return app().legacyRequest("POST", path, { key: owner.key, body });
}

async function screen(owner: TestKey, body: Record<string, unknown>) {
  const response = await post(owner, "/v1/sanctions/screen", body);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  return { response, screen: SanctionsScreen.parse(response.json) };
}

async function hitScreen(owner: TestKey) {
  const record = await legacyCase(owner);
  const result = await screen(owner, { matter_id: record.matter.id, wallets: [LISTED_WALLET] });
  return { record, ...result };
}

async function review(owner: TestKey, matterId: string, screenId: string) {
  const response = await post(owner, "/v1/sanctions/review-packet", {
    matter_id: matterId,
    screen_id: screenId,
    notes: "Wallet on the list.",
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return SanctionsReview.parse(response.json);
}

const eventTypesOf = (owner: TestKey, requestId: string | null) => sharedEventTypesOf(app(), owner, requestId);

const packetEffects = (owner: TestKey) => sharedPacketEffects(app(), owner);

describeSecuritySuite(sanctionsOperations.screen, {
  app,
  request: async (owner) => ({ body: { matter_id: (await legacyCase(owner)).matter.id, wallets: [LISTED_WALLET] } }),
  badBody: {
    body: { wallets: [""], entities: [5], counterparties: "Example Ltd" },
    missing: ["matter_id"],
    invalid: ["wallets.0", "entities.0", "counterparties"],
  },
  idempotency: {
    effects: async (owner) => ({
      hits: await countRows(app().sql, "sanctions_hits", owner.organizationId),
      events: await countEvents(app().sql, owner.organizationId, "matter.updated"),
    }),
    perWrite: { hits: 1, events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", entities: ["Someone"] },
  },
});

describeSecuritySuite(sanctionsOperations.reviewPacket, {
  app,
  request: async (owner) => {
    const { record, screen: result } = await hitScreen(owner);
    return { body: { matter_id: record.matter.id, screen_id: result.review_id } };
  },
  badBody: { body: { screen_id: " ", notes: 5 }, missing: ["matter_id"], invalid: ["screen_id", "notes"] },
  idempotency: {
    effects: packetEffects,
    perWrite: { packets: 1, events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", screen_id: "sanc_00000000000000000000000000" },
  },
});

describeSecuritySuite(sanctionsOperations.ofacReport, {
  app,
  request: async (owner) => {
    const { record, screen: result } = await hitScreen(owner);
    const reviewed = await review(owner, record.matter.id, result.review_id ?? "");
    return {
      body: {
        matter_id: record.matter.id,
        sanctions_review_id: reviewed.review_id,
        report_type: "blocked_property",
        counsel_owner: "Jane Counsel",
      },
    };
  },
  badBody: {
    body: { sanctions_review_id: "", report_type: "weekly", counsel_owner: 5 },
    missing: ["matter_id"],
    invalid: ["sanctions_review_id", "report_type", "counsel_owner"],
  },
  idempotency: {
    effects: packetEffects,
    perWrite: { packets: 1, events: 1 },
    changedBody: {
      matter_id: "matter_00000000000000000000000000",
      sanctions_review_id: "pkt_00000000000000000000000000",
      report_type: "annual_blocked_property",
      counsel_owner: "Someone",
    },
  },
});

describeSecuritySuite(sanctionsOperations.get, {
  app,
  request: async (owner) => {
    const { record, screen: result } = await hitScreen(owner);
    return { params: { review_id: (await review(owner, record.matter.id, result.review_id ?? "")).review_id } };
  },
});

describe("sanctions screening marks the matter as a party hit does", () => {
  it("a clear screen records nothing and appends nothing", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const { screen: result } = await screen(owner, {
      matter_id: record.matter.id,
      wallets: [CLEAN_WALLET],
      entities: ["Doe Trading Ltd"],
      counterparties: ["Example Exchange Ltd"],
    });
    expect(result).toEqual({
      object: "sanctions_screen",
      review_id: null,
      matter_id: record.matter.id,
      status: "clear",
      matches: [],
      ordinary_collection_paused: false,
      required_actions: [],
      list_size: SANDBOX_SANCTIONS_LIST.length,
    });
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countRows(app().sql, "sanctions_hits", owner.organizationId)).toBe(0);
  });

  it("a hit records open hits, holds the matter (matter.updated), and the sanctions gate then refuses 403", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const recovery = await post(owner, "/v1/ledger/recovery-events", {
      matter_id: record.matter.id,
      gross_amount: 500,
    });
    expect(recovery.status).toBe(201);
    const { response, screen: result } = await screen(owner, {
      matter_id: record.matter.id,
      wallets: [LISTED_WALLET.toUpperCase().replace("0X", "0x")],
      counterparties: [LISTED_NAME],
    });
    expect(result).toMatchObject({ status: "hit", ordinary_collection_paused: true });
    expect(result.review_id).toMatch(/^sanc_/);
    expect(result.required_actions.length).toBeGreaterThan(0);
    expect(result.matches.map((hit) => [hit.subject, hit.status, hit.party_id, hit.screen_id])).toEqual([
      ["wallet", "open", null, result.review_id],
      ["counterparty", "open", null, result.review_id],
    ]);
    expect(await eventTypesOf(owner, response.headers.get("svc-request-id"))).toEqual(["matter.updated"]);
    const matter = await app().legacyRequest("GET", `/v1/matters/${record.matter.id}`, { key: owner.key });
    expect(matter.json).toMatchObject({ sanctions_hold: true });

    // Collection is paused: a packet other than sanctions_review / ofac_report, and a remittance, are refused.
    const before = await countEvents(app().sql, owner.organizationId);
    expectError(
      await post(owner, "/v1/ledger/remittance-events", { matter_id: record.matter.id, amount: 1 }),
      403,
      "sanctions_gate",
    );
    expect(await countRows(app().sql, "remittance_events", owner.organizationId)).toBe(0);
    expectError(
      await post(owner, "/v1/packets", { matter_id: record.matter.id, type: "exchange_freeze" }),
      403,
      "sanctions_gate",
    );
    expectError(
      await post(owner, "/v1/issuer-remediation/freeze-packet", { matter_id: record.matter.id }),
      403,
      "sanctions_gate",
    );
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);

    // The same screen again raises nothing new: same review_id, no event.
    const again = await screen(owner, { matter_id: record.matter.id, wallets: [LISTED_WALLET] });
    expect(again.screen.review_id).toBe(result.review_id);
    expect(await eventTypesOf(owner, again.response.headers.get("svc-request-id"))).toEqual([]);
  });

  it("reviews a screen as a sanctions_review packet, then an OFAC report, both let through the gate", async () => {
    const owner = await app().mintLegacyKey();
    const { record, screen: result } = await hitScreen(owner);
    const response = await post(owner, "/v1/sanctions/review-packet", {
      matter_id: record.matter.id,
      screen_id: result.review_id,
      notes: "Wallet on the list.",
    });
    expect(response.status).toBe(201);
    const reviewed = SanctionsReview.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(reviewed).toMatchObject({
      object: "sanctions_review",
      matter_id: record.matter.id,
      screen_id: result.review_id,
      status: "assembled",
      ofac_report_required: true,
      notes: "Wallet on the list.",
      blocked_property_analysis: { property_blocked: true, blocked_wallets: [LISTED_WALLET], blocked_persons: [] },
    });
    expect(await eventTypesOf(owner, response.headers.get("svc-request-id"))).toEqual(["packet.created"]);
    const packet = Packet.parse(
      (await app().legacyRequest("GET", `/v1/packets/${reviewed.review_id}`, { key: owner.key })).json,
    );
    expect(packet).toMatchObject({ type: "sanctions_review", content_hash: reviewed.content_hash });
    expect(packet.wallets).toEqual([{ address: LISTED_WALLET, network: null }]);
    expect(sha256(canonicalize(packet.manifest))).toBe(packet.content_hash);
    const read = await app().legacyRequest("GET", `/v1/sanctions/${reviewed.review_id}`, { key: owner.key });
    expect(SanctionsReview.parse(read.json)).toEqual(withoutAuditRef(reviewed));

    const report = await post(owner, "/v1/sanctions/ofac-report-workflow", {
      matter_id: record.matter.id,
      sanctions_review_id: reviewed.review_id,
      report_type: "blocked_property",
      counsel_owner: "Jane Counsel",
    });
    expect(report.status).toBe(201);
    expect(OfacReport.parse(report.json)).toMatchObject({
      object: "ofac_report",
      matter_id: record.matter.id,
      sanctions_review_id: reviewed.review_id,
      report_type: "blocked_property",
      counsel_owner: "Jane Counsel",
      status: "assembled",
      submitted_by: null,
      submitted_at: null,
    });
    const reportPacket = Packet.parse(
      (
        await app().legacyRequest("GET", `/v1/packets/${OfacReport.parse(report.json).ofac_report_id}`, {
          key: owner.key,
        })
      ).json,
    );
    expect(reportPacket.type).toBe("ofac_report");
  });

  it("answers 404 for a screen or review that is not the matter's, another organization's, or of another type", async () => {
    const owner = await app().mintLegacyKey();
    const { record, screen: result } = await hitScreen(owner);
    const reviewed = await review(owner, record.matter.id, result.review_id ?? "");
    const other = await legacyCase(owner);
    const before = await packetEffects(owner);
    const wrongScreen = expectError(
      await post(owner, "/v1/sanctions/review-packet", { matter_id: other.matter.id, screen_id: result.review_id }),
      404,
      "not_found",
    );
    expect(wrongScreen.error.param).toBe("screen_id");
    const wrongReview = expectError(
      await post(owner, "/v1/sanctions/ofac-report-workflow", {
        matter_id: other.matter.id,
        sanctions_review_id: reviewed.review_id,
        report_type: "blocked_property",
        counsel_owner: "Jane Counsel",
      }),
      404,
      "not_found",
    );
    expect(wrongReview.error.param).toBe("sanctions_review_id");
    expect(await packetEffects(owner)).toEqual(before);

    const stranger = await app().mintLegacyKey();
    expectError(
      await app().legacyRequest("GET", `/v1/sanctions/${reviewed.review_id}`, { key: stranger.key }),
      404,
      "not_found",
    );
    const freeze = await post(owner, "/v1/packets", { matter_id: other.matter.id, type: "issuer_freeze" });
    expect(freeze.status).toBe(201);
    expectError(
      await app().legacyRequest("GET", `/v1/sanctions/${Packet.parse(freeze.json).id}`, { key: owner.key }),
      404,
      "not_found",
    );
  });

  it("concurrent screens of one listed wallet on one matter record one hit and one hold", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(owner, "/v1/sanctions/screen", { matter_id: record.matter.id, wallets: [LISTED_WALLET] }),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const ids = new Set(answers.map((answer) => SanctionsScreen.parse(answer.json).review_id));
    expect(ids.size).toBe(1);
    expect(await countRows(app().sql, "sanctions_hits", owner.organizationId)).toBe(1);
    const holds = await app().sql<{ n: string }[]>`
      select count(*)::text as n from events
       where organization_id = ${owner.organizationId} and type = 'matter.updated' and data ? 'sanctions_hits'`;
    expect(Number(holds[0]?.n)).toBe(1);
  });

  it("a review binds every hit its screen matched, including one an earlier screen recorded", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const first = await screen(owner, { matter_id: record.matter.id, wallets: [LISTED_WALLET] });
    // The second screen matches the wallet again (recorded by the first) and raises a new name hit.
    const second = await screen(owner, {
      matter_id: record.matter.id,
      wallets: [LISTED_WALLET],
      entities: [LISTED_NAME],
    });
    expect(second.screen.review_id).not.toBe(first.screen.review_id);
    expect(second.screen.matches.map((hit) => [hit.subject, hit.screen_id])).toEqual([
      ["wallet", first.screen.review_id],
      ["entity", second.screen.review_id],
    ]);
    const reviewed = await review(owner, record.matter.id, second.screen.review_id ?? "");
    expect(reviewed.hits.map((hit) => hit.subject).sort()).toEqual(["entity", "wallet"]);
    expect(reviewed.blocked_property_analysis).toMatchObject({
      property_blocked: true,
      blocked_wallets: [LISTED_WALLET],
      blocked_persons: [LISTED_NAME],
    });
    expect(reviewed.ofac_report_required).toBe(true);
    const packet = Packet.parse(
      (await app().legacyRequest("GET", `/v1/packets/${reviewed.review_id}`, { key: owner.key })).json,
    );
    expect(packet.wallets).toEqual([{ address: LISTED_WALLET, network: null }]);
  });

  it("re-screening a cleared hit on a released matter says nothing is paused and nothing is to review", async () => {
    const owner = await app().mintLegacyKey();
    const { record, screen: first } = await hitScreen(owner);
    // A reviewer cleared the hit and the hold was released (operator.clearSanctionsHit takes a live
    // key, which this listener refuses, so its effect is written here).
    await app().sql`
      update sanctions_hits set status = 'cleared', cleared_at = now(), clear_notes = 'False positive.'
       where organization_id = ${owner.organizationId} and screen_id = ${first.review_id ?? ""}`;
    await app().sql`
      update matters set sanctions_hold = false
       where organization_id = ${owner.organizationId} and id = ${record.matter.id}`;
    const { screen: again } = await screen(owner, { matter_id: record.matter.id, wallets: [LISTED_WALLET] });
    expect(again).toMatchObject({ status: "hit", ordinary_collection_paused: false, review_id: first.review_id });
    expect(again.matches.map((hit) => hit.status)).toEqual(["cleared"]);
    expect(again.required_actions.some((action) => /paused/i.test(action))).toBe(false);
    expect(again.required_actions.some((action) => action.includes("review-packet"))).toBe(false);
    expect(again.required_actions.length).toBeGreaterThan(0);
  });

  it("refuses 409 to screen against an empty list (never a pass, as for certificates), recording nothing", async () => {
    const owner = await app().mintLegacyKey();
    const record = await legacyCase(owner);
    const unlisted = await buildRestApp({
      deps: { ...app().deps, publicBaseUrl: LEGACY_BASE_URL, sanctionsLists: { sandbox: [], live: null } },
      surface: "legacy",
      legacy: { window: OPEN_LEGACY_WINDOW, currentBaseUrl: PUBLIC_BASE_URL },
      logLevel: "silent",
    });
    try {
      const before = await countEvents(app().sql, owner.organizationId);
      const response = await unlisted.inject({
        method: "POST",
        url: "/v1/sanctions/screen",
        headers: { authorization: `Bearer ${owner.key}`, "content-type": "application/json" },
        payload: JSON.stringify({ matter_id: record.matter.id, wallets: [CLEAN_WALLET] }),
      });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({
        error: { code: "conflict", details: { reason: "sanctions_list_empty" } },
      });
      expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
      expect(await countRows(app().sql, "sanctions_hits", owner.organizationId)).toBe(0);
    } finally {
      await unlisted.close();
    }
  });

  it("the table refuses a hit that names both a party and a screen, or neither", async () => {
    const owner = await app().mintLegacyKey();
    const { screen: result } = await hitScreen(owner);
    const [hit] = result.matches;
    if (!hit) throw new Error("the screen recorded no hit");
    const both: [string | null, string | null] = ["party_00000000000000000000000000", hit.screen_id];
    const neither: [string | null, string | null] = [null, null];
    for (const [partyId, screenId] of [both, neither]) {
      await expect(
        app().sql`
          insert into sanctions_hits (organization_id, environment, id, matter_id, party_id, screen_id, subject,
            fingerprint, matched_field, matched_value, entry_kind, entry_value, entry_source, status, created_at,
            updated_at, last_request_id, last_actor_id)
          select organization_id, environment, id || 'x', matter_id, ${partyId}, ${screenId}, subject,
            fingerprint || 'x', matched_field, matched_value, entry_kind, entry_value, entry_source, status,
            created_at, updated_at, last_request_id, last_actor_id
            from sanctions_hits where organization_id = ${owner.organizationId} and id = ${hit.id}`,
      ).rejects.toThrow(/sanctions_hits_party_or_screen_check/);
    }
  });
});
