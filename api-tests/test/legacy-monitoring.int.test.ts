import { Alert, type Matter, monitoringOperations, Packet, Watchlist } from "@crs/contract";
import { type AddressLabel, SANDBOX_SANCTIONS_LIST, type Transfer } from "@crs/core";
import { createTraceProviders, sandboxSyntheticChain, sandboxTraceSource, sweepMonitoring } from "@crs/services";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, countRows, expectAuditRef, expectError, ValidationDetails } from "./support/expectations";
import { createCase, judgmentBody } from "./support/fixtures";
import { legacyMatter as sharedLegacyMatter } from "./support/legacy";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestApp, type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp({
  legacyWindow: OPEN_LEGACY_WINDOW,
});

/** The test app with its REST calls sent to the legacy listener, so the shared fixtures run there. */
const legacyApp = (): TestApp => ({ ...app(), request: app().legacyRequest });

const list = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean(), url: z.string() });
const AlertList = list(Alert);
const WatchlistList = list(Watchlist);

/** On the sandbox's synthetic chain (seed 7): a user that deals with an exchange and holds the stablecoin. */
const EXCHANGE_USER = "0x5eed0000000700000000000000000000000000a8";
/** A user that received from (or paid) an address the synthetic chain labels sanctioned. */
const SANCTIONED_PEER = "0x5eed000000070000000000000000000000000a92";
/** An address on the sandbox sanctions list (not on the synthetic chain). */
const LISTED = SANDBOX_SANCTIONS_LIST.find((entry) => entry.kind === "address")?.value ?? "";
const CHAIN = "synthetic:eth";

const tenantOf = (owner: TestKey) => ({ organizationId: owner.organizationId, environment: "sandbox" as const });
const sweep = (owner: TestKey) => sweepMonitoring(app().deps, createTraceProviders(null), { tenant: tenantOf(owner) });

const legacyMatter = (owner: TestKey, name?: string) => sharedLegacyMatter(app(), owner, name);

/** POST /v1/alerts/{alert_id}/triage on the legacy listener. */
const triage = (owner: TestKey, alertId: string, body: Record<string, unknown>) =>
  app().legacyRequest("POST", `/v1/alerts/${alertId}/triage`, { key: owner.key, body });

/** Two new organizations, each with a watchlist of the exchange user and the sanctioned peer. */
async function twoOwnersWatchingExchangeUserAndPeer(): Promise<[TestKey, TestKey]> {
  const owners: [TestKey, TestKey] = [await app().mintLegacyKey(), await app().mintLegacyKey()];
  for (const owner of owners) {
    const watchlist = await newWatchlist(owner);
    await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER, SANCTIONED_PEER]);
  }
  return owners;
}

async function newWatchlist(owner: TestKey, body: Record<string, unknown> = {}, matter?: Matter): Promise<Watchlist> {
  const matterId = (matter ?? (await legacyMatter(owner))).id;
  const response = await app().legacyRequest("POST", "/v1/watchlists", {
    key: owner.key,
    body: { matter_id: matterId, name: "Debtor wallets", ...body },
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return Watchlist.parse(response.json);
}

async function watch(owner: TestKey, watchlistId: string, addresses: string[], reason = "Named in exhibit 4") {
  const response = await app().legacyRequest("POST", `/v1/watchlists/${watchlistId}/addresses`, {
    key: owner.key,
    body: { addresses, reason, source_refs: [{ source_id: "exhibit-4", source_type: "court_record" }] },
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  return Watchlist.parse(response.json);
}

async function alertsOf(owner: TestKey, query = ""): Promise<Alert[]> {
  const all: Alert[] = [];
  let after = "";
  for (;;) {
    const response = await app().legacyRequest("GET", `/v1/alerts?limit=100${query}${after}`, { key: owner.key });
    expect(response.status).toBe(200);
    const page = AlertList.parse(response.json);
    all.push(...page.data);
    if (!page.has_more) return all;
    after = `&starting_after=${page.data.at(-1)?.alert_id}`;
  }
}

/** Every rule off but exchange proximity: a watchlist of EXCHANGE_USER raises only those. */
const EXCHANGE_ONLY = {
  wallet_movement: false,
  stablecoin_exposure: false,
  sanctions: false,
  deadline: false,
  compliance: false,
};

/**
 * A watchlist holding EXCHANGE_USER (on no list, so its matter is not held), swept with only exchange
 * proximity on: a `new` alert to triage (the watchlist's first).
 */
async function newAlert(owner: TestKey, matter?: Matter): Promise<Alert> {
  const watchlist = await newWatchlist(owner, { thresholds: EXCHANGE_ONLY }, matter);
  await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER]);
  await sweep(owner);
  const [alert] = await alertsOf(owner, `&watchlist_id=${watchlist.watchlist_id}`);
  if (!alert) throw new Error("the sweep raised no alert");
  return alert;
}

/** A watchlist holding LISTED, swept: its sanctions alert (the matter is now held). */
async function newListedAlert(owner: TestKey, matter?: Matter): Promise<Alert> {
  const watchlist = await newWatchlist(owner, {}, matter);
  await watch(owner, watchlist.watchlist_id, [LISTED]);
  await sweep(owner);
  const [alert] = await alertsOf(owner, `&watchlist_id=${watchlist.watchlist_id}&type=sanctions`);
  if (!alert) throw new Error("the sweep raised no sanctions alert");
  return alert;
}

async function openHitsOf(owner: TestKey, matterId: string) {
  return app().sql<{ id: string; party_id: string | null; screen_id: string | null; subject: string | null }[]>`
    select id, party_id, screen_id, subject from sanctions_hits
     where organization_id = ${owner.organizationId} and matter_id = ${matterId} and status = 'open'`;
}

/** Every transfer of an address on the sandbox chain, read straight from the provider. */
async function transfersOf(address: string): Promise<Transfer[]> {
  const { provider } = sandboxTraceSource();
  const head = (await provider.head()).finalized;
  const items: Transfer[] = [];
  let cursor: string | null = null;
  do {
    const page = await provider.transfers({ address, fromBlock: 0n, toBlock: head, cursor });
    items.push(...page.items);
    cursor = page.next;
  } while (cursor !== null);
  return items;
}

function labelOf(address: string): AddressLabel | undefined {
  return sandboxSyntheticChain().labels.find((label) => label.address === address.toLowerCase());
}
const counterpartyOf = (transfer: Transfer, watched: string) =>
  transfer.from === watched ? transfer.to : transfer.from;

const countOf = (owner: TestKey, table: string) => countRows(app().sql, table, owner.organizationId);
async function triagedCount(owner: TestKey): Promise<number> {
  const [row] = await app().sql<{ n: number }[]>`
    select count(*)::int as n from alerts where organization_id = ${owner.organizationId} and status <> 'new'`;
  return row?.n ?? 0;
}

async function monitoringChanges(owner: TestKey, requestId?: string | null) {
  return app().sql<{ type: string; change: string; audit_ref: string }[]>`
    select type, data->>'monitoring_change' as change, audit_ref from events
     where organization_id = ${owner.organizationId} and data ? 'monitoring_change'
       ${requestId ? app().sql`and audit_ref = ${requestId}` : app().sql``}
     order by sequence`;
}

describeSecuritySuite(monitoringOperations.createWatchlist, {
  app,
  request: async (owner) => ({ body: { matter_id: (await legacyMatter(owner)).id, name: "Hot wallets" } }),
  badBody: {
    body: { name: " ", chains: "synthetic:eth", thresholds: { movement_min_amount: "-1", deadline_days: 400 } },
    missing: ["matter_id"],
    invalid: ["name", "chains", "thresholds.movement_min_amount", "thresholds.deadline_days"],
  },
  idempotency: {
    effects: async (owner) => ({ watchlists: await countOf(owner, "watchlists") }),
    perWrite: { watchlists: 1 },
    changedBody: { name: "Cold wallets" },
  },
});

describeSecuritySuite(monitoringOperations.listWatchlists, {
  app,
  request: async (owner) => {
    await newWatchlist(owner);
    return { query: { limit: "5" } };
  },
});

describeSecuritySuite(monitoringOperations.getWatchlist, {
  app,
  request: async (owner) => ({ params: { watchlist_id: (await newWatchlist(owner)).watchlist_id } }),
});

describeSecuritySuite(monitoringOperations.addAddresses, {
  app,
  request: async (owner) => ({
    params: { watchlist_id: (await newWatchlist(owner)).watchlist_id },
    body: { addresses: [EXCHANGE_USER], reason: "Received the proceeds" },
  }),
  badBody: {
    body: { addresses: ["0x1234", "0x0000000000000000000000000000000000000000"], reason: "", source_refs: [{}] },
    missing: ["source_refs.0.source_id"],
    invalid: ["addresses.0", "addresses.1", "reason"],
  },
  idempotency: {
    effects: async (owner) => ({ addresses: await countOf(owner, "watchlist_addresses") }),
    perWrite: { addresses: 1 },
    changedBody: { addresses: [SANCTIONED_PEER], reason: "Received the proceeds" },
  },
});

describeSecuritySuite(monitoringOperations.listAlerts, {
  app,
  request: async (owner) => {
    await newAlert(owner);
    return { query: { limit: "5", status: "new" } };
  },
});

describeSecuritySuite(monitoringOperations.triageAlert, {
  app,
  request: async (owner) => ({
    params: { alert_id: (await newAlert(owner)).alert_id },
    body: { status: "actionable", notes: "Prepare a referral" },
  }),
  badBody: {
    body: { status: "new", notes: 5, create_action: "yes", create_packet_type: "telegram" },
    missing: [],
    invalid: ["status", "notes", "create_action", "create_packet_type"],
  },
  idempotency: {
    effects: async (owner) => ({ triaged: await triagedCount(owner) }),
    perWrite: { triaged: 1 },
    changedBody: { status: "closed" },
  },
});

describe("watchlists", () => {
  it("creates a watchlist with its thresholds filled in and its alert rules, appending matter.updated", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const response = await app().legacyRequest("POST", "/v1/watchlists", {
      key: owner.key,
      body: {
        matter_id: matter.id,
        name: "Debtor wallets",
        chains: [CHAIN],
        thresholds: { movement_min_amount: 2.5, stablecoin_min_amount: "1000", deadline_days: 14 },
      },
    });
    expect(response.status).toBe(201);
    expectAuditRef(response);
    const watchlist = Watchlist.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(watchlist).toMatchObject({
      object: "watchlist",
      id: watchlist.watchlist_id,
      matter_id: matter.id,
      name: "Debtor wallets",
      chains: [CHAIN],
      addresses: [],
      status: "active",
      last_swept_at: null,
      thresholds: {
        wallet_movement: true,
        movement_min_amount: "2.5",
        stablecoin_min_amount: "1000",
        deadline_days: 14,
        exchange_proximity: true,
      },
    });
    expect(watchlist.watchlist_id).toMatch(/^wl_/);
    expect(watchlist.alert_rules.map((rule) => [rule.type, rule.severity, rule.threshold])).toEqual([
      ["wallet_movement", "medium", "2.5"],
      ["exchange_proximity", "high", null],
      ["stablecoin_exposure", "medium", "1000"],
      ["sanctions", "critical", null],
      ["deadline", "medium", 14],
      ["compliance", "high", null],
    ]);
    expect(await monitoringChanges(owner, response.headers.get("svc-request-id"))).toMatchObject([
      { type: "matter.updated", change: "watchlist.created" },
    ]);
    const read = await app().legacyRequest("GET", `/v1/watchlists/${watchlist.watchlist_id}`, { key: owner.key });
    expect(Watchlist.parse(read.json)).toEqual(Watchlist.parse(response.json));
  });

  it("refuses a chain other than the synthetic one in the sandbox, naming it, and writes nothing", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const response = await app().legacyRequest("POST", "/v1/watchlists", {
      key: owner.key,
      body: { matter_id: matter.id, name: "Mainnet", chains: ["ethereum"] },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("chains.0");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countOf(owner, "watchlists")).toBe(0);
  });

  it("adds addresses in lower case with reason and sources; one already watched keeps its first reason", async () => {
    const owner = await app().mintLegacyKey();
    const watchlist = await newWatchlist(owner);
    const mixedCase = "0x5EED0000000700000000000000000000000000A8";
    const response = await app().legacyRequest("POST", `/v1/watchlists/${watchlist.watchlist_id}/addresses`, {
      key: owner.key,
      body: { addresses: [mixedCase], reason: "Received the proceeds", source_refs: [{ source_id: "exhibit-4" }] },
    });
    expect(response.status).toBe(200);
    const added = Watchlist.parse(response.json);
    expect(added.addresses).toMatchObject([
      { address: EXCHANGE_USER, network: CHAIN, reason: "Received the proceeds", swept_to_block: null },
    ]);
    expect(added.addresses[0]?.source_refs).toEqual([{ source_id: "exhibit-4" }]);
    expect(await monitoringChanges(owner, response.headers.get("svc-request-id"))).toMatchObject([
      { change: "watchlist.addresses_added" },
    ]);

    const before = await countEvents(app().sql, owner.organizationId);
    const again = await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER], "Another reason");
    expect(again.addresses).toEqual(added.addresses);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });

  it("refuses an address listed twice, naming the field, and writes nothing", async () => {
    const owner = await app().mintLegacyKey();
    const watchlist = await newWatchlist(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const response = await app().legacyRequest("POST", `/v1/watchlists/${watchlist.watchlist_id}/addresses`, {
      key: owner.key,
      body: { addresses: [EXCHANGE_USER, EXCHANGE_USER.toUpperCase().replace("0X", "0x")], reason: "twice" },
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(ValidationDetails.parse(envelope.error.details).invalid?.map((field) => field.param)).toEqual(["addresses"]);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countOf(owner, "watchlist_addresses")).toBe(0);
  });

  it("lists watchlists most recent first, filtered by matter", async () => {
    const owner = await app().mintLegacyKey();
    const first = await legacyMatter(owner, "First");
    const a = await newWatchlist(owner, { name: "A" }, first);
    const b = await newWatchlist(owner, { name: "B" });
    const c = await newWatchlist(owner, { name: "C" }, first);
    const all = WatchlistList.parse((await app().legacyRequest("GET", "/v1/watchlists", { key: owner.key })).json);
    expect(all.data.map((w) => w.watchlist_id)).toEqual([c.watchlist_id, b.watchlist_id, a.watchlist_id]);
    const ofFirst = WatchlistList.parse(
      (await app().legacyRequest("GET", `/v1/watchlists?matter_id=${first.id}`, { key: owner.key })).json,
    );
    expect(ofFirst.data.map((w) => w.name)).toEqual(["C", "A"]);
  });

  it("refuses writes on a closed matter's watchlist with 409, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const watchlist = await newWatchlist(owner);
    await app().legacyRequest("POST", `/v1/matters/${watchlist.matter_id}/close`, {
      key: owner.key,
      body: { reason: "settled" },
    });
    const before = await countEvents(app().sql, owner.organizationId);
    expectError(
      await app().legacyRequest("POST", `/v1/watchlists/${watchlist.watchlist_id}/addresses`, {
        key: owner.key,
        body: { addresses: [EXCHANGE_USER], reason: "late" },
      }),
      409,
      "conflict",
    );
    expectError(
      await app().legacyRequest("POST", "/v1/watchlists", {
        key: owner.key,
        body: { matter_id: watchlist.matter_id, name: "late" },
      }),
      409,
      "conflict",
    );
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });
});

describe("the monitoring sweep over the synthetic chain", () => {
  it("raises each chain alert type with the watched address as target and the transfer as reason", async () => {
    const owner = await app().mintLegacyKey();
    const watchlist = await newWatchlist(owner);
    await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER, SANCTIONED_PEER, LISTED]);
    const [result] = await sweep(owner);
    const all = await alertsOf(owner);
    expect(result).toMatchObject({ watchlist_id: watchlist.watchlist_id, skipped: null, alerts_raised: all.length });
    // LISTED on the list is also the matter's sanctions hit: a case-record compliance alert beside the chain's.
    expect(all.filter((alert) => alert.watchlist_id === null).map((alert) => [alert.type, alert.target.kind])).toEqual([
      ["compliance", "sanctions_hit"],
    ]);
    const alerts = all.filter((alert) => alert.watchlist_id !== null);

    const exchangeTransfers = await transfersOf(EXCHANGE_USER);
    const peerTransfers = await transfersOf(SANCTIONED_PEER);
    const of = (type: string, address: string) =>
      alerts.filter((alert) => alert.type === type && alert.target.id === address);
    for (const alert of alerts) {
      expect(alert).toMatchObject({
        matter_id: watchlist.matter_id,
        watchlist_id: watchlist.watchlist_id,
        status: "new",
      });
      expect(alert.target).toMatchObject({ kind: "address", network: CHAIN });
      expect(alert.alert_id).toMatch(/^alert_/);
    }

    // Wallet movement: every transfer (threshold 0), each naming its transaction.
    const movements = of("wallet_movement", EXCHANGE_USER);
    expect(movements.map((a) => `${a.fact.tx_hash}:${a.fact.event_index}`).sort()).toEqual(
      exchangeTransfers.map((t) => `${t.tx_hash}:${t.event_index}`).sort(),
    );
    expect(movements.every((a) => a.severity === "medium" && a.reason.includes(String(a.fact.tx_hash)))).toBe(true);

    // Exchange proximity: the transfers whose counterparty the chain labels an exchange.
    const withExchange = exchangeTransfers.filter(
      (t) => labelOf(counterpartyOf(t, EXCHANGE_USER))?.category === "exchange",
    );
    expect(withExchange.length).toBeGreaterThan(0);
    const proximity = of("exchange_proximity", EXCHANGE_USER);
    expect(proximity.map((a) => a.fact.tx_hash).sort()).toEqual(withExchange.map((t) => t.tx_hash).sort());
    for (const alert of proximity) {
      const entity = labelOf(String(alert.fact.counterparty))?.entity ?? "";
      expect(alert.reason).toContain(entity);
      expect(alert.severity).toBe("high");
    }

    // Stablecoin exposure: the sUSD transfers.
    const stable = exchangeTransfers.filter((t) => t.asset.kind === "erc20");
    expect(stable.length).toBeGreaterThan(0);
    const exposure = of("stablecoin_exposure", EXCHANGE_USER);
    expect(exposure.map((a) => `${a.fact.tx_hash}:${a.fact.event_index}`).sort()).toEqual(
      stable.map((t) => `${t.tx_hash}:${t.event_index}`).sort(),
    );
    expect(exposure[0]?.reason).toContain("sUSD Issuer (synthetic)");

    // Sanctions: the peer's transfer with the labelled sanctioned address, and LISTED on the list itself.
    const sanctionedTransfers = peerTransfers.filter(
      (t) => labelOf(counterpartyOf(t, SANCTIONED_PEER))?.category === "sanctioned",
    );
    expect(sanctionedTransfers).toHaveLength(1);
    const peerSanctions = of("sanctions", SANCTIONED_PEER);
    expect(peerSanctions.map((a) => a.fact.tx_hash)).toEqual([sanctionedTransfers[0]?.tx_hash]);
    expect(peerSanctions[0]).toMatchObject({ severity: "critical" });
    expect(peerSanctions[0]?.reason).toContain("Sanctioned person 1 (synthetic)");
    const listed = of("sanctions", LISTED);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.reason).toContain("on the sanctions list");

    // One matter.updated per alert, by the sweep's system actor.
    const changes = await monitoringChanges(owner);
    expect(changes.filter((change) => change.change === "alert.raised")).toHaveLength(all.length);
    const read = Watchlist.parse(
      (await app().legacyRequest("GET", `/v1/watchlists/${watchlist.watchlist_id}`, { key: owner.key })).json,
    );
    const head = (await sandboxTraceSource().provider.head()).finalized.toString();
    expect(read.addresses.map((address) => address.swept_to_block)).toEqual([head, head, head]);
    expect(read.last_swept_at).not.toBeNull();
  });

  it("raises nothing new when run again, and reads an address added later from its first block", async () => {
    const owner = await app().mintLegacyKey();
    const watchlist = await newWatchlist(owner);
    await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER]);
    await sweep(owner);
    const first = await alertsOf(owner);
    const events = await countEvents(app().sql, owner.organizationId);
    const [again] = await sweep(owner);
    expect(again?.alerts_raised).toBe(0);
    expect(await alertsOf(owner)).toEqual(first);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(events);

    await watch(owner, watchlist.watchlist_id, [SANCTIONED_PEER]);
    await sweep(owner);
    const after = await alertsOf(owner);
    const peerMovements = after.filter((a) => a.type === "wallet_movement" && a.target.id === SANCTIONED_PEER);
    expect(peerMovements).toHaveLength((await transfersOf(SANCTIONED_PEER)).length);
    expect(after.filter((a) => a.target.id === EXCHANGE_USER)).toHaveLength(first.length);
  });

  it("raises each alert once under concurrent sweeps", async () => {
    const [sequential, concurrent] = await twoOwnersWatchingExchangeUserAndPeer();
    await sweep(sequential);
    const expected = (await alertsOf(sequential)).length;
    const results = await Promise.all(Array.from({ length: 4 }, () => sweep(concurrent)));
    const raised = results.flat().reduce((sum, result) => sum + result.alerts_raised, 0);
    const alerts = await alertsOf(concurrent);
    expect(alerts).toHaveLength(expected);
    expect(raised).toBe(expected);
    const keys = alerts.map((a) => `${a.type}|${a.target.id}|${a.fact.tx_hash}|${a.fact.event_index}|${a.reason}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect((await monitoringChanges(concurrent)).filter((c) => c.change === "alert.raised")).toHaveLength(expected);
  });

  it("skips a watchlist whose chain provider fails, keeping its cursors, and still sweeps its case record", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const judgment = await app().legacyRequest("POST", "/v1/judgments/intake", {
      key: owner.key,
      body: judgmentBody(matter.id, { date_entered: "1990-01-15" }),
    });
    expect(judgment.status).toBe(201);
    const watchlist = await newWatchlist(owner, {}, matter);
    await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER]);
    const failing = {
      sandbox: () => ({
        provider: {
          network: CHAIN,
          kind: "synthetic" as const,
          name: "failing",
          head: async () => {
            throw new Error("provider unreachable");
          },
          transfers: async () => ({ items: [], next: null }),
        },
      }),
      live: null,
    };
    const [result] = await sweepMonitoring(app().deps, failing, { tenant: tenantOf(owner) });
    expect(result?.skipped).toContain("provider unreachable");
    const alerts = await alertsOf(owner);
    expect(alerts.map((alert) => alert.type)).toEqual(["deadline"]);
    const read = Watchlist.parse(
      (await app().legacyRequest("GET", `/v1/watchlists/${watchlist.watchlist_id}`, { key: owner.key })).json,
    );
    expect(read.addresses.map((address) => address.swept_to_block)).toEqual([null]);
  });

  it("records a watched address on the sanctions list as the matter's sanctions hit, holding the matter", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const watchlist = await newWatchlist(owner, {}, matter);
    await watch(owner, watchlist.watchlist_id, [LISTED]);
    await sweep(owner);
    const hits = await openHitsOf(owner, matter.id);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ party_id: null, subject: "wallet" });
    expect(hits[0]?.screen_id).toMatch(/^sanc_/);
    const read = await app().legacyRequest("GET", `/v1/matters/${matter.id}`, { key: owner.key });
    expect(read.json).toMatchObject({ sanctions_hold: true });
    // The hold's event, in the sweep's transaction, naming the hit.
    const [held] = await app().sql<{ n: number }[]>`
      select count(*)::int as n from events where organization_id = ${owner.organizationId}
         and type = 'matter.updated' and data->'sanctions_hits'->0->>'hit_id' = ${hits[0]?.id ?? ""}`;
    expect(held?.n).toBe(1);
    // Its compliance alert is raised by the same sweep, beside the sanctions alert.
    const alerts = await alertsOf(owner);
    expect(alerts.map((a) => [a.type, a.target.kind]).sort()).toEqual([
      ["compliance", "sanctions_hit"],
      ["sanctions", "address"],
    ]);
    // Swept again, and screened by the sanctions operation: still the one hit.
    await sweep(owner);
    const screen = await app().legacyRequest("POST", "/v1/sanctions/screen", {
      key: owner.key,
      body: { matter_id: matter.id, wallets: [LISTED] },
    });
    expect({ status: screen.status, body: screen.json }).toMatchObject({
      status: 200,
      body: { status: "hit", review_id: hits[0]?.screen_id },
    });
    expect(await openHitsOf(owner, matter.id)).toHaveLength(1);
  });

  it("raises only an alert, and holds nothing, for a counterparty the chain data labels sanctioned", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const watchlist = await newWatchlist(owner, {}, matter);
    await watch(owner, watchlist.watchlist_id, [SANCTIONED_PEER]);
    await sweep(owner);
    expect(await alertsOf(owner, "&type=sanctions")).toHaveLength(1);
    expect(await openHitsOf(owner, matter.id)).toEqual([]);
    const read = await app().legacyRequest("GET", `/v1/matters/${matter.id}`, { key: owner.key });
    expect(read.json).toMatchObject({ sanctions_hold: false });
  });

  it("raises one compliance alert for one pending review, however often the judgment is edited", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const intake = await app().legacyRequest("POST", "/v1/judgments/intake", {
      key: owner.key,
      body: judgmentBody(matter.id),
    });
    expect(intake.status).toBe(201);
    const judgmentId = (intake.json as { id: string }).id;
    await newWatchlist(owner, { thresholds: { deadline: false } }, matter);
    const patch = async (review_state: Record<string, unknown>) => {
      const response = await app().legacyRequest("PATCH", `/v1/judgments/${judgmentId}`, {
        key: owner.key,
        body: { review_state },
      });
      expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
    };
    await patch({ review_status: "pending" });
    await sweep(owner);
    await patch({ review_owner: "R. Viewer" });
    await sweep(owner);
    await patch({ review_notes: "Reading the docket." });
    await sweep(owner);
    const reviews = (await alertsOf(owner, "&type=compliance")).filter((a) => a.target.kind === "judgment");
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ target: { id: judgmentId }, fact: { pending_since: null } });
  });

  it("sweeps the other watchlists when one watchlist's write fails, reporting it and keeping its cursors", async () => {
    const owner = await app().mintLegacyKey();
    // A transfer whose hash Postgres cannot store (a NUL character): the poisoned watchlist's write fails.
    const POISONED = "0x00000000000000000000000000000000000000b1";
    const poisoned = await newWatchlist(owner);
    await watch(owner, poisoned.watchlist_id, [POISONED]);
    const healthy = await newWatchlist(owner);
    await watch(owner, healthy.watchlist_id, [EXCHANGE_USER]);
    const sandbox = sandboxTraceSource();
    const providers = {
      sandbox: () => ({
        ...sandbox,
        provider: {
          network: CHAIN,
          kind: "synthetic" as const,
          name: "poisoned",
          head: (signal?: AbortSignal) => sandbox.provider.head(signal),
          transfers: async (query: Parameters<typeof sandbox.provider.transfers>[0]) => {
            if (query.address !== POISONED) return sandbox.provider.transfers(query);
            const transfer: Transfer = {
              network: CHAIN,
              tx_hash: "0xbad\u0000",
              event_index: -1,
              block: query.fromBlock,
              block_time: 1_700_000_000,
              tx_index: 0,
              from: POISONED,
              to: EXCHANGE_USER,
              asset: { kind: "native", contract: null, symbol: "ETH", decimals: 18 },
              amount: 10n ** 18n,
              source_ref: {
                provider: "poisoned",
                method: "synthetic.transfers",
                request_hash: "0".repeat(64),
                block_range: [String(query.fromBlock), String(query.toBlock)],
                fetched_at: "2026-01-01T00:00:00.000Z",
                finalized: true,
                uri: null,
              },
            };
            return { items: [transfer], next: null };
          },
        },
      }),
      live: null,
    };
    const results = await sweepMonitoring(app().deps, providers, { tenant: tenantOf(owner) });
    const byId = new Map(results.map((result) => [result.watchlist_id, result]));
    expect(results.map((result) => result.watchlist_id)).toEqual([poisoned.watchlist_id, healthy.watchlist_id]);
    expect(byId.get(poisoned.watchlist_id)).toMatchObject({ failed: true, alerts_raised: 0 });
    expect(byId.get(poisoned.watchlist_id)?.skipped).toContain("failed");
    expect(byId.get(healthy.watchlist_id)).toMatchObject({ failed: false, skipped: null });
    expect(byId.get(healthy.watchlist_id)?.alerts_raised).toBeGreaterThan(0);
    expect(await alertsOf(owner, `&watchlist_id=${poisoned.watchlist_id}`)).toEqual([]);
    const read = Watchlist.parse(
      (await app().legacyRequest("GET", `/v1/watchlists/${poisoned.watchlist_id}`, { key: owner.key })).json,
    );
    expect(read.addresses.map((address) => address.swept_to_block)).toEqual([null]);
    expect(read.last_swept_at).toBeNull();
  });

  it("takes a bounded number of alerts per watchlist per sweep, continuing from the last block taken", async () => {
    const [bounded, unbounded] = await twoOwnersWatchingExchangeUserAndPeer();
    await sweep(unbounded);
    const expected = await alertsOf(unbounded);
    const head = (await sandboxTraceSource().provider.head()).finalized;
    const cap = 5;
    const runs: { raised: number; capped: boolean; cursors: (string | null)[] }[] = [];
    for (let run = 0; run < 200; run++) {
      const [result] = await sweepMonitoring(app().deps, createTraceProviders(null), {
        tenant: tenantOf(bounded),
        maxAlertsPerWatchlist: cap,
      });
      const [watchlist] = WatchlistList.parse(
        (await app().legacyRequest("GET", "/v1/watchlists", { key: bounded.key })).json,
      ).data;
      runs.push({
        raised: result?.alerts_raised ?? 0,
        capped: result?.capped ?? false,
        cursors: watchlist?.addresses.map((address) => address.swept_to_block) ?? [],
      });
      if (!result?.capped) break;
    }
    expect(runs.length).toBeGreaterThan(1);
    expect(runs[0]?.capped).toBe(true);
    expect(runs[0]?.cursors.some((cursor) => cursor !== head.toString())).toBe(true);
    // A run stops after the block at which it reaches the bound: at most a block's alerts over it.
    // Each transfer raises at most five (movement, exchange, stablecoin, a listed and a labelled counterparty).
    const transfersPerBlock = new Map<string, number>();
    for (const transfer of (await Promise.all([EXCHANGE_USER, SANCTIONED_PEER].map(transfersOf))).flat()) {
      const block = transfer.block.toString();
      transfersPerBlock.set(block, (transfersPerBlock.get(block) ?? 0) + 1);
    }
    const perBlock = 5 * Math.max(...transfersPerBlock.values());
    expect(runs.every((run) => run.raised < cap + perBlock)).toBe(true);
    expect(runs.at(-1)?.cursors).toEqual([head.toString(), head.toString()]);
    const got = await alertsOf(bounded);
    const key = (a: Alert) => `${a.type}|${a.target.id}|${a.fact.tx_hash}|${a.fact.event_index}|${a.reason}`;
    expect(got.map(key).sort()).toEqual(expected.map(key).sort());
  });

  it("follows the thresholds: a movement below the minimum and a rule turned off raise nothing", async () => {
    const owner = await app().mintLegacyKey();
    const watchlist = await newWatchlist(owner, {
      thresholds: { movement_min_amount: "1000000000", exchange_proximity: false, stablecoin_exposure: false },
    });
    await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER]);
    await sweep(owner);
    expect(await alertsOf(owner)).toEqual([]);
  });

  it("raises deadline and compliance alerts from the case record, once per matter", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const judgment = await app().legacyRequest("POST", "/v1/judgments/intake", {
      key: owner.key,
      body: judgmentBody(matter.id, { date_entered: "1990-01-15" }),
    });
    expect(judgment.status).toBe(201);
    const debtor = await app().legacyRequest("POST", "/v1/debtors", {
      key: owner.key,
      body: { matter_id: matter.id, legal_name: "Jane Roe", wallets: [LISTED] },
    });
    expect(debtor.status).toBe(201);
    await newWatchlist(owner, {}, matter);
    await newWatchlist(owner, {}, matter);
    await sweep(owner);
    const alerts = await alertsOf(owner);
    const deadline = alerts.filter((a) => a.type === "deadline");
    expect(deadline).toHaveLength(1);
    expect(deadline[0]).toMatchObject({ severity: "high", watchlist_id: null, target: { kind: "deadline" } });
    expect(deadline[0]?.reason).toContain("missed");
    expect(deadline[0]?.target.id).toMatch(/^dl_/);
    const compliance = alerts.filter((a) => a.type === "compliance");
    expect(compliance).toHaveLength(1);
    expect(compliance[0]).toMatchObject({ severity: "high", target: { kind: "sanctions_hit" } });
    expect(compliance[0]?.target.id).toMatch(/^hit_/);
    expect(alerts).toHaveLength(2);
  });

  it("filters the alert list by type, status and matter; a bad filter value is 400", async () => {
    const owner = await app().mintLegacyKey();
    const watchlist = await newWatchlist(owner);
    await watch(owner, watchlist.watchlist_id, [EXCHANGE_USER, LISTED]);
    const other = await newAlert(owner);
    const ofOther = await alertsOf(owner, `&watchlist_id=${other.watchlist_id}`);
    const all = await alertsOf(owner);
    const sanctions = await alertsOf(owner, "&type=sanctions");
    expect(sanctions.map((a) => a.alert_id).sort()).toEqual(
      all
        .filter((a) => a.type === "sanctions")
        .map((a) => a.alert_id)
        .sort(),
    );
    expect(sanctions.map((a) => a.target.id)).toEqual([LISTED]);
    const ofMatter = await alertsOf(owner, `&matter_id=${other.matter_id}`);
    expect(ofMatter.map((a) => a.alert_id).sort()).toEqual(ofOther.map((a) => a.alert_id).sort());
    expect(ofMatter.every((a) => a.type === "exchange_proximity")).toBe(true);
    await triage(owner, other.alert_id, { status: "closed" });
    expect((await alertsOf(owner, "&status=closed")).map((a) => a.alert_id)).toEqual([other.alert_id]);
    expect(await alertsOf(owner, "&status=new")).toHaveLength(all.length - 1);
    expectError(await app().legacyRequest("GET", "/v1/alerts?type=whale", { key: owner.key }), 400, "invalid_request");
  });
});

describe("alert triage", () => {
  it("moves a new alert to actionable with notes, appending matter.updated", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const response = await triage(owner, alert.alert_id, { status: "actionable", notes: "Confirmed with the exhibit" });
    expect(response.status).toBe(200);
    const triaged = Alert.parse(response.json);
    expect(triaged).toMatchObject({
      status: "actionable",
      triage: { notes: "Confirmed with the exhibit", packet_id: null, action_id: null },
    });
    expect(triaged.triage.triaged_at).not.toBeNull();
    expect(await monitoringChanges(owner, response.headers.get("svc-request-id"))).toMatchObject([
      { type: "matter.updated", change: "alert.triaged" },
    ]);
  });

  it("refuses transitions the rules do not allow with 409, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    expect((await triage(owner, alert.alert_id, { status: "false_positive" })).status).toBe(200);
    const before = await countEvents(app().sql, owner.organizationId);
    for (const status of ["actionable", "closed", "false_positive"]) {
      const envelope = expectError(await triage(owner, alert.alert_id, { status }), 409, "conflict");
      expect(envelope.error.param).toBe("status");
      expect(envelope.error.message).toContain("final");
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
  });

  it("creates the packet asked for in the same transaction, bound to the alert's address and citing the alert", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const response = await triage(owner, alert.alert_id, {
      status: "escalated",
      create_packet_type: "law_enforcement_referral",
    });
    expect(response.status).toBe(200);
    const triaged = Alert.parse(response.json);
    expect(triaged.triage.packet_id).toMatch(/^pkt_/);
    const packet = Packet.parse(
      (await app().legacyRequest("GET", `/v1/packets/${triaged.triage.packet_id}`, { key: owner.key })).json,
    );
    expect(packet).toMatchObject({ type: "law_enforcement_referral", matter_id: alert.matter_id });
    const events = await app().sql<{ type: string }[]>`
      select type from events where organization_id = ${owner.organizationId}
         and audit_ref = ${response.headers.get("svc-request-id") ?? ""} order by sequence`;
    expect(events.map((event) => event.type).sort()).toEqual(["matter.updated", "packet.created"]);
    expect(JSON.stringify(packet)).toContain(EXCHANGE_USER);
    expect(JSON.stringify(packet)).toContain(alert.alert_id);
  });

  it("refuses the whole triage with 403 when the packet needs authority the matter lacks, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const response = await triage(owner, alert.alert_id, {
      status: "actionable",
      create_packet_type: "exchange_freeze",
    });
    expectError(response, 403, "authority_required");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countOf(owner, "packets")).toBe(0);
    const [unchanged] = await alertsOf(owner);
    expect(unchanged).toMatchObject({ alert_id: alert.alert_id, status: "new", triage: { triaged_at: null } });
  });

  it("refuses a packet or an action following up a false positive with 422 naming the field, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    const packet = expectError(
      await triage(owner, alert.alert_id, { status: "false_positive", create_packet_type: "law_enforcement_referral" }),
      422,
      "invalid_request",
    );
    expect(packet.error.param).toBe("create_packet_type");
    const action = expectError(
      await triage(owner, alert.alert_id, { status: "closed", create_action: true }),
      422,
      "invalid_request",
    );
    expect(action.error.param).toBe("create_action");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await triagedCount(owner)).toBe(0);
  });

  it("refuses the whole triage with 403 when the action asked for lacks authority, writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    expectError(
      await triage(owner, alert.alert_id, {
        status: "actionable",
        create_action: true,
        create_packet_type: "law_enforcement_referral",
      }),
      403,
      "authority_required",
    );
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countOf(owner, "packets")).toBe(0);
    expect(await countOf(owner, "actions")).toBe(0);
    expect(await triagedCount(owner)).toBe(0);
  });

  /** A case whose judgment is validated (the matter has authority), with EXCHANGE_USER watched and swept. */
  async function authorizedAlert(owner: TestKey) {
    const record = await createCase(legacyApp(), owner);
    const validated = await app().legacyRequest("POST", `/v1/judgments/${record.judgment.id}/validate`, {
      key: owner.key,
      body: { consumer_debt: false },
    });
    expect({ status: validated.status, body: validated.json }).toMatchObject({ body: { enforcement_ready: true } });
    return { record, alert: await newAlert(owner, record.matter) };
  }

  it("creates the follow-up action in the same transaction, linked to the packet created with it", async () => {
    const owner = await app().mintLegacyKey();
    const { record, alert } = await authorizedAlert(owner);
    const response = await triage(owner, alert.alert_id, {
      status: "actionable",
      create_action: true,
      create_packet_type: "exchange_freeze",
    });
    expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
    const triaged = Alert.parse(response.json);
    expect(triaged.triage.action_id).toMatch(/^act_/);
    expect(triaged.triage.packet_id).toMatch(/^pkt_/);
    const action = await app().legacyRequest("GET", `/v1/actions/${triaged.triage.action_id}`, { key: owner.key });
    expect(action.json).toMatchObject({
      matter_id: record.matter.id,
      type: "alert_follow_up",
      priority: "high",
      status: "open",
      linked_packet_id: triaged.triage.packet_id,
    });
    expect(String((action.json as { title: string }).title)).toContain(alert.alert_id);
    const changes = await monitoringChanges(owner, response.headers.get("svc-request-id"));
    expect(changes.map((change) => change.change)).toEqual(["alert.triaged"]);
    const events = await app().sql<{ type: string }[]>`
      select type from events where organization_id = ${owner.organizationId}
         and audit_ref = ${response.headers.get("svc-request-id") ?? ""} order by sequence`;
    expect(events.map((event) => event.type).sort()).toEqual(["matter.updated", "matter.updated", "packet.created"]);
  });

  it("refuses the follow-up packet of a watched address on the sanctions list (403 sanctions_gate), writing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const record = await createCase(legacyApp(), owner);
    const validated = await app().legacyRequest("POST", `/v1/judgments/${record.judgment.id}/validate`, {
      key: owner.key,
      body: { consumer_debt: false },
    });
    expect({ status: validated.status, body: validated.json }).toMatchObject({ body: { enforcement_ready: true } });
    const alert = await newListedAlert(owner, record.matter);
    const before = await countEvents(app().sql, owner.organizationId);
    for (const body of [
      { status: "actionable", create_packet_type: "exchange_freeze" },
      { status: "actionable", create_action: true },
    ]) {
      expectError(await triage(owner, alert.alert_id, body), 403, "sanctions_gate");
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countOf(owner, "packets")).toBe(0);
    expect(await countOf(owner, "actions")).toBe(0);
    expect(await triagedCount(owner)).toBe(0);
  });

  it("keeps the notes recorded when a later triage sends none", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const first = await triage(owner, alert.alert_id, { status: "actionable", notes: "Deposit at the exchange" });
    expect(first.status).toBe(200);
    const second = await triage(owner, alert.alert_id, { status: "escalated" });
    expect(second.status).toBe(200);
    expect(Alert.parse(second.json).triage.notes).toBe("Deposit at the exchange");
    const third = await triage(owner, alert.alert_id, { status: "actionable", notes: "Counsel asked for a referral" });
    expect(Alert.parse(third.json).triage.notes).toBe("Counsel asked for a referral");
  });

  it("creates one packet and one action per alert: asking again is 409 naming the field and the one it has", async () => {
    const owner = await app().mintLegacyKey();
    const { alert } = await authorizedAlert(owner);
    const first = await triage(owner, alert.alert_id, {
      status: "actionable",
      create_action: true,
      create_packet_type: "law_enforcement_referral",
    });
    expect({ status: first.status, body: first.json }).toMatchObject({ status: 200 });
    const triaged = Alert.parse(first.json);
    const before = await countEvents(app().sql, owner.organizationId);
    const packet = expectError(
      await triage(owner, alert.alert_id, { status: "escalated", create_packet_type: "exchange_freeze" }),
      409,
      "conflict",
    );
    expect(packet.error.param).toBe("create_packet_type");
    expect(packet.error.message).toContain(triaged.triage.packet_id ?? "packet id");
    const action = expectError(
      await triage(owner, alert.alert_id, { status: "escalated", create_action: true }),
      409,
      "conflict",
    );
    expect(action.error.param).toBe("create_action");
    expect(action.error.message).toContain(triaged.triage.action_id ?? "action id");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await countOf(owner, "packets")).toBe(1);
    expect(await countOf(owner, "actions")).toBe(1);
    // Moving on without a new follow-up is still allowed, and keeps the ones it has.
    const moved = await triage(owner, alert.alert_id, { status: "escalated" });
    expect(Alert.parse(moved.json).triage).toMatchObject({
      packet_id: triaged.triage.packet_id,
      action_id: triaged.triage.action_id,
    });
  });

  it("creates at most one packet under a concurrent burst of triages of one alert", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const responses = await Promise.all(
      ["actionable", "escalated", "actionable", "escalated", "actionable", "escalated"].map((status) =>
        triage(owner, alert.alert_id, { status, create_packet_type: "law_enforcement_referral" }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await countOf(owner, "packets")).toBe(1);
    const read = (await alertsOf(owner)).find((a) => a.alert_id === alert.alert_id);
    expect(read?.triage.packet_id).toMatch(/^pkt_/);
  });

  it("refuses a packet type that is not a follow-up of an alert with 422 listing the allowed ones", async () => {
    const owner = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    const before = await countEvents(app().sql, owner.organizationId);
    for (const type of ["ofac_report", "sanctions_review", "destination_wallet_certificate", "issuer_freeze"]) {
      const envelope = expectError(
        await triage(owner, alert.alert_id, { status: "actionable", create_packet_type: type }),
        422,
        "invalid_request",
      );
      expect(envelope.error.param).toBe("create_packet_type");
      expect(ValidationDetails.parse(envelope.error.details).allowed).toEqual([
        "exchange_intercept",
        "vasp_legal_process",
        "exchange_freeze",
        "exchange_turnover",
        "turnover_workflow",
        "law_enforcement_referral",
      ]);
    }
    expect(await countEvents(app().sql, owner.organizationId)).toBe(before);
    expect(await triagedCount(owner)).toBe(0);
  });

  it("does not show or triage another organization's alerts and watchlists (404)", async () => {
    const owner = await app().mintLegacyKey();
    const stranger = await app().mintLegacyKey();
    const alert = await newAlert(owner);
    expectError(
      await app().legacyRequest("POST", `/v1/alerts/${alert.alert_id}/triage`, {
        key: stranger.key,
        body: { status: "closed" },
      }),
      404,
      "not_found",
    );
    expect(await alertsOf(stranger)).toEqual([]);
    expect(await alertsOf(stranger, `&matter_id=${alert.matter_id}`)).toEqual([]);
    expectError(
      await app().legacyRequest("GET", `/v1/watchlists/${alert.watchlist_id}`, { key: stranger.key }),
      404,
      "not_found",
    );
  });

  it("is served only on the legacy listener", async () => {
    const owner = await app().mintKey();
    expectError(await app().request("GET", "/v1/alerts", { key: owner.key }), 404, "not_found");
    expectError(await app().request("GET", "/v1/watchlists", { key: owner.key }), 404, "not_found");
  });
});
