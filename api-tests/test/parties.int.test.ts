import { Capabilities, Matter, MatterDashboard, Party, partyOperations } from "@crs/contract";
import { SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  countEvents,
  countRows,
  expectAuditRef,
  expectError,
  ValidationDetails,
  withoutAuditRef,
} from "./support/expectations";
import { createMatter, createParty, eventsOfRequest, sleep } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp();
/** A second deployment whose live organizations are screened against a list of their own. */
const LIVE_LIST_ADDRESS = "0x1111111111111111111111111111111111111111";
const liveListApp = useTestApp({
  liveSanctionsList: {
    source: "live-list.jsonl",
    entries: [{ kind: "address", value: LIVE_LIST_ADDRESS, network: null, program: "CYBER2", source: "OFAC SDN test" }],
  },
});

const PartyList = z.object({
  object: z.literal("list"),
  data: z.array(Party),
  has_more: z.boolean(),
  url: z.string(),
  audit_ref: z.string(),
});

const LISTED_WALLET = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
const LISTED_NAME = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "name")?.value ?? "";

const ownMatter = async (owner: TestKey) => (await createMatter(app(), owner)).matter.id;

async function ownParty(owner: TestKey, body: Record<string, unknown> = {}) {
  const matterId = await ownMatter(owner);
  return (await createParty(app(), owner, { matter_id: matterId, role: "debtor", name: "John Doe", ...body })).party;
}

/** The sum of a matter's claimant shares as stored (numeric, exact). */
async function storedClaimantTotal(organizationId: string, matterId: string): Promise<string> {
  const [row] = await app().sql<{ total: string }[]>`
    select coalesce(sum(share), 0)::text as total from parties
     where organization_id = ${organizationId} and matter_id = ${matterId} and role = 'claimant'`;
  return row?.total ?? "";
}

describeSecuritySuite(partyOperations.create, {
  app,
  request: async (owner) => ({
    body: { matter_id: await ownMatter(owner), role: "claimant", name: "Acme Holdings", share: 0.25 },
  }),
  badBody: {
    body: { role: "judge", name: "  ", type: "alien", share: 1.5, wallets: [""], aliases: [5] },
    missing: ["matter_id"],
    invalid: ["role", "name", "type", "share", "wallets.0", "aliases.0"],
  },
  idempotency: {
    effects: async (owner) => ({
      parties: await countRows(app().sql, "parties", owner.organizationId),
      created_events: await countEvents(app().sql, owner.organizationId, "party.created"),
    }),
    perWrite: { parties: 1, created_events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", role: "debtor", name: "Someone else" },
  },
});

describeSecuritySuite(partyOperations.list, {
  app,
  request: async () => ({ query: { role: "claimant", limit: "5" } }),
});

describeSecuritySuite(partyOperations.get, {
  app,
  request: async (owner) => ({ params: { party_id: (await ownParty(owner)).id } }),
});

describeSecuritySuite(partyOperations.update, {
  app,
  request: async (owner) => ({
    params: { party_id: (await ownParty(owner)).id },
    body: { name: "John Q. Doe", aliases: ["Johnny Doe"] },
  }),
  badBody: {
    body: { role: "judge", status: "gone", name: "", share: -1, wallets: [{ network: "ethereum" }] },
    missing: ["wallets.0.address"],
    invalid: ["role", "status", "name", "share"],
  },
  idempotency: {
    effects: async (owner) => ({
      updated_events: await countEvents(app().sql, owner.organizationId, "party.updated"),
    }),
    perWrite: { updated_events: 1 },
    changedBody: { name: "Somebody else" },
  },
});

describeSecuritySuite(partyOperations.listByMatter, {
  app,
  request: async (owner) => ({ params: { matter_id: await ownMatter(owner) }, query: { role: "debtor" } }),
});

describe("parties: behaviour", () => {
  it("creates a party with its fields, defaults and audit, and a plain wallet address as a wallet object", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const { response, party } = await createParty(app(), owner, {
      matter_id: matterId,
      role: "debtor",
      name: "  John Doe ",
      legal_name: "John Quincy Doe",
      type: "individual",
      aliases: ["J. Doe"],
      identifiers: { ssn_last4: "1234", ids: { passport: ["X123"] } },
      wallets: [
        "0x8ba1f109551bD432803012645Ac136ddd64DBA72",
        { address: " bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq ", network: "bitcoin", label: "cold" },
      ],
      contact: { email: "john@example.test" },
      notes: "Served at home address.",
      favourite_colour: "blue",
    });
    expect(party).toMatchObject({
      object: "party",
      matter_id: matterId,
      livemode: false,
      role: "debtor",
      name: "John Doe",
      legal_name: "John Quincy Doe",
      type: "individual",
      aliases: ["J. Doe"],
      identifiers: { ssn_last4: "1234", ids: { passport: ["X123"] } },
      wallets: [
        { address: "0x8ba1f109551bD432803012645Ac136ddd64DBA72", network: null, label: null },
        { address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", network: "bitcoin", label: "cold" },
      ],
      economics: {},
      contact: { email: "john@example.test" },
      share: null,
      status: "active",
      sanctions_hits: [],
    });
    expect(party.id).toMatch(/^party_[0-9a-z]{26}$/);
    expect(party.party_id).toBe(party.id);
    expect(response.json).not.toHaveProperty("favourite_colour");
    expect(party.audit).toEqual({
      request_id: expectAuditRef(response),
      actor_id: owner.keyId,
      organization_id: owner.organizationId,
      matter_id: matterId,
      timestamp: party.updated_at,
    });
    const read = await app().request("GET", `/v1/parties/${party.id}`, { key: owner.key });
    expect(withoutAuditRef(read.json)).toEqual(withoutAuditRef(response.json));
  });

  it("refuses an unknown role or type with 422 listing the allowed values, and writes nothing", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const role = await app().request("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: matterId, role: "witness", name: "X" },
    });
    expect(ValidationDetails.parse(expectError(role, 422, "invalid_request").error.details).allowed).toEqual([
      "claimant",
      "debtor",
      "counterparty",
    ]);
    const type = await app().request("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: matterId, role: "debtor", name: "X", type: "robot" },
    });
    const envelope = expectError(type, 422, "invalid_request");
    expect(envelope.error.param).toBe("type");
    expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual([
      "individual",
      "entity",
      "exchange",
      "issuer",
      "custodian",
      "receiver",
      "other",
    ]);
    expect(await countRows(app().sql, "parties", owner.organizationId)).toBe(0);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });

  it("accepts claimant shares summing to exactly 1 and refuses one that would reach 1.01, naming share", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    for (const share of [0.1, 0.2, 0.7]) {
      await createParty(app(), owner, { matter_id: matterId, role: "claimant", name: `Claimant ${share}`, share });
    }
    expect(await storedClaimantTotal(owner.organizationId, matterId)).toBe("1.000000");
    const before = await countEvents(app().sql, owner.organizationId);
    const over = await app().request("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: matterId, role: "claimant", name: "One too many", share: 0.01 },
    });
    const envelope = expectError(over, 422, "invalid_request");
    expect(envelope.error.param).toBe("share");
    expect(envelope.error.message).toContain("1.01");
    expect(envelope.error.details).toMatchObject({ total: 1.01, available: 0 });
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    // A claimant without a share, and a debtor, still fit.
    await createParty(app(), owner, { matter_id: matterId, role: "claimant", name: "No share yet" });
    await createParty(app(), owner, { matter_id: matterId, role: "debtor", name: "Debtor" });
  });

  it("refuses a share on a party that is not a claimant, on create and on a role change", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const refused = await app().request("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: matterId, role: "debtor", name: "Debtor", share: 0.5 },
    });
    expect(expectError(refused, 422, "invalid_request").error.param).toBe("share");
    const { party } = await createParty(app(), owner, {
      matter_id: matterId,
      role: "claimant",
      name: "Claimant",
      share: 0.5,
    });
    const roleOnly = await app().request("PATCH", `/v1/parties/${party.id}`, {
      key: owner.key,
      body: { role: "counterparty" },
    });
    expect(expectError(roleOnly, 422, "invalid_request").error.message).toContain("share: null");
    const both = await app().request("PATCH", `/v1/parties/${party.id}`, {
      key: owner.key,
      body: { role: "counterparty", share: null },
    });
    expect(Party.parse(both.json)).toMatchObject({ role: "counterparty", share: null });
  });

  it("lets ten concurrent claimant creates that would sum to 1.5 leave the matter's total at most 1", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        app().request("POST", "/v1/parties", {
          key: owner.key,
          body: { matter_id: matterId, role: "claimant", name: `Claimant ${i}`, share: 0.15 },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    // 6 × 0.15 = 0.9 fits; a seventh would make 1.05.
    expect(statuses).toEqual([...Array<number>(6).fill(201), ...Array<number>(4).fill(422)]);
    for (const refused of answers.filter((answer) => answer.status === 422)) {
      expect(expectError(refused, 422, "invalid_request").error.param).toBe("share");
    }
    expect(await storedClaimantTotal(owner.organizationId, matterId)).toBe("0.900000");
    expect(await countEvents(app().sql, owner.organizationId, "party.created")).toBe(6);
  });

  it("lets concurrent share increases leave the matter's total at most 1", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const claimants: Party[] = [];
    for (let i = 0; i < 5; i++) {
      claimants.push(
        (await createParty(app(), owner, { matter_id: matterId, role: "claimant", name: `C${i}`, share: 0.1 })).party,
      );
    }
    // Each raise adds 0.2; from 0.5, two fit (0.9) and a third would make 1.1.
    const answers = await Promise.all(
      claimants.map((claimant) =>
        app().request("PATCH", `/v1/parties/${claimant.id}`, { key: owner.key, body: { share: 0.3 } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 422, 422, 422]);
    expect(await storedClaimantTotal(owner.organizationId, matterId)).toBe("0.900000");
  });

  it("lists parties most recent first, filtered by role and matter, with cursors", async () => {
    const owner = await app().mintKey();
    const first = await ownMatter(owner);
    const second = await ownMatter(owner);
    const ids: string[] = [];
    for (const [matterId, role] of [
      [first, "debtor"],
      [first, "claimant"],
      [second, "claimant"],
      [second, "counterparty"],
    ] as const) {
      ids.push(
        (await createParty(app(), owner, { matter_id: matterId, role, name: `${role} of ${matterId}` })).party.id,
      );
      await sleep(2);
    }
    const [d1, c1, c2, x2] = ids as [string, string, string, string];
    const list = async (path: string) => {
      const response = await app().request("GET", path, { key: owner.key });
      expect(response.status).toBe(200);
      const page = PartyList.parse(response.json);
      return { ids: page.data.map((party) => party.id), has_more: page.has_more, url: page.url };
    };
    expect(await list("/v1/parties")).toEqual({ ids: [x2, c2, c1, d1], has_more: false, url: "/v1/parties" });
    expect((await list("/v1/parties?role=claimant")).ids).toEqual([c2, c1]);
    expect((await list(`/v1/parties?matter_id=${first}`)).ids).toEqual([c1, d1]);
    expect((await list(`/v1/parties?matter_id=${second}&role=claimant`)).ids).toEqual([c2]);
    expect(await list(`/v1/parties?limit=2&starting_after=${c2}`)).toMatchObject({ ids: [c1, d1], has_more: false });
    expect(await list(`/v1/matters/${first}/parties`)).toEqual({
      ids: [c1, d1],
      has_more: false,
      url: `/v1/matters/${first}/parties`,
    });
    expect((await list(`/v1/matters/${second}/parties?role=counterparty`)).ids).toEqual([x2]);

    const badRole = await app().request("GET", "/v1/parties?role=judge", { key: owner.key });
    const envelope = expectError(badRole, 400, "invalid_request");
    expect(envelope.error.param).toBe("role");
    expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual(["claimant", "debtor", "counterparty"]);
    const stranger = await app().mintKey();
    expect((await app().request("GET", "/v1/parties", { key: stranger.key })).json).toMatchObject({ data: [] });
  });

  it.each([
    ["an unknown party id", "party_00000000000000000000000000"],
    ["an id of another kind", "matter_00000000000000000000000000"],
    ["a malformed id", "not-an-id"],
  ])("returns 404 for %s", async (_label, id) => {
    const owner = await app().mintKey();
    expectError(await app().request("GET", `/v1/parties/${id}`, { key: owner.key }), 404, "not_found");
    expectError(
      await app().request("PATCH", `/v1/parties/${id}`, { key: owner.key, body: { name: "x" } }),
      404,
      "not_found",
    );
    expectError(
      await app().request("GET", `/v1/matters/${id.replace("party_", "matter_")}/parties`, { key: owner.key }),
      404,
      "not_found",
    );
    const missingMatter = await app().request("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: id, role: "debtor", name: "x" },
    });
    const missing = expectError(missingMatter, 404, "not_found");
    expect(missing.error.message).toContain("matter");
    expect(missing.error.param).toBe("matter_id");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(0);
  });

  it("updates only what changes, records previous attributes, and appends nothing for a PATCH that changes nothing", async () => {
    const owner = await app().mintKey();
    const party = await ownParty(owner, { aliases: ["JD"], wallets: ["0x8ba1f109551bD432803012645Ac136ddd64DBA72"] });
    const response = await app().request("PATCH", `/v1/parties/${party.id}`, {
      key: owner.key,
      body: { name: "John Doe Jr.", status: "inactive", wallets: [{ address: "bc1qexample", network: "bitcoin" }] },
    });
    expect(response.status).toBe(200);
    const updated = Party.parse(response.json);
    expect(updated).toMatchObject({
      name: "John Doe Jr.",
      status: "inactive",
      aliases: ["JD"],
      wallets: [{ address: "bc1qexample", network: "bitcoin", label: null }],
      created_at: party.created_at,
    });
    const [event] = await eventsOfRequest(app(), owner, expectAuditRef(response));
    expect(event?.type).toBe("party.updated");
    expect(event?.data.object).toEqual(withoutAuditRef(response.json));
    expect(event?.data.previous_attributes).toEqual({ name: party.name, status: "active", wallets: party.wallets });

    const before = await countEvents(app().sql, owner.organizationId);
    for (const body of [{}, { name: "John Doe Jr." }, { wallets: ["bc1qexample"] }, { unknown: 1 }]) {
      const same = await app().request("PATCH", `/v1/parties/${party.id}`, { key: owner.key, body });
      expect(same.status).toBe(200);
    }
    // A plain address is a wallet with no network: not the same as the stored one, so that PATCH changed it.
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before + 1);
  });

  it("refuses writes to the parties of a closed matter with 409 conflict, and writes nothing", async () => {
    const owner = await app().mintKey();
    const party = await ownParty(owner);
    await app().request("POST", `/v1/matters/${party.matter_id}/close`, { key: owner.key, body: { reason: "paid" } });
    const before = await countEvents(app().sql, owner.organizationId);
    const create = await app().request("POST", "/v1/parties", {
      key: owner.key,
      body: { matter_id: party.matter_id, role: "claimant", name: "Late claimant" },
    });
    expect(expectError(create, 409, "conflict").error.message).toContain(party.matter_id);
    const update = await app().request("PATCH", `/v1/parties/${party.id}`, {
      key: owner.key,
      body: { name: "Renamed" },
    });
    expectError(update, 409, "conflict");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countRows(app().sql, "parties", owner.organizationId)).toBe(1);
  });

  it("appends party.created carrying the party as returned", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const { response } = await createParty(app(), owner, { matter_id: matterId, role: "claimant", name: "Acme" });
    const events = await eventsOfRequest(app(), owner, expectAuditRef(response));
    expect(events.map((event) => event.type)).toEqual(["party.created"]);
    expect(events[0]?.data).toMatchObject({ party_id: Party.parse(response.json).id, matter_id: matterId });
    expect(events[0]?.data.object).toEqual(withoutAuditRef(response.json));
  });
});

describe("parties: sanctions screening", () => {
  it("records a hit for a listed wallet, puts the matter on hold and counts an alert", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const { response, party } = await createParty(app(), owner, {
      matter_id: matterId,
      role: "debtor",
      name: "Wallet Holder",
      wallets: [LISTED_WALLET.toUpperCase().replace("0X", "0x")],
    });
    expect(party.sanctions_hits).toHaveLength(1);
    expect(party.sanctions_hits[0]).toMatchObject({
      object: "sanctions_hit",
      matter_id: matterId,
      party_id: party.id,
      status: "open",
      matched: { field: "wallet", network: null, path: null },
      list_entry: { kind: "address", value: LISTED_WALLET, program: "SANDBOX-CYBER" },
      cleared_at: null,
    });
    expect(party.sanctions_hits[0]?.hit_id).toMatch(/^hit_[0-9a-z]{26}$/);
    const events = await eventsOfRequest(app(), owner, expectAuditRef(response));
    expect(events.map((event) => event.type)).toEqual(["party.created", "matter.updated"]);
    expect(events[1]?.data).toMatchObject({
      matter_id: matterId,
      previous_attributes: { sanctions_hold: false },
      sanctions_hits: party.sanctions_hits,
    });

    const matter = Matter.parse((await app().request("GET", `/v1/matters/${matterId}`, { key: owner.key })).json);
    expect(matter.sanctions_hold).toBe(true);
    const dashboard = MatterDashboard.parse(
      (await app().request("GET", `/v1/matters/${matterId}/dashboard`, { key: owner.key })).json,
    );
    expect(dashboard.alerts).toBe(1);
  });

  it("screens names, aliases and identifiers on update, and never raises the same hit twice", async () => {
    const owner = await app().mintKey();
    const party = await ownParty(owner, { name: "Clean Name" });
    expect(party.sanctions_hits).toEqual([]);
    const listed = await app().request("PATCH", `/v1/parties/${party.id}`, {
      key: owner.key,
      body: { aliases: [LISTED_NAME.toLowerCase()], identifiers: { tax_id: "SANDBOX-TAXID-000-00-0001" } },
    });
    const updated = Party.parse(listed.json);
    expect(updated.sanctions_hits.map((hit) => hit.matched.field).sort()).toEqual(["alias", "identifier"]);
    expect(updated.sanctions_hits.find((hit) => hit.matched.field === "identifier")?.matched.path).toBe("tax_id");
    const types = (await eventsOfRequest(app(), owner, expectAuditRef(listed))).map((event) => event.type);
    expect(types).toEqual(["party.updated", "matter.updated"]);

    const again = await app().request("PATCH", `/v1/parties/${party.id}`, {
      key: owner.key,
      body: { name: "Still Clean", aliases: [LISTED_NAME] },
    });
    const after = Party.parse(again.json);
    expect(after.sanctions_hits.map((hit) => hit.id)).toEqual(updated.sanctions_hits.map((hit) => hit.id));
    // The matter was already on hold: no second matter.updated.
    const againTypes = (await eventsOfRequest(app(), owner, expectAuditRef(again))).map((event) => event.type);
    expect(againTypes).toEqual(["party.updated"]);
    expect(await countRows(app().sql, "sanctions_hits", owner.organizationId)).toBe(2);
  });

  it("finds nothing for a live organization when no live list is configured", async () => {
    const live = await app().keyWithScopes(["matters:write", "parties:write", "capabilities:read"]);
    const matterId = (await createMatter(app(), live)).matter.id;
    const { party } = await createParty(app(), live, {
      matter_id: matterId,
      role: "debtor",
      name: LISTED_NAME,
      wallets: [LISTED_WALLET],
    });
    expect(party.livemode).toBe(true);
    expect(party.sanctions_hits).toEqual([]);
    expect(await countRows(app().sql, "sanctions_hits", live.organizationId)).toBe(0);
    const capabilities = Capabilities.parse((await app().request("GET", "/v1/capabilities", { key: live.key })).json);
    expect(capabilities.sanctions_screening).toMatchObject({
      sandbox: { list: "synthetic", entries: SANDBOX_SANCTIONS_LIST.length },
      live: { configured: false, entries: 0 },
    });
    expect(capabilities.sanctions_screening.notes).toContain("not screened");
  });

  it("screens a live organization against the configured live list, and never against the sandbox list", async () => {
    const live = await liveListApp().keyWithScopes(["matters:write", "parties:write", "capabilities:read"]);
    const matterId = (await createMatter(liveListApp(), live)).matter.id;
    const { party } = await createParty(liveListApp(), live, {
      matter_id: matterId,
      role: "debtor",
      name: LISTED_NAME,
      wallets: [{ address: LIVE_LIST_ADDRESS, network: "ethereum" }],
    });
    expect(party.sanctions_hits).toHaveLength(1);
    expect(party.sanctions_hits[0]).toMatchObject({
      matched: { field: "wallet", value: LIVE_LIST_ADDRESS, network: "ethereum" },
      list_entry: { kind: "address", program: "CYBER2", source: "OFAC SDN test" },
    });
    const capabilities = Capabilities.parse(
      (await liveListApp().request("GET", "/v1/capabilities", { key: live.key })).json,
    );
    expect(capabilities.sanctions_screening.live).toEqual({ configured: true, entries: 1 });
  });
});
