import { describe, expect, it } from "vitest";
import { isReviewCleared, isReviewRequired, REVIEW_STATUSES } from "../src/reviews";

describe("review statuses", () => {
  it("require review while pending or rejected, and not once approved, cleared or never needed", () => {
    const required = REVIEW_STATUSES.filter(isReviewRequired);
    expect(required).toEqual(["pending", "rejected"]);
  });

  it("are signed off only by approved or cleared", () => {
    expect(REVIEW_STATUSES.filter(isReviewCleared)).toEqual(["approved", "cleared"]);
  });

  it("never count a status as both required and cleared", () => {
    for (const status of REVIEW_STATUSES) expect(isReviewRequired(status) && isReviewCleared(status)).toBe(false);
  });
});
