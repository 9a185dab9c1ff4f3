import type { debtorOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { createDebtor } from "./create-debtor";
import { listDebtors } from "./list-debtors";
import { retrieveDebtor } from "./retrieve-debtor";
import { updateDebtor } from "./update-debtor";

export const debtorHandlers = {
  create: createDebtor,
  list: listDebtors,
  get: retrieveDebtor,
  update: updateDebtor,
} satisfies GroupHandlers<typeof debtorOperations>;
