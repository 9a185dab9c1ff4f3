import {
  AssetMap,
  ExchangeHypothesesAnswer,
  legacyCryptoOperations,
  StablecoinExposureAnswer,
  TransactionTimeline,
} from "@crs/contract";
import { sandboxSyntheticChain } from "@crs/services";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, countRows, expectError, ValidationDetails } from "./support/expectations";
import { runTraceJob, legacyMatter as sharedLegacyMatter } from "./support/legacy";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp({
  legacyWindow: OPEN_LEGACY_WINDOW,
});

/** Sandbox subjects of the synthetic chain (docs/api/crypto.md). */
const PEEL_CHAIN = { address: "0x5eed00000007000000000000000000000000089f", incident_block: 11 };
const FAN_IN = { address: "0x5eed0000000700000000000000000000000008d9", incident_block: 22 };
const FROZEN_HOLDER = { address: "0x5eed00000007000000000000000000000000091c", incident_block: 54 };
/** An unlabelled busy address whose 5-hop trace opens more than the analyses' 500 addresses. */
const BUSY = "0x5eed00000007000000000000000000000000000a";

const PATHS = {
  timeline: "/v1/crypto/transaction-timeline",
  exchange: "/v1/crypto/exchange-hypotheses",
  stablecoin: "/v1/crypto/stablecoin-exposure",
} as const;

const WHOLE_HISTORY = { from: "1970-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z" };

const legacyMatter = (owner: TestKey) => sharedLegacyMatter(app(), owner);

async function post(owner: TestKey, path: string, body: Record<string, unknown>) {
  return app().legacyRequest("POST", path, { key: owner.key, body });
}

/** What an analysis could have written: none of it may move. */
async function footprint(owner: TestKey) {
  return {
    events: await countEvents(app().sql, owner.organizationId),
    maps: await countRows(app().sql, "asset_maps", owner.organizationId),
    jobs: await countRows(app().sql, "jobs", owner.organizationId),
  };
}

/** An asset map of the wallets, created on the legacy listener and traced here as the worker would. */
async function tracedAssetMap(owner: TestKey, matterId: string, wallets: unknown[], maxHops?: number) {
  const created = await post(owner, "/v1/crypto/asset-map", {
    matter_id: matterId,
    wallets,
    ...(maxHops ? { max_hops: maxHops } : {}),
  });
  expect(created.status).toBe(202);
  const map = AssetMap.parse(created.json);
  await runTraceJob(app(), owner, map.job_id);
  const read = await app().legacyRequest("GET", `/v1/crypto/asset-map/${map.map_id}`, { key: owner.key });
  expect(read.status).toBe(200);
  return AssetMap.parse({ ...(read.json as object), status: "succeeded" });
}

const idempotencyOf = (changedBody: Record<string, unknown>) => ({
  effects: footprint,
  perWrite: {},
  changedBody,
});

describeSecuritySuite(legacyCryptoOperations.transactionTimeline, {
  app,
  request: async (owner) => ({
    body: { matter_id: (await legacyMatter(owner)).id, wallets: [PEEL_CHAIN], ...WHOLE_HISTORY },
  }),
  badBody: {
    body: { wallets: ["0x1234"], chains: ["synthetic:eth", "ethereum"], from: "yesterday", to: 5 },
    missing: ["matter_id"],
    invalid: ["wallets.0", "chains", "from", "to"],
  },
  idempotency: idempotencyOf({ wallets: [FAN_IN], ...WHOLE_HISTORY }),
});

describeSecuritySuite(legacyCryptoOperations.exchangeHypotheses, {
  app,
  request: async (owner) => ({ body: { matter_id: (await legacyMatter(owner)).id, wallets: [PEEL_CHAIN] } }),
  badBody: {
    body: { wallets: [], min_confidence: 0.5, max_hops: 7 },
    missing: ["matter_id"],
    invalid: ["wallets", "min_confidence", "max_hops"],
  },
  idempotency: idempotencyOf({ wallets: [PEEL_CHAIN], min_confidence: "high" }),
});

describeSecuritySuite(legacyCryptoOperations.stablecoinExposure, {
  app,
  request: async (owner) => ({ body: { matter_id: (await legacyMatter(owner)).id, wallets: [FROZEN_HOLDER] } }),
  badBody: {
    body: { wallets: [{ address: "0x0000000000000000000000000000000000000000" }], assets: ["not an asset"] },
    missing: ["matter_id"],
    invalid: ["wallets.0.address", "assets.0"],
  },
  idempotency: idempotencyOf({ wallets: [FROZEN_HOLDER], assets: ["sUSD"] }),
});

describe("the analyses hold what an asset map of the same wallets holds", () => {
  for (const [name, subject] of Object.entries({ PEEL_CHAIN, FAN_IN, FROZEN_HOLDER })) {
    it(`gives the asset map's exchange hypotheses and stablecoin exposures for ${name}, and records nothing`, async () => {
      const owner = await app().mintLegacyKey();
      const matter = await legacyMatter(owner);
      const map = await tracedAssetMap(owner, matter.id, [subject]);
      expect(map.truncated).toBe(false);
      const before = await footprint(owner);

      const hypotheses = await post(owner, PATHS.exchange, { matter_id: matter.id, wallets: [subject] });
      expect(hypotheses.status).toBe(200);
      const h = ExchangeHypothesesAnswer.strict().extend({ audit_ref: z.string() }).parse(hypotheses.json);
      expect(h.items).toEqual(map.exchange_hypotheses);
      expect(h).toMatchObject({
        object: "crypto_exchange_hypotheses",
        matter_id: matter.id,
        min_confidence: "low",
        chain: map.chain,
        source: "synthetic",
        subjects: map.subjects,
        hops: map.hops,
        block_range: map.block_range,
        truncated: false,
        truncation: [],
        limits: { max_hops: 5, max_expansions: 500, max_edges: 20_000 },
      });
      // Every source an item cites is in the answer's manifest.
      const manifest = new Set(h.source_manifest.map((entry) => entry.source_id));
      for (const item of h.items) for (const ref of item.source_refs) expect(manifest.has(ref)).toBe(true);

      const exposure = await post(owner, PATHS.stablecoin, { matter_id: matter.id, wallets: [subject] });
      expect(exposure.status).toBe(200);
      const s = StablecoinExposureAnswer.strict().extend({ audit_ref: z.string() }).parse(exposure.json);
      expect(s.items).toEqual(map.stablecoin_exposure);
      expect(s.items.length).toBeGreaterThan(0);
      expect(s).toMatchObject({ assets: null, truncated: false, hops: map.hops });

      expect(await footprint(owner)).toEqual(before);
    });
  }

  it("follows the hops asked for, as an asset map with the same max_hops", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const map = await tracedAssetMap(owner, matter.id, [PEEL_CHAIN], 3);
    const exposure = await post(owner, PATHS.stablecoin, { matter_id: matter.id, wallets: [PEEL_CHAIN], max_hops: 3 });
    const s = StablecoinExposureAnswer.parse(exposure.json);
    expect(s.limits.max_hops).toBe(3);
    expect(s.items).toEqual(map.stablecoin_exposure);
    const hypotheses = await post(owner, PATHS.exchange, { matter_id: matter.id, wallets: [PEEL_CHAIN], max_hops: 3 });
    expect(ExchangeHypothesesAnswer.parse(hypotheses.json).items).toEqual(map.exchange_hypotheses);
  });

  it("timelines every transfer an asset map follows out of the subject, with the same amounts", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const map = await tracedAssetMap(owner, matter.id, [PEEL_CHAIN]);
    const response = await post(owner, PATHS.timeline, {
      matter_id: matter.id,
      wallets: [PEEL_CHAIN],
      ...WHOLE_HISTORY,
    });
    expect(response.status).toBe(200);
    const timeline = TransactionTimeline.parse(response.json);
    const outflows = map.edges.filter((edge) => edge.from === PEEL_CHAIN.address);
    expect(outflows.length).toBeGreaterThan(0);
    for (const edge of outflows) {
      const event = timeline.events.find(
        (e) => e.transaction_hash === edge.tx_hash && e.event_index === edge.event_index,
      );
      expect(event).toMatchObject({
        from_address: edge.from,
        to_address: edge.to,
        asset: edge.asset,
        amount: edge.amount.amount,
        base_units: edge.amount.base_units,
        block: edge.block,
        timestamp: new Date(edge.block_time).toISOString(),
        direction: "outgoing",
      });
    }
  });
});

describe("POST /v1/crypto/transaction-timeline", () => {
  it("lists the wallets' transfers in time order, each once, with exact amounts and notes", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    // A transfer between two given wallets is read for both: it must be listed once.
    const response = await post(owner, PATHS.timeline, {
      matter_id: matter.id,
      wallets: [PEEL_CHAIN, FAN_IN],
      ...WHOLE_HISTORY,
    });
    expect(response.status).toBe(200);
    const timeline = TransactionTimeline.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(timeline.timeline_id).toMatch(/^tl_[0-9a-z]{26}$/);
    expect(timeline).toMatchObject({
      object: "crypto_transaction_timeline",
      id: timeline.timeline_id,
      matter_id: matter.id,
      chain: "synthetic:eth",
      source: "synthetic",
      wallets: [PEEL_CHAIN.address, FAN_IN.address],
      truncated: false,
      truncation: [],
      matched_count: timeline.events.length,
    });
    expect(timeline.events.length).toBeGreaterThan(2);
    const keys = timeline.events.map((e) => `${e.transaction_hash}:${e.event_index}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (let i = 1; i < timeline.events.length; i++) {
      const [a, b] = [timeline.events[i - 1]!, timeline.events[i]!];
      const order =
        BigInt(a.block) - BigInt(b.block) || BigInt(a.tx_index - b.tx_index) || BigInt(a.event_index - b.event_index);
      expect(order < 0n).toBe(true);
      expect(a.timestamp <= b.timestamp).toBe(true);
    }
    const given = new Set([PEEL_CHAIN.address, FAN_IN.address]);
    for (const event of timeline.events) {
      expect(given.has(event.from_address) || given.has(event.to_address)).toBe(true);
      expect(event.base_units).toMatch(/^[0-9]+$/);
      expect(event.amount).toMatch(/^[0-9]+(\.[0-9]+)?$/);
      expect(event.notes).toContain(event.wallet);
      expect(event.notes).toMatch(/counterparty (has no label|is labelled)/);
    }
    // Each transfer cites the provider request it was read from.
    const sources = new Map(timeline.source_manifest.map((entry) => [entry.source_id, entry]));
    expect(sources.size).toBe(timeline.source_manifest.length);
    for (const event of timeline.events) {
      expect(event.source_refs).toHaveLength(1);
      expect(sources.get(event.source_refs[0]!)).toMatchObject({
        source_type: "chain_request",
        method: "synthetic.transfers",
        finalized: true,
      });
    }
    // Nothing before a wallet's incident block.
    for (const event of timeline.events) {
      const wallet = event.wallet === PEEL_CHAIN.address ? PEEL_CHAIN : FAN_IN;
      if (event.direction !== "between_wallets")
        expect(Number(event.block)).toBeGreaterThanOrEqual(wallet.incident_block);
    }
  });

  it("keeps exactly the transfers within [from, to], both ends included", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const timelineOf = async (from: string, to: string) => {
      const response = await post(owner, PATHS.timeline, { matter_id: matter.id, wallets: [BUSY], from, to });
      expect(response.status).toBe(200);
      return TransactionTimeline.parse(response.json);
    };
    const whole = await timelineOf(WHOLE_HISTORY.from, WHOLE_HISTORY.to);
    const times = [...new Set(whole.events.map((e) => e.timestamp))];
    expect(times.length).toBeGreaterThan(50);
    const [from, to] = [times[10]!, times[50]!];
    const windowed = await timelineOf(from, to);
    const expected = whole.events.filter((e) => e.timestamp >= from && e.timestamp <= to);
    expect(windowed.events).toEqual(expected);
    expect(windowed.events[0]?.timestamp).toBe(from);
    expect(windowed.events.at(-1)?.timestamp).toBe(to);
    expect(windowed).toMatchObject({ from, to, matched_count: expected.length, truncated: false });
    // One millisecond past each end leaves the end's transfers out.
    const shifted = await timelineOf(
      new Date(Date.parse(from) + 1).toISOString(),
      new Date(Date.parse(to) - 1).toISOString(),
    );
    expect(shifted.events).toEqual(expected.filter((e) => e.timestamp !== from && e.timestamp !== to));
    // An offset is read as the instant it names.
    const offset = await timelineOf(from.replace(/Z$/, "+00:00"), to);
    expect(offset.events).toEqual(expected);
  });

  it("lists at most 1000 transfers, the earliest, and says how many it left out", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const response = await post(owner, PATHS.timeline, { matter_id: matter.id, wallets: [BUSY], ...WHOLE_HISTORY });
    const timeline = TransactionTimeline.parse(response.json);
    expect(timeline.matched_count).toBeGreaterThan(1000);
    expect(timeline.events).toHaveLength(1000);
    expect(timeline.truncated).toBe(true);
    expect(timeline.truncation).toEqual([
      {
        reason: "max_events",
        detail: `${timeline.matched_count} transfers are in the window; the earliest 1000 are listed`,
      },
    ]);
    expect(timeline.limits).toEqual({ max_events: 1000, max_edges: 20_000, time_budget_ms: 2_000 });
    // The rest are later than the last one listed.
    const last = timeline.events.at(-1)!;
    const after = TransactionTimeline.parse(
      (
        await post(owner, PATHS.timeline, {
          matter_id: matter.id,
          wallets: [BUSY],
          from: new Date(Date.parse(last.timestamp) + 1000).toISOString(),
          to: WHOLE_HISTORY.to,
        })
      ).json,
    );
    const atLast = timeline.events.filter((e) => e.timestamp === last.timestamp).length;
    expect(after.matched_count).toBeLessThanOrEqual(timeline.matched_count - 1000 + atLast);
    expect(after.matched_count).toBeGreaterThan(0);
  });

  it("names the counterparty's label in the notes: a deposit address's sweep to its exchange", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const hypotheses = ExchangeHypothesesAnswer.parse(
      (await post(owner, PATHS.exchange, { matter_id: matter.id, wallets: [PEEL_CHAIN] })).json,
    );
    const swept = hypotheses.items.find((item) => item.basis === "deposit_address_sweep" && item.sweep);
    if (!swept?.sweep || !swept.exchange) throw new Error("the peel chain has no swept deposit address");
    const timeline = TransactionTimeline.parse(
      (
        await post(owner, PATHS.timeline, {
          matter_id: matter.id,
          wallets: [swept.wallet],
          ...WHOLE_HISTORY,
        })
      ).json,
    );
    const sweep = timeline.events.find(
      (e) => e.direction === "outgoing" && swept.sweep?.swept_to.includes(e.to_address),
    );
    expect(sweep?.notes).toContain(`Sent by ${swept.wallet} to ${sweep?.to_address}`);
    expect(sweep?.notes).toContain(swept.exchange);
  });

  it("refuses a window that ends before it starts (422 naming to) and writes nothing", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const before = await footprint(owner);
    const response = await post(owner, PATHS.timeline, {
      matter_id: matter.id,
      wallets: [PEEL_CHAIN],
      from: "2026-02-01T00:00:00Z",
      to: "2026-01-31T23:59:59.999Z",
    });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.param).toBe("to");
    expect(ValidationDetails.parse(envelope.error.details).invalid?.map((f) => f.param)).toEqual(["to"]);
    expect(await footprint(owner)).toEqual(before);
  });
});

describe("POST /v1/crypto/exchange-hypotheses", () => {
  it("keeps the hypotheses at or above min_confidence on their own low < medium < high scale", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const at = async (min: string) => {
      const response = await post(owner, PATHS.exchange, {
        matter_id: matter.id,
        wallets: [BUSY],
        min_confidence: min,
      });
      expect(response.status).toBe(200);
      return ExchangeHypothesesAnswer.parse(response.json);
    };
    const all = await at("low");
    const confidences = new Set(all.items.map((item) => item.confidence));
    expect(confidences.size).toBeGreaterThan(1);
    const medium = await at("medium");
    const high = await at("high");
    expect(medium.items).toEqual(all.items.filter((item) => item.confidence !== "low"));
    expect(high.items).toEqual(all.items.filter((item) => item.confidence === "high"));
    expect(medium.min_confidence).toBe("medium");
  });

  it("reports the limit that cut a large trace instead of hiding it", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const response = await post(owner, PATHS.exchange, { matter_id: matter.id, wallets: [BUSY] });
    const answer = ExchangeHypothesesAnswer.parse(response.json);
    expect(answer.truncated).toBe(true);
    expect(answer.truncation).toEqual([{ reason: "max_expansions", detail: "stopped expanding after 500 addresses" }]);
    expect(answer.limits).toMatchObject({ max_expansions: 500, max_edges: 20_000, time_budget_ms: 2_000 });
  });

  it("refuses a confidence off its scale (422 naming min_confidence) and writes nothing", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const before = await footprint(owner);
    for (const value of ["certain", 0.9, "HIGH", null]) {
      const response = await post(owner, PATHS.exchange, {
        matter_id: matter.id,
        wallets: [PEEL_CHAIN],
        min_confidence: value,
      });
      const envelope = expectError(response, 422, "invalid_request");
      expect(envelope.error.param).toBe("min_confidence");
      expect(envelope.error.message).toContain("low, medium, high");
    }
    expect(await footprint(owner)).toEqual(before);
  });

  it("answers analyses of one matter side by side: nothing locks or writes", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const before = await footprint(owner);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app().legacyRequest("POST", PATHS.exchange, {
          key: owner.key,
          body: { matter_id: matter.id, wallets: [PEEL_CHAIN] },
          headers: { "idempotency-key": `side-by-side-${i}` },
        }),
      ),
    );
    const bodies = answers.map((answer) => {
      expect(answer.status).toBe(200);
      return ExchangeHypothesesAnswer.parse(answer.json).items;
    });
    for (const items of bodies) expect(items).toEqual(bodies[0]);
    expect(await footprint(owner)).toEqual(before);
  });
});

describe("POST /v1/crypto/stablecoin-exposure", () => {
  it("filters by asset key or symbol, case-insensitively", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const { stablecoin } = sandboxSyntheticChain();
    const at = async (assets?: string[]) => {
      const response = await post(owner, PATHS.stablecoin, {
        matter_id: matter.id,
        wallets: [FROZEN_HOLDER],
        ...(assets ? { assets } : {}),
      });
      expect(response.status).toBe(200);
      return StablecoinExposureAnswer.parse(response.json);
    };
    const all = await at();
    expect(all.items.length).toBeGreaterThan(0);
    expect(all.items.every((item) => item.asset === `erc20:${stablecoin}` && item.symbol === "sUSD")).toBe(true);
    expect((await at(["sUSD"])).items).toEqual(all.items);
    expect((await at(["susd"])).items).toEqual(all.items);
    const byKey = await at([`erc20:${stablecoin.toUpperCase().replace(/^0X/, "0x")}`]);
    expect(byKey.items).toEqual(all.items);
    expect(byKey.assets).toEqual([`erc20:${stablecoin.toUpperCase().replace(/^0X/, "0x")}`]);
  });

  it("refuses a stablecoin the chain does not know or an entry of no known form (422 naming it) and writes nothing", async () => {
    const owner = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const before = await footprint(owner);
    const unknown = await post(owner, PATHS.stablecoin, {
      matter_id: matter.id,
      wallets: [FROZEN_HOLDER],
      assets: ["sUSD", "USDC"],
    });
    const envelope = expectError(unknown, 422, "invalid_request");
    expect(envelope.error.param).toBe("assets.1");
    expect(envelope.error.details).toMatchObject({ allowed: expect.arrayContaining(["sUSD"]) });
    for (const assets of [["erc20:0x12"], ["$USD"], [], "sUSD"]) {
      const response = await post(owner, PATHS.stablecoin, { matter_id: matter.id, wallets: [FROZEN_HOLDER], assets });
      expect(expectError(response, 422, "invalid_request").error.param).toMatch(/^assets/);
    }
    expect(await footprint(owner)).toEqual(before);
  });
});

describe("the matter the analyses name", () => {
  it("is the caller's: another organization's is 404 on all three, and a closed one 409", async () => {
    const owner = await app().mintLegacyKey();
    const stranger = await app().mintLegacyKey();
    const matter = await legacyMatter(owner);
    const bodies = {
      [PATHS.timeline]: { matter_id: matter.id, wallets: [PEEL_CHAIN], ...WHOLE_HISTORY },
      [PATHS.exchange]: { matter_id: matter.id, wallets: [PEEL_CHAIN] },
      [PATHS.stablecoin]: { matter_id: matter.id, wallets: [PEEL_CHAIN] },
    };
    for (const [path, body] of Object.entries(bodies)) {
      const response = await post(stranger, path, body);
      expect(expectError(response, 404, "not_found").error.param).toBe("matter_id");
    }
    const closed = await app().legacyRequest("POST", `/v1/matters/${matter.id}/close`, {
      key: owner.key,
      body: { reason: "settled" },
    });
    expect(closed.status).toBe(200);
    const before = await footprint(owner);
    for (const [path, body] of Object.entries(bodies)) {
      expectError(await post(owner, path, body), 409, "conflict");
    }
    expect(await footprint(owner)).toEqual(before);
  });
});
