import { Waterfall, waterfallOperations } from "@crs/contract";
import { describe, expect, it } from "vitest";
import { countEvents, countRows, expectError } from "./support/expectations";
import { createMatter, createParty, eventsOfRequest, recordRecovery } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp();

const ownMatter = async (owner: TestKey) => (await createMatter(app(), owner)).matter.id;

async function calculate(owner: TestKey, body: Record<string, unknown>) {
  const response = await app().request("POST", "/v1/waterfall/calculate", { key: owner.key, body });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  return { response, waterfall: Waterfall.parse(response.json) };
}

/** Every part of a waterfall, in cents: they must sum to the gross. */
function partsInCents(waterfall: Waterfall): number {
  const cents = (amount: number) => Math.round(amount * 100);
  return (
    cents(waterfall.costs_total) +
    cents(waterfall.counsel_fee.amount) +
    cents(waterfall.platform_economics.amount) +
    waterfall.holdbacks.reduce((sum, holdback) => sum + cents(holdback.amount), 0) +
    waterfall.claimant_distributions.reduce((sum, distribution) => sum + cents(distribution.amount), 0)
  );
}

describeSecuritySuite(waterfallOperations.calculate, {
  app,
  request: async (owner) => ({ body: { matter_id: await ownMatter(owner), costs: { filing: 10 } } }),
  badBody: {
    body: { platform_percentage: 100.5, costs: { filing: -1 }, recovery_event_ids: [] },
    missing: ["matter_id"],
    invalid: ["platform_percentage", "costs.filing", "recovery_event_ids"],
  },
  idempotency: {
    effects: async (owner) => ({
      rows: await countRows(app().sql, "waterfalls", owner.organizationId),
      events: await countEvents(app().sql, owner.organizationId, "waterfall.calculated"),
    }),
    perWrite: { rows: 1, events: 1 },
    changedBody: { matter_id: "matter_00000000000000000000000000" },
  },
});

describeSecuritySuite(waterfallOperations.retrieveForMatter, {
  app,
  request: async (owner) => {
    const matterId = await ownMatter(owner);
    await calculate(owner, { matter_id: matterId });
    return { params: { matter_id: matterId } };
  },
});

describe("waterfall: worked examples over HTTP", () => {
  it("splits $125,000.00 through costs, counsel 33.33 %, platform 5 %, holdback 2 % and claimants 0.6 / 0.4", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner, {
      name: "Acme v. Doe",
      economics: { currency: "USD", counsel_fee_percentage: 33.33, platform_percentage: 5, holdback_percentage: 2 },
    });
    const acme = (await createParty(app(), owner, { matter_id: matter.id, role: "claimant", name: "Acme", share: 0.6 }))
      .party;
    const beta = (await createParty(app(), owner, { matter_id: matter.id, role: "claimant", name: "Beta", share: 0.4 }))
      .party;
    await recordRecovery(app(), owner, { matter_id: matter.id, gross_amount: 100_000 });
    await recordRecovery(app(), owner, { matter_id: matter.id, usd_value: 25_000 });

    const { response, waterfall } = await calculate(owner, {
      matter_id: matter.id,
      costs: { filing_fees: 1250, expert_witness: 4800.5 },
    });
    // gross 125,000.00; costs 6,050.50 leave 118,949.50
    // counsel 33.33 % of 118,949.50 = 39,645.868... → 39,645.86 (rounded down), leaving 79,303.64
    // platform 5 % of 79,303.64 = 3,965.182 → 3,965.18, leaving 75,338.46
    // holdback 2 % of 75,338.46 = 1,506.7692 → 1,506.76, leaving 73,831.70 to distribute
    // Acme 0.6 → 44,299.02; Beta 0.4 → 29,532.68
    expect(waterfall.gross_recovered.amount).toBe(125_000);
    expect(waterfall.costs).toEqual({ expert_witness: 4800.5, filing_fees: 1250 });
    expect(waterfall.costs_total).toBe(6050.5);
    expect(waterfall.counsel_fee.amount).toBe(39_645.86);
    expect(waterfall.platform_economics).toMatchObject({ amount: 3965.18, currency: "USD" });
    expect(waterfall.holdbacks).toEqual([{ reason: "holdback_percentage", claimant_id: null, amount: 1506.76 }]);
    expect(waterfall.distributable).toBe(73_831.7);
    expect(waterfall.claimant_distributions).toEqual([
      { claimant_id: acme.id, share: 0.6, amount: 44_299.02 },
      { claimant_id: beta.id, share: 0.4, amount: 29_532.68 },
    ]);
    expect(partsInCents(waterfall)).toBe(12_500_000);
    expect(waterfall.review_state).toEqual({
      review_required: true,
      review_status: "pending",
      review_owner: "",
      review_notes: "",
    });
    expect(waterfall.remittance_constraints).toEqual({
      total_recovered: 125_000,
      total_remitted: 0,
      remittable: 125_000,
    });
    expect(waterfall.id).toMatch(/^wf_[0-9a-z]{26}$/);

    const events = await eventsOfRequest(app(), owner, response.headers.get("svc-request-id") ?? "");
    expect(events.map((event) => event.type)).toEqual(["waterfall.calculated"]);
    const current = await app().request("GET", `/v1/waterfall/matters/${matter.id}`, { key: owner.key });
    expect(current.status).toBe(200);
    expect(Waterfall.parse(current.json)).toEqual(waterfall);
  });

  it("holds back an inactive claimant's part under its id and the unallocated quarter; chosen events and a platform override", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const active = (
      await createParty(app(), owner, { matter_id: matterId, role: "claimant", name: "Active", share: 0.5 })
    ).party;
    const idle = (await createParty(app(), owner, { matter_id: matterId, role: "claimant", name: "Idle", share: 0.25 }))
      .party;
    const patched = await app().request("PATCH", `/v1/parties/${idle.id}`, {
      key: owner.key,
      body: { status: "inactive" },
    });
    expect(patched.status).toBe(200);
    const { recoveryEvent: chosen } = await recordRecovery(app(), owner, { matter_id: matterId, gross_amount: 100.01 });
    await recordRecovery(app(), owner, { matter_id: matterId, gross_amount: 999 });

    const { waterfall } = await calculate(owner, {
      matter_id: matterId,
      recovery_event_ids: [chosen.id],
      platform_percentage: 0,
    });
    // 100.01 split 0.5 / 0.25 / 0.25 unallocated: 5000.5 / 2500.25 / 2500.25 cents exactly; the odd cent
    // goes to the largest fraction, the first claimant.
    expect(waterfall.recovery_event_ids).toEqual([chosen.id]);
    expect(waterfall.gross_recovered.amount).toBe(100.01);
    expect(waterfall.claimant_distributions).toEqual([{ claimant_id: active.id, share: 0.5, amount: 50.01 }]);
    expect(waterfall.holdbacks).toEqual([
      { reason: "claimant_not_active", claimant_id: idle.id, amount: 25 },
      { reason: "unallocated_share", claimant_id: null, amount: 25 },
    ]);
    expect(partsInCents(waterfall)).toBe(10_001);
    expect(waterfall.remittance_constraints.total_recovered).toBe(1099.01);
  });

  it("404s a recovery event of another matter, naming it, and 404s a matter with no waterfall yet", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    const other = await ownMatter(owner);
    const { recoveryEvent } = await recordRecovery(app(), owner, { matter_id: other, gross_amount: 5 });
    const response = await app().request("POST", "/v1/waterfall/calculate", {
      key: owner.key,
      body: { matter_id: matterId, recovery_event_ids: [recoveryEvent.id] },
    });
    expect(expectError(response, 404, "not_found").error.param).toBe("recovery_event_ids.0");
    const none = await app().request("GET", `/v1/waterfall/matters/${matterId}`, { key: owner.key });
    expectError(none, 404, "not_found");
    expect(await countRows(app().sql, "waterfalls", owner.organizationId)).toBe(0);
  });

  it("returns the latest calculation as the matter's current waterfall", async () => {
    const owner = await app().mintKey();
    const matterId = await ownMatter(owner);
    await recordRecovery(app(), owner, { matter_id: matterId, gross_amount: 10 });
    await calculate(owner, { matter_id: matterId, platform_percentage: 10 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { waterfall: latest } = await calculate(owner, { matter_id: matterId, platform_percentage: 20 });
    const current = await app().request("GET", `/v1/waterfall/matters/${matterId}`, { key: owner.key });
    expect(Waterfall.parse(current.json)).toEqual(latest);
    expect(latest.platform_economics.amount).toBe(2);
  });
});
