import type { Action, actionOperations, OperationInput } from "@crs/contract";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { normalizeSourceRefs } from "../../packets/source-refs";
import { assertActionGates, assertActionTransition, recordActionEvent } from "./action-rules";
import { lockActionForWrite } from "./load-action";
import { presentAction } from "./present-action";

/**
 * Completes an in-progress action with its completion notes and evidence. The status is read under the
 * matter row lock, so of concurrent completes exactly one finds the action in progress; the others find
 * it completed and are refused (409).
 */
export async function completeAction(
  write: WriteContext,
  { params, body }: OperationInput<typeof actionOperations.complete>,
): Promise<Action> {
  const { tx, actor } = write;
  const { matter, action: current } = await lockActionForWrite(tx, actor, params.action_id);
  assertActionTransition(current, "completed", "complete");
  await assertActionGates(write, matter);
  const now = write.clock();
  const [row] = await tx
    .update(schema.actions)
    .set({
      status: "completed",
      completionNotes: body.completion_notes,
      evidenceRefs: normalizeSourceRefs(body.evidence_refs),
      completedAt: now,
      ...writeStamp(actor, now),
    })
    .where(tenantRow(schema.actions, actor, current.id))
    .returning();
  if (!row) throw new Error("action update returned nothing");
  const action = presentAction(row);
  recordActionEvent(write, matter, "completed", action);
  return action;
}
