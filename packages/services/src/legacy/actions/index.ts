import type { actionOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { assignAction } from "./assign-action";
import { completeAction } from "./complete-action";
import { createAction } from "./create-action";
import { listActions, listMatterActions } from "./list-actions";
import { retrieveAction } from "./retrieve-action";
import { updateAction } from "./update-action";

export const actionHandlers = {
  create: createAction,
  list: listActions,
  get: retrieveAction,
  update: updateAction,
  assign: assignAction,
  complete: completeAction,
  listOfMatter: listMatterActions,
} satisfies GroupHandlers<typeof actionOperations>;
