import type { EventType } from "@crs/contract";
import { appendEvent, type Transaction } from "@crs/db";
import type { Actor, ServiceDeps } from "../context";

export interface RecordEventInput {
  type: EventType;
  /** e.g. `matter_id` */
  idField: string;
  object: { id: string; status?: string } & Record<string, unknown>;
  matterId: string | null;
  extra?: Record<string, unknown>;
}

/**
 * Appends the event for a write in the write's own transaction. `data` holds the resource's id
 * fields, its status, the audit_ref and the resource as the API returned it (DECISIONS §6).
 */
export async function recordEvent(tx: Transaction, deps: ServiceDeps, actor: Actor, input: RecordEventInput) {
  const data: Record<string, unknown> = {
    [input.idField]: input.object.id,
    matter_id: input.matterId,
    ...(input.object.status !== undefined ? { status: input.object.status } : {}),
    audit_ref: actor.requestId,
    object: input.object,
    ...input.extra,
  };
  return appendEvent(
    tx,
    {
      organizationId: actor.organizationId,
      environment: actor.environment,
      type: input.type,
      apiVersion: actor.apiVersion,
      auditRef: actor.requestId,
      matterId: input.matterId,
      data,
    },
    { signingKey: deps.eventSigningKey, newEventId: () => deps.newId("event"), clock: deps.clock },
  );
}
