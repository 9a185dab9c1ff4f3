import { Debtor, debtorOperations, Party } from "@crs/contract";
import { SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, countRows, expectAuditRef, expectError, ValidationDetails } from "./support/expectations";
import {
  eventTypesOf as sharedEventTypesOf,
  legacyDebtor as sharedLegacyDebtor,
  legacyMatter as sharedLegacyMatter,
} from "./support/legacy";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp({
  legacyWindow: OPEN_LEGACY_WINDOW,
});

const DebtorList = z.object({
  object: z.literal("list"),
  data: z.array(Debtor),
  has_more: z.boolean(),
  url: z.string(),
});

const LISTED_WALLET = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";

const legacyMatter = (owner: TestKey, name?: string) => sharedLegacyMatter(app(), owner, name);
const legacyDebtor = (owner: TestKey, body: Record<string, unknown> = {}) => sharedLegacyDebtor(app(), owner, body);

const eventTypesOf = (owner: TestKey, requestId: string | null) => sharedEventTypesOf(app(), owner, requestId);

const partyCount = (owner: TestKey) => countRows(app().sql, "parties", owner.organizationId);

describeSecuritySuite(debtorOperations.create, {
  app,
  request: async (owner) => ({ body: { matter_id: (await legacyMatter(owner)).id, legal_name: "Jane Roe" } }),
  badBody: {
    body: { legal_name: "  ", type: "alien", aliases: [5], wallets: [""] },
    missing: ["matter_id"],
    invalid: ["legal_name", "type", "aliases.0", "wallets.0"],
  },
  idempotency: {
    effects: async (owner) => ({ parties: await partyCount(owner) }),
    perWrite: { parties: 1 },
    changedBody: { legal_name: "Someone Else" },
  },
});

describeSecuritySuite(debtorOperations.list, {
  app,
  request: async (owner) => {
    await legacyDebtor(owner);
    return { query: { limit: "5" } };
  },
});

describeSecuritySuite(debtorOperations.get, {
  app,
  request: async (owner) => ({ params: { debtor_id: (await legacyDebtor(owner)).debtor_id } }),
});

describeSecuritySuite(debtorOperations.update, {
  app,
  request: async (owner) => ({
    params: { debtor_id: (await legacyDebtor(owner)).debtor_id },
    body: { aliases: ["J. Roe"] },
  }),
  badBody: {
    body: { legal_name: "", aliases: "J. Roe", review_state: { review_status: "done" } },
    missing: [],
    invalid: ["legal_name", "aliases", "review_state.review_status"],
  },
  idempotency: {
    effects: async (owner) => ({
      updates: Number(
        (
          await app().sql<{ n: string }[]>`
            select count(*)::text as n from events
             where organization_id = ${owner.organizationId} and type = 'party.updated'`
        )[0]?.n,
      ),
    }),
    perWrite: { updates: 1 },
    changedBody: { aliases: ["Janie"] },
  },
});

describe("legacy debtors are parties with role debtor", () => {
  it("creates a party with role debtor, named by its legal name, and records party.created", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const response = await app().legacyRequest("POST", "/v1/debtors", {
      key: owner.key,
      body: {
        matter_id: matter.id,
        type: "individual",
        legal_name: "Jane Roe",
        aliases: ["J. Roe"],
        identifiers: { passport: "X1234567" },
        wallets: ["0x8ba1f109551bD432803012645Ac136ddd64DBA72"],
      },
    });
    expect(response.status).toBe(201);
    expectAuditRef(response);
    const debtor = Debtor.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(debtor).toMatchObject({
      object: "debtor",
      id: debtor.debtor_id,
      matter_id: matter.id,
      type: "individual",
      legal_name: "Jane Roe",
      aliases: ["J. Roe"],
      identifiers: { passport: "X1234567" },
      wallets: [{ address: "0x8ba1f109551bD432803012645Ac136ddd64DBA72", network: null, label: null }],
      review_state: { review_required: false, review_status: "not_required", reasons: [] },
    });
    expect(debtor.debtor_id).toMatch(/^party_/);

    // The same record through the parties operation on the same listener.
    const asParty = await app().legacyRequest("GET", `/v1/parties/${debtor.debtor_id}`, { key: owner.key });
    expect(asParty.status).toBe(200);
    expect(Party.parse(asParty.json)).toMatchObject({ role: "debtor", name: "Jane Roe", legal_name: "Jane Roe" });
    expect(await eventTypesOf(owner, response.headers.get("svc-request-id"))).toEqual(["party.created"]);
  });

  it("is not a debtor when the party has another role: 404 on retrieve and update, absent from the list", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const claimant = await app().legacyRequest("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: matter.id, role: "claimant", name: "Acme Holdings", share: 1 },
    });
    const claimantId = Party.parse(claimant.json).id;
    const debtor = await app().legacyRequest("POST", "/v1/debtors", {
      key: owner.key,
      body: { matter_id: matter.id, legal_name: "Jane Roe" },
    });
    const debtorId = Debtor.parse(debtor.json).debtor_id;

    const retrieved = expectError(
      await app().legacyRequest("GET", `/v1/debtors/${claimantId}`, { key: owner.key }),
      404,
      "not_found",
    );
    expect(retrieved.error.message).toContain(`No such debtor: '${claimantId}'`);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    expectError(
      await app().legacyRequest("PATCH", `/v1/debtors/${claimantId}`, {
        key: owner.key,
        body: { legal_name: "Not a debtor" },
      }),
      404,
      "not_found",
    );
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);

    const listed = await app().legacyRequest("GET", `/v1/debtors?matter_id=${matter.id}`, { key: owner.key });
    const list = DebtorList.parse(listed.json);
    expect(list.data.map((item) => item.debtor_id)).toEqual([debtorId]);
    expect(list.url).toBe("/v1/debtors");
  });

  it("lists debtors most recent first, page by page, filtered by matter", async () => {
    const owner = await app().mintLegacyKey();
    const first = await legacyMatter(owner, "First v. Roe");
    const second = await legacyMatter(owner, "Second v. Roe");
    const ids: string[] = [];
    for (const [matter, name] of [
      [first, "A"],
      [second, "B"],
      [first, "C"],
    ] as const) {
      const response = await app().legacyRequest("POST", "/v1/debtors", {
        key: owner.key,
        body: { matter_id: matter.id, legal_name: name },
      });
      ids.push(Debtor.parse(response.json).debtor_id);
    }
    const page1 = DebtorList.parse((await app().legacyRequest("GET", "/v1/debtors?limit=2", { key: owner.key })).json);
    expect(page1.data.map((d) => d.legal_name)).toEqual(["C", "B"]);
    expect(page1.has_more).toBe(true);
    const page2 = DebtorList.parse(
      (
        await app().legacyRequest("GET", `/v1/debtors?limit=2&starting_after=${page1.data[1]?.debtor_id}`, {
          key: owner.key,
        })
      ).json,
    );
    expect(page2.data.map((d) => d.debtor_id)).toEqual([ids[0]]);
    expect(page2.has_more).toBe(false);
    const ofFirst = DebtorList.parse(
      (await app().legacyRequest("GET", `/v1/debtors?matter_id=${first.id}`, { key: owner.key })).json,
    );
    expect(ofFirst.data.map((d) => d.legal_name)).toEqual(["C", "A"]);
  });

  it("updates the legal name as the party's name too, records party.updated, and writes nothing for no change", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner);
    const response = await app().legacyRequest("PATCH", `/v1/debtors/${debtor.debtor_id}`, {
      key: owner.key,
      body: { legal_name: "Jane A. Roe", identifiers: { passport: "Y7654321" } },
    });
    expect(response.status).toBe(200);
    expect(Debtor.parse(response.json)).toMatchObject({
      legal_name: "Jane A. Roe",
      identifiers: { passport: "Y7654321" },
    });
    const asParty = Party.parse(
      (await app().legacyRequest("GET", `/v1/parties/${debtor.debtor_id}`, { key: owner.key })).json,
    );
    expect(asParty).toMatchObject({ name: "Jane A. Roe", legal_name: "Jane A. Roe", role: "debtor" });
    expect(await eventTypesOf(owner, response.headers.get("svc-request-id"))).toEqual(["party.updated"]);

    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    const unchanged = await app().legacyRequest("PATCH", `/v1/debtors/${debtor.debtor_id}`, {
      key: owner.key,
      body: { legal_name: "Jane A. Roe" },
    });
    expect(unchanged.status).toBe(200);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
  });

  it("refuses to change review_state, which follows the debtor's sanctions hits, naming it and changing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    for (const reviewState of [{ review_status: "approved" }, { review_required: true }, { reasons: ["x"] }]) {
      const response = await app().legacyRequest("PATCH", `/v1/debtors/${debtor.debtor_id}`, {
        key: owner.key,
        body: { legal_name: "Changed", review_state: reviewState },
      });
      const envelope = expectError(response, 422, "invalid_request");
      expect(envelope.error.param).toBe("review_state");
      expect(ValidationDetails.parse(envelope.error.details).invalid?.map((field) => field.param)).toEqual([
        "review_state",
      ]);
      expect(envelope.error.message).toContain("sanctions hits");
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
    const read = Debtor.parse(
      (await app().legacyRequest("GET", `/v1/debtors/${debtor.debtor_id}`, { key: owner.key })).json,
    );
    expect(read.legal_name).toBe("Jane Roe");
  });

  it("accepts review_state sent back unchanged, or null, beside a real change (read, edit, PATCH the whole object)", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner);
    const { review_state, legal_name, aliases, identifiers, wallets } = debtor;
    const whole = await app().legacyRequest("PATCH", `/v1/debtors/${debtor.debtor_id}`, {
      key: owner.key,
      body: { legal_name, aliases: [...aliases, "Janie"], identifiers, wallets, review_state },
    });
    expect(whole.status).toBe(200);
    expect(Debtor.parse(whole.json).aliases).toEqual(["Janie"]);
    const cleared = await app().legacyRequest("PATCH", `/v1/debtors/${debtor.debtor_id}`, {
      key: owner.key,
      body: { legal_name: "Jane B. Roe", review_state: null },
    });
    expect(cleared.status).toBe(200);
    expect(Debtor.parse(cleared.json)).toMatchObject({ legal_name: "Jane B. Roe", review_state });
  });

  it("shows a pending review while a sanctions hit on the debtor is open", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner);
    const response = await app().legacyRequest("PATCH", `/v1/debtors/${debtor.debtor_id}`, {
      key: owner.key,
      body: { wallets: [LISTED_WALLET] },
    });
    expect(response.status).toBe(200);
    const updated = Debtor.parse(response.json);
    expect(updated.review_state.review_status).toBe("pending");
    expect(updated.review_state.review_required).toBe(true);
    expect(updated.review_state.reasons).toHaveLength(1);
    expect(updated.review_state.reasons[0]).toContain(LISTED_WALLET);
    const read = Debtor.parse(
      (await app().legacyRequest("GET", `/v1/debtors/${debtor.debtor_id}`, { key: owner.key })).json,
    );
    expect(read.review_state).toEqual(updated.review_state);
  });

  it("refuses a write to a closed matter's debtor with 409, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner);
    const closed = await app().legacyRequest("POST", `/v1/matters/${debtor.matter_id}/close`, {
      key: owner.key,
      body: { reason: "settled" },
    });
    expect(closed.status).toBe(200);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    const partiesBefore = await partyCount(owner);
    expectError(
      await app().legacyRequest("PATCH", `/v1/debtors/${debtor.debtor_id}`, {
        key: owner.key,
        body: { aliases: ["X"] },
      }),
      409,
      "conflict",
    );
    expectError(
      await app().legacyRequest("POST", "/v1/debtors", {
        key: owner.key,
        body: { matter_id: debtor.matter_id, legal_name: "Another" },
      }),
      409,
      "conflict",
    );
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
    expect(await partyCount(owner)).toBe(partiesBefore);
  });

  it("is served only on the legacy listener", async () => {
    const owner = await app().mintKey();
    expectError(await app().request("GET", "/v1/debtors", { key: owner.key }), 404, "not_found");
  });
});
