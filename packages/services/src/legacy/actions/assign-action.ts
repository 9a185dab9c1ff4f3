import type { Action, actionOperations, OperationInput } from "@crs/contract";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { previousAttributes } from "../../previous-attributes";
import { assertActionGates, assertActionWritable, recordActionEvent } from "./action-rules";
import { lockActionForWrite } from "./load-action";
import { presentAction } from "./present-action";

/**
 * Assigns an open or in-progress action to an owner, keeping the notes of this assignment. Every
 * assign is recorded, even to the same owner: it is a hand-over with its own notes.
 */
export async function assignAction(
  write: WriteContext,
  { params, body }: OperationInput<typeof actionOperations.assign>,
): Promise<Action> {
  const { tx, actor } = write;
  const { matter, action: current } = await lockActionForWrite(tx, actor, params.action_id);
  assertActionWritable(current);
  await assertActionGates(write, matter);
  const now = write.clock();
  const [row] = await tx
    .update(schema.actions)
    .set({ ownerId: body.owner_id, assignmentNotes: body.notes ?? null, ...writeStamp(actor, now) })
    .where(tenantRow(schema.actions, actor, current.id))
    .returning();
  if (!row) throw new Error("action update returned nothing");
  const action = presentAction(row);
  recordActionEvent(write, matter, "assigned", action, previousAttributes(presentAction(current), action));
  return action;
}
