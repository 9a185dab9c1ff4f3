import { formatTimestamp } from "@crs/core";
import type { Actor } from "./context";

/** The `audit` shape objects carry: who last changed the object, under which request, when. */
export function auditOf(
  row: { lastRequestId: string; lastActorId: string; organizationId: string; updatedAt: Date },
  matterId: string | null,
) {
  return {
    request_id: row.lastRequestId,
    actor_id: row.lastActorId,
    organization_id: row.organizationId,
    matter_id: matterId,
    timestamp: formatTimestamp(row.updatedAt),
  };
}

/** Columns stamped on every write so the object can show who last changed it and under which request. */
export function writeStamp(actor: Actor, now: Date) {
  return { lastRequestId: actor.requestId, lastActorId: actor.keyId, updatedAt: now };
}
