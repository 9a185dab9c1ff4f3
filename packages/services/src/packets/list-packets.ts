import type { OperationInput, Packet, packetOperations } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { ReadContext } from "../context";
import { listEnvelope, pageWindow } from "../pagination";
import { loadExportsByPacket } from "./load-packet";
import { presentPacket } from "./present-packet";

export async function listPackets(read: ReadContext, { query }: OperationInput<typeof packetOperations.list>) {
  const p = schema.packets;
  const window = pageWindow(p.id, query);
  const rows = await read.db
    .select()
    .from(p)
    .where(
      and(
        tenantScope(p, read.actor),
        query.matter_id ? eq(p.matterId, query.matter_id) : undefined,
        query.type ? eq(p.type, query.type) : undefined,
        window.cursor,
      ),
    )
    .orderBy(window.orderBy)
    .limit(window.fetch);
  const page = window.page(rows);
  const exports = await loadExportsByPacket(
    read.db,
    read.actor,
    page.data.map((row) => row.id),
  );
  const data: Packet[] = page.data.map((row) => presentPacket(row, exports.get(row.id) ?? [], read.publicBaseUrl));
  return listEnvelope("/v1/packets", { data, has_more: page.has_more });
}
