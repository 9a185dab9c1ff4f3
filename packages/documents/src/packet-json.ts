import { canonicalize, PACKET_CONTENT_HASH_RULE, PACKET_EXPORT_HASH_RULE } from "@crs/core";
import {
  assertConsistentDocument,
  checkChainEntries,
  includedChainOfCustody,
  type PacketDocument,
  redactParties,
} from "./packet-document";

/**
 * The JSON forms of a packet export. Each file is the RFC 8785 canonical JSON (keys sorted, no
 * whitespace) of its object, so it has exactly one byte form and `jq .` makes it readable.
 *
 * - packet.json: the packet, its matter, the (redacted) parties, the bound `manifest`, and how to
 *   recompute the hashes. content_hash = sha256 of the canonical JSON of `manifest`.
 * - chain-of-custody.json: the matter's event chain entries, this export's own check of each entry,
 *   and the service's verification of the whole chain.
 * - manifest.json: the canonical JSON of the manifest and nothing else (no trailing newline), so
 *   `sha256sum manifest.json` prints the content hash itself.
 * - The json export format: one bundle, packet.json's object plus `chain_of_custody`.
 *
 * Under the `external` redaction profile the chain entries keep everything but their `data` (which
 * holds resource snapshots, party contact details among them): `data` becomes null and
 * `data_withheld` true. A recipient can then still verify every signature over its hash and every
 * prev_hash link, but not recompute the hashes from content; the per-entry checks this export ran on
 * the full entries are included.
 */

export const PACKET_BUNDLE_OBJECT = "packet_export_bundle";

export function buildPacketJsonObject(document: PacketDocument) {
  assertConsistentDocument(document);
  return {
    object: "packet",
    export: { ...document.export },
    packet: {
      ...document.packet,
      type: document.manifest.type,
      matter_id: document.manifest.matter_id,
      judgment_id: document.manifest.judgment?.judgment_id ?? null,
    },
    matter: { ...document.matter },
    parties: redactParties(document),
    manifest: document.manifest,
    integrity: {
      content_hash: document.packet.content_hash,
      content_hash_rule: PACKET_CONTENT_HASH_RULE,
      export_hash_rule: PACKET_EXPORT_HASH_RULE,
      prior_exports: document.prior_exports,
    },
  };
}

export function buildChainOfCustodyObject(document: PacketDocument) {
  const chain = includedChainOfCustody(document);
  if (!chain) return { object: "chain_of_custody", included: false };
  const withheld = document.export.redaction_profile !== "none";
  return {
    object: "chain_of_custody",
    included: true,
    matter_id: document.matter.matter_id,
    data_withheld: withheld,
    event_signing_key: chain.event_signing_key,
    hash_rule: 'sha256(prev_hash + "\\n" + JCS(event without hash and signature)), lowercase hex',
    signature_rule: "Ed25519 over the UTF-8 bytes of the lowercase hex hash, hex encoded",
    events: chain.events.map((event) => (withheld ? { ...event, data: null } : event)),
    entry_checks: checkChainEntries(chain),
    verification: chain.verification,
  };
}

/** The json export: one canonical JSON document, newline-terminated. */
export function buildPacketJson(document: PacketDocument): Uint8Array {
  const bundle = {
    ...buildPacketJsonObject(document),
    object: PACKET_BUNDLE_OBJECT,
    chain_of_custody: buildChainOfCustodyObject(document),
  };
  return encodeCanonicalJson(bundle, true);
}

export function encodeCanonicalJson(value: unknown, trailingNewline: boolean): Uint8Array {
  return new TextEncoder().encode(canonicalize(value) + (trailingNewline ? "\n" : ""));
}
