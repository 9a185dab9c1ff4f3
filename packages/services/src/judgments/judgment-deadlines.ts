import type { Deadline } from "@crs/contract";
import {
  type Deadline as ComputedDeadline,
  calendarDateOf,
  computeDeadlines,
  type IdKind,
  type PacketExportForDeadline,
  type PacketStatus,
} from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, eq, inArray } from "drizzle-orm";
import type { MatterRow } from "../matters/present-matter";
import type { JudgmentRow } from "./present-judgment";

/** The judgment's deadlines as of `today`, from its record, its matter and the exports of packets bound to it. */
export function computeJudgmentDeadlines(
  judgment: JudgmentRow,
  matter: MatterRow,
  today: string,
  packetExports: readonly PacketExportForDeadline[],
): ComputedDeadline[] {
  return computeDeadlines({
    judgment: {
      date_entered: judgment.dateEntered,
      jurisdiction: judgment.jurisdiction,
      renewal_deadline: judgment.renewalDeadline,
      status: judgment.status,
      intake_date: calendarDateOf(judgment.createdAt),
    },
    matter: { status: matter.status, lead_counsel: matter.leadCounsel },
    packet_exports: packetExports,
    today,
  });
}

/**
 * Gives each computed deadline its `deadline_id`: the id first recorded for the (judgment, key),
 * recorded now when there is none. Safe under concurrent reads: a second insert of the same key
 * does nothing and both read the one row.
 */
export async function identifyDeadlines(
  db: Queryable,
  context: { tenant: Tenant; newId: (kind: IdKind) => string; now: Date },
  judgment: JudgmentRow,
  computed: readonly ComputedDeadline[],
): Promise<Deadline[]> {
  if (computed.length === 0) return [];
  const d = schema.deadlines;
  const keys = computed.map((deadline) => deadline.key);
  await db
    .insert(d)
    .values(
      computed.map((deadline) => ({
        organizationId: context.tenant.organizationId,
        environment: context.tenant.environment,
        id: context.newId("deadline"),
        judgmentId: judgment.id,
        matterId: judgment.matterId,
        key: deadline.key,
        type: deadline.type,
        createdAt: context.now,
      })),
    )
    .onConflictDoNothing();
  const rows = await db
    .select({ id: d.id, key: d.key })
    .from(d)
    .where(and(tenantScope(d, context.tenant), eq(d.judgmentId, judgment.id), inArray(d.key, keys)));
  const idOf = new Map(rows.map((row) => [row.key, row.id]));
  return computed.map((deadline) => {
    const id = idOf.get(deadline.key);
    if (!id) throw new Error(`deadline ${deadline.key} of ${judgment.id} has no id`);
    return {
      object: "deadline",
      id,
      deadline_id: id,
      judgment_id: judgment.id,
      matter_id: judgment.matterId,
      key: deadline.key,
      type: deadline.type,
      date: deadline.date,
      owner: deadline.owner,
      status: deadline.status,
      basis: deadline.basis,
    };
  });
}

/** A recipient's answer is on record once the packet is acknowledged, contested or complied with (or closed). */
const ANSWERED_PACKET_STATUSES: readonly PacketStatus[] = ["acknowledged", "contested", "complied", "closed"];

/**
 * The exports of packets bound to these judgments, per judgment: each gives a `packet` response deadline
 * 30 days after the export, met once the packet's answer is recorded.
 */
export async function loadPacketExportsForDeadlines(
  db: Queryable,
  tenant: Tenant,
  judgmentIds: readonly string[],
): Promise<Map<string, PacketExportForDeadline[]>> {
  const byJudgment = new Map<string, PacketExportForDeadline[]>(judgmentIds.map((id) => [id, []]));
  if (judgmentIds.length === 0) return byJudgment;
  const p = schema.packets;
  const packets = await db
    .select({ id: p.id, judgmentId: p.judgmentId, status: p.status })
    .from(p)
    .where(and(tenantScope(p, tenant), inArray(p.judgmentId, [...judgmentIds])));
  if (packets.length === 0) return byJudgment;
  const x = schema.packetExports;
  const exports = await db
    .select({ id: x.id, packetId: x.packetId, createdAt: x.createdAt })
    .from(x)
    .where(
      and(
        tenantScope(x, tenant),
        inArray(
          x.packetId,
          packets.map((packet) => packet.id),
        ),
      ),
    );
  const packetOf = new Map(packets.map((packet) => [packet.id, packet]));
  for (const exported of exports) {
    const packet = packetOf.get(exported.packetId);
    if (!packet?.judgmentId) continue;
    byJudgment.get(packet.judgmentId)?.push({
      export_id: exported.id,
      exported_on: calendarDateOf(exported.createdAt),
      response_received: ANSWERED_PACKET_STATUSES.includes(packet.status),
    });
  }
  return byJudgment;
}
