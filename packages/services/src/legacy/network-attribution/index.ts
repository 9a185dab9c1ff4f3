import type { networkAttributionOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { correlateNetworkSignals } from "./correlate-network-signals";
import { recordNetworkSignal } from "./record-network-signal";
import { retrieveNetworkAttribution } from "./retrieve-network-attribution";

export const networkAttributionHandlers = {
  recordSignal: recordNetworkSignal,
  correlate: correlateNetworkSignals,
  get: retrieveNetworkAttribution,
} satisfies GroupHandlers<typeof networkAttributionOperations>;
