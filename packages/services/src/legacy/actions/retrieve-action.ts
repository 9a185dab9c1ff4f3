import type { Action, actionOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../../context";
import { loadAction } from "./load-action";
import { presentAction } from "./present-action";

export async function retrieveAction(
  read: ReadContext,
  { params }: OperationInput<typeof actionOperations.get>,
): Promise<Action> {
  return presentAction(await loadAction(read.db, read.actor, params.action_id));
}
