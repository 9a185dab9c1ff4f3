import {
  APPEAL_STAY_STATUSES,
  BANKRUPTCY_STATUSES,
  CHECK_STATUSES,
  DATA_GATES,
  DEADLINE_STATUSES,
  DEADLINE_TYPES,
  DOCUMENT_CHECKS,
  decimalPlaces,
  FIAT_DECIMALS,
  findCoreFieldsInPatch,
  JUDGMENT_LIFECYCLE_FIELDS,
  JUDGMENT_STATUSES,
  MATTER_STATUSES,
  REVIEW_STATUSES,
  VALIDATION_CHECKS,
} from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../operation";
import { Audit, CalendarDate, Currency, listOf, NonBlankText, Text, Timestamp } from "../schemas/common";
import { LEGACY_VERSION } from "../versions";

/**
 * The largest judgment amount: 15 significant digits with the cents, the most a JSON number
 * carries through a round trip unchanged (and what the numeric(15, 2) column holds).
 */
export const MAX_JUDGMENT_AMOUNT = 9_999_999_999_999.99;

const JudgmentAmountValue = z
  .number()
  .min(0, "must not be negative")
  .max(MAX_JUDGMENT_AMOUNT, `must be at most ${MAX_JUDGMENT_AMOUNT}`)
  .refine((n) => decimalPlaces(n) <= FIAT_DECIMALS, `must have at most ${FIAT_DECIMALS} decimal places`);

export const JudgmentAmountInput = z
  .union([
    JudgmentAmountValue,
    z.object({
      amount: JudgmentAmountValue,
      currency: Currency,
      valuation_time: z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" }).optional(),
    }),
  ])
  .meta({
    id: "JudgmentAmountInput",
    description:
      "The amount shape {amount, currency, valuation_time?}, or a plain number in the matter's currency. The judgment echoes it in the form sent.",
  });

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

export const IntakeJudgmentBody = z
  .object({
    matter_id: NonBlankText(64),
    court: NonBlankText(300),
    case_number: NonBlankText(100),
    jurisdiction: NonBlankText(200).meta({
      description:
        "A code of the judgment-life table (US-CA, GB-EAW, DE), a name (California), or a federal district (S.D.N.Y.); anything else gets the 10-year default life",
    }),
    creditor: NonBlankText(200).meta({ description: "as named on the judgment; validation links it to a claimant" }),
    debtor: NonBlankText(200).meta({ description: "as named on the judgment; validation links it to a debtor" }),
    amount: JudgmentAmountInput,
    date_entered: CalendarDate,
  })
  .meta({
    id: "IntakeJudgmentBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      court: "Superior Court of California, County of Los Angeles",
      case_number: "23STCV01234",
      jurisdiction: "US-CA",
      creditor: "Acme Holdings LLC",
      debtor: "John Doe",
      amount: { amount: 250000, currency: "USD" },
      date_entered: "2024-03-15",
    },
  });
export type IntakeJudgmentBody = z.infer<typeof IntakeJudgmentBody>;

const ReviewStateInput = z.object({
  review_status: z.enum(REVIEW_STATUSES).optional(),
  review_required: z
    .boolean()
    .optional()
    .meta({ description: "follows review_status; sent, it must agree with it (true only for pending or rejected)" }),
  review_owner: Text(200).optional(),
  review_notes: Text(10_000).optional(),
});

const CORE_FIELD_MESSAGE = `is a core field of the judgment and cannot be changed; PATCH accepts ${JUDGMENT_LIFECYCLE_FIELDS.join(", ")}`;

export const UpdateJudgmentBody = z
  .object({
    status: z.enum(JUDGMENT_STATUSES).optional(),
    appeal_stay_status: z.enum(APPEAL_STAY_STATUSES).optional(),
    bankruptcy_status: z.enum(BANKRUPTCY_STATUSES).optional(),
    renewal_deadline: CalendarDate.nullable()
      .optional()
      .meta({ description: "the date by which the judgment must be renewed, once known (null: computed again)" }),
    review_state: ReviewStateInput.optional().meta({
      description: "the review of the judgment's enforcement posture; review_status approved or cleared signs it off",
    }),
  })
  .loose()
  .superRefine(
    (body, ctx) => {
      // Beside the field checks, so one 422 names every bad field, core fields included.
      if (typeof body !== "object" || body === null) return;
      for (const field of findCoreFieldsInPatch(body as Record<string, unknown>)) {
        ctx.addIssue({ code: "custom", path: [field], message: CORE_FIELD_MESSAGE, input: body[field] });
      }
    },
    { when: () => true },
  )
  .meta({
    id: "UpdateJudgmentBody",
    example: {
      appeal_stay_status: "appeal_pending",
      renewal_deadline: "2034-03-15",
      review_state: { review_status: "approved", review_owner: "J. Reviewer", review_notes: "Posture approved." },
    },
  });
export type UpdateJudgmentBody = z.infer<typeof UpdateJudgmentBody>;

export const VALIDATION_CHECK_NAMES = [
  ...VALIDATION_CHECKS,
  ...(Object.keys(DOCUMENT_CHECKS) as (keyof typeof DOCUMENT_CHECKS)[]),
] as const;

export const ValidateJudgmentBody = z
  .object({
    checks: z.array(z.enum(VALIDATION_CHECK_NAMES)).max(20, "must name at most 20 checks").optional().meta({
      description:
        "document checks to put to a reviewer (certified_judgment, writ_of_execution, …); the five checks always run, so naming them changes nothing",
    }),
    consumer_debt: z.boolean().optional(),
    bankruptcy_known: z.boolean().optional(),
    appeal_stay_known: z.boolean().optional(),
  })
  .meta({
    id: "ValidateJudgmentBody",
    example: {
      checks: ["certified_judgment"],
      consumer_debt: false,
      bankruptcy_known: false,
      appeal_stay_known: false,
    },
  });
export type ValidateJudgmentBody = z.infer<typeof ValidateJudgmentBody>;

const ISSUE_SOURCES = [...DATA_GATES, ...VALIDATION_CHECKS] as const;

const CheckResult = z.object({
  gate: z.enum(VALIDATION_CHECKS),
  status: z.enum(CHECK_STATUSES),
  reasons: z.array(z.string()),
  required_actions: z.array(z.string()),
});

export const ValidationIssue = z
  .object({
    code: z.string(),
    source: z.enum(ISSUE_SOURCES).meta({ description: "the data gate or check that raised it" }),
    severity: z.enum(["blocking", "review"]),
    message: z.string(),
    required_actions: z.array(z.string()),
  })
  .meta({ id: "ValidationIssue" });

export const JudgmentValidation = z
  .object({
    object: z.literal("judgment_validation"),
    judgment_id: z.string(),
    matter_id: z.string(),
    ready: z.boolean().meta({ description: "every data gate true and no check fail" }),
    valid: z.boolean().meta({ description: "= ready" }),
    enforcement_ready: z.boolean().meta({ description: "= ready (the name the 2026-06-11 shape uses)" }),
    review_required: z.boolean().meta({ description: "some check asks for review; review never blocks readiness" }),
    gates: z.object(
      Object.fromEntries(DATA_GATES.map((gate) => [gate, z.boolean()])) as Record<
        (typeof DATA_GATES)[number],
        z.ZodBoolean
      >,
    ),
    checks: z.array(CheckResult).meta({ description: "the five checks, in the order they run" }),
    missing_items: z.array(z.string()).meta({ description: "one line per blocking problem" }),
    issues: z.array(ValidationIssue).meta({ description: "every blocking and review problem, gates then checks" }),
    validated_at: Timestamp,
  })
  .meta({ id: "JudgmentValidation" });
export type JudgmentValidation = z.infer<typeof JudgmentValidation>;

/** The 2026-06-11 shape: gates as one array of data gates then checks, each with its reasons. */
export const JudgmentValidationLegacy = z
  .object({
    judgment_id: z.string(),
    enforcement_ready: z.boolean(),
    review_required: z.boolean(),
    missing_items: z.array(z.string()),
    gates: z.array(
      z.object({
        gate: z.enum(ISSUE_SOURCES),
        status: z.enum(CHECK_STATUSES),
        reasons: z.array(z.string()),
        required_actions: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: "JudgmentValidation_2026_06_11" });
export type JudgmentValidationLegacy = z.infer<typeof JudgmentValidationLegacy>;

/** Shape B from the current shape: each data gate's reasons are the issues it raised. */
export function toLegacyValidation(current: JudgmentValidation): JudgmentValidationLegacy {
  const dataGates = DATA_GATES.map((gate) => {
    const raised = current.issues.filter((issue) => issue.source === gate);
    return {
      gate,
      status: current.gates[gate] ? ("pass" as const) : ("fail" as const),
      reasons: raised.map((issue) => issue.message),
      required_actions: raised.flatMap((issue) => issue.required_actions),
    };
  });
  return {
    judgment_id: current.judgment_id,
    enforcement_ready: current.enforcement_ready,
    review_required: current.review_required,
    missing_items: current.missing_items,
    gates: [...dataGates, ...current.checks],
  };
}

export const Deadline = z
  .object({
    object: z.literal("deadline"),
    id: z.string(),
    deadline_id: z.string(),
    judgment_id: z.string(),
    matter_id: z.string(),
    key: z
      .string()
      .meta({ description: "stable within the judgment: renewal, monitoring:<cycle>, packet:<export id>" }),
    type: z.enum(DEADLINE_TYPES),
    date: z.string().meta({ format: "date" }),
    owner: z.string().nullable().meta({ description: "the matter's lead counsel" }),
    status: z.enum(DEADLINE_STATUSES).meta({ description: "against today's date (UTC) when read" }),
    basis: z.string().meta({ description: "how the date was computed, with the statute where one applies" }),
  })
  .meta({ id: "Deadline" });
export type Deadline = z.infer<typeof Deadline>;

export const ReviewState = z
  .object({
    review_required: z.boolean(),
    review_status: z.enum(REVIEW_STATUSES),
    review_owner: z.string(),
    review_notes: z.string(),
  })
  .meta({ id: "ReviewState" });
export type ReviewState = z.infer<typeof ReviewState>;

export const SetEnforcementBody = z
  .object({
    strategy: Text(500).nullable().optional(),
    venues: z.array(NonBlankText(200)).max(50, "must have at most 50 venues").optional(),
    priorities: z.array(NonBlankText(200)).max(50, "must have at most 50 priorities").optional(),
    notes: Text(10_000).nullable().optional(),
  })
  .meta({
    id: "SetEnforcementBody",
    example: {
      strategy: "Freeze exchange-held balances, then turnover",
      venues: ["Coinbase", "Kraken"],
      priorities: ["exchange_freeze", "exchange_turnover"],
      notes: "Debtor's deposit addresses traced to two exchanges.",
    },
  });
export type SetEnforcementBody = z.infer<typeof SetEnforcementBody>;

export const EnforcementPosture = z
  .object({
    object: z.literal("enforcement"),
    judgment_id: z.string(),
    matter_id: z.string(),
    strategy: z.string().nullable(),
    venues: z.array(z.string()),
    priorities: z.array(z.string()),
    notes: z.string().nullable(),
    review_required: z.boolean().meta({ description: "true once set, until a reviewer clears it" }),
    review_status: z.enum(REVIEW_STATUSES),
    updated_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "EnforcementPosture" });
export type EnforcementPosture = z.infer<typeof EnforcementPosture>;

const JudgmentAmount = z
  .union([z.number(), z.object({ amount: z.number(), currency: z.string(), valuation_time: Timestamp.nullable() })])
  .meta({ description: "as sent: a plain number, or the amount shape (valuation_time null when not sent)" });

export const JudgmentBalance = z
  .object({
    object: z.literal("judgment_balance"),
    currency: z.string(),
    judgment_amount: z.number(),
    recovered: z.number().meta({
      description:
        "0: recoveries are not recorded yet (the recovery ledger is not part of this release), so none is counted",
    }),
    remitted: z.number().meta({
      description: "0: remittances are not recorded yet (the recovery ledger is not part of this release)",
    }),
  })
  .meta({ id: "JudgmentBalance" });

export const MatterSummary = z
  .object({
    object: z.literal("matter_summary"),
    matter_id: z.string(),
    name: z.string(),
    status: z.enum(MATTER_STATUSES),
    lead_counsel: z.string().nullable(),
  })
  .meta({ id: "MatterSummary" });
export type MatterSummary = z.infer<typeof MatterSummary>;

export const Judgment = z
  .object({
    object: z.literal("judgment"),
    id: z.string(),
    judgment_id: z.string(),
    matter_id: z.string(),
    livemode: z.boolean(),
    court: z.string(),
    case_number: z.string(),
    jurisdiction: z.string(),
    creditor: z.string(),
    debtor: z.string(),
    amount: JudgmentAmount,
    currency: z.string(),
    date_entered: z.string().meta({ format: "date" }),
    status: z.enum(JUDGMENT_STATUSES),
    appeal_stay_status: z.enum(APPEAL_STAY_STATUSES),
    bankruptcy_status: z.enum(BANKRUPTCY_STATUSES),
    renewal_deadline: z
      .string()
      .nullable()
      .meta({ description: "as PATCHed; null until then (the renewal deadline in `deadlines` is computed)" }),
    review_state: ReviewState,
    validation: JudgmentValidation.nullable().meta({ description: "the latest validation, null before the first" }),
    deadlines: z.array(Deadline),
    enforcement: EnforcementPosture.nullable(),
    matter: MatterSummary,
    balance: JudgmentBalance,
    created_at: Timestamp,
    updated_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "Judgment" });
export type Judgment = z.infer<typeof Judgment>;

const JUDGMENT_WRITE_ANSWERS = {
  409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
} as const;

export const judgmentOperations = {
  intake: defineOperation({
    id: "intakeJudgment",
    method: "POST",
    path: "/v1/judgments/intake",
    scope: "judgments:write",
    tag: "Judgments",
    summary:
      "Record a judgment: all eight core fields in one request (a 422 names every missing one). Its deadlines are computed.",
    successStatus: 201,
    body: IntakeJudgmentBody,
    response: Judgment,
    idempotent: true,
    events: ["judgment.created"],
    alsoAnswers: { 404: { description: "Unknown matter_id" }, ...JUDGMENT_WRITE_ANSWERS },
  }),
  get: defineOperation({
    id: "retrieveJudgment",
    method: "GET",
    path: "/v1/judgments/{judgment_id}",
    scope: "judgments:read",
    tag: "Judgments",
    summary: "Retrieve a judgment with its latest validation, deadlines, enforcement posture, matter and balance.",
    successStatus: 200,
    response: Judgment,
    idempotent: false,
    events: [],
  }),
  update: defineOperation({
    id: "updateJudgment",
    method: "PATCH",
    path: "/v1/judgments/{judgment_id}",
    scope: "judgments:write",
    tag: "Judgments",
    summary:
      "Update the lifecycle fields (status, stays, renewal deadline, review state); a core field is a 422 naming it.",
    successStatus: 200,
    body: UpdateJudgmentBody,
    response: Judgment,
    idempotent: true,
    events: ["judgment.updated"],
    alsoAnswers: JUDGMENT_WRITE_ANSWERS,
  }),
  validate: defineOperation({
    id: "validateJudgment",
    method: "POST",
    path: "/v1/judgments/{judgment_id}/validate",
    scope: "judgments:validate",
    tag: "Judgments",
    summary:
      "Run the five data gates and the five checks; names every failing gate with its reasons and required actions. Stored; a pass appends judgment.validated.",
    successStatus: 200,
    body: ValidateJudgmentBody,
    response: JudgmentValidation,
    versions: { [LEGACY_VERSION]: { response: JudgmentValidationLegacy, fromCurrent: toLegacyValidation } },
    idempotent: true,
    events: ["judgment.validated"],
    alsoAnswers: JUDGMENT_WRITE_ANSWERS,
  }),
  deadlines: defineOperation({
    id: "listJudgmentDeadlines",
    method: "GET",
    path: "/v1/judgments/{judgment_id}/deadlines",
    scope: "judgments:read",
    tag: "Judgments",
    summary:
      "The judgment's deadlines, computed from its record (renewal, 90-day monitoring, packet responses), by date; status against today.",
    successStatus: 200,
    response: listOf(Deadline, "DeadlineList"),
    idempotent: false,
    events: [],
  }),
  enforcement: defineOperation({
    id: "setJudgmentEnforcement",
    method: "POST",
    path: "/v1/judgments/{judgment_id}/enforcement",
    scope: "judgments:write",
    tag: "Judgments",
    summary:
      "Set (replace) the judgment's enforcement posture; it needs review until a reviewer clears it. Refused under a stay, and without granted authority on the matter.",
    successStatus: 200,
    body: SetEnforcementBody,
    response: EnforcementPosture,
    idempotent: true,
    events: ["judgment.enforcement_set"],
    alsoAnswers: {
      409: {
        description:
          "stay_in_effect (an appeal or bankruptcy stay on the judgment), authority_required (no granted authority on the matter), or conflict (closed matter, Idempotency-Key reused or in flight)",
      },
    },
  }),
};
