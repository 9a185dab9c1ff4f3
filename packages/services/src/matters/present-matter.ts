import type { Matter } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";
import { auditOf } from "../audit";

export type MatterRow = typeof schema.matters.$inferSelect;

/** The matter as the API returns it (and as its events carry it). */
export function presentMatter(row: MatterRow): Matter {
  return {
    object: "matter",
    id: row.id,
    matter_id: row.id,
    organization_id: row.organizationId,
    livemode: row.environment === "live",
    name: row.name,
    mode: row.mode,
    lead_counsel: row.leadCounsel,
    economics: row.economics,
    notes: row.notes,
    status: row.status,
    retention_policy: row.retentionPolicy,
    close_reason: row.closeReason,
    close_notes: row.closeNotes,
    closed_at: row.closedAt ? formatTimestamp(row.closedAt) : null,
    sanctions_hold: row.sanctionsHold,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    audit: auditOf(row, row.id),
  };
}
