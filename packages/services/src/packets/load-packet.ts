import { notFound } from "@crs/contract";
import { ID_PREFIXES, isIdOf, type PacketType } from "@crs/core";
import { type Queryable, schema, type Tenant, type Transaction, tenantRow, tenantScope } from "@crs/db";
import { and, asc, inArray } from "drizzle-orm";
import { lockMatterOf } from "../matters/load-matter";
import type { MatterRow } from "../matters/present-matter";
import type { PacketExportRow, PacketRow } from "./present-packet";

/** The caller's packet, or 404. */
export async function loadPacket(db: Queryable, tenant: Tenant, packetId: string, param?: string): Promise<PacketRow> {
  if (!isIdOf(ID_PREFIXES.packet, packetId)) throw notFound("packet", packetId, param);
  const [row] = await db
    .select()
    .from(schema.packets)
    .where(tenantRow(schema.packets, tenant, packetId));
  if (!row) throw notFound("packet", packetId, param);
  return row;
}

/**
 * The caller's packet of one of these types (and, when `matterId` is given, of that matter), or 404
 * naming `what` and `param`: a packet of another type or matter is not the thing asked for.
 */
export async function loadPacketOfType<T extends PacketType>(
  db: Queryable,
  tenant: Tenant,
  packetId: string,
  expected: { types: readonly T[]; what: string; param?: string; matterId?: string },
): Promise<PacketRow & { type: T }> {
  const { types, what, param, matterId } = expected;
  if (!isIdOf(ID_PREFIXES.packet, packetId)) throw notFound(what, packetId, param);
  const [row] = await db
    .select()
    .from(schema.packets)
    .where(tenantRow(schema.packets, tenant, packetId));
  const isExpected = (candidate: PacketRow): candidate is PacketRow & { type: T } =>
    (types as readonly PacketType[]).includes(candidate.type) &&
    (matterId === undefined || candidate.matterId === matterId);
  if (!row || !isExpected(row)) throw notFound(what, packetId, param);
  return row;
}

/** For a write to a packet: locks its matter first (like every write to a matter's children), refuses a closed matter. */
export async function lockPacketForWrite(
  tx: Transaction,
  tenant: Tenant,
  packetId: string,
  param?: string,
): Promise<{ matter: MatterRow; packet: PacketRow }> {
  const { matter, row } = await lockMatterOf(tx, tenant, (db) => loadPacket(db, tenant, packetId, param));
  return { matter, packet: row };
}

/** Exports of these packets, oldest first, grouped by packet id. */
export async function loadExportsByPacket(
  db: Queryable,
  tenant: Tenant,
  packetIds: readonly string[],
): Promise<Map<string, PacketExportRow[]>> {
  const byPacket = new Map<string, PacketExportRow[]>();
  for (const id of packetIds) byPacket.set(id, []);
  if (packetIds.length === 0) return byPacket;
  const e = schema.packetExports;
  const rows = await db
    .select()
    .from(e)
    .where(and(tenantScope(e, tenant), inArray(e.packetId, [...packetIds])))
    .orderBy(asc(e.createdAt), asc(e.id));
  for (const row of rows) byPacket.get(row.packetId)?.push(row);
  return byPacket;
}
