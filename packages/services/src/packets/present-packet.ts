import type { Packet, PacketExport } from "@crs/contract";
import { addDays, calendarDateOf, deriveFreezeTargets, formatTimestamp, PACKET_RESPONSE_DAYS } from "@crs/core";
import type { schema } from "@crs/db";
import { auditOf } from "../audit";
import { reviewStateOf } from "./review-state";

export type PacketRow = typeof schema.packets.$inferSelect;
export type PacketExportRow = typeof schema.packetExports.$inferSelect;

export function downloadUrlOf(publicBaseUrl: string, row: Pick<PacketExportRow, "id" | "format">): string {
  return `${publicBaseUrl}/v1/exports/${row.id}.${row.format}`;
}

export function presentPacket(row: PacketRow, exports: readonly PacketExportRow[], publicBaseUrl: string): Packet {
  const manifest = row.manifest;
  return {
    object: "packet",
    id: row.id,
    packet_id: row.id,
    matter_id: row.matterId,
    livemode: row.environment === "live",
    type: row.type,
    status: row.status,
    authorized_sender: manifest.authorized_sender,
    judgment_id: row.judgmentId,
    wallets: manifest.wallets,
    freeze_targets: deriveFreezeTargets(row.type, manifest.wallets),
    recovery_event_ids: row.recoveryEventIds,
    legal_authority_id: manifest.legal_authority_id,
    target_venue: manifest.target_venue,
    source_refs: manifest.source_refs,
    review_state: reviewStateOf(row),
    manifest,
    content_hash: row.contentHash,
    exports: exports.map((exported) => ({
      export_id: exported.id,
      format: exported.format,
      export_hash: exported.exportHash,
      download_url: downloadUrlOf(publicBaseUrl, exported),
      created_at: formatTimestamp(exported.createdAt),
    })),
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    audit: auditOf(row, row.matterId),
  };
}

export function presentPacketExport(row: PacketExportRow, publicBaseUrl: string): PacketExport {
  return {
    object: "packet_export",
    id: row.id,
    export_id: row.id,
    object_type: "packet",
    object_id: row.packetId,
    packet_id: row.packetId,
    matter_id: row.matterId,
    livemode: row.environment === "live",
    format: row.format,
    redaction_profile: row.redactionProfile,
    include_chain_of_custody: row.includeChainOfCustody,
    status: "available",
    content_type: row.contentType,
    byte_size: row.artifactBytes,
    artifact_sha256: row.artifactSha256,
    download_url: downloadUrlOf(publicBaseUrl, row),
    audit_id: row.requestId,
    packet_hash: row.packetContentHash,
    export_hash: row.exportHash,
    response_deadline: addDays(calendarDateOf(row.createdAt), PACKET_RESPONSE_DAYS),
    created_at: formatTimestamp(row.createdAt),
  };
}
