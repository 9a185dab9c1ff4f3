import {
  OPERATOR_PACKET_STATUSES,
  PACKET_CONTENT_HASH_RULE,
  PACKET_EXPORT_FORMATS,
  PACKET_EXPORT_HASH_RULE,
  PACKET_STATUSES,
  PACKET_TYPES,
  REDACTION_PROFILES,
  REVIEW_STATUSES,
  SANCTIONS_ENTRY_KINDS,
} from "@crs/core";
import { z } from "zod";
import { defineOperation, type OperationDefinition } from "../operation";
import {
  Audit,
  ListQuery,
  listOf,
  NonBlankText,
  ObjectIdParam,
  SourceRefInput,
  Text,
  Timestamp,
} from "../schemas/common";
import { ReviewState } from "./judgments";
import { WalletInput } from "./parties";

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

export const SourceRef = z
  .object({
    source_id: z.string(),
    source_type: z.string().nullable(),
    title: z.string().nullable(),
    uri: z.string().nullable(),
    hash: z.string().nullable(),
    chain_of_custody_id: z.string().nullable(),
    admissibility_notes: z.string().nullable(),
  })
  .meta({ id: "SourceRef" });

export const CreatePacketBody = z
  .object({
    matter_id: NonBlankText(64),
    type: z.enum(PACKET_TYPES),
    judgment_id: NonBlankText(64).nullable().optional(),
    wallets: z.array(WalletInput).max(100, "must have at most 100 wallets").optional(),
    source_refs: z.array(SourceRefInput).max(200, "must have at most 200 source refs").optional(),
    legal_authority_id: NonBlankText(200).nullable().optional(),
    authorized_sender: Text(200).optional(),
    recovery_event_ids: z
      .array(NonBlankText(64))
      .max(1000, "must name at most 1000 recovery events")
      .refine((ids) => new Set(ids).size === ids.length, "must not name a recovery event twice")
      .optional(),
    target_venue: NonBlankText(200).nullable().optional(),
  })
  .meta({
    id: "CreatePacketBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      type: "exchange_freeze",
      judgment_id: "judgment_01k1z9s2ab3q7mxw2c4d8e6f0g",
      wallets: [{ address: "0x8ba1f109551bD432803012645Ac136ddd64DBA72", network: "ethereum" }],
      authorized_sender: "Jane Counsel, Counsel & Co LLP",
      target_venue: "Example Exchange Ltd, compliance desk",
    },
  });
export type CreatePacketBody = z.infer<typeof CreatePacketBody>;

const ManifestAmount = z.object({
  amount: z.string(),
  currency: z.string().nullable(),
  valuation_time: z.string().nullable(),
});
const ManifestWallet = z.object({ address: z.string(), network: z.string().nullable() });

const ListEntry = z.object({
  kind: z.enum(SANCTIONS_ENTRY_KINDS),
  value: z.string(),
  network: z.string().nullable(),
  program: z.string().nullable(),
  source: z.string(),
});

export const SubjectScreen = z
  .object({
    complete: z.boolean().meta({ description: "true only when screened against a list that had entries" }),
    list_size: z.number().int(),
    matches: z.array(
      z.object({
        role: z.string().meta({ description: "what was screened: wallet, owner or custodian" }),
        matched: z.object({
          field: z.enum(["name", "legal_name", "alias", "wallet", "identifier"]),
          value: z.string(),
          network: z.string().nullable().optional(),
          path: z.string().optional(),
        }),
        entry: ListEntry,
      }),
    ),
  })
  .meta({ id: "SubjectScreen", description: "A sanctions screen recorded in a packet's bound content." });

export const IssuerRemediationDetails = z
  .object({
    issuer: z.string().nullable(),
    asset: z.string().nullable(),
    network: z.string().nullable(),
    notes: z.string().nullable(),
    destination_wallet_certificate_id: z.string().nullable(),
  })
  .meta({ id: "IssuerRemediationDetails" });

export const BlockedPropertyAnalysis = z
  .object({
    property_blocked: z.boolean().meta({ description: "true while a reviewed hit is still open" }),
    blocked_wallets: z.array(z.string()),
    blocked_persons: z.array(z.string()),
    programs: z.array(z.string()),
  })
  .meta({ id: "BlockedPropertyAnalysis" });

export const SanctionsReviewDetails = z
  .object({
    screen_id: z.string(),
    notes: z.string().nullable(),
    hits: z.array(
      z.object({
        hit_id: z.string(),
        subject: z.string(),
        status: z.string(),
        matched_value: z.string(),
        entry: ListEntry,
      }),
    ),
    blocked_property_analysis: BlockedPropertyAnalysis,
    ofac_report_required: z.boolean(),
  })
  .meta({ id: "SanctionsReviewDetails" });

export const OfacReportDetails = z
  .object({ sanctions_review_id: z.string(), report_type: z.string(), counsel_owner: z.string() })
  .meta({ id: "OfacReportDetails" });

export const DestinationWalletCertificateDetails = z
  .object({
    purpose: z.string().nullable(),
    owner: z.string().nullable(),
    custodian: z.string().nullable(),
    signer_model: z.string().nullable(),
    allowed_assets: z.array(z.string()),
    sanctions_screen: SubjectScreen,
  })
  .meta({ id: "DestinationWalletCertificateDetails" });

export const PacketManifest = z
  .object({
    type: z.enum(PACKET_TYPES),
    matter_id: z.string(),
    judgment: z
      .object({
        judgment_id: z.string(),
        court: z.string(),
        case_number: z.string(),
        jurisdiction: z.string(),
        creditor: z.string(),
        debtor: z.string(),
        amount: ManifestAmount,
        date_entered: z.string(),
      })
      .nullable(),
    wallets: z.array(ManifestWallet),
    recovery_events: z.array(
      z.object({
        recovery_event_id: z.string(),
        event_type: z.string(),
        asset: z.string(),
        gross_amount: z.string(),
        network: z.string().nullable(),
        source: z.string().nullable(),
        description: z.string().nullable(),
        status: z.string(),
        created_at: z.string(),
      }),
    ),
    source_refs: z.array(SourceRef),
    legal_authority_id: z.string().nullable(),
    authorized_sender: z.string(),
    target_venue: z.string().nullable(),
    details: z
      .union([DestinationWalletCertificateDetails, IssuerRemediationDetails, SanctionsReviewDetails, OfacReportDetails])
      .optional()
      .meta({
        description:
          "Type-specific bound content, only on packets that have some: every destination_wallet_certificate (its sanctions screen), and issuer remediations, sanctions reviews and OFAC reports prepared on the 2026-06-11 surface.",
      }),
  })
  .meta({
    id: "PacketManifest",
    description: `The bound content. content_hash = ${PACKET_CONTENT_HASH_RULE}. Amounts are fixed-point decimal strings.`,
  });

export const PacketExportSummary = z.object({
  export_id: z.string(),
  format: z.enum(PACKET_EXPORT_FORMATS),
  export_hash: z.string(),
  download_url: z.string(),
  created_at: Timestamp,
});

export const Packet = z
  .object({
    object: z.literal("packet"),
    id: z.string(),
    packet_id: z.string(),
    matter_id: z.string(),
    livemode: z.boolean(),
    type: z.enum(PACKET_TYPES),
    status: z.enum(PACKET_STATUSES),
    authorized_sender: z.string(),
    judgment_id: z.string().nullable(),
    wallets: z.array(ManifestWallet),
    freeze_targets: z.array(ManifestWallet).meta({ description: "the wallets, for exchange_freeze; empty otherwise" }),
    recovery_event_ids: z.array(z.string()),
    legal_authority_id: z.string().nullable(),
    target_venue: z.string().nullable(),
    source_refs: z.array(SourceRef),
    review_state: ReviewState,
    manifest: PacketManifest,
    content_hash: z.string().meta({ description: PACKET_CONTENT_HASH_RULE }),
    exports: z.array(PacketExportSummary).meta({ description: "the packet's exports, oldest first" }),
    created_at: Timestamp,
    updated_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "Packet" });
export type Packet = z.infer<typeof Packet>;

export const ListPacketsQuery = ListQuery.extend({
  matter_id: ObjectIdParam.optional(),
  type: z.enum(PACKET_TYPES).optional(),
});

export const ExportPacketBody = z
  .object({
    format: z.enum(PACKET_EXPORT_FORMATS).default("pdf"),
    redaction_profile: z.enum(REDACTION_PROFILES).default("none"),
    include_chain_of_custody: z.boolean().default(false),
  })
  .meta({
    id: "ExportPacketBody",
    example: { format: "zip", redaction_profile: "external", include_chain_of_custody: true },
  });

export const PacketExport = z
  .object({
    object: z.literal("packet_export"),
    id: z.string(),
    export_id: z.string(),
    object_type: z.literal("packet"),
    object_id: z.string(),
    packet_id: z.string(),
    matter_id: z.string(),
    livemode: z.boolean(),
    format: z.enum(PACKET_EXPORT_FORMATS),
    redaction_profile: z.enum(REDACTION_PROFILES),
    include_chain_of_custody: z.boolean(),
    status: z.literal("available"),
    content_type: z.string(),
    byte_size: z.number().int(),
    artifact_sha256: z.string(),
    download_url: z.string(),
    audit_id: z.string().meta({
      description: "the audit_ref of the export request: the packet.exported event that records this export carries it",
    }),
    packet_hash: z.string().meta({ description: "the packet's content_hash" }),
    export_hash: z.string().meta({ description: PACKET_EXPORT_HASH_RULE }),
    response_deadline: z
      .string()
      .meta({ description: "YYYY-MM-DD: 30 days after the export for the recipient's answer" }),
    created_at: Timestamp,
  })
  .meta({ id: "PacketExport" });
export type PacketExport = z.infer<typeof PacketExport>;

const PACKET_WRITE_409 =
  "A gate: sanctions_gate (a sanctions hit awaits review), stay_in_effect (the bound judgment is stayed), authority_required (the type needs granted authority); or conflict (closed matter, Idempotency-Key reused or in flight)";

export const packetOperations = {
  create: defineOperation({
    id: "createPacket",
    method: "POST",
    path: "/v1/packets",
    scope: "packets:write",
    tag: "Packets",
    summary:
      "Assemble a packet of one of 11 types, binding matter, judgment, wallets, recovery events, source refs, legal authority, authorized sender and target venue; content_hash is recomputable from the returned manifest.",
    successStatus: 201,
    body: CreatePacketBody,
    response: Packet,
    idempotent: true,
    events: ["packet.created"],
    alsoAnswers: {
      404: { description: "Unknown matter_id, or a judgment or recovery event that is not the matter's" },
      409: { description: PACKET_WRITE_409 },
    },
  }),
  list: defineOperation({
    id: "listPackets",
    method: "GET",
    path: "/v1/packets",
    scope: "packets:read",
    tag: "Packets",
    summary: "List packets, most recent first, optionally by matter and type.",
    successStatus: 200,
    query: ListPacketsQuery,
    response: listOf(Packet, "PacketList"),
    idempotent: false,
    events: [],
  }),
  get: defineOperation({
    id: "retrievePacket",
    method: "GET",
    path: "/v1/packets/{packet_id}",
    scope: "packets:read",
    tag: "Packets",
    summary: "Retrieve a packet with its manifest, review state, authorized sender and exports.",
    successStatus: 200,
    response: Packet,
    idempotent: false,
    events: [],
  }),
  export: defineOperation({
    id: "exportPacket",
    method: "POST",
    path: "/v1/packets/{packet_id}/export",
    scope: "packets:export",
    tag: "Packets",
    summary:
      "Export a packet as a PDF, a ZIP or a JSON bundle, byte-for-byte reproducible; records packet.exported and a 30-day response deadline.",
    successStatus: 201,
    body: ExportPacketBody,
    response: PacketExport,
    idempotent: true,
    events: ["packet.exported"],
    alsoAnswers: { 409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" } },
  }),
  getExport: defineOperation({
    id: "retrievePacketExport",
    method: "GET",
    path: "/v1/packets/exports/{export_id}",
    scope: "packets:read",
    tag: "Packets",
    summary: "Retrieve an export: its hashes, download URL and response deadline.",
    successStatus: 200,
    response: PacketExport,
    idempotent: false,
    events: [],
  }),
};

/**
 * GET {base_url}/v1/exports/<export_id>.<format>: the artifact's bytes with their Content-Type. Not one
 * of the surface's JSON operations (REST serves it beside them); admitted like them with packets:read.
 */
export const exportDownload: OperationDefinition = {
  id: "downloadPacketExport",
  method: "GET",
  path: "/v1/exports/{file}",
  rpc: false,
  scope: "packets:read",
  tag: "Packets",
  summary: "Download an export's artifact; 404 for any key of another organization.",
  successStatus: 200,
  response: z.unknown(),
  fileResponse: ["application/pdf", "application/zip", "application/json"],
  idempotent: false,
  events: [],
};

export const SetPacketStatusBody = z.object({
  packet_id: NonBlankText(64),
  status: z.enum(OPERATOR_PACKET_STATUSES),
  notes: Text(10_000).optional(),
});

export const ReviewPacketBody = z.object({
  packet_id: NonBlankText(64),
  review_status: z.enum(REVIEW_STATUSES),
  review_owner: Text(200).optional(),
  review_notes: Text(10_000).optional(),
});
