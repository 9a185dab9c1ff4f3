import type { debtorOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { buildDebtorGraph } from "./build-debtor-graph";
import { createDebtor } from "./create-debtor";
import { deriveAssetHypotheses } from "./derive-asset-hypotheses";
import { listDebtors } from "./list-debtors";
import { retrieveDebtor } from "./retrieve-debtor";
import { updateDebtor } from "./update-debtor";

export const debtorHandlers = {
  create: createDebtor,
  list: listDebtors,
  get: retrieveDebtor,
  update: updateDebtor,
  graph: buildDebtorGraph,
  assetHypotheses: deriveAssetHypotheses,
} satisfies GroupHandlers<typeof debtorOperations>;
