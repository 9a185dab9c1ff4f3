import { AppError, type Judgment, type judgmentOperations, type OperationInput } from "@crs/contract";
import { calendarDateOf, compareDates, FIAT_DECIMALS, formatMinorUnits, toMinorUnits } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import type { MatterRow } from "../matters/present-matter";
import { viewJudgment } from "./judgment-view";

/** The amount as stored: exact minor units, its currency, and the form it was sent in (echoed the same way). */
function amountColumns(amount: OperationInput<typeof judgmentOperations.intake>["body"]["amount"], matter: MatterRow) {
  if (typeof amount === "number") {
    return {
      amount: formatMinorUnits(toMinorUnits(amount, FIAT_DECIMALS), FIAT_DECIMALS),
      currency: matter.economics.currency,
      amountForm: "number" as const,
      valuationTime: null,
    };
  }
  return {
    amount: formatMinorUnits(toMinorUnits(amount.amount, FIAT_DECIMALS), FIAT_DECIMALS),
    currency: amount.currency,
    amountForm: "object" as const,
    valuationTime: amount.valuation_time ? new Date(amount.valuation_time) : null,
  };
}

export async function intakeJudgment(
  write: WriteContext,
  { body }: OperationInput<typeof judgmentOperations.intake>,
): Promise<Judgment> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const now = write.clock();
  if (compareDates(body.date_entered, calendarDateOf(now)) > 0) {
    const message = `must not be after today (${calendarDateOf(now)}, UTC): a judgment is recorded once entered`;
    throw new AppError("invalid_request", {
      message: `Invalid date_entered (${message}).`,
      param: "date_entered",
      details: { invalid: [{ param: "date_entered", message }] },
    });
  }
  const [row] = await tx
    .insert(schema.judgments)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("judgment"),
      matterId: matter.id,
      court: body.court,
      caseNumber: body.case_number,
      jurisdiction: body.jurisdiction,
      creditor: body.creditor,
      debtor: body.debtor,
      ...amountColumns(body.amount, matter),
      dateEntered: body.date_entered,
      status: "active",
      appealStayStatus: "none",
      bankruptcyStatus: "none",
      renewalDeadline: null,
      reviewStatus: "not_required",
      reviewOwner: "",
      reviewNotes: "",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("judgment insert returned nothing");
  const judgment = await viewJudgment(tx, { tenant: actor, newId: write.newId, clock: write.clock }, row, matter);
  write.recordEvent({ type: "judgment.created", idField: "judgment_id", object: judgment, matterId: matter.id });
  return judgment;
}
