import type { ledgerOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { createRecoveryEvent } from "./create-recovery-event";
import { createRemittanceEvent } from "./create-remittance-event";
import { retrieveMatterLedger } from "./retrieve-matter-ledger";

export const ledgerHandlers = {
  createRecoveryEvent,
  createRemittanceEvent,
  retrieveMatterLedger,
} satisfies GroupHandlers<typeof ledgerOperations>;
