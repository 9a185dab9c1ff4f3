import type { ActionPriority } from "./actions";
import { isDueWithin } from "./dashboard";
import type { Deadline } from "./deadlines";
import { hashCanonical } from "./hashing";
import type { PacketType } from "./packets";
import { addressComparisonKey } from "./parties";
import { type SanctionsEntry, screenParties } from "./sanctions";
import { formatBaseUnits, parseDecimalToBaseUnits } from "./tracing/amounts";
import { labelsValidAt } from "./tracing/labels";
import type { AddressLabel, AssetRef, Network } from "./tracing/types";

/**
 * Monitoring (watchlists and alerts, 2026-06-11): what a watchlist's thresholds make of its alert
 * rules, which facts raise which alert with which severity, and how an alert is triaged. Pure: the
 * sweep (services) reads the chain provider and the case record and hands the facts here.
 */

export const ALERT_TYPES = [
  "wallet_movement",
  "exchange_proximity",
  "stablecoin_exposure",
  "sanctions",
  "deadline",
  "compliance",
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export const ALERT_SEVERITIES = ["low", "medium", "high", "critical"] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

export const ALERT_STATUSES = ["new", "actionable", "false_positive", "escalated", "closed"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** The statuses a triage may set (`new` is only where an alert starts). */
export const TRIAGE_STATUSES = ["actionable", "false_positive", "escalated", "closed"] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

export const WATCHLIST_STATUSES = ["active"] as const;
export type WatchlistStatus = (typeof WATCHLIST_STATUSES)[number];

/** The days ahead an open deadline raises a `deadline` alert, unless the thresholds say otherwise. */
export const DEFAULT_DEADLINE_ALERT_DAYS = 7;
export const MAX_DEADLINE_ALERT_DAYS = 90;

/** A watchlist's thresholds as stored: every default filled in. Amounts are plain decimals in the asset's whole units. */
export interface WatchlistThresholds {
  wallet_movement: boolean;
  movement_min_amount: string;
  exchange_proximity: boolean;
  stablecoin_exposure: boolean;
  stablecoin_min_amount: string;
  sanctions: boolean;
  deadline: boolean;
  deadline_days: number;
  compliance: boolean;
}

export type WatchlistThresholdsInput = Partial<WatchlistThresholds>;

/** Fills the defaults: every rule on, every amount threshold 0 (any movement), deadlines 7 days ahead. */
export function normalizeThresholds(input: WatchlistThresholdsInput = {}): WatchlistThresholds {
  return {
    wallet_movement: input.wallet_movement ?? true,
    movement_min_amount: input.movement_min_amount ?? "0",
    exchange_proximity: input.exchange_proximity ?? true,
    stablecoin_exposure: input.stablecoin_exposure ?? true,
    stablecoin_min_amount: input.stablecoin_min_amount ?? "0",
    sanctions: input.sanctions ?? true,
    deadline: input.deadline ?? true,
    deadline_days: input.deadline_days ?? DEFAULT_DEADLINE_ALERT_DAYS,
    compliance: input.compliance ?? true,
  };
}

/** The severity each alert raises with; a deadline already missed is `high`, one still due `medium`. */
export const ALERT_SEVERITY: Record<AlertType, AlertSeverity> = {
  wallet_movement: "medium",
  exchange_proximity: "high",
  stablecoin_exposure: "medium",
  sanctions: "critical",
  deadline: "medium",
  compliance: "high",
};
const MISSED_DEADLINE_SEVERITY: AlertSeverity = "high";

export interface AlertRule {
  type: AlertType;
  enabled: boolean;
  severity: AlertSeverity;
  /** the rule's threshold as the watchlist set it (an amount, a number of days), null for rules without one */
  threshold: string | number | null;
  /** what raises the alert, in words */
  condition: string;
}

/** A watchlist's alert rules, one per alert type, from its thresholds. */
export function alertRulesFromThresholds(thresholds: WatchlistThresholds): AlertRule[] {
  const t = thresholds;
  return [
    {
      type: "wallet_movement",
      enabled: t.wallet_movement,
      severity: ALERT_SEVERITY.wallet_movement,
      threshold: t.movement_min_amount,
      condition: `a transfer in or out of a watched address of at least ${t.movement_min_amount} of its asset (whole units)`,
    },
    {
      type: "exchange_proximity",
      enabled: t.exchange_proximity,
      severity: ALERT_SEVERITY.exchange_proximity,
      threshold: null,
      condition: "a transfer between a watched address and an address the chain's labels attribute to an exchange",
    },
    {
      type: "stablecoin_exposure",
      enabled: t.stablecoin_exposure,
      severity: ALERT_SEVERITY.stablecoin_exposure,
      threshold: t.stablecoin_min_amount,
      condition: `a transfer in or out of a watched address of at least ${t.stablecoin_min_amount} of a stablecoin with a known issuer`,
    },
    {
      type: "sanctions",
      enabled: t.sanctions,
      severity: ALERT_SEVERITY.sanctions,
      threshold: null,
      condition:
        "a watched address on the sanctions list, or a transfer with a counterparty on the list or labelled sanctioned by the chain's labels",
    },
    {
      type: "deadline",
      enabled: t.deadline,
      severity: ALERT_SEVERITY.deadline,
      threshold: t.deadline_days,
      condition: `a deadline of the matter's judgments due within ${t.deadline_days} days (medium), or missed (${MISSED_DEADLINE_SEVERITY})`,
    },
    {
      type: "compliance",
      enabled: t.compliance,
      severity: ALERT_SEVERITY.compliance,
      threshold: null,
      condition: "an open sanctions hit on the matter, or a judgment's enforcement review pending",
    },
  ];
}

/** Whether a threshold amount is a plain non-negative decimal with at most 18 decimal places. */
export function isThresholdAmount(text: string): boolean {
  return /^\d{1,30}(\.\d{1,18})?$/.test(text);
}

/** Where an alert points: an address, a deadline, a sanctions hit or a judgment. */
export interface AlertTarget {
  kind: "address" | "deadline" | "sanctions_hit" | "judgment";
  id: string;
  network: Network | null;
}

/** An alert a fact raises, before it is recorded. `fact_key` is what makes it the same alert on every sweep. */
export interface AlertCandidate {
  type: AlertType;
  severity: AlertSeverity;
  target: AlertTarget;
  reason: string;
  fact_key: string;
  fact: Record<string, unknown>;
}

/** One transfer in or out of a watched address, with what is known about its counterparty. */
export interface WatchedTransfer {
  network: Network;
  watched_address: string;
  tx_hash: string;
  event_index: number;
  block: bigint;
  block_time: number;
  from: string;
  to: string;
  asset: AssetRef;
  amount: bigint;
  /** the counterparty's labels (all of them; validity is checked at the block time here) */
  counterparty_labels: readonly AddressLabel[];
  /** the issuer of the asset when it is a stablecoin with known issuer controls, else null */
  stablecoin_issuer: string | null;
}

function amountText(amount: bigint, asset: AssetRef): string {
  const symbol = asset.symbol ?? (asset.kind === "native" ? "native coin" : asset.contract);
  return asset.decimals === null
    ? `${amount} base units of ${symbol}`
    : `${formatBaseUnits(amount, asset.decimals)} ${symbol}`;
}

/** The threshold in the asset's base units; an asset whose decimals are unknown is compared in base units. */
function thresholdUnits(threshold: string, asset: AssetRef): bigint {
  const [whole = "0", fraction = ""] = threshold.split(".");
  const decimals = asset.decimals ?? 0;
  const kept = fraction.slice(0, decimals);
  const units = parseDecimalToBaseUnits(kept ? `${whole}.${kept}` : whole, decimals);
  // Digits finer than the asset's smallest unit round the threshold up: no amount below it passes.
  return /[1-9]/.test(fraction.slice(decimals)) ? units + 1n : units;
}

function sanctionsEntryKey(entry: SanctionsEntry): string {
  return hashCanonical({ kind: entry.kind, value: entry.value, network: entry.network, program: entry.program });
}

/** The alerts one transfer of a watched address raises under a watchlist's thresholds. */
export function alertsForTransfer(
  transfer: WatchedTransfer,
  thresholds: WatchlistThresholds,
  sanctionsList: readonly SanctionsEntry[],
): AlertCandidate[] {
  const watched = addressComparisonKey(transfer.watched_address);
  const outgoing = addressComparisonKey(transfer.from) === watched;
  const counterparty = outgoing ? transfer.to : transfer.from;
  const direction = outgoing ? `sent to ${counterparty}` : `received from ${counterparty}`;
  const moved = `${transfer.watched_address} ${direction} ${amountText(transfer.amount, transfer.asset)} in ${transfer.tx_hash} (event ${transfer.event_index}, block ${transfer.block})`;
  const factKey = `${transfer.network}:${transfer.tx_hash}:${transfer.event_index}:${watched}`;
  const fact = {
    network: transfer.network,
    tx_hash: transfer.tx_hash,
    event_index: transfer.event_index,
    block: transfer.block.toString(),
    block_time: new Date(transfer.block_time * 1000).toISOString(),
    from: transfer.from,
    to: transfer.to,
    direction: outgoing ? "out" : "in",
    counterparty,
    asset: { kind: transfer.asset.kind, contract: transfer.asset.contract, symbol: transfer.asset.symbol },
    amount:
      transfer.asset.decimals === null
        ? transfer.amount.toString()
        : formatBaseUnits(transfer.amount, transfer.asset.decimals),
    base_units: transfer.amount.toString(),
  };
  const target: AlertTarget = { kind: "address", id: transfer.watched_address, network: transfer.network };
  const raise = (
    type: AlertType,
    reason: string,
    extra: Record<string, unknown> = {},
    key = factKey,
  ): AlertCandidate => ({
    type,
    severity: ALERT_SEVERITY[type],
    target,
    reason,
    fact_key: key,
    fact: { ...fact, ...extra },
  });
  const alerts: AlertCandidate[] = [];

  if (thresholds.wallet_movement && transfer.amount >= thresholdUnits(thresholds.movement_min_amount, transfer.asset)) {
    alerts.push(
      raise("wallet_movement", `Movement: ${moved}, at least the threshold ${thresholds.movement_min_amount}.`),
    );
  }
  const labels = labelsValidAt(transfer.counterparty_labels, transfer.block_time);
  const exchange = labels.find((label) => label.category === "exchange" || label.category === "exchange_deposit");
  if (thresholds.exchange_proximity && exchange) {
    alerts.push(
      raise(
        "exchange_proximity",
        `Exchange proximity: ${moved}; ${counterparty} is labelled ${exchange.category} of ${exchange.entity} (${exchange.source.dataset}, confidence ${exchange.confidence}).`,
        { label: { entity: exchange.entity, category: exchange.category, dataset: exchange.source.dataset } },
      ),
    );
  }
  if (
    thresholds.stablecoin_exposure &&
    transfer.stablecoin_issuer !== null &&
    transfer.amount >= thresholdUnits(thresholds.stablecoin_min_amount, transfer.asset)
  ) {
    alerts.push(
      raise(
        "stablecoin_exposure",
        `Stablecoin exposure: ${moved}; the token is issued by ${transfer.stablecoin_issuer}, which can freeze it.`,
        { issuer: transfer.stablecoin_issuer },
      ),
    );
  }
  if (thresholds.sanctions) {
    const hits = screenParties([{ party_id: "counterparty", name: "", wallets: [counterparty] }], sanctionsList);
    for (const hit of hits) {
      alerts.push(
        raise(
          "sanctions",
          `Sanctions: ${moved}; the counterparty is on the sanctions list (${hit.entry.program ?? "no programme"}, ${hit.entry.source}).`,
          { list_entry: hit.entry },
          `${factKey}:list:${sanctionsEntryKey(hit.entry)}`,
        ),
      );
    }
    const flagged = labels.find((label) => label.category === "sanctioned");
    if (flagged) {
      alerts.push(
        raise(
          "sanctions",
          `Sanctions: ${moved}; the counterparty is labelled sanctioned (${flagged.entity}, ${flagged.source.dataset}${flagged.note ? `: ${flagged.note}` : ""}).`,
          { label: { entity: flagged.entity, category: flagged.category, dataset: flagged.source.dataset } },
          `${factKey}:label`,
        ),
      );
    }
  }
  return alerts;
}

/** The sanctions alerts a watched address raises by being on the list itself (once per list entry). */
export function alertsForWatchedAddress(
  address: string,
  network: Network,
  thresholds: WatchlistThresholds,
  sanctionsList: readonly SanctionsEntry[],
): AlertCandidate[] {
  if (!thresholds.sanctions) return [];
  const hits = screenParties([{ party_id: "watched", name: "", wallets: [address] }], sanctionsList);
  return hits.map((hit) => ({
    type: "sanctions",
    severity: ALERT_SEVERITY.sanctions,
    target: { kind: "address", id: address, network },
    reason: `Sanctions: the watched address ${address} is on the sanctions list (${hit.entry.program ?? "no programme"}, ${hit.entry.source}).`,
    fact_key: `address:${addressComparisonKey(address)}:list:${sanctionsEntryKey(hit.entry)}`,
    fact: { address, list_entry: hit.entry },
  }));
}

/** What the case record says about one matter, as the sweep reads it. */
export interface MatterCaseFacts {
  today: string;
  deadlines: readonly (Pick<Deadline, "key" | "type" | "date" | "status" | "basis"> & {
    deadline_id: string;
    judgment_id: string;
  })[];
  open_sanctions_hits: readonly { hit_id: string; matched_value: string; entry_value: string; entry_source: string }[];
  /**
   * `since`: when the review was asked for, as recorded: the enforcement posture that set it (a new posture
   * is a new request, so a new fact); null when the judgment has no posture (the review was asked for by a
   * PATCH of its review status, which records no time of its own), and then the judgment alone is the fact
   */
  pending_reviews: readonly { judgment_id: string; case_number: string; since: string | null }[];
}

/**
 * The alerts the case record raises: a deadline missed, or due within `deadline_days` (a deadline that
 * is first due and later missed raises one alert for each); an open sanctions hit; a judgment whose
 * enforcement review is pending.
 */
export function alertsForCaseRecord(facts: MatterCaseFacts, thresholds: WatchlistThresholds): AlertCandidate[] {
  const alerts: AlertCandidate[] = [];
  if (thresholds.deadline) {
    for (const deadline of facts.deadlines) {
      const missed = deadline.status === "missed";
      if (!missed && !isDueWithin(deadline, facts.today, thresholds.deadline_days)) continue;
      const phase = missed ? "missed" : "due";
      alerts.push({
        type: "deadline",
        severity: missed ? MISSED_DEADLINE_SEVERITY : ALERT_SEVERITY.deadline,
        target: { kind: "deadline", id: deadline.deadline_id, network: null },
        reason: missed
          ? `Deadline missed: the ${deadline.type} deadline of judgment ${deadline.judgment_id} was ${deadline.date} (${deadline.basis}).`
          : `Deadline due: the ${deadline.type} deadline of judgment ${deadline.judgment_id} is ${deadline.date}, within ${thresholds.deadline_days} days of ${facts.today} (${deadline.basis}).`,
        fact_key: `deadline:${deadline.deadline_id}:${phase}`,
        fact: {
          deadline_id: deadline.deadline_id,
          judgment_id: deadline.judgment_id,
          key: deadline.key,
          deadline_type: deadline.type,
          date: deadline.date,
          status: deadline.status,
          as_of: facts.today,
        },
      });
    }
  }
  if (thresholds.compliance) {
    for (const hit of facts.open_sanctions_hits) {
      alerts.push({
        type: "compliance",
        severity: ALERT_SEVERITY.compliance,
        target: { kind: "sanctions_hit", id: hit.hit_id, network: null },
        reason: `Compliance: sanctions hit ${hit.hit_id} is open ('${hit.matched_value}' matches the list entry '${hit.entry_value}', ${hit.entry_source}); ordinary collection is on hold until a reviewer clears it.`,
        fact_key: `sanctions_hit:${hit.hit_id}`,
        fact: { hit_id: hit.hit_id, matched_value: hit.matched_value, entry_value: hit.entry_value },
      });
    }
    for (const review of facts.pending_reviews) {
      alerts.push({
        type: "compliance",
        severity: ALERT_SEVERITY.compliance,
        target: { kind: "judgment", id: review.judgment_id, network: null },
        reason:
          review.since === null
            ? `Compliance: the enforcement review of judgment ${review.judgment_id} (case ${review.case_number}) is pending.`
            : `Compliance: the enforcement review of judgment ${review.judgment_id} (case ${review.case_number}) is pending since ${review.since}.`,
        // Keyed on what records the request, never on the judgment's own updated_at: a PATCH of its review
        // owner or notes is not a new request.
        fact_key:
          review.since === null ? `review:${review.judgment_id}` : `review:${review.judgment_id}:${review.since}`,
        fact: { judgment_id: review.judgment_id, case_number: review.case_number, pending_since: review.since },
      });
    }
  }
  return alerts;
}

// ---------------------------------------------------------------------------------------------
// Triage

const TRIAGE_TRANSITIONS: Record<AlertStatus, readonly TriageStatus[]> = {
  new: ["actionable", "false_positive", "escalated", "closed"],
  actionable: ["escalated", "closed"],
  escalated: ["actionable", "closed"],
  false_positive: [],
  closed: [],
};

/** The statuses an alert can still move from: what is left to act on (new, actionable, escalated). */
export const OPEN_ALERT_STATUSES: readonly AlertStatus[] = ALERT_STATUSES.filter(
  (status) => TRIAGE_TRANSITIONS[status].length > 0,
);

/** A status may follow an alert's current one; a packet or an action follows up only an actionable or escalated alert. */
const FOLLOWED_UP: readonly TriageStatus[] = ["actionable", "escalated"];

export type TriageRefusal =
  | { code: "conflict"; param: "status" | "create_packet_type" | "create_action"; message: string }
  | { code: "invalid_request"; param: "create_packet_type" | "create_action"; message: string };

/**
 * Why a triage cannot happen, or null: the transition and the follow-ups it asks for. An alert is
 * followed up by at most one packet and one action: asking for another when it has one is a conflict
 * naming the one it has.
 */
export function findTriageRefusal(input: {
  from: AlertStatus;
  to: TriageStatus;
  create_packet: boolean;
  create_action: boolean;
  /** the packet and action the alert's triage already created, if any */
  packet_id?: string | null;
  action_id?: string | null;
}): TriageRefusal | null {
  const allowed = TRIAGE_TRANSITIONS[input.from];
  if (!allowed.includes(input.to)) {
    return {
      code: "conflict",
      param: "status",
      message:
        allowed.length === 0
          ? `The alert is ${input.from}: its triage is final.`
          : `An alert that is ${input.from} can become ${allowed.join(" or ")}, not ${input.to}.`,
    };
  }
  for (const [asked, param, what] of [
    [input.create_packet, "create_packet_type", "a packet"],
    [input.create_action, "create_action", "an action"],
  ] as const) {
    if (asked && !FOLLOWED_UP.includes(input.to)) {
      return {
        code: "invalid_request",
        param,
        message: `${what} follows up an alert triaged actionable or escalated, not ${input.to}.`,
      };
    }
  }
  for (const [asked, existing, param, what] of [
    [input.create_packet, input.packet_id, "create_packet_type", "packet"],
    [input.create_action, input.action_id, "create_action", "action"],
  ] as const) {
    if (asked && existing) {
      return {
        code: "conflict",
        param,
        message: `The alert already has its follow-up ${what} ${existing}: an alert is followed up by one ${what}.`,
      };
    }
  }
  return null;
}

/**
 * The packet types a triage may create to follow up an alert: those that act on, or report, an address
 * the sweep saw (a venue's intercept, legal process, freeze or turnover; a referral to law enforcement).
 * Not `sanctions_review` and `ofac_report` (they bind a sanctions screen and a review, prepared through
 * the sanctions operations), `issuer_freeze` and `burn_reissue` (they bind the issuer, asset and
 * destination certificate the issuer remediation operations take), nor `destination_wallet_certificate`
 * (a wallet the creditor controls, not one the sweep watches).
 */
export const ALERT_FOLLOW_UP_PACKET_TYPES = [
  "exchange_intercept",
  "vasp_legal_process",
  "exchange_freeze",
  "exchange_turnover",
  "turnover_workflow",
  "law_enforcement_referral",
] as const satisfies readonly PacketType[];
export type AlertFollowUpPacketType = (typeof ALERT_FOLLOW_UP_PACKET_TYPES)[number];

/** The action type a triage's `create_action` creates. */
export const ALERT_FOLLOW_UP_ACTION_TYPE = "alert_follow_up";

const FOLLOW_UP_PRIORITY: Record<AlertSeverity, ActionPriority> = {
  critical: "urgent",
  high: "high",
  medium: "normal",
  low: "low",
};

/** The action that follows up a triaged alert: its type, a title naming the alert, a priority from its severity. */
export function followUpActionFor(alert: {
  alert_id: string;
  type: AlertType;
  severity: AlertSeverity;
  reason: string;
}): {
  type: string;
  title: string;
  priority: ActionPriority;
} {
  const title = `Follow up ${alert.type} alert ${alert.alert_id}: ${alert.reason}`;
  return {
    type: ALERT_FOLLOW_UP_ACTION_TYPE,
    title: title.length > 500 ? `${title.slice(0, 499)}…` : title,
    priority: FOLLOW_UP_PRIORITY[alert.severity],
  };
}
