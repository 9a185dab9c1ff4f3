/** Which packet types need granted authority, which pass the sanctions gate, and the matter-authority rule. */
import type { PacketType } from "./packets";

/** Legal-process packets: refused with `authority_required` on a matter without granted authority. */
export const AUTHORITY_PACKET_TYPES = [
  "vasp_legal_process",
  "exchange_freeze",
  "exchange_turnover",
  "turnover_workflow",
  "issuer_freeze",
  "burn_reissue",
] as const satisfies readonly PacketType[];

/** The packets a sanctions hit does not block: they are how the hit gets reviewed and reported. */
export const SANCTIONS_EXEMPT_PACKET_TYPES = [
  "sanctions_review",
  "ofac_report",
] as const satisfies readonly PacketType[];

export function packetNeedsAuthority(type: PacketType): boolean {
  return (AUTHORITY_PACKET_TYPES as readonly PacketType[]).includes(type);
}

export function isSanctionsExemptPacket(type: PacketType): boolean {
  return (SANCTIONS_EXEMPT_PACKET_TYPES as readonly PacketType[]).includes(type);
}

export interface JudgmentAuthorityFacts {
  judgment_id: string;
  /** `ready` of the judgment's latest stored validation; null when never validated. */
  latest_validation_ready: boolean | null;
  /** From the judgment's current lifecycle fields (see `isStayInEffect`). */
  stay_in_effect: boolean;
}

/** The operator's latest decision on the matter, or null when the operator never decided (or cleared it). */
export type OperatorAuthorityDecision = "grant" | "revoke" | null;

export interface MatterAuthority {
  granted: boolean;
  basis: "operator_grant" | "operator_revoke" | "ready_judgment" | "none";
  /** The judgments that carry derived authority (ready validation, no stay); empty for an operator decision. */
  judgment_ids: string[];
}

/**
 * A matter has granted authority when one of its judgments has a ready latest validation and no
 * stay in effect now (a stay recorded after the validation withdraws it).
 *
 * An operator decision overrides the data both ways and stays until an operator changes or clears
 * it. In particular a revoke holds even when a judgment is validated ready afterwards: a revoke is
 * a deliberate human decision about facts the record cannot see (counsel withdrew, the engagement
 * ended, the authority is disputed), and letting any caller with validate scope undo it by
 * re-running a validation would make it meaningless. A grant gives authority without a ready
 * validation; stays are still enforced separately per judgment.
 */
export function deriveMatterAuthority(input: {
  judgments: readonly JudgmentAuthorityFacts[];
  operator: OperatorAuthorityDecision;
}): MatterAuthority {
  if (input.operator === "revoke") return { granted: false, basis: "operator_revoke", judgment_ids: [] };
  if (input.operator === "grant") return { granted: true, basis: "operator_grant", judgment_ids: [] };
  const judgment_ids = input.judgments
    .filter((judgment) => judgment.latest_validation_ready === true && !judgment.stay_in_effect)
    .map((judgment) => judgment.judgment_id);
  return judgment_ids.length > 0
    ? { granted: true, basis: "ready_judgment", judgment_ids }
    : { granted: false, basis: "none", judgment_ids };
}

export type PacketRefusal = "sanctions_gate" | "stay_in_effect" | "authority_required";

/**
 * The reason a packet may not be created, or null. When several apply, the one reported is the
 * legal bar the caller can least work around: a sanctions hold, then a court-ordered stay on the
 * bound judgment, then missing authority.
 */
export function findPacketRefusal(input: {
  type: PacketType;
  /** An unreviewed sanctions hit on the matter. */
  sanctions_hold: boolean;
  /** A stay in effect on the judgment the packet binds (false when it binds none). */
  judgment_stay_in_effect: boolean;
  authority_granted: boolean;
  /**
   * Whether this packet needs authority; default: its type does (`packetNeedsAuthority`). An operation
   * may ask for more (the 2026-06-11 destination wallet certificate needs it), never for less.
   */
  authority_needed?: boolean;
}): PacketRefusal | null {
  if (input.sanctions_hold && !isSanctionsExemptPacket(input.type)) return "sanctions_gate";
  if (input.judgment_stay_in_effect) return "stay_in_effect";
  const authorityNeeded = packetNeedsAuthority(input.type) || input.authority_needed === true;
  if (authorityNeeded && !input.authority_granted) return "authority_required";
  return null;
}

/** Setting an enforcement posture is an enforcement write: refused under a stay, then without authority. */
export function findEnforcementPostureRefusal(input: {
  judgment_stay_in_effect: boolean;
  authority_granted: boolean;
}): Exclude<PacketRefusal, "sanctions_gate"> | null {
  if (input.judgment_stay_in_effect) return "stay_in_effect";
  if (!input.authority_granted) return "authority_required";
  return null;
}
