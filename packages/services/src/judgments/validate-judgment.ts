import type { JudgmentValidation, judgmentOperations, OperationInput } from "@crs/contract";
import { calendarDateOf, formatTimestamp, validateJudgment as runValidation } from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { WriteContext } from "../context";
import { lockJudgmentForWrite } from "./load-judgment";
import { amountMinorOf } from "./present-judgment";

/**
 * Validates the judgment against its matter's parties as of today (the gates and checks are core's
 * validateJudgment), stores the result and, on a pass, appends `judgment.validated`. Answers the
 * current shape; the definition gives 2026-06-11 callers theirs.
 */
export async function validateJudgment(
  write: WriteContext,
  { params, body }: OperationInput<typeof judgmentOperations.validate>,
): Promise<JudgmentValidation> {
  const { tx, actor } = write;
  const { matter, judgment } = await lockJudgmentForWrite(tx, actor, params.judgment_id);
  const p = schema.parties;
  const parties = await tx
    .select({ role: p.role, status: p.status, type: p.type, name: p.name, legal_name: p.legalName, aliases: p.aliases })
    .from(p)
    .where(and(tenantScope(p, actor), eq(p.matterId, matter.id)));
  const now = write.clock();
  const result = runValidation({
    judgment: {
      status: judgment.status,
      amount_minor: amountMinorOf(judgment),
      court: judgment.court,
      case_number: judgment.caseNumber,
      creditor: judgment.creditor,
      debtor: judgment.debtor,
      jurisdiction: judgment.jurisdiction,
      date_entered: judgment.dateEntered,
      renewal_deadline: judgment.renewalDeadline,
      appeal_stay_status: judgment.appealStayStatus,
      bankruptcy_status: judgment.bankruptcyStatus,
    },
    parties,
    options: body,
    today: calendarDateOf(now),
  });
  const validation: JudgmentValidation = {
    object: "judgment_validation",
    judgment_id: judgment.id,
    matter_id: matter.id,
    ready: result.ready,
    valid: result.ready,
    enforcement_ready: result.ready,
    review_required: result.review_required,
    gates: result.gates,
    checks: result.checks,
    missing_items: result.missing_items,
    issues: result.issues.map(({ code, source, severity, message, required_actions }) => ({
      code,
      source,
      severity,
      message,
      required_actions,
    })),
    validated_at: formatTimestamp(now),
  };
  await tx.insert(schema.judgmentValidations).values({
    organizationId: actor.organizationId,
    environment: actor.environment,
    judgmentId: judgment.id,
    matterId: matter.id,
    ready: validation.ready,
    reviewRequired: validation.review_required,
    options: body,
    result: validation,
    validatedAt: now,
    requestId: actor.requestId,
    actorId: actor.keyId,
  });
  if (validation.ready) {
    write.recordEvent({
      type: "judgment.validated",
      idField: "judgment_id",
      resourceId: judgment.id,
      object: validation,
      matterId: matter.id,
      extra: { status: judgment.status },
    });
  }
  return validation;
}
