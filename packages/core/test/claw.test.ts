import { describe, expect, it } from "vitest";
import {
  allowedPressureLevels,
  CLAW_PRESSURE_LEVELS,
  checkPressureChange,
  collectFocusTargets,
  counselApprovalAfter,
  deriveClawBlockers,
  deriveClawGates,
  deriveOperatorState,
  type FocusTarget,
  findClawGateRefusal,
  pressureLevelName,
  proposeLeads,
  rankFocusTargets,
} from "../src/claw";
import { buildDebtorGraph, DEBTOR_GRAPH_SOURCES, type GraphAssetMap, type GraphParty } from "../src/debtor-graph";

const MATTER = "matter_01";
const DEBTOR_WALLET = "0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa";
const DEPOSIT = "0x00000000000000000000000000000000000dep01";
const HOP = "0x00000000000000000000000000000000000000f1";
const USDC = "erc20:0x00000000000000000000000000000000000000c0";

const debtor: GraphParty = {
  id: "party_debtor",
  matter_id: MATTER,
  role: "debtor",
  name: "Jane Roe",
  legal_name: "Jane A. Roe",
  aliases: [],
  identifiers: {},
  wallets: [{ address: DEBTOR_WALLET, network: "ethereum", label: null }],
};
const counterparty: GraphParty = {
  ...debtor,
  id: "party_counter",
  role: "counterparty",
  name: "Doe Trading",
  legal_name: null,
  wallets: [],
};

function assetMap(overrides: Partial<GraphAssetMap> = {}): GraphAssetMap {
  return {
    id: "amap_1",
    matter_id: MATTER,
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
        packet_readiness: "ready",
        path_edge_ids: ["0xt1:0", "0xt2:0"],
        source_refs: ["src_label"],
      },
    ],
    token_exposures: [
      {
        asset: USDC,
        symbol: "USDC",
        network: "ethereum",
        wallet: HOP,
        amount: { base_units: "3000000", amount: "3" },
        basis: "retained",
        usd_value: "3.00",
        source_refs: ["src_rpc"],
      },
      {
        asset: "native",
        symbol: "ETH",
        network: "ethereum",
        wallet: DEPOSIT,
        amount: { base_units: "1", amount: null },
        basis: "received",
        usd_value: "1.5",
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
        amount: { base_units: "3000000", amount: "3" },
        basis: "retained",
        frozen: false,
        source_refs: ["src_issuer"],
      },
    ],
    ...overrides,
  };
}

describe("pressure levels", () => {
  it("names the seven levels in order", () => {
    expect(CLAW_PRESSURE_LEVELS.map((_, level) => pressureLevelName(level))).toEqual([
      "observe",
      "prepare",
      "preserve",
      "discover",
      "freeze_block",
      "seize_turn_over",
      "recover_distribute",
    ]);
    expect(() => pressureLevelName(7)).toThrow(RangeError);
    expect(() => pressureLevelName(-1)).toThrow(RangeError);
  });

  it("lets each mode raise by its step and always lower", () => {
    expect(allowedPressureLevels(2, "measured")).toEqual([0, 1, 2, 3]);
    expect(allowedPressureLevels(2, "assertive")).toEqual([0, 1, 2, 3, 4]);
    expect(allowedPressureLevels(0, "emergency")).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(allowedPressureLevels(6, "measured")).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("needs a counsel approval for a raise to 4 or above, checked before the step", () => {
    const approval = { counsel_approval_id: null } as const;
    expect(checkPressureChange({ from: 3, to: 4, mode: "measured", ...approval })).toEqual({
      refused: true,
      reason: "counsel_approval_required",
      allowed: [0, 1, 2, 3, 4],
    });
    expect(checkPressureChange({ from: 0, to: 6, mode: "measured", ...approval })).toMatchObject({
      reason: "counsel_approval_required",
    });
    expect(checkPressureChange({ from: 3, to: 4, mode: "measured", counsel_approval_id: "ca-1" })).toEqual({
      refused: false,
      changed: true,
    });
    // Lowering, even to 4, and staying put need none.
    expect(checkPressureChange({ from: 5, to: 4, mode: "measured", ...approval })).toEqual({
      refused: false,
      changed: true,
    });
    expect(checkPressureChange({ from: 5, to: 5, mode: "measured", ...approval })).toEqual({
      refused: false,
      changed: false,
    });
  });

  it("refuses a raise beyond the mode's step with the levels it may reach", () => {
    expect(checkPressureChange({ from: 0, to: 2, mode: "measured", counsel_approval_id: null })).toEqual({
      refused: true,
      reason: "raise_too_far",
      allowed: [0, 1],
    });
    expect(checkPressureChange({ from: 0, to: 2, mode: "assertive", counsel_approval_id: null }).refused).toBe(false);
    expect(checkPressureChange({ from: 1, to: 6, mode: "assertive", counsel_approval_id: "ca" })).toMatchObject({
      reason: "raise_too_far",
      allowed: [0, 1, 2, 3],
    });
    expect(checkPressureChange({ from: 1, to: 6, mode: "emergency", counsel_approval_id: "ca" }).refused).toBe(false);
  });

  it("keeps a counsel approval only at or above the approval level", () => {
    expect(counselApprovalAfter(4, null, "ca-new")).toBe("ca-new");
    expect(counselApprovalAfter(5, "ca-old", null)).toBe("ca-old");
    expect(counselApprovalAfter(6, "ca-old", "ca-new")).toBe("ca-new");
    expect(counselApprovalAfter(3, "ca-old", "ca-new")).toBeNull();
  });
});

describe("gates", () => {
  const clear = {
    sanctions_hold: false,
    judgment_stay_in_effect: false,
    authority_granted: true,
    pressure_level: 0,
    counsel_approval_id: null,
  };

  it("refuses in the order sanctions, stay, authority", () => {
    expect(findClawGateRefusal(clear)).toBeNull();
    expect(findClawGateRefusal({ ...clear, authority_granted: false })).toBe("authority_required");
    expect(findClawGateRefusal({ ...clear, authority_granted: false, judgment_stay_in_effect: true })).toBe(
      "stay_in_effect",
    );
    expect(findClawGateRefusal({ sanctions_hold: true, judgment_stay_in_effect: true, authority_granted: false })).toBe(
      "sanctions_gate",
    );
  });

  it("shows every gate with its status, reasons and required actions", () => {
    expect(deriveClawGates(clear).map((gate) => [gate.gate, gate.status])).toEqual([
      ["sanctions", "pass"],
      ["stay", "pass"],
      ["authority", "pass"],
      ["counsel_approval", "not_required"],
    ]);
    const blocked = deriveClawGates({ ...clear, sanctions_hold: true, authority_granted: false, pressure_level: 4 });
    expect(blocked.map((gate) => [gate.gate, gate.status])).toEqual([
      ["sanctions", "blocked"],
      ["stay", "pass"],
      ["authority", "blocked"],
      ["counsel_approval", "blocked"],
    ]);
    expect(blocked[0]?.reasons).toHaveLength(1);
    expect(blocked[0]?.required_actions).toHaveLength(1);
    expect(deriveClawGates({ ...clear, pressure_level: 4, counsel_approval_id: "ca" })[3]?.status).toBe("pass");
  });
});

describe("focus", () => {
  const targets = collectFocusTargets([debtor], [assetMap()]);

  it("collects the pursued party, its wallets (recorded and traced) and its exchange hypotheses", () => {
    expect(targets.map((t) => [t.target_type, t.target_id])).toEqual([
      ["party", "party_debtor"],
      ["wallet", DEBTOR_WALLET.toLowerCase()],
      ["wallet", HOP],
      ["wallet", DEPOSIT],
      ["exchange_hypothesis", "hyp_a"],
    ]);
    const byId = new Map(targets.map((t) => [t.target_id, t]));
    // 3.00 at the hop and 1.5 at the deposit, in 10^-18 USD.
    expect(byId.get("party_debtor")?.exposure_usd_units).toBe(45n * 10n ** 17n);
    expect(byId.get(HOP)?.exposure_usd_units).toBe(3n * 10n ** 18n);
    expect(byId.get("hyp_a")?.exposure_usd_units).toBe(15n * 10n ** 17n);
    expect(byId.get(HOP)?.freeze_capability).toContain("Circle");
    expect(byId.get(DEPOSIT)?.packet_readiness).toBe("ready");
    expect(byId.get("party_debtor")).toMatchObject({ packet_readiness: "ready", confidence: 1 });
    expect(byId.get(DEBTOR_WALLET.toLowerCase())?.confidence).toBe(1);
    expect(byId.get(HOP)?.confidence).toBe(0.6);
  });

  it("leaves out a frozen stablecoin's freeze capability and maps traced from others' wallets", () => {
    const frozen = assetMap({
      stablecoin_exposure: assetMap().stablecoin_exposure.map((s) => ({ ...s, frozen: true })),
    });
    expect(collectFocusTargets([debtor], [frozen]).find((t) => t.target_id === HOP)?.freeze_capability).toBeNull();
    const foreign = assetMap({ subjects: ["0x0000000000000000000000000000000000000b0b"] });
    expect(collectFocusTargets([debtor], [foreign]).map((t) => t.target_type)).toEqual(["party", "wallet"]);
  });

  it("gives a deposit wallet its hypotheses' readiness whichever map or party names the wallet first", () => {
    const [hypothesisOnly, holdingOnly] = [
      assetMap({ id: "amap_1", token_exposures: [], stablecoin_exposure: [] }),
      assetMap({
        id: "amap_2",
        exchange_hypotheses: [],
        stablecoin_exposure: [],
        token_exposures: assetMap().token_exposures.filter((exposure) => exposure.wallet === DEPOSIT),
      }),
    ];
    // The hypothesis (amap_1) comes before the map that finds the deposit wallet holding funds (amap_2).
    const byMaps = collectFocusTargets([debtor], [hypothesisOnly, holdingOnly]);
    expect(byMaps.find((t) => t.target_id === DEPOSIT)?.packet_readiness).toBe("ready");
    // The debtor's hypothesis comes before the party (later in id order) that records the deposit wallet.
    const holder: GraphParty = {
      ...counterparty,
      id: "party_z_holder",
      wallets: [{ address: DEPOSIT, network: "ethereum", label: null }],
    };
    const byParties = collectFocusTargets([debtor, holder], [hypothesisOnly]);
    expect(byParties.find((t) => t.target_id === DEPOSIT)?.packet_readiness).toBe("ready");
  });

  it("counts a wallet's holding at the latest map's figure, whichever pursued party reads which map", () => {
    const shared = "0x00000000000000000000000000000000000005a1";
    const other = "0x00000000000000000000000000000000000005a2";
    const wallets = [
      { address: shared, confidence: "high" as const },
      { address: other, confidence: "high" as const },
      { address: HOP, confidence: "medium" as const },
    ];
    const holdingAt = (usd: string) => assetMap().token_exposures.map((e) => ({ ...e, wallet: HOP, usd_value: usd }));
    const older = assetMap({
      id: "amap_1",
      subjects: [shared],
      wallets,
      exchange_hypotheses: [],
      stablecoin_exposure: [],
      token_exposures: holdingAt("1.00").slice(0, 1),
    });
    const newer = assetMap({
      id: "amap_2",
      subjects: [shared, other],
      wallets,
      exchange_hypotheses: [],
      stablecoin_exposure: [],
      token_exposures: holdingAt("5.00").slice(0, 1),
    });
    // Both parties hold the shared wallet; only the first also holds the newer map's other subject, so
    // the second party reads the holding from the older map alone.
    const first: GraphParty = {
      ...debtor,
      id: "party_a",
      wallets: [
        { address: shared, network: "ethereum", label: null },
        { address: other, network: "ethereum", label: null },
      ],
    };
    const second: GraphParty = {
      ...debtor,
      id: "party_b",
      wallets: [{ address: shared, network: "ethereum", label: null }],
    };
    const targets = collectFocusTargets([first, second], [older, newer]);
    expect(targets.find((t) => t.target_id === HOP)?.exposure_usd_units).toBe(5n * 10n ** 18n);
  });

  it("scores the weighted mean of the criteria and ranks highest first", () => {
    const ranked = rankFocusTargets(targets, ["exposure"], {});
    expect(ranked.map((t) => [t.target_id, t.focus_score])).toEqual([
      ["party_debtor", 1],
      [HOP, 0.6667],
      [DEPOSIT, 0.3333],
      ["hyp_a", 0.3333],
      [DEBTOR_WALLET.toLowerCase(), 0],
    ]);
    expect(ranked[1]?.reason).toBe("exposure 0.6667 × 1 (USD 3.00 of the highest USD 4.50)");

    const weighted = rankFocusTargets(targets, ["exposure", "packet_readiness"], { exposure: 1, packet_readiness: 3 });
    const hyp = weighted.find((t) => t.target_id === "hyp_a");
    expect(hyp?.criteria_scores).toEqual({ exposure: 0.3333, packet_readiness: 1 });
    expect(hyp?.focus_score).toBe(0.8333);
  });

  it("breaks ties by target type, then target id, whatever the input order", () => {
    const ranked = rankFocusTargets([...targets].reverse(), ["freeze_capability"], {});
    expect(ranked.map((t) => [t.target_type, t.target_id, t.focus_score])).toEqual([
      ["party", "party_debtor", 1],
      ["wallet", HOP, 1],
      ["exchange_hypothesis", "hyp_a", 1],
      ["wallet", DEPOSIT, 0],
      ["wallet", DEBTOR_WALLET.toLowerCase(), 0],
    ]);
    expect(rankFocusTargets(targets, ["freeze_capability"], {})).toEqual(ranked);
  });

  it("ignores a zero weight's criterion and refuses all-zero weights", () => {
    const ranked = rankFocusTargets(targets, ["exposure", "confidence"], { exposure: 0 });
    expect(ranked.every((t) => t.focus_score === t.criteria_scores.confidence)).toBe(true);
    expect(() => rankFocusTargets(targets, ["exposure"], { exposure: 0 })).toThrow(RangeError);
  });

  it("scores exposure 0 for every target when no USD value is known", () => {
    const unpriced: FocusTarget[] = targets.map((t) => ({ ...t, exposure_usd_units: 0n }));
    expect(rankFocusTargets(unpriced, ["exposure"], {}).every((t) => t.focus_score === 0)).toBe(true);
  });
});

describe("expand", () => {
  const graph = buildDebtorGraph(
    { debtor, parties: [debtor, counterparty], judgments: [], assetMaps: [assetMap()] },
    DEBTOR_GRAPH_SOURCES,
  );

  it("proposes only what the debtor graph claims, and nothing already pursued", () => {
    const { leads, total } = proposeLeads(
      [{ party: debtor, graph }],
      ["parties", "wallets", "exchanges", "assets"],
      20,
    );
    expect(total).toBe(leads.length);
    expect(leads.map((lead) => [lead.lead_type, lead.node_id, lead.confidence])).toEqual([
      ["party", "party:party_counter", 1],
      ["wallet", `wallet:${HOP}`, 0.6],
      ["wallet", `wallet:${DEPOSIT}`, 0.6],
      ["exchange", "exchange:Example Exchange", 0.6],
      ["asset", `asset:ethereum:${USDC}`, 0.6],
      ["asset", "asset:ethereum:native", 0.6],
    ]);
    expect(leads[0]?.reason).toBe("Doe Trading counterparty_in matter_01 (debtor graph of Jane A. Roe)");
    expect(leads[1]?.reason).toBe(`Jane A. Roe funds_reached ${HOP} (debtor graph of Jane A. Roe)`);
    const claimIds = new Set(graph.claims.map((claim) => claim.claim_id));
    for (const lead of leads) {
      expect(lead.claim_ids.length).toBeGreaterThan(0);
      for (const id of lead.claim_ids) expect(claimIds.has(id)).toBe(true);
      expect(lead.lead_id).toMatch(/^lead_[0-9a-f]{26}$/);
    }
    // The debtor's own wallet is pursued: never a lead.
    expect(leads.some((lead) => lead.node_id === `wallet:${DEBTOR_WALLET.toLowerCase()}`)).toBe(false);
  });

  it("keeps the types asked for and at most max leads, saying how many there were", () => {
    const { leads, total } = proposeLeads([{ party: debtor, graph }], ["wallets"], 1);
    expect(leads.map((lead) => lead.node_id)).toEqual([`wallet:${HOP}`]);
    expect(total).toBe(2);
    // Pursuing the counterparty too makes it no lead.
    const other = buildDebtorGraph(
      { debtor: counterparty, parties: [debtor, counterparty], judgments: [], assetMaps: [] },
      DEBTOR_GRAPH_SOURCES,
    );
    const both = proposeLeads(
      [
        { party: debtor, graph },
        { party: counterparty, graph: other },
      ],
      ["parties"],
      20,
    );
    expect(both.leads).toEqual([]);
  });
});

describe("operator state", () => {
  const gates = deriveClawGates({
    sanctions_hold: false,
    judgment_stay_in_effect: false,
    authority_granted: true,
    pressure_level: 2,
    counsel_approval_id: null,
  });
  const ranked = rankFocusTargets(collectFocusTargets([debtor], [assetMap()]), ["exposure"], {});

  it("asks to clear a blocked gate first, then to focus, expand, escalate and distribute", () => {
    const blocked = gates.map((gate) => (gate.gate === "stay" ? { ...gate, status: "blocked" as const } : gate));
    expect(deriveOperatorState({ gates: blocked, focus: ranked, leads: [], pressure_level: 2 }).next_claw_action).toBe(
      "wait_for_stay_to_lift",
    );
    expect(deriveOperatorState({ gates, focus: null, leads: null, pressure_level: 2 })).toEqual({
      focus_score: 0,
      expand_queue: 0,
      next_claw_action: "focus",
    });
    expect(deriveOperatorState({ gates, focus: ranked, leads: null, pressure_level: 2 })).toEqual({
      focus_score: 1,
      expand_queue: 0,
      next_claw_action: "expand",
    });
    const { leads } = proposeLeads(
      [
        {
          party: debtor,
          graph: buildDebtorGraph(
            { debtor, parties: [debtor], judgments: [], assetMaps: [assetMap()] },
            DEBTOR_GRAPH_SOURCES,
          ),
        },
      ],
      ["wallets"],
      20,
    );
    expect(deriveOperatorState({ gates, focus: ranked, leads, pressure_level: 2 })).toEqual({
      focus_score: 1,
      expand_queue: 2,
      next_claw_action: "escalate",
    });
    expect(deriveOperatorState({ gates, focus: [], leads, pressure_level: 6 }).next_claw_action).toBe(
      "distribute_recoveries",
    );
  });
});

describe("blockers", () => {
  const facts = {
    matter_id: MATTER,
    authority_granted: true,
    open_sanctions_hits: [],
    judgment: { judgment_id: "judgment_1", case_number: "1:26-cv-1", stay_in_effect: false },
    judgments_in_review: [],
    actions_in_review: [],
    deadlines: [],
    today: "2026-07-01",
  };

  it("finds none on a clear record", () => {
    expect(deriveClawBlockers(facts)).toEqual([]);
  });

  it("lists each blocker with its type and the record to act on, in type order", () => {
    const blockers = deriveClawBlockers({
      ...facts,
      authority_granted: false,
      open_sanctions_hits: [{ hit_id: "hit_1", matched_value: "0xbad" }],
      judgment: { ...facts.judgment, stay_in_effect: true },
      judgments_in_review: [{ judgment_id: "judgment_2", case_number: "2:26-cv-2" }],
      actions_in_review: [{ action_id: "act_1", title: "Call the exchange" }],
      deadlines: [
        { judgment_id: "judgment_1", type: "renewal", date: "2026-06-30", status: "missed" },
        { judgment_id: "judgment_1", type: "packet", date: "2026-07-08", status: "open" },
        { judgment_id: "judgment_1", type: "monitoring", date: "2026-07-09", status: "open" },
        { judgment_id: "judgment_1", type: "service", date: "2026-06-01", status: "met" },
      ],
    });
    expect(blockers.map((b) => [b.type, b.object_id])).toEqual([
      ["authority", MATTER],
      ["sanctions", "hit_1"],
      ["stay", "judgment_1"],
      ["review", "judgment_2"],
      ["review", "act_1"],
      ["deadline", "judgment_1"],
      ["deadline", "judgment_1"],
    ]);
    expect(blockers[5]?.message).toContain("missed");
    expect(blockers[6]?.message).toContain("in 7 days");
  });
});
