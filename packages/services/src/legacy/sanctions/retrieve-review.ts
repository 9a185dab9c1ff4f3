import type { OperationInput, SanctionsReview, sanctionsOperations } from "@crs/contract";
import type { ReadContext } from "../../context";
import { loadPacketOfType } from "../../packets/load-packet";
import { presentSanctionsReview } from "./present-sanctions";

/** A packet of type sanctions_review; any other packet is not a review (404). */
export async function retrieveSanctionsReview(
  read: ReadContext,
  { params }: OperationInput<typeof sanctionsOperations.get>,
): Promise<SanctionsReview> {
  const row = await loadPacketOfType(read.db, read.actor, params.review_id, {
    types: ["sanctions_review"],
    what: "sanctions review",
  });
  return presentSanctionsReview(row);
}
