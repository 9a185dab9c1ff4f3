import type { legacyCryptoOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { exchangeHypotheses } from "./exchange-hypotheses";
import { stablecoinExposure } from "./stablecoin-exposure";
import { transactionTimeline } from "./transaction-timeline";

export const legacyCryptoHandlers = {
  transactionTimeline,
  exchangeHypotheses,
  stablecoinExposure,
} satisfies GroupHandlers<typeof legacyCryptoOperations>;
