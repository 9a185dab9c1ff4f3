import { createPublicKey } from "node:crypto";
import type { OperationInput, PacketExport, packetOperations } from "@crs/contract";
import {
  type ChainBreak,
  computeExportHash,
  createChainVerifier,
  formatTimestamp,
  isReviewRequired,
  type PACKET_EXPORT_FORMATS,
  publicKeyHex,
  sha256Hex,
  statusAfterExport,
} from "@crs/core";
import { schema, tenantRow, tenantScope, toChainEvent } from "@crs/db";
import {
  buildPacketJson,
  buildPacketZip,
  type ChainOfCustody,
  type PacketDocument,
  renderPacketPdf,
} from "@crs/documents";
import { and, asc, eq } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { shareOf } from "../parties/present-party";
import { loadExportsByPacket, lockPacketForWrite } from "./load-packet";
import { presentPacket, presentPacketExport } from "./present-packet";

export const EXPORT_CONTENT_TYPES: Record<(typeof PACKET_EXPORT_FORMATS)[number], string> = {
  pdf: "application/pdf",
  zip: "application/zip",
  json: "application/json",
};

/**
 * Renders the packet as the requested artifact, stores it (artifact store, in this transaction), and
 * records the export with its hashes; the first export moves the packet to `exported`. Everything the
 * artifact shows is read under the matter row lock and stamped with the export's own time, so the
 * bytes depend on the recorded data only (never on the clock at download, the time zone or the machine).
 */
export async function exportPacket(
  write: WriteContext,
  { params, body }: OperationInput<typeof packetOperations.export>,
): Promise<PacketExport> {
  const { tx, actor } = write;
  const { matter, packet } = await lockPacketForWrite(tx, actor, params.packet_id);
  const now = write.clock();
  const createdAt = formatTimestamp(now);
  const exportId = write.newId("packetExport");
  const priorExports = (await loadExportsByPacket(tx, actor, [packet.id])).get(packet.id) ?? [];
  const nextStatus = statusAfterExport(packet.status);

  const p = schema.parties;
  const parties = await tx
    .select()
    .from(p)
    .where(and(tenantScope(p, actor), eq(p.matterId, matter.id)))
    .orderBy(asc(p.id));

  const document: PacketDocument = {
    packet: {
      packet_id: packet.id,
      status: nextStatus,
      created_at: formatTimestamp(packet.createdAt),
      content_hash: packet.contentHash,
      freeze_targets: presentPacket(packet, [], write.publicBaseUrl).freeze_targets,
      review_state: {
        review_required: isReviewRequired(packet.reviewStatus),
        review_status: packet.reviewStatus,
        review_owner: packet.reviewOwner,
        review_notes: packet.reviewNotes,
      },
    },
    manifest: packet.manifest,
    matter: { matter_id: matter.id, name: matter.name, lead_counsel: matter.leadCounsel },
    parties: parties.map((party) => {
      const share = shareOf(party);
      return {
        party_id: party.id,
        role: party.role,
        name: party.name,
        legal_name: party.legalName,
        type: party.type,
        status: party.status,
        share: share === null ? null : String(share),
        aliases: party.aliases,
        identifiers: party.identifiers,
        contact: party.contact,
        wallets: party.wallets.map(({ address, network }) => ({ address, network })),
      };
    }),
    export: {
      export_id: exportId,
      format: body.format,
      created_at: createdAt,
      redaction_profile: body.redaction_profile,
      include_chain_of_custody: body.include_chain_of_custody,
    },
    prior_exports: priorExports.map((prior) => ({
      export_id: prior.id,
      format: prior.format,
      created_at: formatTimestamp(prior.createdAt),
      artifact_sha256: prior.artifactSha256,
      export_hash: prior.exportHash,
    })),
    chain_of_custody: body.include_chain_of_custody ? await chainOfCustody(write, matter.id, createdAt) : null,
  };

  const bytes =
    body.format === "pdf"
      ? await renderPacketPdf(document)
      : body.format === "zip"
        ? await buildPacketZip(document)
        : buildPacketJson(document);
  const artifactSha256 = sha256Hex(bytes);
  const contentType = EXPORT_CONTENT_TYPES[body.format];
  const exportHash = computeExportHash({
    export_id: exportId,
    format: body.format,
    packet_content_hash: packet.contentHash,
    artifact_sha256: artifactSha256,
    created_at: createdAt,
  });

  await write.artifactStore.put(tx, actor, exportId, { bytes, contentType, sha256: artifactSha256, createdAt: now });
  const [row] = await tx
    .insert(schema.packetExports)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: exportId,
      packetId: packet.id,
      matterId: matter.id,
      format: body.format,
      redactionProfile: body.redaction_profile,
      includeChainOfCustody: body.include_chain_of_custody,
      packetContentHash: packet.contentHash,
      artifactSha256,
      artifactBytes: bytes.byteLength,
      contentType,
      exportHash,
      createdAt: now,
      requestId: actor.requestId,
      actorId: actor.keyId,
    })
    .returning();
  if (!row) throw new Error("packet export insert returned nothing");
  if (nextStatus !== packet.status) {
    await tx
      .update(schema.packets)
      .set({ status: nextStatus, ...writeStamp(actor, now) })
      .where(tenantRow(schema.packets, actor, packet.id));
  }
  const packetExport = presentPacketExport(row, write.publicBaseUrl);
  write.recordEvent({
    type: "packet.exported",
    idField: "export_id",
    object: packetExport,
    matterId: matter.id,
    extra: { packet_id: packet.id, packet_status: nextStatus },
  });
  return packetExport;
}

/**
 * The matter's chain entries and a verification of the organization's whole chain as of now, read in the
 * export's transaction. `verified_at` is the export's time, so the artifact does not depend on when it renders.
 */
async function chainOfCustody(write: WriteContext, matterId: string, verifiedAt: string): Promise<ChainOfCustody> {
  const e = schema.events;
  const rows = await write.tx.select().from(e).where(tenantScope(e, write.actor)).orderBy(asc(e.sequence));
  const publicKey = createPublicKey(write.eventSigningKey);
  const verifier = createChainVerifier(publicKey);
  let firstBreak: ChainBreak | null = null;
  const events = rows.map(toChainEvent);
  for (const event of events) {
    firstBreak = verifier.check(event);
    if (firstBreak) break;
  }
  return {
    events: events.filter((event) => event.data.matter_id === matterId),
    verification: {
      valid: firstBreak === null,
      events_checked: verifier.eventsChecked,
      first_break: firstBreak,
      head: verifier.head,
      verified_at: verifiedAt,
    },
    event_signing_key: publicKeyHex(publicKey),
  };
}
