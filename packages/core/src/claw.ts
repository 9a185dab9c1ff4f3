import { findEnforcementPostureRefusal } from "./authority";
import { daysBetween } from "./calendar-dates";
import { canonicalize } from "./canonical-json";
import { isDueWithin } from "./dashboard";
import type { DeadlineStatus, DeadlineType } from "./deadlines";
import {
  type ClaimSourceRef,
  contentId,
  type DebtorFacts,
  type DebtorGraph,
  debtorAssetMaps,
  debtorExchangeHypotheses,
  type GraphAssetMap,
  type GraphParty,
  holdingKey,
  isDebtorHolding,
  mapRef,
  partyNode,
  RECORDED_FACT_CONFIDENCE,
  TRACE_CONFIDENCE,
  walletNode,
} from "./debtor-graph";
import { parseMinorUnits } from "./money";
import { DEFAULT_DEADLINE_ALERT_DAYS } from "./monitoring";
import { addressComparisonKey } from "./parties";

/**
 * Claw campaigns (2026-06-11): a matter's enforcement campaign against one judgment. Its pressure level
 * says how far enforcement has gone, its mode how fast it may escalate; `focus` ranks the matter's
 * targets by weighted criteria, `expand` proposes leads from the debtor graph. Everything here is pure:
 * the service reads the record and stores what these functions return.
 */

// ---------------------------------------------------------------------------------------------
// Pressure levels and modes

/** The pressure levels, in order: `pressure_level` is the index (0 observe … 6 recover/distribute). */
export const CLAW_PRESSURE_LEVELS = [
  "observe",
  "prepare",
  "preserve",
  "discover",
  "freeze_block",
  "seize_turn_over",
  "recover_distribute",
] as const;
export type ClawPressureName = (typeof CLAW_PRESSURE_LEVELS)[number];
export const MAX_PRESSURE_LEVEL = CLAW_PRESSURE_LEVELS.length - 1;

/** Raising the pressure to this level (freeze/block) or above needs counsel's approval. */
export const COUNSEL_APPROVAL_LEVEL = 4;

export const CLAW_MODES = ["measured", "assertive", "emergency"] as const;
export type ClawMode = (typeof CLAW_MODES)[number];
export const DEFAULT_CLAW_MODE: ClawMode = "measured";

/**
 * How many levels one change may raise the pressure, by mode: `measured` one step at a time,
 * `assertive` two, `emergency` straight to any level. Lowering the pressure is always allowed.
 */
export const CLAW_MAX_RAISE: Record<ClawMode, number> = { measured: 1, assertive: 2, emergency: MAX_PRESSURE_LEVEL };

export function pressureLevelName(level: number): ClawPressureName {
  const name = CLAW_PRESSURE_LEVELS[level];
  if (name === undefined) throw new RangeError(`pressure level out of range: ${level}`);
  return name;
}

/** The levels a campaign at `from` in `mode` may move to in one change (its own level included). */
export function allowedPressureLevels(from: number, mode: ClawMode): number[] {
  const highest = Math.min(MAX_PRESSURE_LEVEL, from + CLAW_MAX_RAISE[mode]);
  return Array.from({ length: highest + 1 }, (_, level) => level);
}

export type PressureChangeCheck =
  | { refused: false; changed: boolean }
  /** a raise to COUNSEL_APPROVAL_LEVEL or above without a counsel approval */
  | { refused: true; reason: "counsel_approval_required"; allowed: number[] }
  /** a raise beyond what the mode allows in one change */
  | { refused: true; reason: "raise_too_far"; allowed: number[] };

/**
 * Whether a campaign at `from` in `mode` may move to `to`. A raise to freeze/block or above needs a
 * counsel approval (checked first: without one the request itself is incomplete); a raise beyond the
 * mode's step is refused with the levels it may reach. Lowering, and asking for the current level (no
 * move), need neither.
 */
export function checkPressureChange(input: {
  from: number;
  to: number;
  mode: ClawMode;
  counsel_approval_id: string | null;
}): PressureChangeCheck {
  const allowed = allowedPressureLevels(input.from, input.mode);
  if (input.to === input.from) return { refused: false, changed: false };
  if (input.to > input.from && input.to >= COUNSEL_APPROVAL_LEVEL && input.counsel_approval_id === null) {
    return { refused: true, reason: "counsel_approval_required", allowed };
  }
  if (!allowed.includes(input.to)) return { refused: true, reason: "raise_too_far", allowed };
  return { refused: false, changed: true };
}

/**
 * The counsel approval a campaign keeps after moving to `to`: the new one when given, else the one it
 * had while it stays at or above the approval level; none below it (a later raise needs a new one).
 */
export function counselApprovalAfter(to: number, kept: string | null, given: string | null): string | null {
  if (to < COUNSEL_APPROVAL_LEVEL) return null;
  return given ?? kept;
}

// ---------------------------------------------------------------------------------------------
// Gates

export const CLAW_GATES = ["sanctions", "stay", "authority", "counsel_approval"] as const;
export type ClawGateName = (typeof CLAW_GATES)[number];
export const CLAW_GATE_STATUSES = ["pass", "blocked", "not_required"] as const;
export type ClawGateStatus = (typeof CLAW_GATE_STATUSES)[number];

export interface ClawGate {
  gate: ClawGateName;
  status: ClawGateStatus;
  reasons: string[];
  required_actions: string[];
}

export interface ClawGateFacts {
  /** an unreviewed sanctions hit on the matter */
  sanctions_hold: boolean;
  /** a stay in effect on the campaign's judgment */
  judgment_stay_in_effect: boolean;
  authority_granted: boolean;
  pressure_level: number;
  counsel_approval_id: string | null;
}

export type ClawGateRefusal = "sanctions_gate" | "stay_in_effect" | "authority_required";

/**
 * The reason a campaign write (or an action of a campaign) is refused, or null. In the order packets
 * use: a sanctions hold, then a stay on the campaign's judgment, then missing authority; the bar the
 * caller can least work around is reported first.
 */
export function findClawGateRefusal(
  facts: Pick<ClawGateFacts, "sanctions_hold" | "judgment_stay_in_effect" | "authority_granted">,
): ClawGateRefusal | null {
  if (facts.sanctions_hold) return "sanctions_gate";
  return findEnforcementPostureRefusal(facts);
}

/** Each gate as a campaign shows it, in the order they are checked. */
export function deriveClawGates(facts: ClawGateFacts): ClawGate[] {
  const gate = (name: ClawGateName, blocked: boolean, reason: string, action: string): ClawGate =>
    blocked
      ? { gate: name, status: "blocked", reasons: [reason], required_actions: [action] }
      : { gate: name, status: "pass", reasons: [], required_actions: [] };
  const counselNeeded = facts.pressure_level >= COUNSEL_APPROVAL_LEVEL;
  return [
    gate(
      "sanctions",
      facts.sanctions_hold,
      "a sanctions hit on the matter awaits review",
      "have a reviewer clear or confirm each open sanctions hit",
    ),
    gate(
      "stay",
      facts.judgment_stay_in_effect,
      "the campaign's judgment is stayed (appeal stay or automatic bankruptcy stay)",
      "wait until the stay is lifted, then record it on the judgment",
    ),
    gate(
      "authority",
      !facts.authority_granted,
      "the matter has no granted authority",
      "validate one of the matter's judgments ready for enforcement, or have an operator grant authority",
    ),
    counselNeeded
      ? gate(
          "counsel_approval",
          facts.counsel_approval_id === null,
          `pressure level ${facts.pressure_level} needs a counsel approval`,
          "lower the pressure, or raise it again with counsel_approval_id",
        )
      : { gate: "counsel_approval", status: "not_required", reasons: [], required_actions: [] },
  ];
}

// ---------------------------------------------------------------------------------------------
// Focus: ranking the targets

/** What `focus` can weigh; each scores a target from 0 to 1. */
export const FOCUS_CRITERIA = ["exposure", "confidence", "packet_readiness", "freeze_capability"] as const;
export type FocusCriterion = (typeof FOCUS_CRITERIA)[number];
/** The largest weight one criterion may carry; weights are relative, so a scale of 0..100 is plenty. */
export const MAX_FOCUS_WEIGHT = 100;
export const DEFAULT_FOCUS_WEIGHT = 1;

/** Target types, in the order that breaks a tie in score (then the target id). */
export const FOCUS_TARGET_TYPES = ["party", "wallet", "exchange_hypothesis"] as const;
export type FocusTargetType = (typeof FOCUS_TARGET_TYPES)[number];

const READINESS_SCORE = { ready: 1, needs_review: 0.5, insufficient: 0 } as const;
type PacketReadiness = keyof typeof READINESS_SCORE;

/** One target with the facts the criteria read. */
export interface FocusTarget {
  target_type: FocusTargetType;
  /** a party id, a wallet's comparison address, or an exchange hypothesis id */
  target_id: string;
  label: string;
  /** the USD value traced to the target, in units of 10^-18 USD (exact); 0 when none is known */
  exposure_usd_units: bigint;
  confidence: number;
  packet_readiness: PacketReadiness | null;
  /** who can freeze what the target holds (an issuer, an exchange), or null when nobody is known to */
  freeze_capability: string | null;
  source_refs: ClaimSourceRef[];
}

export interface RankedTarget {
  target_type: FocusTargetType;
  target_id: string;
  label: string;
  focus_score: number;
  /** each weighed criterion's score, 0..1 */
  criteria_scores: Partial<Record<FocusCriterion, number>>;
  reason: string;
  source_refs: ClaimSourceRef[];
}

const USD_DECIMALS = 18;

function usdUnits(value: string | null): bigint {
  if (value === null) return 0n;
  try {
    return parseMinorUnits(value, USD_DECIMALS);
  } catch {
    return 0n;
  }
}

function usdText(units: bigint): string {
  const cents = units / 10n ** BigInt(USD_DECIMALS - 2);
  return `USD ${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`;
}

const betterReadiness = (a: PacketReadiness | null, b: PacketReadiness | null): PacketReadiness | null =>
  a === null ? b : b === null ? a : READINESS_SCORE[b] > READINESS_SCORE[a] ? b : a;

function addRefs(into: ClaimSourceRef[], refs: readonly ClaimSourceRef[]): void {
  const seen = new Set(into.map((ref) => canonicalize(ref)));
  for (const ref of refs) {
    const key = canonicalize(ref);
    if (!seen.has(key)) {
      seen.add(key);
      into.push(ref);
    }
  }
}

/**
 * The targets of the parties a campaign pursues, from what the record holds: each party; each wallet
 * recorded for it or found holding its traced funds; each exchange hypothesis of its traced funds.
 * What of an asset map is a party's is the debtor graph's rule (`debtorAssetMaps`); a holding found by
 * several maps counts once, as the most recent map (the last given) states it, whichever parties read
 * it. A wallet's readiness and an exchange hypothesis's exposure are settled once every party is read,
 * so neither depends on which map or party named the wallet first.
 */
export function collectFocusTargets(
  pursued: readonly GraphParty[],
  assetMaps: readonly GraphAssetMap[],
): FocusTarget[] {
  const parties: FocusTarget[] = [];
  const wallets = new Map<string, FocusTarget>();
  const hypotheses = new Map<string, FocusTarget>();
  const depositOf = new Map<string, string>();
  // Every pursued party's holdings by (network, asset, wallet), each counted once however many parties
  // a map was traced for: what the wallets are exposed to. `mapOrder` is the map's place among those
  // given, so the most recent map's figure wins even when an earlier party read only an older map.
  const walletHoldings = new Map<string, { wallet: string; usd: bigint; mapOrder: number }>();
  const mapOrder = new Map(assetMaps.map((map, index) => [map, index]));

  const wallet = (address: string, confidence: number, refs: ClaimSourceRef[]): FocusTarget => {
    const key = addressComparisonKey(address);
    const known = wallets.get(key);
    if (known) {
      known.confidence = Math.max(known.confidence, confidence);
      addRefs(known.source_refs, refs);
      return known;
    }
    const target: FocusTarget = {
      target_type: "wallet",
      target_id: key,
      label: address,
      exposure_usd_units: 0n,
      confidence,
      packet_readiness: null,
      freeze_capability: null,
      source_refs: [...refs],
    };
    wallets.set(key, target);
    return target;
  };

  for (const party of pursued) {
    const partyRef: ClaimSourceRef = { record_type: "party", record_id: party.id, source_ids: [] };
    const target: FocusTarget = {
      target_type: "party",
      target_id: party.id,
      label: party.legal_name ?? party.name,
      exposure_usd_units: 0n,
      confidence: RECORDED_FACT_CONFIDENCE,
      packet_readiness: null,
      freeze_capability: null,
      source_refs: [partyRef],
    };
    for (const recorded of party.wallets) wallet(recorded.address, RECORDED_FACT_CONFIDENCE, [partyRef]);

    const facts: DebtorFacts = { debtor: party, parties: [], judgments: [], assetMaps };
    // The party's holdings by (network, asset, wallet): a later map replaces an earlier one's figure.
    const holdings = new Map<string, { wallet: string; usd: bigint }>();
    for (const entry of debtorAssetMaps(facts)) {
      const { map } = entry;
      for (const exposure of map.token_exposures) {
        const level = entry.walletConfidence(exposure.wallet);
        if (!isDebtorHolding(entry, exposure.wallet) || level === null) continue;
        wallet(exposure.wallet, TRACE_CONFIDENCE[level], [mapRef(map, exposure.source_refs)]);
        const key = holdingKey(exposure.network, exposure.asset, exposure.wallet);
        const holding = {
          wallet: addressComparisonKey(exposure.wallet),
          usd: usdUnits(exposure.usd_value),
          mapOrder: mapOrder.get(map) ?? -1,
        };
        holdings.set(key, holding);
        if ((walletHoldings.get(key)?.mapOrder ?? -1) <= holding.mapOrder) walletHoldings.set(key, holding);
      }
      for (const exposure of map.stablecoin_exposure) {
        const level = entry.walletConfidence(exposure.wallet);
        if (!isDebtorHolding(entry, exposure.wallet) || level === null || exposure.frozen === true) continue;
        const holder = wallet(exposure.wallet, TRACE_CONFIDENCE[level], [mapRef(map, exposure.source_refs)]);
        holder.freeze_capability ??= `${exposure.issuer} can freeze the ${exposure.symbol} held there`;
        target.freeze_capability ??= holder.freeze_capability;
      }
      for (const { hypothesis } of debtorExchangeHypotheses(entry)) {
        const refs = [mapRef(map, hypothesis.source_refs)];
        const freeze = hypothesis.exchange === null ? null : `${hypothesis.exchange} can freeze the account`;
        hypotheses.set(hypothesis.hypothesis_id, {
          target_type: "exchange_hypothesis",
          target_id: hypothesis.hypothesis_id,
          label: `${hypothesis.wallet} (${hypothesis.exchange ?? "unattributed service"}, ${hypothesis.basis})`,
          exposure_usd_units: 0n,
          confidence: TRACE_CONFIDENCE[hypothesis.confidence],
          packet_readiness: hypothesis.packet_readiness,
          freeze_capability: freeze,
          source_refs: refs,
        });
        depositOf.set(hypothesis.hypothesis_id, addressComparisonKey(hypothesis.wallet));
        target.packet_readiness = betterReadiness(target.packet_readiness, hypothesis.packet_readiness);
        target.freeze_capability ??= freeze;
      }
    }
    for (const holding of holdings.values()) target.exposure_usd_units += holding.usd;
    parties.push(target);
  }
  for (const holding of walletHoldings.values()) {
    const holder = wallets.get(holding.wallet);
    if (holder) holder.exposure_usd_units += holding.usd;
  }
  // An exchange hypothesis is exposed to what its deposit wallet received; the deposit wallet, when it
  // is a target, takes the best readiness of its hypotheses.
  for (const hypothesis of hypotheses.values()) {
    const deposit = wallets.get(depositOf.get(hypothesis.target_id) ?? "");
    if (!deposit) continue;
    hypothesis.exposure_usd_units = deposit.exposure_usd_units;
    deposit.packet_readiness = betterReadiness(deposit.packet_readiness, hypothesis.packet_readiness);
  }
  return [...parties, ...wallets.values(), ...hypotheses.values()];
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * Ranks targets by the weighted mean of the criteria asked for (a weight left out counts
 * DEFAULT_FOCUS_WEIGHT). Each criterion scores 0..1:
 * - `exposure`: the target's traced USD value over the highest among the targets (0 when none is known);
 * - `confidence`: 1 for a recorded fact, an asset map's confidence otherwise (high 0.9, medium 0.6, low 0.3);
 * - `packet_readiness`: ready 1, needs_review 0.5, insufficient or none 0 (a wallet and a party take the
 *   best of their exchange hypotheses);
 * - `freeze_capability`: 1 when someone can freeze what the target holds (an issuer of an unfrozen
 *   stablecoin held there, an attributed exchange), else 0.
 * Scores are rounded to 4 decimals; equal scores are ordered by target type, then target id, so the
 * same record and the same request always give the same ranking.
 */
export function rankFocusTargets(
  targets: readonly FocusTarget[],
  criteria: readonly FocusCriterion[],
  weights: Partial<Record<FocusCriterion, number>>,
): RankedTarget[] {
  let maxExposure = 0n;
  for (const target of targets) if (target.exposure_usd_units > maxExposure) maxExposure = target.exposure_usd_units;
  const weightOf = (criterion: FocusCriterion) => weights[criterion] ?? DEFAULT_FOCUS_WEIGHT;
  const totalWeight = criteria.reduce((sum, criterion) => sum + weightOf(criterion), 0);
  if (totalWeight <= 0) throw new RangeError("the weights of the criteria must not all be zero");

  const scoreOf = (target: FocusTarget, criterion: FocusCriterion): { score: number; basis: string } => {
    switch (criterion) {
      case "exposure":
        return maxExposure === 0n
          ? { score: 0, basis: "no USD value traced to any target" }
          : {
              // rounded half up in integers, so the score is exact to its 4 decimals
              score: Number((target.exposure_usd_units * 20_000n + maxExposure) / (2n * maxExposure)) / 10_000,
              basis: `${usdText(target.exposure_usd_units)} of the highest ${usdText(maxExposure)}`,
            };
      case "confidence":
        return {
          score: target.confidence,
          basis: target.confidence === RECORDED_FACT_CONFIDENCE ? "recorded" : "traced",
        };
      case "packet_readiness":
        return target.packet_readiness === null
          ? { score: 0, basis: "no exchange hypothesis" }
          : { score: READINESS_SCORE[target.packet_readiness], basis: target.packet_readiness };
      case "freeze_capability":
        return target.freeze_capability === null
          ? { score: 0, basis: "nobody known to freeze it" }
          : { score: 1, basis: target.freeze_capability };
    }
  };

  const ranked = targets.map((target): RankedTarget => {
    const criteria_scores: Partial<Record<FocusCriterion, number>> = {};
    const parts: string[] = [];
    let sum = 0;
    for (const criterion of criteria) {
      const { score, basis } = scoreOf(target, criterion);
      criteria_scores[criterion] = score;
      sum += score * weightOf(criterion);
      parts.push(`${criterion} ${score} × ${weightOf(criterion)} (${basis})`);
    }
    return {
      target_type: target.target_type,
      target_id: target.target_id,
      label: target.label,
      focus_score: round4(sum / totalWeight),
      criteria_scores,
      reason: parts.join("; "),
      source_refs: target.source_refs,
    };
  });
  const typeOrder = (type: FocusTargetType) => FOCUS_TARGET_TYPES.indexOf(type);
  return ranked.sort(
    (a, b) =>
      b.focus_score - a.focus_score ||
      typeOrder(a.target_type) - typeOrder(b.target_type) ||
      (a.target_id < b.target_id ? -1 : a.target_id > b.target_id ? 1 : 0),
  );
}

// ---------------------------------------------------------------------------------------------
// Expand: leads from the debtor graph

/** What `expand` can propose, each read from claims of the pursued parties' debtor graphs. */
export const EXPANSION_TYPES = ["parties", "wallets", "exchanges", "assets"] as const;
export type ExpansionType = (typeof EXPANSION_TYPES)[number];
export const DEFAULT_MAX_LEADS = 20;
export const MAX_LEADS = 100;

const LEAD_TYPE_OF: Record<ExpansionType, ClawLeadType> = {
  parties: "party",
  wallets: "wallet",
  exchanges: "exchange",
  assets: "asset",
};
export const CLAW_LEAD_TYPES = ["party", "wallet", "exchange", "asset"] as const;
export type ClawLeadType = (typeof CLAW_LEAD_TYPES)[number];

/** The graph predicates each expansion type reads, and which end of the claim is the lead. */
const LEAD_PREDICATES: Record<ExpansionType, readonly { predicate: string; lead: "subject" | "object" }[]> = {
  parties: [
    { predicate: "debtor_in", lead: "subject" },
    { predicate: "counterparty_in", lead: "subject" },
  ],
  wallets: [{ predicate: "funds_reached", lead: "object" }],
  exchanges: [{ predicate: "deposit_address_of", lead: "object" }],
  assets: [
    { predicate: "holds", lead: "object" },
    { predicate: "received", lead: "object" },
  ],
};

export interface ClawLead {
  lead_id: string;
  lead_type: ClawLeadType;
  /** the debtor graph's node id of what is proposed */
  node_id: string;
  label: string;
  /** the record it is, when it is one (a party) */
  record_id: string | null;
  /** the pursued party whose graph found it first */
  found_from_party_id: string;
  confidence: number;
  reason: string;
  claim_ids: string[];
  source_refs: ClaimSourceRef[];
}

/**
 * Leads not yet pursued, from each pursued party's debtor graph (built from the record, never guessed):
 * other debtors and counterparties of the matter (`parties`), wallets its traced funds reached that are
 * recorded for no pursued party (`wallets`), exchanges a deposit address is attributed to
 * (`exchanges`), and assets its wallets hold or received (`assets`). One lead per graph node, with every
 * claim behind it and their highest confidence; ordered by confidence, then type, then node id. Returns
 * at most `max` and how many there were.
 */
export function proposeLeads(
  graphs: readonly { party: GraphParty; graph: DebtorGraph }[],
  types: readonly ExpansionType[],
  max: number,
): { leads: ClawLead[]; total: number } {
  const pursuedNodes = new Set<string>();
  for (const { party } of graphs) {
    pursuedNodes.add(partyNode(party.id));
    for (const wallet of party.wallets) pursuedNodes.add(walletNode(wallet.address));
  }
  const leads = new Map<string, ClawLead>();
  for (const { party, graph } of graphs) {
    const nodes = new Map(graph.nodes.map((node) => [node.node_id, node]));
    for (const type of EXPANSION_TYPES.filter((t) => types.includes(t))) {
      for (const rule of LEAD_PREDICATES[type]) {
        for (const claim of graph.claims.filter((c) => c.predicate === rule.predicate)) {
          const nodeId = rule.lead === "subject" ? claim.subject : claim.object;
          const node = nodes.get(nodeId);
          if (!node || pursuedNodes.has(nodeId)) continue;
          const otherId = rule.lead === "subject" ? claim.object : claim.subject;
          const otherLabel = nodes.get(otherId)?.label ?? otherId;
          const [from, to] = rule.lead === "subject" ? [node.label, otherLabel] : [otherLabel, node.label];
          const key = `${type}|${nodeId}`;
          const known = leads.get(key);
          if (known) {
            known.confidence = Math.max(known.confidence, claim.confidence);
            if (!known.claim_ids.includes(claim.claim_id)) known.claim_ids.push(claim.claim_id);
            addRefs(known.source_refs, claim.source_refs);
            continue;
          }
          const lead_type = LEAD_TYPE_OF[type];
          leads.set(key, {
            lead_id: contentId("lead", { lead_type, node_id: nodeId }),
            lead_type,
            node_id: nodeId,
            label: node.label,
            record_id: node.record_id,
            found_from_party_id: party.id,
            confidence: claim.confidence,
            reason: `${from} ${claim.predicate} ${to} (debtor graph of ${party.legal_name ?? party.name})`,
            claim_ids: [claim.claim_id],
            source_refs: [...claim.source_refs],
          });
        }
      }
    }
  }
  const typeOrder = (type: ClawLeadType) => CLAW_LEAD_TYPES.indexOf(type);
  const sorted = [...leads.values()].sort(
    (a, b) =>
      b.confidence - a.confidence ||
      typeOrder(a.lead_type) - typeOrder(b.lead_type) ||
      (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0),
  );
  return { leads: sorted.slice(0, max), total: sorted.length };
}

// ---------------------------------------------------------------------------------------------
// Operator state and the board's blockers

export const NEXT_CLAW_ACTIONS = [
  "clear_sanctions_hold",
  "wait_for_stay_to_lift",
  "obtain_authority",
  "focus",
  "expand",
  "escalate",
  "distribute_recoveries",
] as const;
export type NextClawAction = (typeof NEXT_CLAW_ACTIONS)[number];

export interface ClawOperatorState {
  /** the best focus score of the latest focus; 0 before any (or when it ranked nothing) */
  focus_score: number;
  /** how many leads the latest expand proposed */
  expand_queue: number;
  next_claw_action: NextClawAction;
}

const GATE_ACTIONS: Partial<Record<ClawGateName, NextClawAction>> = {
  sanctions: "clear_sanctions_hold",
  stay: "wait_for_stay_to_lift",
  authority: "obtain_authority",
};

/**
 * What the operator does next: clear the first blocked gate; else focus (no ranking yet), then expand
 * (no leads proposed yet); else raise the pressure a level, or, at the last level, distribute.
 */
export function deriveOperatorState(input: {
  gates: readonly ClawGate[];
  focus: readonly RankedTarget[] | null;
  leads: readonly ClawLead[] | null;
  pressure_level: number;
}): ClawOperatorState {
  const blocked = input.gates.find((gate) => gate.status === "blocked" && GATE_ACTIONS[gate.gate] !== undefined);
  const next: NextClawAction = blocked
    ? (GATE_ACTIONS[blocked.gate] as NextClawAction)
    : input.focus === null
      ? "focus"
      : input.leads === null
        ? "expand"
        : input.pressure_level < MAX_PRESSURE_LEVEL
          ? "escalate"
          : "distribute_recoveries";
  return {
    focus_score: input.focus?.[0]?.focus_score ?? 0,
    expand_queue: input.leads?.length ?? 0,
    next_claw_action: next,
  };
}

export const CLAW_BLOCKER_TYPES = ["authority", "sanctions", "stay", "review", "deadline"] as const;
export type ClawBlockerType = (typeof CLAW_BLOCKER_TYPES)[number];

export interface ClawBlocker {
  type: ClawBlockerType;
  message: string;
  /** the record to act on: the matter, a sanctions hit, a judgment or an action */
  object_id: string;
}

export interface ClawBlockerFacts {
  matter_id: string;
  authority_granted: boolean;
  open_sanctions_hits: readonly { hit_id: string; matched_value: string }[];
  /** the campaign's judgment */
  judgment: { judgment_id: string; case_number: string; stay_in_effect: boolean };
  /** the matter's judgments awaiting a reviewer (an enforcement posture pending or rejected) */
  judgments_in_review: readonly { judgment_id: string; case_number: string }[];
  /** the campaign's actions marked review_required that are still open or in progress */
  actions_in_review: readonly { action_id: string; title: string }[];
  deadlines: readonly { judgment_id: string; type: DeadlineType; date: string; status: DeadlineStatus }[];
  /** YYYY-MM-DD */
  today: string;
}

/**
 * What stands in the campaign's way, in the order of CLAW_BLOCKER_TYPES: missing authority, each
 * open sanctions hit, a stay on the campaign's judgment, each review awaited (a judgment's enforcement
 * review, an action marked review_required), and each deadline missed or due within
 * DEFAULT_DEADLINE_ALERT_DAYS days (as the monitoring alerts count them).
 */
export function deriveClawBlockers(facts: ClawBlockerFacts): ClawBlocker[] {
  const blockers: ClawBlocker[] = [];
  if (!facts.authority_granted) {
    blockers.push({
      type: "authority",
      message:
        "The matter has no granted authority: campaign writes are refused until a judgment is validated ready or an operator grants it.",
      object_id: facts.matter_id,
    });
  }
  for (const hit of facts.open_sanctions_hits) {
    blockers.push({
      type: "sanctions",
      message: `Sanctions hit on '${hit.matched_value}' awaits review: campaign writes are refused until a reviewer clears it.`,
      object_id: hit.hit_id,
    });
  }
  if (facts.judgment.stay_in_effect) {
    blockers.push({
      type: "stay",
      message: `Judgment ${facts.judgment.case_number} is stayed: campaign writes are refused until the stay is lifted.`,
      object_id: facts.judgment.judgment_id,
    });
  }
  for (const judgment of facts.judgments_in_review) {
    blockers.push({
      type: "review",
      message: `The enforcement posture of judgment ${judgment.case_number} awaits a reviewer.`,
      object_id: judgment.judgment_id,
    });
  }
  for (const action of facts.actions_in_review) {
    blockers.push({
      type: "review",
      message: `Action '${action.title}' needs review and is not completed.`,
      object_id: action.action_id,
    });
  }
  for (const deadline of facts.deadlines) {
    if (deadline.status === "missed") {
      blockers.push({
        type: "deadline",
        message: `The ${deadline.type} deadline of ${deadline.date} was missed.`,
        object_id: deadline.judgment_id,
      });
    } else if (isDueWithin(deadline, facts.today, DEFAULT_DEADLINE_ALERT_DAYS)) {
      const days = daysBetween(facts.today, deadline.date);
      blockers.push({
        type: "deadline",
        message: `The ${deadline.type} deadline of ${deadline.date} is due ${days === 0 ? "today" : `in ${days} day${days === 1 ? "" : "s"}`}.`,
        object_id: deadline.judgment_id,
      });
    }
  }
  return blockers;
}

// ---------------------------------------------------------------------------------------------
// What a campaign stores of its latest focus and expand

/** The latest focus of a campaign: what was asked and the ranking it gave (replaced by the next focus). */
export interface ClawFocusRun {
  criteria: FocusCriterion[];
  /** the weight each criterion carried, defaults filled in */
  weights: Partial<Record<FocusCriterion, number>>;
  ranked_targets: RankedTarget[];
  focused_at: string;
}

/** The latest expand of a campaign: what was asked and the leads it proposed (replaced by the next expand). */
export interface ClawExpansion {
  expansion_types: ExpansionType[];
  max_leads: number;
  leads: ClawLead[];
  total_leads: number;
  expanded_at: string;
}

/** What a campaign pursues: parties of its matter (none named: the matter's debtors, read when used). */
export interface ClawTargetSet {
  party_ids: string[];
}
