import { notFound, type OperationInput, type PacketExport, type packetOperations } from "@crs/contract";
import { ID_PREFIXES, isIdOf } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantRow } from "@crs/db";
import type { ReadContext } from "../context";
import { type PacketExportRow, presentPacketExport } from "./present-packet";

export async function loadPacketExport(db: Queryable, tenant: Tenant, exportId: string): Promise<PacketExportRow> {
  if (!isIdOf(ID_PREFIXES.packetExport, exportId)) throw notFound("packet export", exportId);
  const [row] = await db
    .select()
    .from(schema.packetExports)
    .where(tenantRow(schema.packetExports, tenant, exportId));
  if (!row) throw notFound("packet export", exportId);
  return row;
}

export async function retrievePacketExport(
  read: ReadContext,
  { params }: OperationInput<typeof packetOperations.getExport>,
): Promise<PacketExport> {
  return presentPacketExport(await loadPacketExport(read.db, read.actor, params.export_id), read.publicBaseUrl);
}
