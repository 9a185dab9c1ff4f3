import {
  applyRedactionProfile,
  type ChainBreak,
  type ChainEvent,
  computeEventHash,
  computePacketContentHash,
  type PacketExportFormat,
  type PacketManifest,
  type PacketWallet,
  publicKeyFromHex,
  type RedactionProfile,
  verifyEventSignature,
} from "@crs/core";

/**
 * Everything a packet export shows, as plain data. Amounts are strings (fixed-point amount text in
 * the manifest); timestamps are ISO 8601 UTC strings. The builders never read the clock, the
 * environment or the machine's fonts, so the same document always gives the same bytes.
 */
export interface PacketDocument {
  packet: {
    packet_id: string;
    status: string;
    created_at: string;
    /** Must equal the hash of `manifest`; the builders refuse a document where it does not. */
    content_hash: string;
    /** Mirrors the wallets for `exchange_freeze`, empty otherwise. */
    freeze_targets: PacketWallet[];
    review_state: PacketReviewState | null;
  };
  /** The bound content, exactly as hashed into content_hash. */
  manifest: PacketManifest;
  matter: { matter_id: string; name: string; lead_counsel: string | null };
  /** The matter's parties, unredacted: the builders apply `export.redaction_profile`. */
  parties: PacketParty[];
  export: PacketExportInfo;
  /** Earlier exports of this packet, oldest first, with the hashes the service recorded for them. */
  prior_exports: PriorPacketExport[];
  /** The matter's event chain entries; shown only when `export.include_chain_of_custody` is set. */
  chain_of_custody: ChainOfCustody | null;
}

export interface PacketReviewState {
  review_required: boolean;
  review_status: string;
  review_owner: string;
  review_notes: string;
}

export interface PacketParty {
  party_id: string;
  role: string;
  name: string;
  legal_name: string | null;
  type: string | null;
  status: string;
  /** Claimant share as written, e.g. "0.25"; null for other roles. */
  share: string | null;
  aliases: string[];
  identifiers: Record<string, unknown>;
  contact: Record<string, unknown>;
  wallets: PacketWallet[];
}

export interface PacketExportInfo {
  export_id: string;
  format: PacketExportFormat;
  created_at: string;
  redaction_profile: RedactionProfile;
  include_chain_of_custody: boolean;
}

export interface PriorPacketExport {
  export_id: string;
  format: PacketExportFormat;
  created_at: string;
  artifact_sha256: string;
  export_hash: string;
}

export interface ChainOfCustody {
  /** The matter's events in sequence order, as stored (hash and signature included). */
  events: ChainEvent[];
  /** The service's verification of the organization's whole chain. */
  verification: {
    valid: boolean;
    events_checked: number;
    first_break: ChainBreak | null;
    head: { sequence: number; hash: string } | null;
    verified_at: string;
  };
  /** The Ed25519 event-signing public key (hex), as published; null when unknown. */
  event_signing_key: string | null;
}

/** What this export recomputed for one chain entry, independently of the service's verification. */
export interface ChainEntryCheck {
  sequence: number;
  event_id: string;
  /** The stored hash equals sha256(prev_hash + "\n" + JCS(event without hash and signature)). */
  hash_valid: boolean;
  /** The signature verifies under event_signing_key; null when no key was given. */
  signature_valid: boolean | null;
  /** prev_hash equals the previous entry's hash when the two are consecutive; null otherwise. */
  links_to_previous: boolean | null;
}

/** Refuses a document whose stated content hash is not the hash of its manifest. */
export function assertConsistentDocument(document: PacketDocument): void {
  const recomputed = computePacketContentHash(document.manifest);
  if (recomputed !== document.packet.content_hash) {
    throw new Error(
      `packet ${document.packet.packet_id}: content_hash ${document.packet.content_hash} is not the hash of its manifest (${recomputed})`,
    );
  }
  if (document.manifest.matter_id !== document.matter.matter_id) {
    throw new Error(`packet ${document.packet.packet_id}: manifest and matter name different matters`);
  }
}

export function redactParties(document: PacketDocument): PacketParty[] {
  return document.parties.map((party) => applyRedactionProfile(party, document.export.redaction_profile));
}

/** The chain of custody this export carries, or null when the export leaves it out. */
export function includedChainOfCustody(document: PacketDocument): ChainOfCustody | null {
  return document.export.include_chain_of_custody ? document.chain_of_custody : null;
}

export function checkChainEntries(chain: ChainOfCustody): ChainEntryCheck[] {
  const key = chain.event_signing_key ? publicKeyFromHex(chain.event_signing_key) : null;
  return chain.events.map((event, i) => {
    const previous = i > 0 ? chain.events[i - 1] : undefined;
    return {
      sequence: event.sequence,
      event_id: event.id,
      hash_valid: computeEventHash(event) === event.hash,
      signature_valid: key ? verifyEventSignature(event.hash, event.signature, key) : null,
      links_to_previous:
        previous && previous.sequence + 1 === event.sequence ? event.prev_hash === previous.hash : null,
    };
  });
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** "2026-07-05T20:33:57.005Z" → "5 July 2026, 20:33:57 UTC", without locale data. */
export function formatUtcTimestamp(timestamp: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} UTC`
  );
}

/** "1250000.50" → "1,250,000.50"; anything that is not plain amount text is returned as it is. */
export function groupThousands(amountText: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(amountText);
  if (!match) return amountText;
  const [, sign = "", whole = "", fraction = ""] = match;
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ",")}${fraction}`;
}
