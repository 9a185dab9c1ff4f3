import type { packetOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { createPacket } from "./create-packet";
import { exportPacket } from "./export-packet";
import { listPackets } from "./list-packets";
import { retrievePacket } from "./retrieve-packet";
import { retrievePacketExport } from "./retrieve-packet-export";

export const packetHandlers = {
  create: createPacket,
  list: listPackets,
  get: retrievePacket,
  export: exportPacket,
  getExport: retrievePacketExport,
} satisfies GroupHandlers<typeof packetOperations>;
