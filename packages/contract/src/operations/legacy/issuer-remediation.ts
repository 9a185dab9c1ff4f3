import {
  CERTIFICATE_APPROVAL_STATUSES,
  PACKET_STATUSES,
  REMEDIATION_ACTION_TYPES,
  REMEDIATION_STATUSES,
} from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../../operation";
import { NonBlankText, SourceRefInput, Text, Timestamp } from "../../schemas/common";
import { ReviewState } from "../judgments";
import { SubjectScreen } from "../packets";
import { WalletInput } from "../parties";

/**
 * Issuer remediation (2026-06-11): a remediation is a packet of type `issuer_freeze` or
 * `burn_reissue`, a destination wallet certificate a packet of type `destination_wallet_certificate`;
 * `remediation_id` and `destination_wallet_id` are the packet ids. These operations assemble packets
 * through the same path as `POST /v1/packets` (gates, manifest, content hash) and never move tokens.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";
const EXAMPLE_JUDGMENT = "judgment_01k1z9s2ab3q7mxw2c4d8e6f0g";

const Wallets = z.array(WalletInput).max(100, "must have at most 100 wallets");
const OptionalText = (max: number) => NonBlankText(max).nullable().optional();

const remediationBody = (type: "issuer_freeze" | "burn_reissue", id: string) =>
  z
    .object({
      matter_id: NonBlankText(64),
      judgment_id: NonBlankText(64).nullable().optional(),
      wallets: Wallets.optional(),
      packet_type: z
        .literal(type, { error: `must be ${type} (the packet type of this operation) or omitted` })
        .optional(),
      authorized_sender: Text(200).optional(),
      legal_authority_id: OptionalText(200),
      source_refs: z.array(SourceRefInput).max(200, "must have at most 200 source refs").optional(),
      notes: Text(10_000).nullable().optional(),
      issuer: OptionalText(200),
      asset: OptionalText(50),
      network: OptionalText(50),
      destination_wallet_certificate_id: OptionalText(64),
    })
    .meta({
      id,
      example: {
        matter_id: EXAMPLE_MATTER,
        judgment_id: EXAMPLE_JUDGMENT,
        wallets: [{ address: "0x8ba1f109551bD432803012645Ac136ddd64DBA72", network: "ethereum" }],
        packet_type: type,
        authorized_sender: "Jane Counsel, Counsel & Co LLP",
        legal_authority_id: "writ-2024-117",
        issuer: "Example Stablecoin Issuer Inc.",
        asset: "USDX",
        notes: "Freeze pending turnover order.",
      },
    });

export const CreateFreezePacketBody = remediationBody("issuer_freeze", "LegacyCreateFreezePacketBody");
export const CreateBurnReissuePacketBody = remediationBody("burn_reissue", "LegacyCreateBurnReissuePacketBody");

export const Remediation = z
  .object({
    object: z.literal("issuer_remediation"),
    id: z.string(),
    remediation_id: z.string().meta({ description: "the packet id" }),
    packet_id: z.string(),
    packet_type: z.enum(["issuer_freeze", "burn_reissue"]),
    matter_id: z.string(),
    judgment_id: z.string().nullable(),
    issuer: z.string().nullable(),
    asset: z.string().nullable(),
    network: z.string().nullable(),
    action_type: z.enum([REMEDIATION_ACTION_TYPES.issuer_freeze, REMEDIATION_ACTION_TYPES.burn_reissue]),
    status: z.enum(REMEDIATION_STATUSES).meta({ description: "read from the packet's status and review" }),
    packet_status: z.enum(PACKET_STATUSES),
    destination_wallet_certificate_id: z.string().nullable(),
    wallets: z.array(z.object({ address: z.string(), network: z.string().nullable() })),
    authorized_sender: z.string(),
    legal_authority_id: z.string().nullable(),
    notes: z.string().nullable(),
    review_state: ReviewState,
    content_hash: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacyIssuerRemediation" });
export type Remediation = z.infer<typeof Remediation>;

export const CreateDestinationWalletCertificateBody = z
  .object({
    matter_id: NonBlankText(64),
    wallet_address: NonBlankText(200),
    network: OptionalText(50),
    purpose: OptionalText(500),
    owner: OptionalText(200),
    custodian: OptionalText(200),
    signer_model: OptionalText(200),
    allowed_assets: z
      .array(NonBlankText(50))
      .max(50, "must have at most 50 assets")
      .refine((assets) => new Set(assets).size === assets.length, "must not name an asset twice")
      .optional(),
  })
  .meta({
    id: "LegacyCreateDestinationWalletCertificateBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      wallet_address: "0x1f9090aaE28b8a3dCeaDf281B0F12828e676c326",
      network: "ethereum",
      purpose: "reissue destination",
      owner: "Acme Holdings LLC",
      custodian: "Example Qualified Custodian LLC",
      signer_model: "2-of-3 multisig",
      allowed_assets: ["USDX"],
    },
  });

export const DestinationWalletCertificate = z
  .object({
    object: z.literal("destination_wallet_certificate"),
    id: z.string(),
    destination_wallet_id: z.string().meta({ description: "the packet id" }),
    packet_id: z.string(),
    matter_id: z.string(),
    wallet_address: z.string(),
    network: z.string().nullable(),
    purpose: z.string().nullable(),
    owner: z.string().nullable(),
    custodian: z.string().nullable(),
    signer_model: z.string().nullable(),
    allowed_assets: z.array(z.string()),
    sanctions_screen_complete: z.boolean(),
    sanctions_screen: SubjectScreen,
    approval_status: z.enum(CERTIFICATE_APPROVAL_STATUSES),
    packet_status: z.enum(PACKET_STATUSES),
    review_state: ReviewState,
    content_hash: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacyDestinationWalletCertificate" });
export type DestinationWalletCertificate = z.infer<typeof DestinationWalletCertificate>;

const SUCCESSOR_NOTE = {
  issuer_freeze: "A packet of type issuer_freeze.",
  burn_reissue: "A packet of type burn_reissue.",
  destination_wallet_certificate: "A packet of type destination_wallet_certificate.",
} as const;

const REMEDIATION_WRITE_ANSWERS = {
  403: {
    description:
      "authority_required (the matter has no granted authority) or sanctions_gate (a sanctions hit awaits review); or a missing scope",
  },
  404: {
    description: "Unknown matter_id, or a judgment_id or destination_wallet_certificate_id that is not the matter's",
  },
  409: {
    description:
      "stay_in_effect (the bound judgment is stayed), or conflict (closed matter, Idempotency-Key reused or in flight)",
  },
} as const;

export const issuerRemediationOperations = {
  freezePacket: defineOperation({
    id: "legacyCreateIssuerFreezePacket",
    method: "POST",
    path: "/v1/issuer-remediation/freeze-packet",
    scope: "issuer:write",
    tag: "Issuer remediation",
    summary: "Prepare an issuer freeze request: a packet of type issuer_freeze (never moves tokens).",
    successStatus: 201,
    body: CreateFreezePacketBody,
    response: Remediation,
    idempotent: true,
    events: ["packet.created"],
    alsoAnswers: REMEDIATION_WRITE_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: { operation: "createPacket", note: SUCCESSOR_NOTE.issuer_freeze },
  }),
  burnReissuePacket: defineOperation({
    id: "legacyCreateBurnReissuePacket",
    method: "POST",
    path: "/v1/issuer-remediation/burn-reissue-packet",
    scope: "issuer:write",
    tag: "Issuer remediation",
    summary: "Prepare a burn-and-reissue request: a packet of type burn_reissue (never moves tokens).",
    successStatus: 201,
    body: CreateBurnReissuePacketBody,
    response: Remediation,
    idempotent: true,
    events: ["packet.created"],
    alsoAnswers: REMEDIATION_WRITE_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: { operation: "createPacket", note: SUCCESSOR_NOTE.burn_reissue },
  }),
  destinationWalletCertificate: defineOperation({
    id: "legacyCreateDestinationWalletCertificate",
    method: "POST",
    path: "/v1/issuer-remediation/destination-wallet-certificate",
    scope: "issuer:write",
    tag: "Issuer remediation",
    summary:
      "Certify a destination wallet: a packet of type destination_wallet_certificate, its wallet, owner and custodian screened against the sanctions list.",
    successStatus: 201,
    body: CreateDestinationWalletCertificateBody,
    response: DestinationWalletCertificate,
    idempotent: true,
    events: ["packet.created"],
    alsoAnswers: {
      403: REMEDIATION_WRITE_ANSWERS[403],
      404: { description: "Unknown matter_id" },
      409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
    },
    rpc: false,
    surface: "legacy",
    successor: { operation: "createPacket", note: SUCCESSOR_NOTE.destination_wallet_certificate },
  }),
  get: defineOperation({
    id: "legacyRetrieveIssuerRemediation",
    method: "GET",
    path: "/v1/issuer-remediation/{remediation_id}",
    scope: "issuer:read",
    tag: "Issuer remediation",
    summary:
      "Retrieve a remediation (a packet of type issuer_freeze or burn_reissue); any other packet is not one (404).",
    successStatus: 200,
    response: Remediation,
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: { operation: "retrievePacket", note: "Issuer remediations are packets." },
  }),
};
