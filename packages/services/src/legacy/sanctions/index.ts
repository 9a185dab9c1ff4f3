import type { sanctionsOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { createOfacReportPacket } from "./create-ofac-report";
import { createSanctionsReviewPacket } from "./create-review-packet";
import { retrieveSanctionsReview } from "./retrieve-review";
import { screenSanctions } from "./screen-sanctions";

export const sanctionsHandlers = {
  screen: screenSanctions,
  reviewPacket: createSanctionsReviewPacket,
  ofacReport: createOfacReportPacket,
  get: retrieveSanctionsReview,
} satisfies GroupHandlers<typeof sanctionsOperations>;
