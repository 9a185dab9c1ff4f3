import { describe, expect, it } from "vitest";
import {
  type AddressLabel,
  ALERT_FOLLOW_UP_PACKET_TYPES,
  ALERT_TYPES,
  alertRulesFromThresholds,
  alertsForCaseRecord,
  alertsForTransfer,
  alertsForWatchedAddress,
  findTriageRefusal,
  followUpActionFor,
  isThresholdAmount,
  normalizeThresholds,
  SANDBOX_SANCTIONS_LIST,
  TRIAGE_STATUSES,
  type WatchedTransfer,
} from "../src";

const WATCHED = "0x5eed0000000700000000000000000000000000aa";
const OTHER = "0x5eed0000000700000000000000000000000000bb";
const LISTED = "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0001";
const SUSD = {
  kind: "erc20",
  contract: "0x5eed000000070000000000000000000000000000",
  decimals: 6,
  symbol: "sUSD",
} as const;
const SETH = { kind: "native", contract: null, decimals: 18, symbol: "sETH" } as const;

function label(category: AddressLabel["category"], extra: Partial<AddressLabel> = {}): AddressLabel {
  return {
    network: "synthetic:eth",
    address: OTHER,
    entity: "Exchange A (synthetic)",
    category,
    confidence: 70,
    confidence_basis: "ownership",
    source: { dataset: "synthetic", uri: null, license: null, as_of: null, retrieved_at: null },
    valid_from: null,
    valid_to: null,
    note: null,
    ...extra,
  };
}

function transfer(extra: Partial<WatchedTransfer> = {}): WatchedTransfer {
  return {
    network: "synthetic:eth",
    watched_address: WATCHED,
    tx_hash: `0x${"ab".repeat(32)}`,
    event_index: -1,
    block: 12n,
    block_time: 1_767_225_744,
    from: WATCHED,
    to: OTHER,
    asset: SETH,
    amount: 2n * 10n ** 18n,
    counterparty_labels: [],
    stablecoin_issuer: null,
    ...extra,
  };
}

const typesOf = (alerts: { type: string }[]) => alerts.map((alert) => alert.type);

describe("alert rules come from thresholds", () => {
  it("fills every default and lists one rule per alert type", () => {
    const thresholds = normalizeThresholds();
    expect(thresholds).toMatchObject({ movement_min_amount: "0", deadline_days: 7, sanctions: true });
    const rules = alertRulesFromThresholds(thresholds);
    expect(rules.map((rule) => rule.type)).toEqual([...ALERT_TYPES]);
    expect(rules.every((rule) => rule.enabled)).toBe(true);
  });

  it("carries the thresholds into the rules", () => {
    const rules = alertRulesFromThresholds(
      normalizeThresholds({ movement_min_amount: "1.5", deadline_days: 14, exchange_proximity: false }),
    );
    expect(rules.find((rule) => rule.type === "wallet_movement")).toMatchObject({ threshold: "1.5" });
    expect(rules.find((rule) => rule.type === "deadline")?.condition).toContain("14 days");
    expect(rules.find((rule) => rule.type === "exchange_proximity")?.enabled).toBe(false);
  });

  it("takes plain decimals only as amount thresholds", () => {
    expect(["0", "1.5", "10", "0.000000000000000001"].every(isThresholdAmount)).toBe(true);
    expect(["-1", "1e3", "1.", ".5", "0.0000000000000000001", "abc"].some(isThresholdAmount)).toBe(false);
  });
});

describe("alerts a transfer raises", () => {
  it("raises a wallet movement at or above the threshold, and not below it", () => {
    const at = alertsForTransfer(transfer(), normalizeThresholds({ movement_min_amount: "2" }), []);
    expect(typesOf(at)).toEqual(["wallet_movement"]);
    expect(at[0]).toMatchObject({
      severity: "medium",
      target: { kind: "address", id: WATCHED, network: "synthetic:eth" },
      fact_key: `synthetic:eth:0x${"ab".repeat(32)}:-1:${WATCHED}`,
    });
    expect(at[0]?.reason).toContain(`sent to ${OTHER} 2 sETH`);
    expect(
      alertsForTransfer(transfer(), normalizeThresholds({ movement_min_amount: "2.000000000000000001" }), []),
    ).toEqual([]);
  });

  it("rounds a threshold finer than the asset's unit up, so nothing below it passes", () => {
    const stable = transfer({ asset: SUSD, amount: 1_000_000n });
    expect(typesOf(alertsForTransfer(stable, normalizeThresholds({ movement_min_amount: "1.0000001" }), []))).toEqual(
      [],
    );
    expect(typesOf(alertsForTransfer(stable, normalizeThresholds({ movement_min_amount: "1.0000000" }), []))).toEqual([
      "wallet_movement",
    ]);
  });

  it("raises exchange proximity for a counterparty labelled exchange at the transfer's time only", () => {
    const thresholds = normalizeThresholds({ wallet_movement: false });
    const alerts = alertsForTransfer(transfer({ counterparty_labels: [label("exchange")] }), thresholds, []);
    expect(typesOf(alerts)).toEqual(["exchange_proximity"]);
    expect(alerts[0]?.severity).toBe("high");
    expect(alerts[0]?.reason).toContain("Exchange A (synthetic)");
    const expired = label("exchange_deposit", { valid_to: 1_767_225_700 });
    expect(alertsForTransfer(transfer({ counterparty_labels: [expired] }), thresholds, [])).toEqual([]);
  });

  it("raises stablecoin exposure for a token with a known issuer above its own threshold", () => {
    const thresholds = normalizeThresholds({ wallet_movement: false, stablecoin_min_amount: "5" });
    const incoming = transfer({
      from: OTHER,
      to: WATCHED,
      asset: SUSD,
      amount: 5_000_000n,
      stablecoin_issuer: "sUSD Issuer",
    });
    const alerts = alertsForTransfer(incoming, thresholds, []);
    expect(typesOf(alerts)).toEqual(["stablecoin_exposure"]);
    expect(alerts[0]?.reason).toContain(`received from ${OTHER} 5 sUSD`);
    expect(alertsForTransfer({ ...incoming, amount: 4_999_999n }, thresholds, [])).toEqual([]);
    expect(alertsForTransfer({ ...incoming, stablecoin_issuer: null }, thresholds, [])).toEqual([]);
  });

  it("raises sanctions for a counterparty on the list or labelled sanctioned, each its own fact", () => {
    const thresholds = normalizeThresholds({ wallet_movement: false });
    const listed = alertsForTransfer(transfer({ to: LISTED }), thresholds, SANDBOX_SANCTIONS_LIST);
    expect(typesOf(listed)).toEqual(["sanctions"]);
    expect(listed[0]?.severity).toBe("critical");
    expect(listed[0]?.reason).toContain("SANDBOX-CYBER");
    const labelled = alertsForTransfer(
      transfer({ counterparty_labels: [label("sanctioned", { entity: "Sanctioned person 1 (synthetic)" })] }),
      thresholds,
      [],
    );
    expect(typesOf(labelled)).toEqual(["sanctions"]);
    expect(labelled[0]?.fact_key).not.toBe(listed[0]?.fact_key);
    expect(
      alertsForTransfer(
        transfer({ to: LISTED }),
        normalizeThresholds({ wallet_movement: false, sanctions: false }),
        SANDBOX_SANCTIONS_LIST,
      ),
    ).toEqual([]);
  });

  it("gives the same fact key for the same transfer, whatever else changes", () => {
    const a = alertsForTransfer(transfer(), normalizeThresholds(), []);
    const b = alertsForTransfer(
      transfer({ block_time: 1_767_225_999 }),
      normalizeThresholds({ movement_min_amount: "1" }),
      [],
    );
    expect(a.map((alert) => alert.fact_key)).toEqual(b.map((alert) => alert.fact_key));
  });

  it("raises sanctions for a watched address that is itself on the list", () => {
    const alerts = alertsForWatchedAddress(LISTED, "synthetic:eth", normalizeThresholds(), SANDBOX_SANCTIONS_LIST);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ type: "sanctions", target: { kind: "address", id: LISTED } });
    expect(alertsForWatchedAddress(WATCHED, "synthetic:eth", normalizeThresholds(), SANDBOX_SANCTIONS_LIST)).toEqual(
      [],
    );
  });
});

describe("alerts the case record raises", () => {
  const deadline = (date: string, status: "open" | "met" | "missed") => ({
    deadline_id: `dl_${date}`,
    judgment_id: "judgment_1",
    key: "renewal",
    type: "renewal" as const,
    date,
    status,
    basis: "test",
  });

  it("raises deadlines missed (high) or due within the window (medium), and not later ones or met ones", () => {
    const alerts = alertsForCaseRecord(
      {
        today: "2026-07-05",
        deadlines: [
          deadline("2026-07-01", "missed"),
          deadline("2026-07-12", "open"),
          deadline("2026-07-13", "open"),
          deadline("2026-07-06", "met"),
        ],
        open_sanctions_hits: [],
        pending_reviews: [],
      },
      normalizeThresholds(),
    );
    expect(alerts.map((alert) => [alert.target.id, alert.severity, alert.fact_key])).toEqual([
      ["dl_2026-07-01", "high", "deadline:dl_2026-07-01:missed"],
      ["dl_2026-07-12", "medium", "deadline:dl_2026-07-12:due"],
    ]);
  });

  it("raises compliance for open sanctions hits and pending enforcement reviews", () => {
    const alerts = alertsForCaseRecord(
      {
        today: "2026-07-05",
        deadlines: [],
        open_sanctions_hits: [{ hit_id: "hit_1", matched_value: LISTED, entry_value: LISTED, entry_source: "list" }],
        pending_reviews: [{ judgment_id: "judgment_1", case_number: "CV-1", since: "2026-07-01T00:00:00.000Z" }],
      },
      normalizeThresholds(),
    );
    expect(alerts.map((alert) => [alert.type, alert.target.kind, alert.target.id])).toEqual([
      ["compliance", "sanctions_hit", "hit_1"],
      ["compliance", "judgment", "judgment_1"],
    ]);
    expect(
      alertsForCaseRecord(
        {
          today: "2026-07-05",
          deadlines: [],
          open_sanctions_hits: [],
          pending_reviews: [{ judgment_id: "j", case_number: "c", since: "2026-07-01T00:00:00.000Z" }],
        },
        normalizeThresholds({ compliance: false }),
      ),
    ).toEqual([]);
  });
});

describe("the fact of a pending enforcement review", () => {
  const review = (since: string | null) =>
    alertsForCaseRecord(
      {
        today: "2026-07-05",
        deadlines: [],
        open_sanctions_hits: [],
        pending_reviews: [{ judgment_id: "judgment_1", case_number: "CV-1", since }],
      },
      normalizeThresholds(),
    );

  it("is the judgment alone when no posture records when it was asked for, so nothing else moves its key", () => {
    const [alert] = review(null);
    expect(alert?.fact_key).toBe("review:judgment_1");
    expect(alert?.fact).toMatchObject({ judgment_id: "judgment_1", pending_since: null });
    expect(alert?.reason).not.toContain("since");
  });

  it("is the judgment and its posture when one asked for it: a new posture is a new request", () => {
    expect(review("2026-07-01T00:00:00.000Z")[0]?.fact_key).toBe("review:judgment_1:2026-07-01T00:00:00.000Z");
    expect(review("2026-07-03T00:00:00.000Z")[0]?.fact_key).not.toBe(review("2026-07-01T00:00:00.000Z")[0]?.fact_key);
  });
});

describe("triage", () => {
  it("moves a new alert to any triage status", () => {
    for (const to of TRIAGE_STATUSES) {
      expect(findTriageRefusal({ from: "new", to, create_packet: false, create_action: false })).toBeNull();
    }
  });

  it("refuses to reopen a final triage or to repeat a status (409)", () => {
    expect(
      findTriageRefusal({ from: "closed", to: "actionable", create_packet: false, create_action: false }),
    ).toMatchObject({ code: "conflict", param: "status" });
    expect(
      findTriageRefusal({ from: "false_positive", to: "closed", create_packet: false, create_action: false })?.message,
    ).toContain("final");
    expect(
      findTriageRefusal({ from: "actionable", to: "actionable", create_packet: false, create_action: false }),
    ).toMatchObject({ code: "conflict" });
    expect(
      findTriageRefusal({ from: "actionable", to: "closed", create_packet: false, create_action: false }),
    ).toBeNull();
    expect(
      findTriageRefusal({ from: "actionable", to: "false_positive", create_packet: false, create_action: false }),
    ).not.toBeNull();
  });

  it("follows up only an actionable or escalated alert with a packet or an action (422 naming the field)", () => {
    expect(
      findTriageRefusal({ from: "new", to: "false_positive", create_packet: true, create_action: false }),
    ).toMatchObject({ code: "invalid_request", param: "create_packet_type" });
    expect(findTriageRefusal({ from: "new", to: "closed", create_packet: false, create_action: true })).toMatchObject({
      code: "invalid_request",
      param: "create_action",
    });
    expect(findTriageRefusal({ from: "new", to: "escalated", create_packet: true, create_action: true })).toBeNull();
  });

  it("follows up an alert with one packet and one action: another is a conflict naming the field and the one it has", () => {
    const base = { from: "actionable", to: "escalated", packet_id: "pkt_1", action_id: "act_1" } as const;
    const packet = findTriageRefusal({ ...base, create_packet: true, create_action: false });
    expect(packet).toMatchObject({ code: "conflict", param: "create_packet_type" });
    expect(packet?.message).toContain("pkt_1");
    const action = findTriageRefusal({ ...base, create_packet: false, create_action: true });
    expect(action).toMatchObject({ code: "conflict", param: "create_action" });
    expect(action?.message).toContain("act_1");
    expect(findTriageRefusal({ ...base, create_packet: false, create_action: false })).toBeNull();
    expect(
      findTriageRefusal({ ...base, packet_id: "pkt_1", action_id: null, create_packet: false, create_action: true }),
    ).toBeNull();
  });

  it("offers as follow-up packets only those that act on or report a watched address", () => {
    expect([...ALERT_FOLLOW_UP_PACKET_TYPES].sort()).toEqual([
      "exchange_freeze",
      "exchange_intercept",
      "exchange_turnover",
      "law_enforcement_referral",
      "turnover_workflow",
      "vasp_legal_process",
    ]);
  });
});

describe("the follow-up action of a triage", () => {
  it("names the alert, keeps the title within 500 characters and takes its priority from the severity", () => {
    const action = followUpActionFor({
      alert_id: "alert_1",
      type: "sanctions",
      severity: "critical",
      reason: "x".repeat(600),
    });
    expect(action).toMatchObject({ type: "alert_follow_up", priority: "urgent" });
    expect(action.title.startsWith("Follow up sanctions alert alert_1: ")).toBe(true);
    expect(action.title.length).toBe(500);
    expect(followUpActionFor({ alert_id: "a", type: "deadline", severity: "medium", reason: "r" }).priority).toBe(
      "normal",
    );
  });
});
