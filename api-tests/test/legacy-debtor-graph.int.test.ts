import { AssetHypotheses, AssetMap, AssetMapLegacy, DebtorGraph, debtorOperations, Party } from "@crs/contract";
import { sandboxSyntheticChain } from "@crs/services";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countEvents, expectError, ValidationDetails } from "./support/expectations";
import { runTraceJob, legacyDebtor as sharedLegacyDebtor, legacyMatter as sharedLegacyMatter } from "./support/legacy";
import { describeSecuritySuite } from "./support/security-suite";
import { OPEN_LEGACY_WINDOW, type TestKey, useTestApp } from "./support/test-app";

const app = useTestApp({
  legacyWindow: OPEN_LEGACY_WINDOW,
});

function plantedScenarios() {
  const scenarios = sandboxSyntheticChain().scenarios;
  const peel = scenarios.find((s) => s.kind === "peel_to_exchange");
  const frozen = scenarios.find((s) => s.kind === "frozen_holder");
  if (!peel?.deposit || !frozen?.frozen_holder) throw new Error("the sandbox chain lacks its planted scenarios");
  return { peel: { ...peel, deposit: peel.deposit }, frozen };
}
const { peel, frozen } = plantedScenarios();

const _legacyMatter = (owner: TestKey) => sharedLegacyMatter(app(), owner);
const legacyDebtor = (owner: TestKey, body: Record<string, unknown> = {}) => sharedLegacyDebtor(app(), owner, body);

/** An asset map of the matter, traced to success by the job runner's own steps (claim, execute, record). */
async function succeededAssetMap(
  owner: TestKey,
  matterId: string,
  wallets: unknown[],
): Promise<z.infer<typeof AssetMapLegacy>> {
  const created = await app().legacyRequest("POST", "/v1/crypto/asset-map", {
    key: owner.key,
    body: {
      matter_id: matterId,
      wallets,
      source_refs: [{ source_id: "exhibit-4", source_type: "court_record", title: "Exhibit 4" }],
    },
  });
  expect(created.status).toBe(202);
  const map = AssetMap.omit({ status: true }).passthrough().parse(created.json);
  await runTraceJob(app(), owner, map.job_id);
  const read = await app().legacyRequest("GET", `/v1/crypto/asset-map/${map.map_id}`, { key: owner.key });
  const traced = AssetMapLegacy.parse(read.json);
  expect(traced.status).toBe("complete");
  return traced;
}

async function judgment(owner: TestKey, matterId: string, debtor: string, creditor = "Acme Holdings") {
  const response = await app().legacyRequest("POST", "/v1/judgments/intake", {
    key: owner.key,
    body: {
      matter_id: matterId,
      court: "S.D.N.Y.",
      case_number: "1:26-cv-00042",
      jurisdiction: "US-NY",
      creditor,
      debtor,
      amount: 125000,
      date_entered: "2026-02-01",
    },
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return z.object({ id: z.string() }).passthrough().parse(response.json).id;
}

const graphOf = (response: { json: unknown }) => DebtorGraph.parse(response.json);
const postGraph = (owner: TestKey, debtorId: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  app().legacyRequest("POST", `/v1/debtors/${debtorId}/graph`, { key: owner.key, body, headers });
const postHypotheses = (owner: TestKey, debtorId: string, body: unknown = {}) =>
  app().legacyRequest("POST", `/v1/debtors/${debtorId}/asset-hypotheses`, { key: owner.key, body });

/**
 * What one call leaves behind: nothing but the answer kept for its Idempotency-Key (a computation
 * records nothing and appends no events). A refused call's 422 is kept too, but is not an answer.
 */
const idempotencyEffects = async (owner: TestKey) => {
  const [row] = await app().sql<{ n: number }[]>`
    select count(*)::int as n from idempotency_records
     where organization_id = ${owner.organizationId} and response_status = 200`;
  return { keptAnswers: row?.n ?? 0, events: await countEvents(app().sql, owner.organizationId) };
};

describeSecuritySuite(debtorOperations.graph, {
  app,
  request: async (owner) => ({
    params: { debtor_id: (await legacyDebtor(owner, { wallets: [peel.subject] })).debtor_id },
    body: { include_sources: ["parties", "wallets"] },
  }),
  badBody: {
    body: { include_sources: ["parties", "rumours"], source_refs: [{ title: "no id" }] },
    missing: ["source_refs.0.source_id"],
    invalid: ["include_sources.1"],
  },
  idempotency: {
    effects: idempotencyEffects,
    perWrite: { keptAnswers: 1, events: 0 },
    changedBody: { include_sources: ["judgments"] },
  },
});

describeSecuritySuite(debtorOperations.assetHypotheses, {
  app,
  request: async (owner) => ({
    params: { debtor_id: (await legacyDebtor(owner, { wallets: [peel.subject] })).debtor_id },
    body: { min_confidence: 0.5 },
  }),
  badBody: {
    body: { asset_classes: ["real_estate"], min_confidence: 1.5 },
    missing: [],
    invalid: ["asset_classes.0", "min_confidence"],
  },
  idempotency: {
    effects: idempotencyEffects,
    perWrite: { keptAnswers: 1, events: 0 },
    changedBody: { asset_classes: ["wallet"] },
  },
});

/** A matter with a claimant, a debtor holding the peel chain's subject wallet, a judgment naming it, and its traced map. */
async function tracedCase(owner: TestKey) {
  const debtor = await legacyDebtor(owner, {
    aliases: ["J. Roe"],
    identifiers: { passport: "X1234567" },
    wallets: [{ address: peel.subject.toUpperCase().replace(/^0X/, "0x"), network: "synthetic:eth" }],
  });
  const claimant = await app().legacyRequest("POST", "/v1/parties", {
    key: owner.key,
    body: { matter_id: debtor.matter_id, role: "claimant", name: "Acme Holdings", share: 1 },
  });
  const claimantId = Party.parse(claimant.json).id;
  const judgmentId = await judgment(owner, debtor.matter_id, "j. roe");
  const otherJudgment = await judgment(owner, debtor.matter_id, "Someone Else");
  const map = await succeededAssetMap(owner, debtor.matter_id, [
    { address: peel.subject, incident_block: peel.incident_block },
  ]);
  return { debtor, claimantId, judgmentId, otherJudgment, map };
}

describe("POST /v1/debtors/{debtor_id}/graph", () => {
  it("builds the graph from the recorded facts: party, matter, judgment naming the debtor, wallets and the traced map", async () => {
    const owner = await app().mintLegacyKey();
    const { debtor, claimantId, judgmentId, otherJudgment, map } = await tracedCase(owner);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);

    const response = await postGraph(owner, debtor.debtor_id, {
      source_refs: [{ source_id: "memo-1", title: "Investigator memo" }],
    });
    expect(response.status).toBe(200);
    const graph = DebtorGraph.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(graph.asset_maps_read).toEqual({ count: 1, limit: 100, truncated: false });
    expect(graph).toMatchObject({
      object: "debtor_graph",
      debtor_id: debtor.debtor_id,
      matter_id: debtor.matter_id,
      include_sources: ["parties", "identifiers", "wallets", "judgments", "asset_maps"],
      source_refs: [{ source_id: "memo-1", title: "Investigator memo" }],
    });
    expect(graph.graph_id).toMatch(/^graph_[0-9a-z]{26}$/);
    expect(graph.id).toBe(graph.graph_id);
    // a computation: nothing recorded
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);

    const d = `party:${debtor.debtor_id}`;
    const wallet = `wallet:${peel.subject.toLowerCase()}`;
    const find = (subject: string, predicate: string, object?: string) =>
      graph.claims.filter(
        (c) => c.subject === subject && c.predicate === predicate && (!object || c.object === object),
      );

    expect(find(d, "debtor_in", `matter:${debtor.matter_id}`)).toHaveLength(1);
    expect(find(d, "also_known_as", "name:j. roe")).toHaveLength(1);
    expect(find(d, "has_identifier", "identifier:passport:X1234567")).toHaveLength(1);
    expect(find(`party:${claimantId}`, "claimant_in", `matter:${debtor.matter_id}`)).toHaveLength(1);
    const [controls] = find(d, "controls_wallet", wallet);
    expect(controls).toMatchObject({
      source_type: "party_record",
      confidence: 1,
      matter_id: debtor.matter_id,
      source_refs: [{ record_type: "party", record_id: debtor.debtor_id, source_ids: [] }],
    });
    // The judgment naming the debtor by its alias (case aside) is linked, with its creditor; the other is not.
    expect(find(`judgment:${judgmentId}`, "names_debtor", d)[0]).toMatchObject({
      source_type: "judgment_record",
      confidence: 1,
      source_refs: [{ record_type: "judgment", record_id: judgmentId, source_ids: [] }],
    });
    expect(find(`judgment:${judgmentId}`, "names_creditor", `party:${claimantId}`)).toHaveLength(1);
    expect(graph.claims.some((c) => c.subject === `judgment:${otherJudgment}`)).toBe(false);

    // The map's exchange hypothesis reached from the debtor's wallet, with the map's own confidence and sources.
    const hypothesis = map.exchange_hypotheses.find((h) => h.wallet === peel.deposit.address);
    if (!hypothesis) throw new Error("the traced map lacks the planted deposit hypothesis");
    const deposit = `wallet:${hypothesis.wallet.toLowerCase()}`;
    const expected = { high: 0.9, medium: 0.6, low: 0.3 }[hypothesis.confidence];
    const [attributed] = find(deposit, "deposit_address_of", `exchange:${peel.deposit.exchange}`);
    expect(attributed).toMatchObject({
      source_type: "asset_map",
      confidence: expected,
      source_refs: [{ record_type: "asset_map", record_id: map.map_id, source_ids: hypothesis.source_refs }],
    });
    const manifest = new Set(map.source_manifest.map((s) => s.source_id));
    for (const c of graph.claims.filter((claim) => claim.source_type === "asset_map")) {
      for (const ref of c.source_refs) {
        expect(ref.record_id).toBe(map.map_id);
        for (const id of ref.source_ids) expect(manifest).toContain(id);
      }
    }
    expect(graph.review_state.review_required).toBe(true);
    expect(graph.review_state.review_status).toBe("pending");

    // Every claim's ends are nodes; every claim is drawn as an edge.
    const nodeIds = new Set(graph.nodes.map((n) => n.node_id));
    for (const c of graph.claims) {
      expect(nodeIds).toContain(c.subject);
      expect(nodeIds).toContain(c.object);
    }
    expect(new Set(graph.edges.flatMap((e) => e.claim_ids))).toEqual(new Set(graph.claims.map((c) => c.claim_id)));
    expect(graph.nodes[0]).toEqual({ node_id: d, type: "party", label: "Jane Roe", record_id: debtor.debtor_id });
  });

  it("reads only the sources asked for, and gives the same claims the same ids on every call", async () => {
    const owner = await app().mintLegacyKey();
    const { debtor } = await tracedCase(owner);
    const onlyJudgments = graphOf(await postGraph(owner, debtor.debtor_id, { include_sources: ["judgments"] }));
    expect(onlyJudgments.include_sources).toEqual(["judgments"]);
    expect(new Set(onlyJudgments.claims.map((c) => c.source_type))).toEqual(new Set(["judgment_record"]));
    expect(onlyJudgments.review_state).toEqual({ review_required: false, review_status: "not_required", reasons: [] });

    const full = graphOf(await postGraph(owner, debtor.debtor_id));
    const again = graphOf(await postGraph(owner, debtor.debtor_id));
    expect(again.claims).toEqual(full.claims);
    expect(again.graph_id).not.toBe(full.graph_id);
    const subset = new Set(full.claims.map((c) => c.claim_id));
    for (const c of onlyJudgments.claims) expect(subset).toContain(c.claim_id);
  });

  it("replays the same graph under an Idempotency-Key, graph_id included", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner, { wallets: [peel.subject] });
    const headers = { "idempotency-key": `graph-${debtor.debtor_id}` };
    const first = await postGraph(owner, debtor.debtor_id, {}, headers);
    const second = await postGraph(owner, debtor.debtor_id, {}, headers);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(graphOf(second)).toEqual(graphOf(first));
  });

  it("is 404 for a party that is not a debtor, for another organization's debtor, and for an unknown id", async () => {
    const owner = await app().mintLegacyKey();
    const { debtor, claimantId } = await tracedCase(owner);
    const notDebtor = expectError(await postGraph(owner, claimantId), 404, "not_found");
    expect(notDebtor.error.message).toContain(`No such debtor: '${claimantId}'`);
    const stranger = await app().mintLegacyKey();
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    expectError(await postGraph(stranger, debtor.debtor_id), 404, "not_found");
    expectError(await postHypotheses(stranger, debtor.debtor_id), 404, "not_found");
    expectError(await postGraph(owner, "debtor_0123456789abcdefghjkmnpqrs"), 404, "not_found");
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
  });

  it("refuses an unknown source with 422 naming the field", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner);
    for (const body of [{ include_sources: ["gossip"] }, { include_sources: [] }, { include_sources: "parties" }]) {
      const envelope = expectError(await postGraph(owner, debtor.debtor_id, body), 422, "invalid_request");
      const details = ValidationDetails.parse(envelope.error.details);
      expect(details.invalid?.[0]?.param).toMatch(/^include_sources/);
    }
  });

  it("still answers for a closed matter's debtor, since it writes nothing", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner, { wallets: [peel.subject] });
    const closed = await app().legacyRequest("POST", `/v1/matters/${debtor.matter_id}/close`, {
      key: owner.key,
      body: { reason: "settled" },
    });
    expect(closed.status).toBe(200);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    const graph = graphOf(await postGraph(owner, debtor.debtor_id, { include_sources: ["wallets"] }));
    expect(graph.claims.map((c) => c.predicate)).toEqual(["controls_wallet"]);
    const items = AssetHypotheses.parse((await postHypotheses(owner, debtor.debtor_id)).json).items;
    expect(items.map((h) => h.asset_type)).toEqual(["wallet"]);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
  });

  it("draws nothing from a map traced from someone else's wallet", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner, { wallets: ["0x0000000000000000000000000000000000000bad"] });
    await succeededAssetMap(owner, debtor.matter_id, [{ address: peel.subject, incident_block: peel.incident_block }]);
    const graph = graphOf(await postGraph(owner, debtor.debtor_id, { include_sources: ["asset_maps"] }));
    expect(graph.claims).toEqual([]);
    expect(graph.asset_maps_read).toEqual({ count: 0, limit: 100, truncated: false });
    const items = AssetHypotheses.parse((await postHypotheses(owner, debtor.debtor_id)).json).items;
    expect(items.map((h) => h.asset_type)).toEqual(["wallet"]);
  });

  it("reads the debtor's 100 most recent maps, not the matter's, and says when it left older ones out", async () => {
    const owner = await app().mintLegacyKey();
    const { debtor, map } = await tracedCase(owner);
    // Other wallets' maps on the same matter, more recent than the debtor's: they do not count against the limit.
    await copyAssetMap(map.map_id, 120, "0x0000000000000000000000000000000000000bad");
    const own = graphOf(await postGraph(owner, debtor.debtor_id, { include_sources: ["asset_maps"] }));
    expect(own.asset_maps_read).toEqual({ count: 1, limit: 100, truncated: false });
    expect(own.claims.length).toBeGreaterThan(0);
    // 100 more of the debtor's own: 101 in all, the oldest left out and the answer says so.
    await copyAssetMap(map.map_id, 100);
    const capped = graphOf(await postGraph(owner, debtor.debtor_id, { include_sources: ["asset_maps"] }));
    expect(capped.asset_maps_read).toEqual({ count: 100, limit: 100, truncated: true });
    const hypotheses = AssetHypotheses.parse((await postHypotheses(owner, debtor.debtor_id)).json);
    expect(hypotheses.asset_maps_read).toEqual({ count: 100, limit: 100, truncated: true });
  });
});

/**
 * Copies of a succeeded map row under new ids (sorting after it, so more recent), optionally traced
 * from another wallet: many maps without tracing each.
 */
async function copyAssetMap(mapId: string, copies: number, tracedFrom?: string): Promise<void> {
  const { sql } = app();
  const columns = (
    await sql<{ column_name: string }[]>`
      select column_name from information_schema.columns where table_name = 'asset_maps' order by ordinal_position`
  ).map((row) => row.column_name);
  const [row] = await sql<Record<string, unknown>[]>`select * from asset_maps where id = ${mapId}`;
  if (!row) throw new Error(`no asset map ${mapId}`);
  for (let n = 0; n < copies; n++) {
    const suffix = `${tracedFrom ? "x" : "y"}${n.toString(36).padStart(3, "0")}`;
    const request = row.request as { wallets: Array<{ address: string }> };
    const copy: Record<string, unknown> = {
      ...row,
      id: `${mapId.slice(0, -4)}${suffix}`,
      job_id: `${String(row.job_id).slice(0, -4)}${suffix}`,
      request: tracedFrom
        ? { ...request, wallets: request.wallets.map((wallet) => ({ ...wallet, address: tracedFrom })) }
        : request,
    };
    await sql`insert into asset_maps ${sql(copy as Record<string, string>, columns)}`;
  }
}

describe("POST /v1/debtors/{debtor_id}/asset-hypotheses", () => {
  it("lists the recorded wallet, then the map's findings, highest confidence first, each with its sources", async () => {
    const owner = await app().mintLegacyKey();
    const { debtor, map } = await tracedCase(owner);
    const eventsBefore = await countEvents(app().sql, owner.organizationId);
    const response = await postHypotheses(owner, debtor.debtor_id);
    expect(response.status).toBe(200);
    const answer = AssetHypotheses.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(answer).toMatchObject({
      object: "debtor_asset_hypotheses",
      debtor_id: debtor.debtor_id,
      matter_id: debtor.matter_id,
    });
    expect(await countEvents(app().sql, owner.organizationId)).toBe(eventsBefore);
    const { items } = answer;
    expect(items[0]).toMatchObject({
      asset_type: "wallet",
      confidence: 1,
      source_refs: [{ record_type: "party", record_id: debtor.debtor_id, source_ids: [] }],
    });
    const confidences = items.map((h) => h.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    const exchange = items.find(
      (h) => h.asset_type === "exchange_account" && h.description.includes(peel.deposit.exchange),
    );
    expect(exchange?.source_refs[0]?.record_id).toBe(map.map_id);
    for (const h of items.filter((item) => item.asset_type !== "wallet")) {
      expect([0.9, 0.6, 0.3]).toContain(h.confidence);
      expect(h.source_refs.map((ref) => ref.record_id)).toEqual([map.map_id]);
    }
  });

  it("filters by asset class and by a minimum confidence (inclusive)", async () => {
    const owner = await app().mintLegacyKey();
    const { debtor } = await tracedCase(owner);
    const all = AssetHypotheses.parse((await postHypotheses(owner, debtor.debtor_id)).json).items;
    const onlyExchanges = AssetHypotheses.parse(
      (await postHypotheses(owner, debtor.debtor_id, { asset_classes: ["exchange_account"] })).json,
    ).items;
    expect(onlyExchanges.length).toBeGreaterThan(0);
    expect(onlyExchanges).toEqual(all.filter((h) => h.asset_type === "exchange_account"));
    const threshold = Math.min(...all.filter((h) => h.confidence < 1).map((h) => h.confidence));
    const atThreshold = AssetHypotheses.parse(
      (await postHypotheses(owner, debtor.debtor_id, { min_confidence: threshold })).json,
    ).items;
    expect(atThreshold).toEqual(all.filter((h) => h.confidence >= threshold));
    const onlyRecorded = AssetHypotheses.parse(
      (await postHypotheses(owner, debtor.debtor_id, { min_confidence: 1 })).json,
    ).items;
    expect(onlyRecorded.map((h) => h.asset_type)).toEqual(["wallet"]);
  });

  it("reports a frozen stablecoin holding at the debtor's wallet with its issuer and freeze status", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner, { wallets: [frozen.subject] });
    const map = await succeededAssetMap(owner, debtor.matter_id, [
      { address: frozen.subject, incident_block: frozen.incident_block },
    ]);
    const items = AssetHypotheses.parse(
      (await postHypotheses(owner, debtor.debtor_id, { asset_classes: ["stablecoin_holding"] })).json,
    ).items;
    const expected = map.stablecoin_exposure.filter((e) => e.frozen === true);
    expect(expected.length).toBeGreaterThan(0);
    const frozenItems = items.filter((h) => h.description.includes(", frozen by the issuer;"));
    expect(frozenItems.length).toBe(expected.length);
    for (const h of items) expect(h.asset_type).toBe("stablecoin_holding");
  });

  it("refuses an unknown asset class or a confidence outside 0..1 with 422 naming the field, storing nothing", async () => {
    const owner = await app().mintLegacyKey();
    const debtor = await legacyDebtor(owner);
    for (const [body, param] of [
      [{ asset_classes: ["yacht"] }, "asset_classes.0"],
      [{ min_confidence: -0.1 }, "min_confidence"],
      [{ min_confidence: 1.01 }, "min_confidence"],
      [{ min_confidence: "high" }, "min_confidence"],
    ] as const) {
      const envelope = expectError(await postHypotheses(owner, debtor.debtor_id, body), 422, "invalid_request");
      expect(envelope.error.param).toBe(param);
      expect(envelope.error.message).toContain(param);
    }
  });
});
