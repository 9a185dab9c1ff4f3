import type { Action } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";
import { auditOf } from "../../audit";

export type ActionRow = typeof schema.actions.$inferSelect;

export function presentAction(row: ActionRow): Action {
  return {
    object: "action",
    id: row.id,
    action_id: row.id,
    matter_id: row.matterId,
    campaign_id: row.campaignId,
    type: row.type,
    title: row.title,
    owner_id: row.ownerId,
    priority: row.priority,
    status: row.status,
    due_at: row.dueAt ? formatTimestamp(row.dueAt) : null,
    linked_packet_id: row.linkedPacketId,
    assignment_notes: row.assignmentNotes,
    completion_notes: row.completionNotes,
    review_required: row.reviewRequired,
    evidence_refs: row.evidenceRefs,
    completed_at: row.completedAt ? formatTimestamp(row.completedAt) : null,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    audit: auditOf(row, row.matterId),
  };
}
