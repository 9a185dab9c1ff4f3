import type { Action, actionOperations, OperationInput } from "@crs/contract";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { previousAttributes } from "../../previous-attributes";
import { assertActionGates, assertActionTransition, assertActionWritable, recordActionEvent } from "./action-rules";
import { lockActionForWrite } from "./load-action";
import { type ActionRow, presentAction } from "./present-action";

/**
 * Changes an action's title, priority, owner, due time or status (start it, or cancel it once started),
 * under its matter's row lock. Only fields whose value really changes are written: a PATCH that changes
 * nothing writes nothing and appends no event.
 */
export async function updateAction(
  write: WriteContext,
  { params, body }: OperationInput<typeof actionOperations.update>,
): Promise<Action> {
  const { tx, actor } = write;
  const { matter, action: current } = await lockActionForWrite(tx, actor, params.action_id);
  assertActionWritable(current);
  if (body.status !== undefined) assertActionTransition(current, body.status, "update");
  await assertActionGates(write, matter);

  const requested: Partial<Pick<ActionRow, "title" | "status" | "priority" | "ownerId" | "dueAt">> = {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
    ...(body.priority !== undefined ? { priority: body.priority } : {}),
    ...(body.owner_id !== undefined ? { ownerId: body.owner_id } : {}),
    ...(body.due_at !== undefined ? { dueAt: body.due_at === null ? null : new Date(body.due_at) } : {}),
  };
  const changes = Object.fromEntries(
    Object.entries(requested).filter(([field, value]) => {
      const before = current[field as keyof typeof requested];
      return value instanceof Date || before instanceof Date
        ? (value as Date | null)?.getTime() !== (before as Date | null)?.getTime()
        : value !== before;
    }),
  );
  const before = presentAction(current);
  if (Object.keys(changes).length === 0) return before;

  const now = write.clock();
  const [row] = await tx
    .update(schema.actions)
    .set({ ...changes, ...writeStamp(actor, now) })
    .where(tenantRow(schema.actions, actor, current.id))
    .returning();
  if (!row) throw new Error("action update returned nothing");
  const action = presentAction(row);
  recordActionEvent(write, matter, "updated", action, previousAttributes(before, action));
  return action;
}
