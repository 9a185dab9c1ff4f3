import type { OperationInput, Packet, packetOperations } from "@crs/contract";
import type { ReadContext } from "../context";
import { loadExportsByPacket, loadPacket } from "./load-packet";
import { presentPacket } from "./present-packet";

export async function retrievePacket(
  read: ReadContext,
  { params }: OperationInput<typeof packetOperations.get>,
): Promise<Packet> {
  const row = await loadPacket(read.db, read.actor, params.packet_id);
  const exports = await loadExportsByPacket(read.db, read.actor, [row.id]);
  return presentPacket(row, exports.get(row.id) ?? [], read.publicBaseUrl);
}
