import { AppError, type OperationInput, type operatorOperations, type Packet } from "@crs/contract";
import {
  type CertificateApprovalRefusal,
  canAdvancePacket,
  certificateDetailsOf,
  findCertificateApprovalRefusal,
  isReviewCleared,
  nextPacketStatuses,
} from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import type { MatterRow } from "../matters/present-matter";
import { recordMatterNote } from "../matters/record-matter-note";
import { loadExportsByPacket, lockPacketForWrite } from "../packets/load-packet";
import { type PacketRow, presentPacket } from "../packets/present-packet";

/** An operator advances a packet as its recipient answers (core's packet transitions). */
export async function setPacketStatus(
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.setPacketStatus>,
): Promise<Packet> {
  const { tx, actor } = write;
  const { matter, packet } = await lockPacketForWrite(tx, actor, body.packet_id, "packet_id");
  if (!canAdvancePacket(packet.status, body.status)) {
    throw new AppError("conflict", {
      message: `Packet '${packet.id}' is ${packet.status}; it may move to ${nextPacketStatuses(packet.status).join(", ") || "nothing (closed is final)"}, not ${body.status}.`,
      param: "status",
      details: { status: packet.status, allowed: nextPacketStatuses(packet.status) },
    });
  }
  return updatePacket(
    write,
    matter,
    packet,
    { status: body.status },
    {
      packet_decision: {
        packet_id: packet.id,
        status: { from: packet.status, to: body.status },
        notes: body.notes ?? null,
      },
    },
  );
}

const CERTIFICATE_REFUSALS: Record<CertificateApprovalRefusal, string> = {
  screen_incomplete:
    "its sanctions screen is not complete (no list was configured when it was assembled, no wallet was screened, or it was stored before certificates recorded their screen); assemble a new certificate.",
  screen_matched: "its sanctions screen matched the sanctions list; it can never be approved.",
};

/**
 * An operator records a review decision on a packet. A destination wallet certificate may be
 * approved (or cleared) only with a complete sanctions screen that matched nothing.
 */
export async function reviewPacket(
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.reviewPacket>,
): Promise<Packet> {
  const { tx, actor } = write;
  const { matter, packet } = await lockPacketForWrite(tx, actor, body.packet_id, "packet_id");
  if (packet.type === "destination_wallet_certificate" && isReviewCleared(body.review_status)) {
    const refusal = findCertificateApprovalRefusal(certificateDetailsOf(packet.manifest));
    if (refusal) {
      throw new AppError("conflict", {
        message: `Destination wallet certificate '${packet.id}' cannot be ${body.review_status}: ${CERTIFICATE_REFUSALS[refusal]}`,
        param: "review_status",
        details: { reason: refusal },
      });
    }
  }
  const change = {
    reviewStatus: body.review_status,
    reviewOwner: body.review_owner ?? packet.reviewOwner,
    reviewNotes: body.review_notes ?? packet.reviewNotes,
  };
  return updatePacket(write, matter, packet, change, {
    packet_decision: {
      packet_id: packet.id,
      review_status: { from: packet.reviewStatus, to: body.review_status },
      review_owner: change.reviewOwner,
      review_notes: change.reviewNotes,
    },
  });
}

async function updatePacket(
  write: WriteContext,
  matter: MatterRow,
  packet: PacketRow,
  change: Partial<Pick<PacketRow, "status" | "reviewStatus" | "reviewOwner" | "reviewNotes">>,
  decision: Record<string, unknown>,
): Promise<Packet> {
  const { tx, actor } = write;
  const [row] = await tx
    .update(schema.packets)
    .set({ ...change, ...writeStamp(actor, write.clock()) })
    .where(tenantRow(schema.packets, actor, packet.id))
    .returning();
  if (!row) throw new Error("packet update returned nothing");
  const exports = (await loadExportsByPacket(tx, actor, [row.id])).get(row.id) ?? [];
  const updated = presentPacket(row, exports, write.publicBaseUrl);
  // No packet.updated event exists in the catalog: the decision rides on matter.updated.
  recordMatterNote(write, matter, { ...decision, packet: updated });
  return updated;
}
