import { AppError, type Judgment, type judgmentOperations, type OperationInput } from "@crs/contract";
import { canonicalize, isReviewRequired } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { previousAttributes } from "../previous-attributes";
import { viewJudgment } from "./judgment-view";
import { lockJudgmentForWrite } from "./load-judgment";
import type { JudgmentRow } from "./present-judgment";

type ReviewStateInput = NonNullable<OperationInput<typeof judgmentOperations.update>["body"]["review_state"]>;

/** The review columns a review_state PATCH asks for; review_required, if sent, must agree with the status. */
function reviewColumns(current: JudgmentRow, input: ReviewStateInput | undefined) {
  if (!input) return {};
  const status = input.review_status ?? current.reviewStatus;
  if (input.review_required !== undefined && input.review_required !== isReviewRequired(status)) {
    const param = "review_state.review_required";
    const message = `must be ${isReviewRequired(status)} with review_status ${status} (review_required follows the status)`;
    throw new AppError("invalid_request", {
      message: `Invalid ${param} (${message}).`,
      param,
      details: { invalid: [{ param, message }] },
    });
  }
  return { reviewStatus: input.review_status, reviewOwner: input.review_owner, reviewNotes: input.review_notes };
}

export async function updateJudgment(
  write: WriteContext,
  { params, body }: OperationInput<typeof judgmentOperations.update>,
): Promise<Judgment> {
  const { tx, actor } = write;
  const { matter, judgment: current } = await lockJudgmentForWrite(tx, actor, params.judgment_id);
  const view = { tenant: actor, newId: write.newId, clock: write.clock };
  const requested = {
    status: body.status,
    appealStayStatus: body.appeal_stay_status,
    bankruptcyStatus: body.bankruptcy_status,
    renewalDeadline: body.renewal_deadline,
    ...reviewColumns(current, body.review_state),
  };
  // Only fields whose value really changes are written; a PATCH that changes nothing appends no event.
  const changes = Object.fromEntries(
    Object.entries(requested).filter(
      ([field, value]) =>
        value !== undefined && canonicalize(value) !== canonicalize(current[field as keyof JudgmentRow]),
    ),
  );
  const before = await viewJudgment(tx, view, current, matter);
  if (Object.keys(changes).length === 0) return before;
  const [row] = await tx
    .update(schema.judgments)
    .set({ ...changes, ...writeStamp(actor, write.clock()) })
    .where(tenantRow(schema.judgments, actor, current.id))
    .returning();
  if (!row) throw new Error("judgment update returned nothing");
  const judgment = await viewJudgment(tx, view, row, matter);
  write.recordEvent({
    type: "judgment.updated",
    idField: "judgment_id",
    object: judgment,
    matterId: matter.id,
    extra: { previous_attributes: previousAttributes(before, judgment) },
  });
  return judgment;
}
