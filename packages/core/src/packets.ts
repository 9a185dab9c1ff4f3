import { hashCanonical } from "./hashing";
import type { BlockedPropertyAnalysis, ReviewedSanctionsHit, SubjectScreen } from "./sanctions";

/**
 * Packets bind what a firm hands to an exchange, an issuer or a court. The bound content (the
 * manifest) is published with the packet, and its hash is recomputable by anyone:
 *
 *   content_hash = sha256 hex of the RFC 8785 (JCS) canonical JSON of the manifest
 *   export_hash  = sha256 hex of the JCS of {export_id, format, packet_content_hash, artifact_sha256, created_at}
 *
 * Amounts inside the manifest are fixed-point decimal strings ("1250.50"), never JSON numbers, so
 * recomputing a hash never depends on how some language prints a binary float. Every field is
 * always present (null when unknown): the manifest has one fixed shape.
 */

export const PACKET_TYPES = [
  "exchange_intercept",
  "vasp_legal_process",
  "exchange_freeze",
  "exchange_turnover",
  "turnover_workflow",
  "sanctions_review",
  "law_enforcement_referral",
  "issuer_freeze",
  "burn_reissue",
  "destination_wallet_certificate",
  "ofac_report",
] as const;
export type PacketType = (typeof PACKET_TYPES)[number];

export const PACKET_EXPORT_FORMATS = ["pdf", "zip", "json"] as const;
export type PacketExportFormat = (typeof PACKET_EXPORT_FORMATS)[number];

export const REDACTION_PROFILES = ["none", "external"] as const;
export type RedactionProfile = (typeof REDACTION_PROFILES)[number];

export const PACKET_CONTENT_HASH_RULE = "sha256 (lowercase hex) of the RFC 8785 (JCS) canonical JSON of the manifest";
export const PACKET_EXPORT_HASH_RULE =
  "sha256 (lowercase hex) of the RFC 8785 (JCS) canonical JSON of {export_id, format, packet_content_hash, artifact_sha256, created_at}";

/** A monetary amount as amount text: `amount` "1250.50"; currency and valuation time when known. */
export interface PacketAmount {
  amount: string;
  currency: string | null;
  valuation_time: string | null;
}

/** The judgment's core fields, as intake recorded them. */
export interface PacketJudgment {
  judgment_id: string;
  court: string;
  case_number: string;
  jurisdiction: string;
  creditor: string;
  debtor: string;
  amount: PacketAmount;
  /** YYYY-MM-DD */
  date_entered: string;
}

export interface PacketWallet {
  address: string;
  network: string | null;
}

/** A recovery event as it stood when the packet was assembled. */
export interface PacketRecoveryEvent {
  recovery_event_id: string;
  event_type: string;
  asset: string;
  /** Amount text, e.g. "2500.00". */
  gross_amount: string;
  network: string | null;
  source: string | null;
  description: string | null;
  status: string;
  created_at: string;
}

export interface PacketSourceRef {
  source_id: string;
  source_type: string | null;
  title: string | null;
  uri: string | null;
  hash: string | null;
  chain_of_custody_id: string | null;
  admissibility_notes: string | null;
}

/**
 * What an issuer remediation packet (`issuer_freeze`, `burn_reissue`) asks of the issuer, beyond the
 * common fields. Every field is present; null when the caller did not say.
 */
export interface IssuerRemediationDetails {
  issuer: string | null;
  asset: string | null;
  network: string | null;
  notes: string | null;
  /** a `destination_wallet_certificate` packet of the same matter: where reissued tokens go */
  destination_wallet_certificate_id: string | null;
}

/**
 * What a `destination_wallet_certificate` certifies about its wallet (the wallet itself is the
 * manifest's `wallets`), and the sanctions screen of that wallet, its owner and custodian, run when
 * the packet was assembled.
 */
export interface DestinationWalletCertificateDetails {
  purpose: string | null;
  owner: string | null;
  custodian: string | null;
  signer_model: string | null;
  allowed_assets: string[];
  sanctions_screen: SubjectScreen;
}

/** A `sanctions_review` of a sanctions screen, as the 2026-06-11 review-packet operation prepares it. */
export interface SanctionsReviewDetails {
  screen_id: string;
  notes: string | null;
  hits: ReviewedSanctionsHit[];
  blocked_property_analysis: BlockedPropertyAnalysis;
  ofac_report_required: boolean;
}

/** An `ofac_report` prepared from a sanctions review by the 2026-06-11 OFAC report operation. */
export interface OfacReportDetails {
  sanctions_review_id: string;
  report_type: string;
  counsel_owner: string;
}

/** Type-specific bound content: present only on packets of a type that has some. */
export type PacketDetails =
  | IssuerRemediationDetails
  | DestinationWalletCertificateDetails
  | SanctionsReviewDetails
  | OfacReportDetails;

/**
 * The bound content of a packet: exactly what content_hash covers. Every field is always present,
 * except `details`, which only packets with type-specific content carry (issuer remediations as the
 * 2026-06-11 operations create them, and every destination wallet certificate); the manifests (and
 * hashes) of all other packets are unchanged by it.
 */
export interface PacketManifest {
  type: PacketType;
  matter_id: string;
  judgment: PacketJudgment | null;
  wallets: PacketWallet[];
  recovery_events: PacketRecoveryEvent[];
  source_refs: PacketSourceRef[];
  legal_authority_id: string | null;
  authorized_sender: string;
  target_venue: string | null;
  details?: PacketDetails;
}

/** content_hash = sha256 hex of JCS(manifest). */
export function computePacketContentHash(manifest: PacketManifest): string {
  return hashCanonical(manifest);
}

export interface PacketExportHashInput {
  export_id: string;
  format: PacketExportFormat;
  packet_content_hash: string;
  /** sha256 hex of the artifact's bytes. */
  artifact_sha256: string;
  created_at: string;
}

/** export_hash = sha256 hex of JCS of exactly these five fields (any other property is ignored). */
export function computeExportHash(input: PacketExportHashInput): string {
  const { export_id, format, packet_content_hash, artifact_sha256, created_at } = input;
  return hashCanonical({ export_id, format, packet_content_hash, artifact_sha256, created_at });
}

/** An `exchange_freeze` packet asks to freeze exactly its wallets; other types name no freeze targets. */
export function deriveFreezeTargets(type: PacketType, wallets: readonly PacketWallet[]): PacketWallet[] {
  return type === "exchange_freeze" ? wallets.map((wallet) => ({ ...wallet })) : [];
}

/** What every masked value becomes. */
export const REDACTED = "[redacted]";

export interface RedactableParty {
  contact?: unknown;
  identifiers?: unknown;
}

/**
 * The `external` profile masks a party's `contact` and `identifiers`: every value inside them
 * (strings, numbers, booleans, at any depth) becomes "[redacted]"; keys, array lengths and nulls stay,
 * so a recipient sees which kinds of detail exist without their values. Nothing else changes (names,
 * roles and wallets are what a packet is about). The `none` profile returns an unchanged copy.
 * Deterministic and never mutates its input.
 */
export function applyRedactionProfile<T extends RedactableParty>(party: T, profile: RedactionProfile): T {
  if (profile === "none") return { ...party };
  const redacted: T = { ...party };
  if (party.contact !== undefined) redacted.contact = maskValues(party.contact);
  if (party.identifiers !== undefined) redacted.identifiers = maskValues(party.identifiers);
  return redacted;
}

function maskValues(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map(maskValues);
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, maskValues(inner)]));
  }
  return REDACTED;
}

/**
 * A packet's life: `assembled` on create, `exported` after its first export, then advanced by an
 * operator as the recipient answers: `served` → `acknowledged` | `contested` → `complied` | `closed`.
 * An operator may close a packet from any open state (withdrawn, superseded); `closed` is final.
 */
export const PACKET_STATUSES = [
  "assembled",
  "exported",
  "served",
  "acknowledged",
  "contested",
  "complied",
  "closed",
] as const;
export type PacketStatus = (typeof PACKET_STATUSES)[number];

/** The statuses an operator may set (`exported` is set by the first export, never by hand). */
export const OPERATOR_PACKET_STATUSES = ["served", "acknowledged", "contested", "complied", "closed"] as const;
export type OperatorPacketStatus = (typeof OPERATOR_PACKET_STATUSES)[number];

const PACKET_NEXT: Record<PacketStatus, readonly PacketStatus[]> = {
  assembled: ["exported", "closed"],
  exported: ["served", "closed"],
  served: ["acknowledged", "contested", "closed"],
  acknowledged: ["complied", "closed"],
  contested: ["complied", "closed"],
  complied: ["closed"],
  closed: [],
};

/** The statuses a packet may move to next from `status`. */
export function nextPacketStatuses(status: PacketStatus): readonly PacketStatus[] {
  return PACKET_NEXT[status];
}

export function canAdvancePacket(from: PacketStatus, to: PacketStatus): boolean {
  return PACKET_NEXT[from].includes(to);
}

/** The status after an export: the first export moves `assembled` to `exported`; later ones change nothing. */
export function statusAfterExport(status: PacketStatus): PacketStatus {
  return status === "assembled" ? "exported" : status;
}

/** A packet is open (counted on the dashboard) until it is closed. */
export function isPacketOpen(status: PacketStatus): boolean {
  return status !== "closed";
}
