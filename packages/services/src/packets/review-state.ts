import type { ReviewState } from "@crs/contract";
import { isReviewRequired, type ReviewStatus } from "@crs/core";

/** The review state of a row that carries one (a packet, a judgment): `review_required` follows the status. */
export function reviewStateOf(row: {
  reviewStatus: ReviewStatus;
  reviewOwner: string;
  reviewNotes: string;
}): ReviewState {
  return {
    review_required: isReviewRequired(row.reviewStatus),
    review_status: row.reviewStatus,
    review_owner: row.reviewOwner,
    review_notes: row.reviewNotes,
  };
}
