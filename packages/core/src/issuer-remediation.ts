/**
 * Issuer remediation as the 2026-06-11 version shows it. A remediation IS a packet of type
 * `issuer_freeze` or `burn_reissue`, and a destination wallet certificate a packet of type
 * `destination_wallet_certificate`; the legacy fields are read from the packet (its type, status,
 * review and bound content). The service only prepares packets: it never moves tokens.
 */
import type {
  DestinationWalletCertificateDetails,
  IssuerRemediationDetails,
  PacketManifest,
  PacketStatus,
  PacketType,
} from "./packets";
import { isReviewCleared, type ReviewStatus } from "./reviews";

export const REMEDIATION_PACKET_TYPES = ["issuer_freeze", "burn_reissue"] as const satisfies readonly PacketType[];
export type RemediationPacketType = (typeof REMEDIATION_PACKET_TYPES)[number];

export function isRemediationPacketType(type: PacketType): type is RemediationPacketType {
  return (REMEDIATION_PACKET_TYPES as readonly PacketType[]).includes(type);
}

/** `action_type` of a remediation, by packet type. */
export const REMEDIATION_ACTION_TYPES = {
  issuer_freeze: "freeze_only",
  burn_reissue: "burn_reissue",
} as const satisfies Record<RemediationPacketType, string>;
export type RemediationActionType = (typeof REMEDIATION_ACTION_TYPES)[RemediationPacketType];

export const REMEDIATION_STATUSES = ["freeze", "burn", "reissue", "remit", "reject", "close"] as const;
export type RemediationStatus = (typeof REMEDIATION_STATUSES)[number];

/**
 * The legacy `status` of a remediation, read from its packet. First match wins:
 *
 * | packet                                   | issuer_freeze | burn_reissue |
 * | ---------------------------------------- | ------------- | ------------ |
 * | status `closed`                          | close         | close        |
 * | review `rejected`, or status `contested` | reject        | reject       |
 * | status `complied`                        | freeze        | remit        |
 * | status `acknowledged`                    | freeze        | reissue      |
 * | `assembled`, `exported`, `served`        | freeze        | burn         |
 *
 * A freeze stays `freeze` while open: its only outcome is the freeze. A burn-and-reissue is `burn`
 * until the issuer acknowledges it (`reissue`: burning and reissuing to the certified destination),
 * and `remit` once the issuer complied (the reissued tokens are held; remitting them is the
 * ledger's). A contested packet (the issuer refused) and a packet a reviewer rejected are `reject`.
 */
export function remediationStatusOf(packet: {
  type: RemediationPacketType;
  status: PacketStatus;
  review_status: ReviewStatus;
}): RemediationStatus {
  if (packet.status === "closed") return "close";
  if (packet.review_status === "rejected" || packet.status === "contested") return "reject";
  if (packet.type === "issuer_freeze") return "freeze";
  if (packet.status === "complied") return "remit";
  if (packet.status === "acknowledged") return "reissue";
  return "burn";
}

export const CERTIFICATE_APPROVAL_STATUSES = ["pending", "approved", "rejected", "blocked"] as const;
export type CertificateApprovalStatus = (typeof CERTIFICATE_APPROVAL_STATUSES)[number];

export type CertificateApprovalRefusal = "screen_incomplete" | "screen_matched";

/**
 * Why a certificate may not be approved, or null: approval needs its sanctions screen complete
 * (screened against a list that had entries) and clear of matches. A certificate without a recorded
 * screen (null) is not screened, never approved.
 */
export function findCertificateApprovalRefusal(
  details: Pick<DestinationWalletCertificateDetails, "sanctions_screen"> | null,
): CertificateApprovalRefusal | null {
  const screen = details?.sanctions_screen;
  if (!screen?.complete) return "screen_incomplete";
  if (screen.matches.length > 0) return "screen_matched";
  return null;
}

/**
 * `approval_status` of a certificate: `blocked` when its screen matched (it can never be approved),
 * `approved` when a reviewer approved or cleared its packet (only possible with a complete, clear
 * screen), `rejected` when a reviewer rejected it, else `pending`.
 */
export function certificateApprovalStatusOf(
  review_status: ReviewStatus,
  details: Pick<DestinationWalletCertificateDetails, "sanctions_screen"> | null,
): CertificateApprovalStatus {
  const refusal = findCertificateApprovalRefusal(details);
  if (refusal === "screen_matched") return "blocked";
  if (review_status === "rejected") return "rejected";
  if (refusal === null && isReviewCleared(review_status)) return "approved";
  return "pending";
}

/** The certificate content bound in a packet's manifest, or null (another type, or none recorded). */
export function certificateDetailsOf(manifest: PacketManifest): DestinationWalletCertificateDetails | null {
  const details = manifest.details;
  return manifest.type === "destination_wallet_certificate" && details && "sanctions_screen" in details
    ? details
    : null;
}

/** The remediation content bound in a packet's manifest, or null (another type, or none recorded). */
export function remediationDetailsOf(manifest: PacketManifest): IssuerRemediationDetails | null {
  const details = manifest.details;
  return isRemediationPacketType(manifest.type) && details && "issuer" in details ? details : null;
}
