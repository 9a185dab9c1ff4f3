import { parseCalendarDate } from "./calendar-dates";
import { computeRenewalDeadline, isPastDate, type RenewalDeadline } from "./deadlines";
import type { AppealStayStatus, BankruptcyStatus, JudgmentStatus } from "./judgments";
import { type NamedParty, partyNameMatches } from "./names";
import type { PartyRole, PartyStatus, PartyType } from "./parties";

/**
 * Judgment validation: five data gates, then five checks in order. The result holds everything
 * both response shapes need (the gates as booleans and with reasons, the checks, missing items
 * and issues); mapping it onto a wire shape is the API's job.
 */
export const DATA_GATES = ["judgment_present", "amount_set", "court_set", "parties_linked", "not_expired"] as const;
export type DataGate = (typeof DATA_GATES)[number];

export const VALIDATION_CHECKS = [
  "authority",
  "stay_appeal",
  "bankruptcy",
  "consumer_commercial",
  "required_documents",
] as const;
export type ValidationCheck = (typeof VALIDATION_CHECKS)[number];

export const CHECK_STATUSES = ["pass", "fail", "review"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/**
 * Document checks a caller may ask for in `checks`. The service holds no documents for a
 * judgment, so a requested document is never confirmed by the data: each one is put to a
 * reviewer. A name outside this list fails the check (the API may refuse it earlier with 422).
 */
export const DOCUMENT_CHECKS = {
  certified_judgment: "a certified copy of the judgment",
  writ_of_execution: "a writ of execution",
  abstract_of_judgment: "an abstract of judgment",
  proof_of_service: "proof of service on the debtor",
  assignment_of_judgment: "the assignment of the judgment to the claimant",
  domestication: "the registration (domestication) of the judgment where it will be enforced",
} as const;
export type DocumentCheck = keyof typeof DOCUMENT_CHECKS;

export interface JudgmentForValidation {
  status: JudgmentStatus;
  /** The judgment amount in integer minor units (e.g. cents). */
  amount_minor: bigint;
  court: string | null;
  case_number: string | null;
  creditor: string | null;
  debtor: string | null;
  jurisdiction: string | null;
  date_entered: string;
  renewal_deadline: string | null;
  appeal_stay_status: AppealStayStatus;
  bankruptcy_status: BankruptcyStatus;
}

export interface PartyForValidation extends NamedParty {
  role: PartyRole;
  status: PartyStatus;
  type?: PartyType | null;
}

/** The validate request's body; every option may be left out. */
export interface ValidationOptions {
  checks?: readonly string[] | null;
  consumer_debt?: boolean | null;
  bankruptcy_known?: boolean | null;
  appeal_stay_known?: boolean | null;
}

export interface JudgmentValidationInput {
  judgment: JudgmentForValidation;
  /** Every party of the judgment's matter. */
  parties: readonly PartyForValidation[];
  options: ValidationOptions;
  /** YYYY-MM-DD. */
  today: string;
}

export type IssueSeverity = "blocking" | "review";

export interface ValidationIssue {
  /** Machine-readable cause, e.g. `court_missing`, `bankruptcy_stay_in_effect`. */
  code: string;
  /** The gate or check that raised it. */
  source: DataGate | ValidationCheck;
  severity: IssueSeverity;
  message: string;
  required_actions: string[];
}

export interface GateResult {
  gate: DataGate;
  passed: boolean;
  reasons: string[];
  required_actions: string[];
}

export interface CheckResult {
  gate: ValidationCheck;
  status: CheckStatus;
  reasons: string[];
  required_actions: string[];
}

export interface JudgmentValidationResult {
  /** Every data gate true and no check `fail`. */
  ready: boolean;
  /** Some check is `review`. */
  review_required: boolean;
  gates: Record<DataGate, boolean>;
  gate_results: GateResult[];
  checks: CheckResult[];
  /** One readable line per blocking issue (failing gate or failing check), in gate then check order. */
  missing_items: string[];
  /** Every blocking and review issue, in gate then check order. */
  issues: ValidationIssue[];
  /** The renewal deadline the `not_expired` gate was judged against. */
  renewal: RenewalDeadline;
}

/**
 * Validates a judgment against its matter's parties as of `today`.
 *
 * Data gates: `judgment_present` (status `active`), `amount_set` (amount > 0), `court_set`
 * (court and case number not blank), `parties_linked` (the matter has an active debtor and an
 * active claimant, the judgment's creditor matches an active claimant's name, legal name or
 * alias and its debtor an active debtor's), `not_expired` (today is on or before the renewal
 * deadline).
 *
 * Checks:
 * - `authority`: fail when any data gate fails; review when the gates pass but the renewal
 *   deadline rests on the default judgment life (jurisdiction not in the table and no
 *   `renewal_deadline` recorded); otherwise pass.
 * - `stay_appeal`: fail when `appeal_stay_status` is `stayed`; review when it is
 *   `appeal_pending`, or when the request says `appeal_stay_known` but the record shows `none`;
 *   otherwise pass.
 * - `bankruptcy`: fail on `automatic_stay`; review on `filed` or `discharged`, or when the request
 *   says `bankruptcy_known` but the record shows `none`; otherwise pass.
 * - `consumer_commercial`: review when the request says `consumer_debt: true` (consumer-protection
 *   rules govern how it may be collected), or when the request is silent and the judgment debtor
 *   is recorded as an `individual` (only a natural person owes consumer debt, so the question must
 *   be answered); otherwise pass, treated as commercial. It never fails: consumer debt changes how
 *   a judgment may be collected, not whether.
 * - `required_documents`: review for each document named in `checks` (the service holds no
 *   documents, so a person must confirm it), fail for a name that is no known document check
 *   (it cannot be confirmed at all); names of the five checks are ignored there, those always run.
 *   Pass when no document was named.
 */
export function validateJudgment(input: JudgmentValidationInput): JudgmentValidationResult {
  const { judgment, parties, options, today } = input;
  parseCalendarDate(today);
  const renewal = computeRenewalDeadline(judgment);

  const gateIssues: Record<DataGate, ValidationIssue[]> = {
    judgment_present: judgmentPresentIssues(judgment.status),
    amount_set: judgment.amount_minor > 0n ? [] : [amountIssue(judgment.amount_minor)],
    court_set: courtIssues(judgment),
    parties_linked: partiesLinkedIssues(judgment, parties),
    not_expired: isPastDate(renewal.date, today) ? [expiredIssue(renewal)] : [],
  };
  const gate_results: GateResult[] = DATA_GATES.map((gate) => ({
    gate,
    passed: gateIssues[gate].length === 0,
    reasons: gateIssues[gate].map((issue) => issue.message),
    required_actions: gateIssues[gate].flatMap((issue) => issue.required_actions),
  }));
  const gates = Object.fromEntries(gate_results.map((result) => [result.gate, result.passed])) as Record<
    DataGate,
    boolean
  >;

  const checkIssues: Record<ValidationCheck, ValidationIssue[]> = {
    authority: authorityIssues(gate_results, renewal),
    stay_appeal: stayAppealIssues(judgment.appeal_stay_status, options.appeal_stay_known === true),
    bankruptcy: bankruptcyIssues(judgment.bankruptcy_status, options.bankruptcy_known === true),
    consumer_commercial: consumerCommercialIssues(options.consumer_debt, linkedDebtorParties(judgment, parties)),
    required_documents: documentIssues(options.checks ?? []),
  };
  const checks: CheckResult[] = VALIDATION_CHECKS.map((gate) =>
    toCheckResult(gate, checkIssues[gate], passReasons(gate, options)),
  );

  // The authority check fails because of the gates; its issue would repeat theirs.
  const issues = [
    ...DATA_GATES.flatMap((gate) => gateIssues[gate]),
    ...VALIDATION_CHECKS.flatMap((check) => (check === "authority" && !allTrue(gates) ? [] : checkIssues[check])),
  ];
  const ready = allTrue(gates) && checks.every((check) => check.status !== "fail");
  return {
    ready,
    review_required: checks.some((check) => check.status === "review"),
    gates,
    gate_results,
    checks,
    missing_items: issues.filter((issue) => issue.severity === "blocking").map((issue) => issue.message),
    issues,
    renewal,
  };
}

function allTrue(gates: Record<DataGate, boolean>): boolean {
  return DATA_GATES.every((gate) => gates[gate]);
}

function toCheckResult(gate: ValidationCheck, issues: ValidationIssue[], passReasons: string[]): CheckResult {
  const status: CheckStatus = issues.some((issue) => issue.severity === "blocking")
    ? "fail"
    : issues.length > 0
      ? "review"
      : "pass";
  return {
    gate,
    status,
    reasons: status === "pass" ? passReasons : issues.map((issue) => issue.message),
    required_actions: issues.flatMap((issue) => issue.required_actions),
  };
}

function blocking(
  source: DataGate | ValidationCheck,
  code: string,
  message: string,
  required_actions: string[],
): ValidationIssue {
  return { code, source, severity: "blocking", message, required_actions };
}

function review(source: ValidationCheck, code: string, message: string, required_actions: string[]): ValidationIssue {
  return { code, source, severity: "review", message, required_actions };
}

// ---------------------------------------------------------------------------------------------
// Data gates

const INACTIVE_JUDGMENT_ACTIONS: Record<Exclude<JudgmentStatus, "active">, string> = {
  satisfied: "nothing remains to enforce; if the satisfaction was recorded in error, PATCH status to active",
  vacated: "a vacated judgment cannot be enforced; if it was reinstated, PATCH status to active",
  expired: "renew or revive the judgment, record the new renewal_deadline and PATCH status to active",
  stayed: "wait until the stay is lifted, then PATCH status to active and the stay fields to their new values",
};

function judgmentPresentIssues(status: JudgmentStatus): ValidationIssue[] {
  if (status === "active") return [];
  return [
    blocking(
      "judgment_present",
      "judgment_not_active",
      `judgment status is "${status}"; only an active judgment can be enforced`,
      [INACTIVE_JUDGMENT_ACTIONS[status]],
    ),
  ];
}

function amountIssue(amount: bigint): ValidationIssue {
  return blocking(
    "amount_set",
    "amount_not_positive",
    amount === 0n ? "judgment amount is 0" : "judgment amount is negative",
    ["correct the judgment amount: it must be greater than 0"],
  );
}

function courtIssues(judgment: JudgmentForValidation): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (isBlank(judgment.court)) {
    issues.push(blocking("court_set", "court_missing", "judgment has no court", ["record the court that entered it"]));
  }
  if (isBlank(judgment.case_number)) {
    issues.push(
      blocking("court_set", "case_number_missing", "judgment has no case number", ["record the court's case number"]),
    );
  }
  return issues;
}

function partiesLinkedIssues(
  judgment: JudgmentForValidation,
  parties: readonly PartyForValidation[],
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const sides: { role: "claimant" | "debtor"; field: "creditor" | "debtor"; name: string | null }[] = [
    { role: "debtor", field: "debtor", name: judgment.debtor },
    { role: "claimant", field: "creditor", name: judgment.creditor },
  ];
  for (const { role } of sides) {
    if (!parties.some((party) => party.role === role && party.status === "active")) {
      issues.push(
        blocking("parties_linked", `no_${role}_party`, `the matter has no active ${role} party`, [
          `add the ${role} as a party of the matter (role ${role})`,
        ]),
      );
    }
  }
  for (const { role, field, name } of sides) {
    const candidates = parties.filter((party) => party.role === role && party.status === "active");
    if (name === null || isBlank(name)) {
      issues.push(
        blocking("parties_linked", `${field}_missing`, `judgment has no ${field} name`, [
          `record the ${field} named on the judgment`,
        ]),
      );
    } else if (candidates.length > 0 && !candidates.some((party) => partyNameMatches(name, party))) {
      issues.push(
        blocking(
          "parties_linked",
          `${field}_unlinked`,
          `judgment ${field} "${name.trim()}" matches no active ${role}'s name, legal name or alias`,
          [`add "${name.trim()}" as the ${role}'s legal name or an alias, or correct the judgment's ${field}`],
        ),
      );
    }
  }
  return issues;
}

function expiredIssue(renewal: RenewalDeadline): ValidationIssue {
  return blocking("not_expired", "renewal_deadline_passed", `renewal deadline ${renewal.date} has passed`, [
    "renew or revive the judgment and PATCH renewal_deadline to the new date, or PATCH status to expired",
  ]);
}

// ---------------------------------------------------------------------------------------------
// Checks

function authorityIssues(gateResults: GateResult[], renewal: RenewalDeadline): ValidationIssue[] {
  const failing = gateResults.filter((result) => !result.passed);
  if (failing.length > 0) {
    return [
      blocking(
        "authority",
        "data_gates_failing",
        `data gates failing: ${failing.map((result) => result.gate).join(", ")}`,
        failing.flatMap((result) => result.required_actions),
      ),
    ];
  }
  if (renewal.source === "default") {
    return [
      review(
        "authority",
        "judgment_life_unknown",
        `the judgment's life is not known for its jurisdiction; ${renewal.basis}`,
        ["confirm how long the judgment is enforceable and PATCH renewal_deadline"],
      ),
    ];
  }
  return [];
}

function stayAppealIssues(status: AppealStayStatus, appealStayKnown: boolean): ValidationIssue[] {
  if (status === "stayed") {
    return [
      blocking("stay_appeal", "appeal_stay_in_effect", "an appeal stay of enforcement is in effect", [
        "wait until the stay is lifted or the appeal is decided, then PATCH appeal_stay_status",
      ]),
    ];
  }
  if (status === "appeal_pending") {
    return [
      review("stay_appeal", "appeal_pending", "an appeal is pending; no stay is recorded", [
        "confirm no stay of enforcement was ordered or bonded before enforcing",
      ]),
    ];
  }
  if (appealStayKnown) {
    return [
      review(
        "stay_appeal",
        "appeal_stay_reported",
        "the request reports a known appeal or stay, but the judgment records none",
        ["PATCH appeal_stay_status to appeal_pending or stayed, or confirm that none applies"],
      ),
    ];
  }
  return [];
}

function bankruptcyIssues(status: BankruptcyStatus, bankruptcyKnown: boolean): ValidationIssue[] {
  switch (status) {
    case "automatic_stay":
      return [
        blocking("bankruptcy", "bankruptcy_stay_in_effect", "the debtor's bankruptcy automatic stay is in effect", [
          "obtain relief from the automatic stay or wait until it ends, then PATCH bankruptcy_status",
        ]),
      ];
    case "filed":
      return [
        review("bankruptcy", "bankruptcy_filed", "a bankruptcy filing by the debtor is recorded", [
          "confirm whether an automatic stay applies and PATCH bankruptcy_status to automatic_stay if it does",
        ]),
      ];
    case "discharged":
      return [
        review("bankruptcy", "bankruptcy_discharged", "the debtor received a bankruptcy discharge", [
          "confirm the judgment debt was excepted from the discharge before enforcing it",
        ]),
      ];
    case "none":
      return bankruptcyKnown
        ? [
            review(
              "bankruptcy",
              "bankruptcy_reported",
              "the request reports a known bankruptcy, but the judgment records none",
              ["PATCH bankruptcy_status to filed, automatic_stay or discharged, or confirm that none applies"],
            ),
          ]
        : [];
  }
}

/** The active debtor parties the judgment's debtor names; all active debtors when it names none of them. */
function linkedDebtorParties(
  judgment: JudgmentForValidation,
  parties: readonly PartyForValidation[],
): PartyForValidation[] {
  const debtors = parties.filter((party) => party.role === "debtor" && party.status === "active");
  const linked = judgment.debtor ? debtors.filter((party) => partyNameMatches(judgment.debtor ?? "", party)) : [];
  return linked.length > 0 ? linked : debtors;
}

function consumerCommercialIssues(
  consumerDebt: boolean | null | undefined,
  debtors: readonly PartyForValidation[],
): ValidationIssue[] {
  if (consumerDebt === true) {
    return [
      review("consumer_commercial", "consumer_debt", "the request marks the judgment debt as consumer debt", [
        "confirm collection complies with consumer-protection rules (e.g. the FDCPA and state collection law) before enforcing",
      ]),
    ];
  }
  if (consumerDebt === undefined || consumerDebt === null) {
    if (debtors.some((party) => party.type === "individual")) {
      return [
        review(
          "consumer_commercial",
          "consumer_status_unknown",
          "the judgment debtor is an individual and the request does not say whether the debt is consumer debt",
          ["validate again with consumer_debt set to true or false"],
        ),
      ];
    }
  }
  return [];
}

const CHECK_NAMES: ReadonlySet<string> = new Set(VALIDATION_CHECKS);

export function isDocumentCheck(name: string): name is DocumentCheck {
  return Object.hasOwn(DOCUMENT_CHECKS, name);
}

function documentIssues(requested: readonly string[]): ValidationIssue[] {
  const documents = [...new Set(requested.map((name) => name.trim()))].filter(
    (name) => name !== "" && !CHECK_NAMES.has(name),
  );
  return documents.map((name) => {
    if (!isDocumentCheck(name)) {
      return blocking(
        "required_documents",
        "document_check_unknown",
        `requested check ${JSON.stringify(name)} is not a known document check`,
        [`request only known document checks: ${Object.keys(DOCUMENT_CHECKS).join(", ")}`],
      );
    }
    return review(
      "required_documents",
      "document_unconfirmed",
      `requested document check ${name}: ${DOCUMENT_CHECKS[name]} is not on record`,
      [`confirm ${DOCUMENT_CHECKS[name]} is on file`],
    );
  });
}

function passReasons(check: ValidationCheck, options: ValidationOptions): string[] {
  switch (check) {
    case "authority":
      return ["every data gate passes"];
    case "stay_appeal":
      return ["no appeal or stay is recorded"];
    case "bankruptcy":
      return ["no bankruptcy is recorded"];
    case "consumer_commercial":
      return [
        options.consumer_debt === false
          ? "the request marks the judgment debt as commercial"
          : "treated as commercial: the request does not mark the debt as consumer debt and the debtor is not recorded as an individual",
      ];
    case "required_documents":
      return ["no document checks were requested"];
  }
}

function isBlank(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.trim() === "";
}
