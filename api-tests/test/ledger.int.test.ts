import { ledgerOperations, MatterLedger, RecoveryEvent, RemittanceEvent } from "@crs/contract";
import { SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { describe, expect, it } from "vitest";
import { countEvents, countRows, expectError, ValidationDetails } from "./support/expectations";
import { createMatter, createParty, eventsOfRequest, recordRecovery } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp();

const ownMatter = async (owner: TestKey) => (await createMatter(app(), owner)).matter.id;

async function matterWithRecovery(owner: TestKey, grossAmount = 1000) {
  const matterId = await ownMatter(owner);
  const { recoveryEvent } = await recordRecovery(app(), owner, { matter_id: matterId, gross_amount: grossAmount });
  return { matterId, recoveryEvent };
}

async function ledgerOf(owner: TestKey, matterId: string): Promise<MatterLedger> {
  const response = await app().request("GET", `/v1/ledger/matters/${matterId}`, { key: owner.key });
  expect(response.status).toBe(200);
  return MatterLedger.parse(response.json);
}

describeSecuritySuite(ledgerOperations.createRecoveryEvent, {
  app,
  request: async (owner) => ({ body: { matter_id: await ownMatter(owner), gross_amount: 2500.5 } }),
  badBody: {
    body: { gross_amount: -1, event_type: "windfall", network: "", asset: 7 },
    missing: ["matter_id"],
    invalid: ["gross_amount", "event_type", "network", "asset"],
  },
  idempotency: {
    effects: async (owner) => ({
      rows: await countRows(app().sql, "recovery_events", owner.organizationId),
      events: await countEvents(app().sql, owner.organizationId, "recovery_event.created"),
    }),
    perWrite: { rows: 1, events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", gross_amount: 1 },
  },
});

describeSecuritySuite(ledgerOperations.createRemittanceEvent, {
  app,
  request: async (owner) => ({ body: { matter_id: (await matterWithRecovery(owner)).matterId, amount: 10 } }),
  badBody: {
    body: { amount: 0, asset: "", destination: 5 },
    missing: ["matter_id"],
    invalid: ["amount", "asset", "destination"],
  },
  idempotency: {
    effects: async (owner) => ({
      rows: await countRows(app().sql, "remittance_events", owner.organizationId),
      events: await countEvents(app().sql, owner.organizationId, "remittance_event.created"),
    }),
    perWrite: { rows: 1, events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000", amount: 1 },
  },
});

describeSecuritySuite(ledgerOperations.retrieveMatterLedger, {
  app,
  request: async (owner) => ({ params: { matter_id: (await matterWithRecovery(owner)).matterId } }),
});

describe("ledger: recovery events", () => {
  it("fills the defaults, returns gross_amount and its usd_value alias, and appends recovery_event.created", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const { response, recoveryEvent } = await recordRecovery(app(), owner, { matter_id: matterId, gross_amount: 0.1 });
    expect(recoveryEvent).toMatchObject({
      object: "recovery_event",
      id: recoveryEvent.recovery_event_id,
      matter_id: matterId,
      event_type: "recovery",
      asset: "USD",
      gross_amount: 0.1,
      usd_value: 0.1,
      currency: "USD",
      network: null,
      source: null,
      description: null,
      packet_id: null,
      status: "recorded",
    });
    expect(recoveryEvent.id).toMatch(/^rcv_[0-9a-z]{26}$/);
    const events = await eventsOfRequest(app(), owner, response.headers.get("svc-request-id") ?? "");
    expect(events.map((event) => event.type)).toEqual(["recovery_event.created"]);
    expect(events[0]?.data).toMatchObject({ recovery_event_id: recoveryEvent.id, matter_id: matterId });
  });

  it("takes usd_value alone as the amount, and refuses the two when they disagree", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const { recoveryEvent } = await recordRecovery(app(), owner, {
      matter_id: matterId,
      usd_value: 42.42,
      event_type: "turned_over",
      asset: "USDC",
      network: "ethereum",
    });
    expect(recoveryEvent).toMatchObject({
      gross_amount: 42.42,
      usd_value: 42.42,
      event_type: "turned_over",
      asset: "USDC",
    });

    const mismatch = await app().request("POST", "/v1/ledger/recovery-events", {
      key: owner.key,
      body: { matter_id: matterId, gross_amount: 10, usd_value: 11 },
    });
    expect(expectError(mismatch, 422, "invalid_request").error.param).toBe("usd_value");
    const missing = await app().request("POST", "/v1/ledger/recovery-events", {
      key: owner.key,
      body: { matter_id: matterId },
    });
    const envelope = expectError(missing, 422, "invalid_request");
    expect(envelope.error.param).toBe("gross_amount");
    expect(await countRows(app().sql, "recovery_events", owner.organizationId)).toBe(1);
  });

  it("refuses an unknown event_type with a 422 listing the seven allowed values", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/ledger/recovery-events", {
      key: owner.key,
      body: { matter_id: await ownMatter(owner), gross_amount: 1, event_type: "windfall" },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual([
      "recovery",
      "frozen",
      "blocked",
      "seized",
      "turned_over",
      "remitted",
      "settled",
    ]);
  });

  it("refuses more than two decimals and a packet_id that is not the matter's (404 naming it)", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const precise = await app().request("POST", "/v1/ledger/recovery-events", {
      key: owner.key,
      body: { matter_id: matterId, gross_amount: 1.005 },
    });
    expect(expectError(precise, 422, "invalid_request").error.param).toBe("gross_amount");
    const unknownPacket = await app().request("POST", "/v1/ledger/recovery-events", {
      key: owner.key,
      body: { matter_id: matterId, gross_amount: 1, packet_id: "pkt_00000000000000000000000000" },
    });
    expect(expectError(unknownPacket, 404, "not_found").error.param).toBe("packet_id");
    expect(await countRows(app().sql, "recovery_events", owner.organizationId)).toBe(0);
  });
});

describe("ledger: remittances and totals", () => {
  it("sums exactly to the cent (0.10 + 0.20 is 0.30) and at amounts beyond a float's cents", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    for (const gross_amount of [0.1, 0.2, 90_071_992_547.41, 0.07]) {
      await recordRecovery(app(), owner, { matter_id: matterId, gross_amount });
    }
    const ledger = await ledgerOf(owner, matterId);
    // 0.10 + 0.20 + 90071992547.41 + 0.07 = 90071992547.78, exactly
    expect(ledger.total_recovered).toMatchObject({ amount: 90_071_992_547.78, currency: "USD" });
    expect(ledger.recovery_events.map((event) => event.gross_amount)).toEqual([0.1, 0.2, 90_071_992_547.41, 0.07]);
    const stored = await app().sql<{ total: string }[]>`
      select sum(gross_amount)::text as total from recovery_events where matter_id = ${matterId}`;
    expect(stored[0]?.total).toBe("90071992547.78");
  });

  it("records a remittance within the balance, refuses one above it with 409 conflict, and shows the totals", async () => {
    const owner = await app().mintKey();
    const { matterId, recoveryEvent } = await matterWithRecovery(owner, 100.05);
    const first = await app().request("POST", "/v1/ledger/remittance-events", {
      key: owner.key,
      body: {
        matter_id: matterId,
        amount: 60.02,
        destination: "Claimant trust account",
        source_recovery_event_id: recoveryEvent.id,
      },
    });
    expect(first.status).toBe(201);
    const remittance = RemittanceEvent.parse(first.json);
    expect(remittance).toMatchObject({
      amount: 60.02,
      asset: "USD",
      status: "recorded",
      destination: "Claimant trust account",
      source_recovery_event_id: recoveryEvent.id,
      waterfall_id: null,
    });
    expect(
      (await eventsOfRequest(app(), owner, first.headers.get("svc-request-id") ?? "")).map((event) => event.type),
    ).toEqual(["remittance_event.created"]);

    const tooMuch = await app().request("POST", "/v1/ledger/remittance-events", {
      key: owner.key,
      body: { matter_id: matterId, amount: 40.04 },
    });
    const envelope = expectError(tooMuch, 409, "conflict");
    expect(envelope.error.param).toBe("amount");
    expect(envelope.error.details).toEqual({ total_recovered: "100.05", total_remitted: "60.02", remittable: "40.03" });

    const exact = await app().request("POST", "/v1/ledger/remittance-events", {
      key: owner.key,
      body: { matter_id: matterId, amount: 40.03 },
    });
    expect(exact.status).toBe(201);
    const ledger = await ledgerOf(owner, matterId);
    expect(ledger.total_recovered.amount).toBe(100.05);
    expect(ledger.total_remitted.amount).toBe(100.05);
    expect(ledger.remittable.amount).toBe(0);
    expect(ledger.remittance_events.map((event) => event.amount)).toEqual([60.02, 40.03]);
    expect(ledger.recovery_events).toEqual([RecoveryEvent.parse(recoveryEvent)]);
  });

  it("records exactly 10 of 20 concurrent remittances when the balance allows 10 (the matter row lock)", async () => {
    const owner = await app().mintKey();
    const { matterId } = await matterWithRecovery(owner, 1000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        app().request("POST", "/v1/ledger/remittance-events", {
          key: owner.key,
          body: { matter_id: matterId, amount: 100 },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array<number>(10).fill(201), ...Array<number>(10).fill(409)]);
    for (const refused of answers.filter((answer) => answer.status === 409)) expectError(refused, 409, "conflict");
    expect(await countRows(app().sql, "remittance_events", owner.organizationId)).toBe(10);
    expect(await countEvents(app().sql, owner.organizationId, "remittance_event.created")).toBe(10);
    const ledger = await ledgerOf(owner, matterId);
    expect(ledger.total_remitted.amount).toBe(1000);
    expect(ledger.remittable.amount).toBe(0);
  });

  it("refuses a remittance while the matter has a sanctions hit awaiting review (409 sanctions_gate)", async () => {
    const owner = await app().mintKey();
    const { matterId } = await matterWithRecovery(owner, 500);
    const listed = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
    await createParty(app(), owner, { matter_id: matterId, role: "debtor", name: "Listed Debtor", wallets: [listed] });
    const response = await app().request("POST", "/v1/ledger/remittance-events", {
      key: owner.key,
      body: { matter_id: matterId, amount: 1 },
    });
    expectError(response, 409, "sanctions_gate");
    expect(await countRows(app().sql, "remittance_events", owner.organizationId)).toBe(0);
  });

  it("refuses ledger writes to a closed matter with 409 conflict", async () => {
    const owner = await app().mintKey();
    const { matterId } = await matterWithRecovery(owner, 10);
    const closed = await app().request("POST", `/v1/matters/${matterId}/close`, {
      key: owner.key,
      body: { reason: "paid" },
    });
    expect(closed.status).toBe(200);
    for (const [path, body] of [
      ["/v1/ledger/recovery-events", { matter_id: matterId, gross_amount: 1 }],
      ["/v1/ledger/remittance-events", { matter_id: matterId, amount: 1 }],
    ] as const) {
      expectError(await app().request("POST", path, { key: owner.key, body }), 409, "conflict");
    }
  });
});
