import type { eventOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { retrieveEventCheckpoint } from "./chain-checkpoint";
import { listEvents } from "./list-events";
import { retrieveEvent } from "./retrieve-event";
import { verifyEventChain } from "./verify-event-chain";

export const eventHandlers = {
  list: listEvents,
  verifyChain: verifyEventChain,
  checkpoint: retrieveEventCheckpoint,
  get: retrieveEvent,
} satisfies GroupHandlers<typeof eventOperations>;
