import {
  amountTextFromNumber,
  type ChainEvent,
  computePacketContentHash,
  deriveFreezeTargets,
  eventSigningKeyFromSeed,
  GENESIS_PREV_HASH,
  type PacketManifest,
  publicKeyHex,
  sealEvent,
} from "@crs/core";
import type { PacketDocument } from "../src/packet-document";

// RFC 8032 section 7.1 TEST 1 secret: a published test key, never a real one.
export const TEST_SIGNING_KEY = eventSigningKeyFromSeed(
  "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
);

export const MANIFEST: PacketManifest = {
  type: "exchange_freeze",
  matter_id: "matter_01k1z9x4m2c3v5b6n7q8r9s0tw",
  judgment: {
    judgment_id: "judgment_01k1z9x6a1b2c3d4e5f6g7h8jk",
    court: "United States District Court for the Southern District of New York",
    case_number: "1:25-cv-04217-JMF",
    jurisdiction: "US-NY",
    creditor: "Acme Recovery Partners LLC",
    debtor: "Борис Петров (Boris Petrov)",
    amount: { amount: amountTextFromNumber(4_250_000.5), currency: "USD", valuation_time: null },
    date_entered: "2025-11-03",
  },
  wallets: [
    { address: "0x71C7656EC7ab88b098defB751B7401B5f6d8976F", network: "ethereum" },
    { address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", network: "bitcoin" },
    { address: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", network: "tron" },
  ],
  recovery_events: [
    {
      recovery_event_id: "rcv_01k1za0m3n4p5q6r7s8t9v0wxy",
      event_type: "frozen",
      asset: "USDT",
      gross_amount: amountTextFromNumber(1_275_000),
      network: "tron",
      source: "Exchange compliance desk",
      description: "Balance frozen on receipt of the preservation letter.",
      status: "recorded",
      created_at: "2026-02-11T15:04:05.006Z",
    },
    {
      recovery_event_id: "rcv_01k1za3c4d5e6f7g8h9j0k1m2n",
      event_type: "recovery",
      asset: "USD",
      gross_amount: amountTextFromNumber(18_250.75),
      network: null,
      source: "Garnishment",
      description: null,
      status: "recorded",
      created_at: "2026-03-02T09:30:00.000Z",
    },
  ],
  source_refs: [
    {
      source_id: "src_trace_0001",
      source_type: "blockchain_trace",
      title: "Outflow trace, five hops from the debtor's deposit address",
      uri: "https://evidence.example.com/matters/matter_01k1z9x4m2c3v5b6n7q8r9s0tw/traces/amap_01k1z9zz",
      hash: "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef",
      chain_of_custody_id: "COC-2026-0114",
      admissibility_notes: "Certified under FRE 902(14) by the tracing analyst.",
    },
    {
      source_id: "src_kyc_0002",
      source_type: "subpoena_response",
      title: "Exchange KYC response «Ζωή Παπαδοπούλου»",
      uri: null,
      hash: null,
      chain_of_custody_id: null,
      admissibility_notes: null,
    },
  ],
  legal_authority_id: "auth_order_2026_0042",
  authorized_sender: "María-José Núñez, Esq.",
  target_venue: "Binance compliance (law enforcement request portal)",
};

const MATTER_ID = MANIFEST.matter_id;

function buildChain(): ChainEvent[] {
  const types = ["matter.created", "party.created", "judgment.created", "judgment.validated", "packet.created"];
  const events: ChainEvent[] = [];
  let prev = GENESIS_PREV_HASH;
  types.forEach((type, i) => {
    const event = sealEvent(
      {
        id: `evt_01k1z9x4m2c3v5b6n7q8r9s0${String(i).padStart(2, "0")}`,
        object: "event",
        type,
        created: `2026-01-0${i + 2}T10:00:00.000Z`,
        livemode: false,
        api_version: "2026-07-05",
        data: { matter_id: MATTER_ID, object: { note: `step ${i + 1}`, contact: { email: "ana@example.com" } } },
        audit_ref: `req_01k1z9x4m2c3v5b6n7q8r9s0${String(i).padStart(2, "0")}`,
        sequence: i + 1,
        prev_hash: prev,
      },
      TEST_SIGNING_KEY,
    );
    prev = event.hash;
    events.push(event);
  });
  return events;
}

export function buildFixtureDocument(overrides: Partial<PacketDocument["export"]> = {}): PacketDocument {
  const events = buildChain();
  const last = events[events.length - 1]!;
  return {
    packet: {
      packet_id: "pkt_01k1za7p8q9r0s1t2v3w4x5y6z",
      status: "assembled",
      created_at: "2026-07-01T08:15:00.000Z",
      content_hash: computePacketContentHash(MANIFEST),
      freeze_targets: deriveFreezeTargets(MANIFEST.type, MANIFEST.wallets),
      review_state: { review_required: true, review_status: "pending", review_owner: "", review_notes: "" },
    },
    manifest: MANIFEST,
    matter: { matter_id: MATTER_ID, name: "Acme Recovery Partners v. Petrov", lead_counsel: "María-José Núñez" },
    parties: [
      {
        party_id: "party_01k1z9x5a1b2c3d4e5f6g7h8jk",
        role: "claimant",
        name: "Acme Recovery Partners LLC",
        legal_name: "Acme Recovery Partners, L.L.C.",
        type: "entity",
        status: "active",
        share: "0.75",
        aliases: [],
        identifiers: { ein: "12-3456789" },
        contact: { email: "claims@acme.example", phone: "+1 212 555 0100" },
        wallets: [],
      },
      {
        party_id: "party_01k1z9x5b1b2c3d4e5f6g7h8jm",
        role: "claimant",
        name: "Zoë Ångström",
        legal_name: null,
        type: "individual",
        status: "active",
        share: "0.25",
        aliases: ["Zoe Angstrom"],
        identifiers: { passport: "X1234567" },
        contact: { address: { city: "Malmö", country: "SE" } },
        wallets: [],
      },
      {
        party_id: "party_01k1z9x5c1b2c3d4e5f6g7h8jn",
        role: "debtor",
        name: "Борис Петров",
        legal_name: "Boris Petrov",
        type: "individual",
        status: "active",
        share: null,
        aliases: ["B. Petrov", "بوريس بيتروف"],
        identifiers: { national_id: "RU-4509-123456" },
        contact: {},
        wallets: MANIFEST.wallets,
      },
    ],
    export: {
      export_id: "pex_01k1zb0a1b2c3d4e5f6g7h8j9k",
      format: "pdf",
      created_at: "2026-07-05T20:33:57.005Z",
      redaction_profile: "none",
      include_chain_of_custody: true,
      ...overrides,
    },
    prior_exports: [
      {
        export_id: "pex_01k1za9z0a1b2c3d4e5f6g7h8j",
        format: "json",
        created_at: "2026-07-02T11:00:00.000Z",
        artifact_sha256: "d2a84f4b8b650937ec8f73cd8be2c74add5a911ba64df27458ed8229da804a26",
        export_hash: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
      },
    ],
    chain_of_custody: {
      events,
      verification: {
        valid: true,
        events_checked: events.length,
        first_break: null,
        head: { sequence: last.sequence, hash: last.hash },
        verified_at: "2026-07-05T20:33:56.000Z",
      },
      event_signing_key: publicKeyHex(TEST_SIGNING_KEY),
    },
  };
}
