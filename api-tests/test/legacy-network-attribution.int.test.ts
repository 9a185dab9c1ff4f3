import { Matter, NetworkAttribution, NetworkCorrelationResult, networkAttributionOperations } from "@crs/contract";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, countRows, expectAuditRef, expectError, ValidationDetails } from "./support/expectations";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp({
  legacyWindow: OPEN_LEGACY_WINDOW,
});

const WALLET = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const OTHER_WALLET = "0x0000000000000000000000000000000000000bad";

async function legacyMatter(owner: TestKey, name = "Acme Holdings v. Roe"): Promise<Matter> {
  const response = await app().legacyRequest("POST", "/v1/matters", { key: owner.key, body: { name } });
  expect(response.status).toBe(201);
  return Matter.parse(response.json);
}

const signalBody = (matterId: string, overrides: Record<string, unknown> = {}) => ({
  matter_id: matterId,
  signal_type: "exchange_login_ip",
  source: "Exchange A",
  wallet_address: WALLET,
  legal_process_id: "SUBPOENA-1",
  timestamp: "2026-05-30T14:03:11.000Z",
  raw_value_redacted: "203.0.113.x",
  privacy_restrictions: ["law_enforcement_only"],
  ...overrides,
});

const postSignal = (owner: TestKey, body: unknown) =>
  app().legacyRequest("POST", "/v1/network-attribution/signals", { key: owner.key, body });

async function recordSignal(owner: TestKey, matterId: string, overrides: Record<string, unknown> = {}) {
  const response = await postSignal(owner, signalBody(matterId, overrides));
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return NetworkAttribution.parse(response.json);
}

async function correlate(owner: TestKey, body: Record<string, unknown>) {
  const response = await app().legacyRequest("POST", "/v1/network-attribution/correlate", { key: owner.key, body });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  return NetworkCorrelationResult.parse(response.json);
}

const signalCount = (owner: TestKey) => countRows(app().sql, "network_attributions", owner.organizationId);

/** The types of the events one request appended, read from the log itself. */
async function eventsOf(owner: TestKey, requestId: string | null) {
  return app().sql<{ type: string; data: Record<string, unknown> }[]>`
    select type, data from events where organization_id = ${owner.organizationId} and audit_ref = ${requestId ?? ""}
     order by sequence`;
}

describeSecuritySuite(networkAttributionOperations.recordSignal, {
  app,
  request: async (owner) => ({ body: signalBody((await legacyMatter(owner)).id) }),
  badBody: {
    body: {
      signal_type: "exchange_login_ip",
      source: "  ",
      wallet_address: 5,
      timestamp: "yesterday",
      raw_value_redacted: "login from 203.0.113.7:443",
      privacy_restrictions: [""],
    },
    missing: ["matter_id", "legal_process_id"],
    invalid: ["source", "wallet_address", "timestamp", "raw_value_redacted", "privacy_restrictions.0"],
  },
  idempotency: {
    effects: async (owner) => ({ signals: await signalCount(owner) }),
    perWrite: { signals: 1 },
    changedBody: signalBody("matter_01k1z9r5ht3q7mxw2c4d8e6f0g", { source: "Exchange B" }),
  },
});

describeSecuritySuite(networkAttributionOperations.correlate, {
  app,
  request: async (owner) => {
    const matter = await legacyMatter(owner);
    await recordSignal(owner, matter.id);
    return { body: { matter_id: matter.id } };
  },
  badBody: {
    body: { wallet_ids: [], signal_ids: "na_1" },
    missing: ["matter_id"],
    invalid: ["wallet_ids", "signal_ids"],
  },
  idempotency: {
    effects: async (owner) => ({
      signals: await signalCount(owner),
      events: await countEvents(app().sql, owner.organizationId),
    }),
    perWrite: { signals: 0, events: 0 },
    changedBody: { matter_id: "matter_01k1z9r5ht3q7mxw2c4d8e6f0g", wallet_ids: [WALLET] },
  },
});

describeSecuritySuite(networkAttributionOperations.get, {
  app,
  request: async (owner) => {
    const signal = await recordSignal(owner, (await legacyMatter(owner)).id);
    return { params: { network_attribution_id: signal.network_attribution_id } };
  },
});

describe("network attribution signals keep only redacted values", () => {
  it("stores a redacted value as sent, answers it on GET, and records matter.updated carrying the signal", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const response = await postSignal(
      owner,
      signalBody(matter.id, {
        raw_value_redacted: "login from 203.0.x.x and 2001:db8:x:x:x:x:x:x via Exchange A",
        privacy_restrictions: ["law_enforcement_only", "no_debtor_disclosure"],
      }),
    );
    expect(response.status).toBe(201);
    expectAuditRef(response);
    const signal = NetworkAttribution.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(signal).toMatchObject({
      object: "network_attribution",
      id: signal.network_attribution_id,
      matter_id: matter.id,
      wallet_address: WALLET,
      signal_type: "exchange_login_ip",
      source: "Exchange A",
      legal_process_id: "SUBPOENA-1",
      timestamp: "2026-05-30T14:03:11.000Z",
      raw_value_redacted: "login from 203.0.x.x and 2001:db8:x:x:x:x:x:x via Exchange A",
      privacy_restrictions: ["law_enforcement_only", "no_debtor_disclosure"],
      confidence_level: "L0",
      corroborating_signal_ids: [],
      review_required: true,
    });
    expect(signal.network_attribution_id).toMatch(/^na_[0-9a-z]{26}$/);

    const read = await app().legacyRequest("GET", `/v1/network-attribution/${signal.id}`, { key: owner.key });
    expect(read.status).toBe(200);
    const { audit_ref: _created, ...created } = signal;
    expect(NetworkAttribution.parse(read.json)).toEqual(created);

    const events = await eventsOf(owner, response.headers.get("svc-request-id"));
    expect(events.map((event) => event.type)).toEqual(["matter.updated"]);
    expect(events[0]?.data).toMatchObject({ matter_id: matter.id, network_attribution: created });
  });

  const RAW_FORMS = [
    "203.0.113.7",
    "login from 203.0.113.7:443",
    "203.000.113.007",
    "::ffff:203.0.113.7",
    "2001:db8::1",
    "[2001:db8::1]:8443",
    "fe80::1%eth0",
    "2001:0db8:0000:0000:0000:0000:0000:0001",
  ];

  it.each(RAW_FORMS)("refuses the raw address %j with 422 naming raw_value_redacted, storing nothing", async (raw) => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    const envelope = expectError(
      await postSignal(owner, signalBody(matter.id, { raw_value_redacted: raw })),
      422,
      "invalid_request",
    );
    expect(envelope.error.param).toBe("raw_value_redacted");
    const details = ValidationDetails.parse(envelope.error.details);
    expect(details.invalid?.map((field) => field.param)).toEqual(["raw_value_redacted"]);
    expect(envelope.error.message).toContain("raw IP address");
    expect(await signalCount(owner)).toBe(0);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
    // Nowhere stored: not under an idempotency record either (none was sent), nor in any event.
    const [leak] = await app().sql<{ n: number }[]>`
      select count(*)::int as n from events where organization_id = ${owner.organizationId} and data::text like ${`%${raw}%`}`;
    expect(leak?.n).toBe(0);
  });

  it("refuses a raw address in any other text field too, naming each, storing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const envelope = expectError(
      await postSignal(
        owner,
        signalBody(matter.id, {
          source: "ISP at 198.51.100.23",
          legal_process_id: "order for [2001:db8::7]",
          privacy_restrictions: ["ok", "not for 198.51.100.23:80"],
        }),
      ),
      422,
      "invalid_request",
    );
    expect(ValidationDetails.parse(envelope.error.details).invalid?.map((field) => field.param)).toEqual([
      "source",
      "legal_process_id",
      "privacy_restrictions.1",
    ]);
    expect(envelope.error.message).not.toContain("198.51.100.23");
    expect(await signalCount(owner)).toBe(0);
  });

  it("requires legal_process_id for an IP signal only", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    for (const type of ["exchange_login_ip", "exchange_withdrawal_ip", "transaction_broadcast_ip"]) {
      const envelope = expectError(
        await postSignal(owner, signalBody(matter.id, { signal_type: type, legal_process_id: null })),
        422,
        "invalid_request",
      );
      expect(ValidationDetails.parse(envelope.error.details).missing).toEqual(["legal_process_id"]);
      expect(envelope.error.param).toBe("legal_process_id");
    }
    expect(await signalCount(owner)).toBe(0);
    const device = await recordSignal(owner, matter.id, {
      signal_type: "device_fingerprint",
      legal_process_id: undefined,
      raw_value_redacted: "device sha256:9f86d0…",
    });
    expect(device.legal_process_id).toBeNull();
  });

  it("validates every field: an unknown signal type lists the allowed ones; a future timestamp is refused", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const unknownType = expectError(
      await postSignal(owner, signalBody(matter.id, { signal_type: "geoip_guess" })),
      422,
      "invalid_request",
    );
    expect(ValidationDetails.parse(unknownType.error.details).allowed).toEqual([
      "exchange_login_ip",
      "exchange_withdrawal_ip",
      "transaction_broadcast_ip",
      "device_fingerprint",
      "account_identifier",
    ]);
    const wrongTypes = expectError(
      await postSignal(owner, {
        matter_id: 7,
        signal_type: "device_fingerprint",
        source: ["A"],
        wallet_address: "",
        legal_process_id: 12,
        timestamp: "2026-05-30 14:03",
        raw_value_redacted: "",
        privacy_restrictions: "none",
      }),
      422,
      "invalid_request",
    );
    expect(
      ValidationDetails.parse(wrongTypes.error.details)
        .invalid?.map((field) => field.param)
        .sort(),
    ).toEqual(
      [
        "matter_id",
        "source",
        "wallet_address",
        "legal_process_id",
        "timestamp",
        "raw_value_redacted",
        "privacy_restrictions",
      ].sort(),
    );
    const future = expectError(
      await postSignal(owner, signalBody(matter.id, { timestamp: "2999-01-01T00:00:00Z" })),
      422,
      "invalid_request",
    );
    expect(future.error.param).toBe("timestamp");
    expectError(await postSignal(owner, signalBody("matter_01k1z9r5ht3q7mxw2c4d8e6f0g")), 404, "not_found");
    expect(await signalCount(owner)).toBe(0);
  });

  it("refuses a signal on a closed matter with 409, storing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    await recordSignal(owner, matter.id);
    const closed = await app().legacyRequest("POST", `/v1/matters/${matter.id}/close`, {
      key: owner.key,
      body: { reason: "settled" },
    });
    expect(closed.status).toBe(200);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    expectError(await postSignal(owner, signalBody(matter.id)), 409, "conflict");
    expect(await signalCount(owner)).toBe(1);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
    // Correlate records nothing, so it still reads a closed matter's signals.
    const result = await correlate(owner, { matter_id: matter.id });
    expect(result.correlations).toHaveLength(1);
  });

  it("serializes signals with a concurrent close: every signal stored was answered 201, the rest 409", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const writes = Array.from({ length: 6 }, (_, i) => postSignal(owner, signalBody(matter.id, { source: `S${i}` })));
    const close = app().legacyRequest("POST", `/v1/matters/${matter.id}/close`, {
      key: owner.key,
      body: { reason: "settled" },
    });
    const [closed, ...answers] = await Promise.all([close, ...writes]);
    expect(closed?.status).toBe(200);
    const statuses = answers.map((answer) => answer.status);
    for (const status of statuses) expect([201, 409]).toContain(status);
    expect(await signalCount(owner)).toBe(statuses.filter((status) => status === 201).length);
  });

  it("is served only on the legacy listener", async () => {
    const owner = await app().mintKey();
    expectError(
      await app().request("POST", "/v1/network-attribution/signals", { key: owner.key, body: {} }),
      404,
      "not_found",
    );
  });
});

describe("correlating network attribution signals", () => {
  it("gives a single signal L0, with review required and an explanation", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const signal = await recordSignal(owner, matter.id);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    const result = await correlate(owner, { matter_id: matter.id });
    expect(result).toMatchObject({ object: "network_correlation", matter_id: matter.id });
    expect(result.correlations).toEqual([
      {
        subject: WALLET,
        signal_id: signal.id,
        confidence_level: "L0",
        explanation: expect.stringContaining("a signal alone is L0"),
        review_required: true,
        corroborating_signal_ids: [],
      },
    ]);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
  });

  it("raises a signal by independent corroboration: another source L1, another legal process L2, another type L3", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const first = await recordSignal(owner, matter.id);
    // The same source again corroborates nothing.
    const again = await recordSignal(owner, matter.id, { source: "exchange a" });
    expect(again.confidence_level).toBe("L0");

    const sameProcess = await recordSignal(owner, matter.id, { source: "Exchange B" });
    expect(sameProcess.confidence_level).toBe("L1");
    expect(sameProcess.confidence_explanation).toContain(first.id);

    const otherProcess = await recordSignal(owner, matter.id, {
      source: "Exchange C",
      legal_process_id: "ORDER-2",
      wallet_address: WALLET.toLowerCase(),
    });
    expect(otherProcess.confidence_level).toBe("L2");

    const otherType = await recordSignal(owner, matter.id, {
      source: "Telecom D",
      legal_process_id: "ORDER-3",
      signal_type: "account_identifier",
      raw_value_redacted: "j***@example.com",
    });
    expect(otherType.confidence_level).toBe("L3");

    // A signal on another wallet corroborates nothing here.
    const elsewhere = await recordSignal(owner, matter.id, { wallet_address: OTHER_WALLET, source: "Exchange E" });
    expect(elsewhere.confidence_level).toBe("L0");

    // The first signal's level is derived on read, from the signals recorded since.
    const read = NetworkAttribution.parse(
      (await app().legacyRequest("GET", `/v1/network-attribution/${first.id}`, { key: owner.key })).json,
    );
    expect(read.confidence_level).toBe("L3");
    expect(read.corroborating_signal_ids).toEqual([sameProcess.id, otherProcess.id, otherType.id]);

    const all = await correlate(owner, { matter_id: matter.id });
    expect(all.correlations.map((c) => [c.signal_id, c.confidence_level])).toEqual([
      [first.id, "L3"],
      [again.id, "L3"],
      [sameProcess.id, "L3"],
      [otherProcess.id, "L3"],
      [otherType.id, "L3"],
      [elsewhere.id, "L0"],
    ]);
    for (const correlation of all.correlations) expect(correlation.review_required).toBe(true);
    const explained = all.correlations[0]?.explanation ?? "";
    expect(explained).toContain("another source (L1), another legal process (+1), another signal type (+1): L3");
    expect(explained).toContain(`${again.id} from the same source does not corroborate it`);

    // Only the signals asked about are weighed.
    const pair = await correlate(owner, { matter_id: matter.id, signal_ids: [first.id, sameProcess.id] });
    expect(pair.correlations.map((c) => [c.signal_id, c.confidence_level])).toEqual([
      [first.id, "L1"],
      [sameProcess.id, "L1"],
    ]);

    // Only the wallets asked about are answered, whatever their case.
    const other = await correlate(owner, {
      matter_id: matter.id,
      wallet_ids: [OTHER_WALLET.toUpperCase().replace("0X", "0x")],
    });
    expect(other.correlations.map((c) => c.signal_id)).toEqual([elsewhere.id]);
  });

  it("accepts a party's wallet without signals (no correlation) and refuses a wallet the matter does not know", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    await recordSignal(owner, matter.id);
    const partyWallet = "0x00000000000000000000000000000000000000aa";
    const party = await app().legacyRequest("POST", "/v1/debtors", {
      key: owner.key,
      body: { matter_id: matter.id, legal_name: "Jane Roe", wallets: [partyWallet] },
    });
    expect(party.status).toBe(201);
    expect((await correlate(owner, { matter_id: matter.id, wallet_ids: [partyWallet] })).correlations).toEqual([]);

    const envelope = expectError(
      await app().legacyRequest("POST", "/v1/network-attribution/correlate", {
        key: owner.key,
        body: { matter_id: matter.id, wallet_ids: [WALLET, "bc1qunknownwallet"] },
      }),
      422,
      "invalid_request",
    );
    expect(ValidationDetails.parse(envelope.error.details).invalid?.map((field) => field.param)).toEqual([
      "wallet_ids.1",
    ]);
    expect(envelope.error.message).toContain("is not a wallet of matter");
  });

  it("refuses a signal of another matter (422) and another organization's signal (404)", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const otherMatter = await legacyMatter(owner, "Second v. Roe");
    const mine = await recordSignal(owner, matter.id);
    const elsewhere = await recordSignal(owner, otherMatter.id);
    const wrongMatter = expectError(
      await app().legacyRequest("POST", "/v1/network-attribution/correlate", {
        key: owner.key,
        body: { matter_id: matter.id, signal_ids: [mine.id, elsewhere.id] },
      }),
      422,
      "invalid_request",
    );
    expect(wrongMatter.error.param).toBe("signal_ids.1");

    const stranger = await app().mintLegacyKey();
    const strangerMatter = await legacyMatter(stranger);
    for (const id of [mine.id, "party_01k1z9r5ht3q7mxw2c4d8e6f0g"]) {
      const notMine = expectError(
        await app().legacyRequest("POST", "/v1/network-attribution/correlate", {
          key: stranger.key,
          body: { matter_id: strangerMatter.id, signal_ids: [id] },
        }),
        404,
        "not_found",
      );
      expect(notMine.error.param).toBe("signal_ids.0");
      expect(notMine.error.message).toContain("No such network_attribution");
    }
    expectError(
      await app().legacyRequest("POST", "/v1/network-attribution/correlate", {
        key: stranger.key,
        body: { matter_id: matter.id },
      }),
      404,
      "not_found",
    );
    expectError(
      await app().legacyRequest("GET", `/v1/network-attribution/${mine.id}`, { key: stranger.key }),
      404,
      "not_found",
    );
  });
});

describe("network attribution: input the database or the log must never see", () => {
  it("refuses year 0000 and a matter_id that is not an id with 422 naming the field, storing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const early = await postSignal(owner, signalBody(matter.id, { timestamp: "0000-01-01T00:00:00Z" }));
    expect(expectError(early, 422, "invalid_request").error.param).toBe("timestamp");
    const address = "203.0.113.7";
    const notAnId = await postSignal(owner, signalBody(address));
    const envelope = expectError(notAnId, 422, "invalid_request");
    expect(envelope.error.param).toBe("matter_id");
    expect(notAnId.text).not.toContain(address);
    const [row] = await app().sql<{ n: string }[]>`
      select count(*)::text as n from network_attributions where organization_id = ${owner.organizationId}`;
    expect(row?.n).toBe("0");
  });
});
