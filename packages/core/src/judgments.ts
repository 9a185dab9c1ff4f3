/** Judgment record: statuses, lifecycle values and the field lists intake and PATCH are checked against. */
export const JUDGMENT_STATUSES = ["active", "satisfied", "vacated", "expired", "stayed"] as const;
export type JudgmentStatus = (typeof JUDGMENT_STATUSES)[number];

export const APPEAL_STAY_STATUSES = ["none", "appeal_pending", "stayed"] as const;
export type AppealStayStatus = (typeof APPEAL_STAY_STATUSES)[number];

export const BANKRUPTCY_STATUSES = ["none", "filed", "automatic_stay", "discharged"] as const;
export type BankruptcyStatus = (typeof BANKRUPTCY_STATUSES)[number];

/** The eight core fields: intake needs all of them in one request, and PATCH may change none. */
export const JUDGMENT_INTAKE_FIELDS = [
  "matter_id",
  "court",
  "case_number",
  "jurisdiction",
  "creditor",
  "debtor",
  "amount",
  "date_entered",
] as const;
export type JudgmentIntakeField = (typeof JUDGMENT_INTAKE_FIELDS)[number];

/** The only fields a PATCH may carry. */
export const JUDGMENT_LIFECYCLE_FIELDS = [
  "status",
  "appeal_stay_status",
  "bankruptcy_status",
  "renewal_deadline",
  "review_state",
] as const;
export type JudgmentLifecycleField = (typeof JUDGMENT_LIFECYCLE_FIELDS)[number];

/**
 * Intake fields the body leaves out, in the documented order. A field is missing when absent,
 * null, or a string of only whitespace (a blank court is no court).
 */
export function findMissingIntakeFields(body: Readonly<Record<string, unknown>>): JudgmentIntakeField[] {
  return JUDGMENT_INTAKE_FIELDS.filter((field) => {
    const value = body[field];
    return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
  });
}

/** Core fields present in a PATCH body, in the documented order: each one makes the PATCH a 422. */
export function findCoreFieldsInPatch(body: Readonly<Record<string, unknown>>): JudgmentIntakeField[] {
  return JUDGMENT_INTAKE_FIELDS.filter((field) => Object.hasOwn(body, field) && body[field] !== undefined);
}

export interface JudgmentStayFields {
  appeal_stay_status: AppealStayStatus;
  bankruptcy_status: BankruptcyStatus;
}

/**
 * A stay is in effect when an appeal stay has been ordered or the debtor's bankruptcy automatic
 * stay applies. It refuses enforcement posture and packets bound to the judgment.
 */
export function isStayInEffect(judgment: JudgmentStayFields): boolean {
  return judgment.appeal_stay_status === "stayed" || judgment.bankruptcy_status === "automatic_stay";
}
