/**
 * The review a person owes a record before it is acted on (an enforcement posture, later packets
 * and waterfalls). `pending` when a reviewer is needed; `approved` or `cleared` when one has signed
 * it off; `rejected` when one refused it (a new posture puts it back to `pending`); `not_required`
 * when nothing awaits review.
 */
export const REVIEW_STATUSES = ["not_required", "pending", "approved", "cleared", "rejected"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The statuses by which a reviewer signs a review off. */
export const REVIEW_CLEARING_STATUSES = ["approved", "cleared"] as const satisfies readonly ReviewStatus[];

/** The statuses under which a review is still owed (what a query filters on for isReviewRequired). */
export const REVIEW_REQUIRED_STATUSES = ["pending", "rejected"] as const satisfies readonly ReviewStatus[];

/**
 * `review_required` is derived from the status, never stored beside it, so the two cannot
 * disagree: a review is required until a reviewer approves or clears it. A rejection does not end
 * it: what was rejected still may not be acted on.
 */
export function isReviewRequired(status: ReviewStatus): boolean {
  return (REVIEW_REQUIRED_STATUSES as readonly ReviewStatus[]).includes(status);
}

export function isReviewCleared(status: ReviewStatus): boolean {
  return (REVIEW_CLEARING_STATUSES as readonly ReviewStatus[]).includes(status);
}
