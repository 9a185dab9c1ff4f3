import type { DestinationWalletCertificate, Remediation } from "@crs/contract";
import {
  certificateApprovalStatusOf,
  certificateDetailsOf,
  formatTimestamp,
  REMEDIATION_ACTION_TYPES,
  type RemediationPacketType,
  remediationDetailsOf,
  remediationStatusOf,
} from "@crs/core";
import type { PacketRow } from "../../packets/present-packet";
import { reviewStateOf } from "../../packets/review-state";

/**
 * A packet of type issuer_freeze or burn_reissue as the 2026-06-11 remediation shows it. A packet
 * assembled through `POST /v1/packets` has no remediation content: its issuer, asset and notes are
 * null. `network`, when the caller named none, is the wallets' one network when they share one.
 */
export function presentRemediation(row: PacketRow & { type: RemediationPacketType }): Remediation {
  const manifest = row.manifest;
  const details = remediationDetailsOf(manifest);
  return {
    object: "issuer_remediation",
    id: row.id,
    remediation_id: row.id,
    packet_id: row.id,
    packet_type: row.type,
    matter_id: row.matterId,
    judgment_id: row.judgmentId,
    issuer: details?.issuer ?? null,
    asset: details?.asset ?? null,
    network: details?.network ?? sharedNetwork(manifest.wallets),
    action_type: REMEDIATION_ACTION_TYPES[row.type],
    status: remediationStatusOf({ type: row.type, status: row.status, review_status: row.reviewStatus }),
    packet_status: row.status,
    destination_wallet_certificate_id: details?.destination_wallet_certificate_id ?? null,
    wallets: manifest.wallets,
    authorized_sender: manifest.authorized_sender,
    legal_authority_id: manifest.legal_authority_id,
    notes: details?.notes ?? null,
    review_state: reviewStateOf(row),
    content_hash: row.contentHash,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}

/** The one network all these wallets name, or null (none named, or several). */
export function sharedNetwork(wallets: readonly { network: string | null }[]): string | null {
  const networks = new Set(wallets.map((wallet) => wallet.network));
  const [only] = networks;
  return networks.size === 1 && only !== undefined ? only : null;
}

/** A packet of type destination_wallet_certificate as the 2026-06-11 certificate shows it. */
export function presentCertificate(row: PacketRow): DestinationWalletCertificate {
  const details = certificateDetailsOf(row.manifest);
  if (!details) throw new Error(`packet ${row.id} is not a certificate with bound certificate content`);
  const [wallet] = row.manifest.wallets;
  return {
    object: "destination_wallet_certificate",
    id: row.id,
    destination_wallet_id: row.id,
    packet_id: row.id,
    matter_id: row.matterId,
    wallet_address: wallet?.address ?? "",
    network: wallet?.network ?? null,
    purpose: details.purpose,
    owner: details.owner,
    custodian: details.custodian,
    signer_model: details.signer_model,
    allowed_assets: details.allowed_assets,
    sanctions_screen_complete: details.sanctions_screen.complete,
    sanctions_screen: details.sanctions_screen,
    approval_status: certificateApprovalStatusOf(row.reviewStatus, details),
    packet_status: row.status,
    review_state: reviewStateOf(row),
    content_hash: row.contentHash,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}
