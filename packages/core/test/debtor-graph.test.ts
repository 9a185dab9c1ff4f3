import { describe, expect, it } from "vitest";
import {
  buildDebtorGraph,
  DEBTOR_GRAPH_SOURCES,
  type DebtorFacts,
  deriveAssetHypotheses,
  type GraphAssetMap,
  type GraphParty,
} from "../src/debtor-graph";

const MATTER = "matter_01";
const DEBTOR_WALLET = "0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa";
const OTHER_WALLET = "0x0000000000000000000000000000000000000b0b";
const DEPOSIT = "0x00000000000000000000000000000000000dep01";
const HOP = "0x00000000000000000000000000000000000000f1";
const USDC = "erc20:0x00000000000000000000000000000000000000c0";

const debtor: GraphParty = {
  id: "party_debtor",
  matter_id: MATTER,
  role: "debtor",
  name: "Jane Roe",
  legal_name: "Jane A. Roe",
  aliases: ["J. Roe"],
  identifiers: { passport: "X1", tax: { country: "US", id: 9 } },
  wallets: [{ address: DEBTOR_WALLET, network: "ethereum", label: "hot" }],
};
const claimant: GraphParty = {
  id: "party_claimant",
  matter_id: MATTER,
  role: "claimant",
  name: "Acme Holdings",
  legal_name: null,
  aliases: [],
  identifiers: {},
  wallets: [],
};

function assetMap(overrides: Partial<GraphAssetMap> = {}): GraphAssetMap {
  return {
    id: "amap_1",
    matter_id: MATTER,
    // the map was asked with the checksummed address in lower case: still the debtor's wallet
    subjects: [DEBTOR_WALLET.toLowerCase()],
    wallets: [
      { address: DEBTOR_WALLET.toLowerCase(), confidence: "high" },
      { address: HOP, confidence: "medium" },
      { address: DEPOSIT, confidence: "medium" },
    ],
    edges: [
      { edge_id: "0xt1:0", from: DEBTOR_WALLET.toLowerCase() },
      { edge_id: "0xt2:0", from: HOP },
    ],
    exchange_hypotheses: [
      {
        hypothesis_id: "hyp_a",
        exchange: "Example Exchange",
        wallet: DEPOSIT,
        basis: "deposit_address_sweep",
        confidence: "medium",
        packet_readiness: "needs_review",
        path_edge_ids: ["0xt1:0", "0xt2:0"],
        source_refs: ["src_label", "src_rpc"],
      },
    ],
    token_exposures: [
      {
        asset: "native",
        symbol: "ETH",
        network: "ethereum",
        wallet: DEBTOR_WALLET.toLowerCase(),
        amount: { base_units: "500000000000000000", amount: "0.5" },
        basis: "retained",
        usd_value: null,
        source_refs: ["src_rpc"],
      },
      {
        asset: USDC,
        symbol: "USDC",
        network: "ethereum",
        wallet: HOP,
        amount: { base_units: "2000000", amount: "2" },
        basis: "retained",
        usd_value: "2.00",
        source_refs: ["src_rpc"],
      },
    ],
    stablecoin_exposure: [
      {
        issuer: "Circle",
        asset: USDC,
        symbol: "USDC",
        network: "ethereum",
        wallet: HOP,
        amount: { base_units: "2000000", amount: "2" },
        basis: "retained",
        frozen: false,
        source_refs: ["src_issuer"],
      },
    ],
    ...overrides,
  };
}

const judgment = {
  id: "judgment_1",
  matter_id: MATTER,
  court: "S.D.N.Y.",
  case_number: "1:26-cv-1",
  creditor: "ACME HOLDINGS",
  debtor: "  j. roe ",
};

const facts: DebtorFacts = {
  debtor,
  parties: [claimant, debtor],
  judgments: [
    judgment,
    { ...judgment, id: "judgment_other", debtor: "John Doe" },
    { ...judgment, id: "judgment_elsewhere", matter_id: "matter_02" },
  ],
  assetMaps: [
    assetMap(),
    // traced from someone else's wallet only: not the debtor's
    assetMap({ id: "amap_2", subjects: [OTHER_WALLET] }),
  ],
};

const partyRef = (id: string) => ({ record_type: "party", record_id: id, source_ids: [] });
const triples = (graph: ReturnType<typeof buildDebtorGraph>) =>
  graph.claims.map((c) => [c.subject, c.predicate, c.object, c.source_type, c.confidence]);

describe("buildDebtorGraph", () => {
  it("builds claims from the recorded facts only, each with its sources and the rule's confidence", () => {
    const graph = buildDebtorGraph(facts, DEBTOR_GRAPH_SOURCES);
    const d = "party:party_debtor";
    const w = `wallet:${DEBTOR_WALLET.toLowerCase()}`;
    expect(triples(graph)).toEqual([
      [d, "debtor_in", `matter:${MATTER}`, "party_record", 1],
      [d, "has_name", "name:jane roe", "party_record", 1],
      [d, "has_legal_name", "name:jane a. roe", "party_record", 1],
      [d, "also_known_as", "name:j. roe", "party_record", 1],
      ["party:party_claimant", "claimant_in", `matter:${MATTER}`, "party_record", 1],
      [d, "has_identifier", "identifier:passport:X1", "party_record", 1],
      [d, "has_identifier", 'identifier:tax:{"country":"US","id":9}', "party_record", 1],
      [d, "controls_wallet", w, "party_record", 1],
      ["judgment:judgment_1", "names_debtor", d, "judgment_record", 1],
      ["judgment:judgment_1", "names_creditor", "party:party_claimant", "judgment_record", 1],
      [w, "funds_reached", `wallet:${DEPOSIT}`, "asset_map", 0.6],
      [`wallet:${DEPOSIT}`, "deposit_address_of", "exchange:Example Exchange", "asset_map", 0.6],
      [w, "holds", "asset:ethereum:native", "asset_map", 0.9],
      [d, "funds_reached", `wallet:${HOP}`, "asset_map", 0.6],
      [`wallet:${HOP}`, "holds", `asset:ethereum:${USDC}`, "asset_map", 0.6],
    ]);
    for (const c of graph.claims) expect(c.matter_id).toBe(MATTER);
    expect(graph.claims[0]?.source_refs).toEqual([partyRef("party_debtor")]);
    expect(graph.claims[4]?.source_refs).toEqual([partyRef("party_claimant")]);
    expect(graph.claims[8]?.source_refs).toEqual([
      { record_type: "judgment", record_id: "judgment_1", source_ids: [] },
    ]);
    expect(graph.claims[10]?.source_refs).toEqual([
      { record_type: "asset_map", record_id: "amap_1", source_ids: ["src_label", "src_rpc"] },
    ]);
    expect(graph.review_state).toEqual({
      review_required: true,
      review_status: "pending",
      reasons: ["5 claims rest on asset-map traces, which a reviewer confirms before they are relied on"],
    });
  });

  it("draws one node per thing named, the debtor first, and one edge per claim triple", () => {
    const graph = buildDebtorGraph(facts, DEBTOR_GRAPH_SOURCES);
    expect(graph.nodes[0]).toEqual({
      node_id: "party:party_debtor",
      type: "party",
      label: "Jane A. Roe",
      record_id: "party_debtor",
    });
    expect(graph.nodes.find((n) => n.node_id === "judgment:judgment_1")).toEqual({
      node_id: "judgment:judgment_1",
      type: "judgment",
      label: "S.D.N.Y. 1:26-cv-1",
      record_id: "judgment_1",
    });
    // the wallet keeps the address as recorded in its label; its id compares EVM addresses without case
    expect(graph.nodes.find((n) => n.type === "wallet")).toEqual({
      node_id: `wallet:${DEBTOR_WALLET.toLowerCase()}`,
      type: "wallet",
      label: DEBTOR_WALLET,
      record_id: null,
    });
    const ids = new Set(graph.nodes.map((n) => n.node_id));
    expect(ids.size).toBe(graph.nodes.length);
    for (const c of graph.claims) {
      expect(ids).toContain(c.subject);
      expect(ids).toContain(c.object);
    }
    expect(graph.edges).toHaveLength(graph.claims.length);
    expect(graph.edges.flatMap((e) => e.claim_ids)).toEqual(graph.claims.map((c) => c.claim_id));
  });

  it("gives the same claim the same id every time, and two maps asserting one edge two claims", () => {
    const twice = { ...facts, assetMaps: [assetMap(), assetMap({ id: "amap_3" })] };
    const first = buildDebtorGraph(twice, ["asset_maps"]);
    const again = buildDebtorGraph(twice, ["asset_maps"]);
    expect(again).toEqual(first);
    expect(first.claims[0]?.claim_id).toMatch(/^claim_[0-9a-f]{26}$/);
    const exchangeEdge = first.edges.find((e) => e.predicate === "deposit_address_of");
    expect(exchangeEdge?.claim_ids).toHaveLength(2);
    expect(first.claims).toHaveLength(10);
  });

  it("reads only the kinds of facts asked for", () => {
    const onlyWallets = buildDebtorGraph(facts, ["wallets"]);
    expect(triples(onlyWallets)).toEqual([
      ["party:party_debtor", "controls_wallet", `wallet:${DEBTOR_WALLET.toLowerCase()}`, "party_record", 1],
    ]);
    expect(onlyWallets.review_state).toEqual({ review_required: false, review_status: "not_required", reasons: [] });
    const judgments = buildDebtorGraph(facts, ["judgments"]);
    expect(judgments.claims.map((c) => c.predicate)).toEqual(["names_debtor", "names_creditor"]);
  });

  it("keeps an exchange hypothesis and holdings of a map with another subject only when they start at the debtor's wallet", () => {
    const shared = assetMap({
      subjects: [DEBTOR_WALLET, OTHER_WALLET],
      edges: [
        { edge_id: "0xt1:0", from: OTHER_WALLET },
        { edge_id: "0xt2:0", from: HOP },
      ],
    });
    const graph = buildDebtorGraph({ ...facts, assetMaps: [shared] }, ["asset_maps"]);
    // the hypothesis's path starts at the other subject, and the stablecoin sits downstream: neither is the debtor's
    expect(graph.claims.map((c) => [c.subject, c.predicate])).toEqual([
      [`wallet:${DEBTOR_WALLET.toLowerCase()}`, "holds"],
    ]);
  });

  it("leaves out judgments that name someone else and a matter's maps with no debtor wallet", () => {
    const graph = buildDebtorGraph({ ...facts, assetMaps: [assetMap({ subjects: [OTHER_WALLET] })] }, [
      "judgments",
      "asset_maps",
    ]);
    expect(graph.claims.map((c) => c.subject)).toEqual(["judgment:judgment_1", "judgment:judgment_1"]);
  });
});

describe("deriveAssetHypotheses", () => {
  it("lists recorded wallets, holdings and exchange deposits, highest confidence first", () => {
    const items = deriveAssetHypotheses(facts, null, 0);
    expect(items.map((h) => [h.asset_type, h.confidence, h.description])).toEqual([
      ["wallet", 1, `Wallet ${DEBTOR_WALLET} on ethereum (hot), recorded for the debtor.`],
      [
        "token_holding",
        0.9,
        `0.5 ETH still held at ${DEBTOR_WALLET.toLowerCase()} on ethereum; traced in asset map amap_1.`,
      ],
      [
        "stablecoin_holding",
        0.6,
        `2 USDC (issued by Circle) still held at ${HOP} on ethereum, not frozen by the issuer; traced in asset map amap_1.`,
      ],
      [
        "exchange_account",
        0.6,
        `Funds traced from ${DEBTOR_WALLET.toLowerCase()} reached ${DEPOSIT}, a deposit address attributed to Example Exchange (basis deposit_address_sweep); asset map amap_1, hypothesis hyp_a.`,
      ],
    ]);
    expect(items[0]?.source_refs).toEqual([partyRef("party_debtor")]);
    expect(items[2]?.source_refs).toEqual([
      { record_type: "asset_map", record_id: "amap_1", source_ids: ["src_issuer"] },
    ]);
    for (const item of items) expect(item.hypothesis_id).toMatch(/^ahyp_[0-9a-f]{26}$/);
  });

  it("filters by class and by a minimum confidence, inclusive", () => {
    expect(deriveAssetHypotheses(facts, ["exchange_account", "wallet"], 0).map((h) => h.asset_type)).toEqual([
      "wallet",
      "exchange_account",
    ]);
    expect(deriveAssetHypotheses(facts, null, 0.9).map((h) => h.asset_type)).toEqual(["wallet", "token_holding"]);
    expect(deriveAssetHypotheses(facts, null, 0.61).map((h) => h.confidence)).toEqual([1, 0.9]);
    expect(deriveAssetHypotheses(facts, ["stablecoin_holding"], 0.7)).toEqual([]);
  });

  it("says how much in base units when the token's decimals are unknown, and when a freeze status is unknown", () => {
    const map = assetMap({
      token_exposures: [
        {
          asset: "erc20:0x00000000000000000000000000000000000000d0",
          symbol: null,
          network: "ethereum",
          wallet: DEBTOR_WALLET,
          amount: { base_units: "42", amount: null },
          basis: "received",
          usd_value: null,
          source_refs: [],
        },
      ],
      stablecoin_exposure: [{ ...assetMap().stablecoin_exposure[0]!, wallet: DEBTOR_WALLET, frozen: null }],
      exchange_hypotheses: [],
    });
    const items = deriveAssetHypotheses(
      {
        ...facts,
        debtor: { ...debtor, wallets: [{ ...debtor.wallets[0]!, network: null, label: null }] },
        assetMaps: [map],
      },
      null,
      0,
    );
    expect(items.map((h) => h.description)).toEqual([
      `Wallet ${DEBTOR_WALLET}, recorded for the debtor.`,
      `2 USDC (issued by Circle) still held at ${DEBTOR_WALLET} on ethereum, freeze status unknown; traced in asset map amap_1.`,
      `42 base units of erc20:0x00000000000000000000000000000000000000d0 received by ${DEBTOR_WALLET} on ethereum; traced in asset map amap_1.`,
    ]);
  });

  it("says a subject's holding read from the chain is held, not received, and draws it as one", () => {
    const heldUsdc = {
      ...assetMap().stablecoin_exposure[0]!,
      wallet: DEBTOR_WALLET.toLowerCase(),
      basis: "held" as const,
      frozen: true,
    };
    const map = assetMap({
      token_exposures: [{ ...assetMap().token_exposures[1]!, wallet: DEBTOR_WALLET.toLowerCase(), basis: "held" }],
      stablecoin_exposure: [heldUsdc],
      exchange_hypotheses: [],
    });
    const items = deriveAssetHypotheses({ ...facts, assetMaps: [map] }, null, 0);
    expect(items.map((h) => h.description)).toContain(
      `2 USDC (issued by Circle) held (read from the chain, not moved in the window) at ${DEBTOR_WALLET.toLowerCase()} on ethereum, frozen by the issuer; traced in asset map amap_1.`,
    );
    const graph = buildDebtorGraph({ ...facts, assetMaps: [map] }, ["asset_maps"]);
    const predicates = graph.claims.filter((claim) => claim.object.includes(USDC)).map((claim) => claim.predicate);
    expect(predicates).toEqual(["holds"]);
  });

  it("leaves out a holding at a wallet the map does not list, rather than give it a confidence the map never stated", () => {
    const unlisted = "0x00000000000000000000000000000000000000e1";
    const map = assetMap({
      // every subject is the debtor's, so the map's holdings would all count, but this one's wallet is unlisted
      token_exposures: [{ ...assetMap().token_exposures[0]!, wallet: unlisted }],
      stablecoin_exposure: [{ ...assetMap().stablecoin_exposure[0]!, wallet: unlisted }],
      exchange_hypotheses: [],
    });
    const items = deriveAssetHypotheses({ ...facts, assetMaps: [map] }, null, 0);
    expect(items.map((h) => h.asset_type)).toEqual(["wallet"]);
    const graph = buildDebtorGraph({ ...facts, assetMaps: [map] }, ["asset_maps"]);
    expect(graph.claims.filter((claim) => claim.object.includes(unlisted) || claim.subject.includes(unlisted))).toEqual(
      [],
    );
  });

  it("finds nothing for a debtor with no wallets", () => {
    expect(deriveAssetHypotheses({ ...facts, debtor: { ...debtor, wallets: [] } }, null, 0)).toEqual([]);
  });
});
