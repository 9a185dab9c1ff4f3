import { AppError, type Judgment, type OperationInput, type operatorOperations } from "@crs/contract";
import { isReviewRequired } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { viewJudgment } from "../judgments/judgment-view";
import { lockJudgmentForWrite } from "../judgments/load-judgment";
import { previousAttributes } from "../previous-attributes";

/** An operator signs off the review of a judgment's enforcement posture (review_status `cleared`). */
export async function clearEnforcementReview(
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.clearReview>,
): Promise<Judgment> {
  const { tx, actor } = write;
  const { matter, judgment: current } = await lockJudgmentForWrite(tx, actor, body.judgment_id);
  if (!isReviewRequired(current.reviewStatus)) {
    throw new AppError("conflict", {
      message: `Judgment '${current.id}' has no review to clear (review_status ${current.reviewStatus}).`,
      param: "judgment_id",
    });
  }
  const view = { tenant: actor, newId: write.newId, clock: write.clock };
  const before = await viewJudgment(tx, view, current, matter);
  const [row] = await tx
    .update(schema.judgments)
    .set({
      reviewStatus: "cleared",
      reviewOwner: body.reviewer ?? current.reviewOwner,
      reviewNotes: body.notes ?? current.reviewNotes,
      ...writeStamp(actor, write.clock()),
    })
    .where(tenantRow(schema.judgments, actor, current.id))
    .returning();
  if (!row) throw new Error("judgment review update returned nothing");
  const judgment = await viewJudgment(tx, view, row, matter);
  write.recordEvent({
    type: "judgment.updated",
    idField: "judgment_id",
    object: judgment,
    matterId: matter.id,
    extra: { previous_attributes: previousAttributes(before, judgment), review_cleared_by: "operator" },
  });
  return judgment;
}
