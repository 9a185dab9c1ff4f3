import type { Deadline, EnforcementPosture, Judgment, JudgmentValidation, MatterSummary } from "@crs/contract";
import { FIAT_DECIMALS, formatTimestamp, fromMinorUnits, parseMinorUnits } from "@crs/core";
import type { schema } from "@crs/db";
import { auditOf } from "../audit";
import type { MatterRow } from "../matters/present-matter";
import { reviewStateOf } from "../packets/review-state";

export type JudgmentRow = typeof schema.judgments.$inferSelect;
export type EnforcementPostureRow = typeof schema.enforcementPostures.$inferSelect;

/** The judgment amount in integer minor units, from the numeric column's exact text. */
export function amountMinorOf(row: Pick<JudgmentRow, "amount">): bigint {
  return parseMinorUnits(row.amount, FIAT_DECIMALS);
}

/** Judgments, like packets, carry their review state on the row (re-exported for the judgment services). */
export { reviewStateOf };

/** The posture as the API returns it; its review is the judgment's review state. */
export function presentEnforcementPosture(posture: EnforcementPostureRow, judgment: JudgmentRow): EnforcementPosture {
  const review = reviewStateOf(judgment);
  return {
    object: "enforcement",
    judgment_id: posture.judgmentId,
    matter_id: posture.matterId,
    strategy: posture.strategy,
    venues: posture.venues,
    priorities: posture.priorities,
    notes: posture.notes,
    review_required: review.review_required,
    review_status: review.review_status,
    updated_at: formatTimestamp(posture.updatedAt),
    audit: auditOf(posture, posture.matterId),
  };
}

export function presentMatterSummary(matter: MatterRow): MatterSummary {
  return {
    object: "matter_summary",
    matter_id: matter.id,
    name: matter.name,
    status: matter.status,
    lead_counsel: matter.leadCounsel,
  };
}

export interface JudgmentParts {
  matter: MatterRow;
  validation: JudgmentValidation | null;
  deadlines: Deadline[];
  posture: EnforcementPostureRow | null;
}

/** The judgment as the API returns it (and as its events carry it). */
export function presentJudgment(row: JudgmentRow, parts: JudgmentParts): Judgment {
  const amount = fromMinorUnits(amountMinorOf(row), FIAT_DECIMALS);
  return {
    object: "judgment",
    id: row.id,
    judgment_id: row.id,
    matter_id: row.matterId,
    livemode: row.environment === "live",
    court: row.court,
    case_number: row.caseNumber,
    jurisdiction: row.jurisdiction,
    creditor: row.creditor,
    debtor: row.debtor,
    amount:
      row.amountForm === "number"
        ? amount
        : {
            amount,
            currency: row.currency,
            valuation_time: row.valuationTime ? formatTimestamp(row.valuationTime) : null,
          },
    currency: row.currency,
    date_entered: row.dateEntered,
    status: row.status,
    appeal_stay_status: row.appealStayStatus,
    bankruptcy_status: row.bankruptcyStatus,
    renewal_deadline: row.renewalDeadline,
    review_state: reviewStateOf(row),
    validation: parts.validation,
    deadlines: parts.deadlines,
    enforcement: parts.posture ? presentEnforcementPosture(parts.posture, row) : null,
    matter: presentMatterSummary(parts.matter),
    // Recoveries and remittances are recorded by the ledger, which this release does not have yet.
    balance: { object: "judgment_balance", currency: row.currency, judgment_amount: amount, recovered: 0, remitted: 0 },
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    audit: auditOf(row, row.matterId),
  };
}
