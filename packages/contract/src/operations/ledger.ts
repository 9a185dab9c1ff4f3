import { LEDGER_RECORD_STATUSES, RECOVERY_EVENT_TYPES, resolveGrossAmount } from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../operation";
import { Amount, Audit, FiatAmountValue, NonBlankText, Text, Timestamp } from "../schemas/common";

/** Money recorded in the ledger: a JSON number in the matter's currency, at most two decimals, at most 10^13. */
export const LedgerAmountValue = FiatAmountValue.max(10_000_000_000_000, "must be at most 10000000000000");

const PositiveLedgerAmount = LedgerAmountValue.refine((n) => n > 0, "must be greater than 0");

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

export const CreateRecoveryEventBody = z
  .object({
    matter_id: NonBlankText(64),
    gross_amount: LedgerAmountValue.optional(),
    usd_value: LedgerAmountValue.optional(),
    event_type: z.enum(RECOVERY_EVENT_TYPES).optional(),
    asset: NonBlankText(50).optional(),
    network: NonBlankText(50).nullable().optional(),
    source: Text(500).nullable().optional(),
    description: Text(10_000).nullable().optional(),
    packet_id: NonBlankText(64).nullable().optional(),
  })
  .superRefine(
    (body, ctx) => {
      if (typeof body !== "object" || body === null) return;
      const { gross_amount, usd_value } = body as { gross_amount?: unknown; usd_value?: unknown };
      const numberOrAbsent = (value: unknown) => (typeof value === "number" ? value : undefined);
      if (gross_amount !== undefined && typeof gross_amount !== "number") return;
      if (usd_value !== undefined && typeof usd_value !== "number") return;
      const resolved = resolveGrossAmount({
        gross_amount: numberOrAbsent(gross_amount),
        usd_value: numberOrAbsent(usd_value),
      });
      if (!resolved.ok && resolved.problem === "missing") {
        ctx.addIssue({
          code: "custom",
          path: ["gross_amount"],
          message: "is required (usd_value is accepted as its alias)",
        });
      }
      if (!resolved.ok && resolved.problem === "mismatch") {
        ctx.addIssue({
          code: "custom",
          path: ["usd_value"],
          message: "must equal gross_amount when both are sent",
          input: usd_value,
        });
      }
    },
    { when: () => true },
  )
  .meta({
    id: "CreateRecoveryEventBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      gross_amount: 125000.5,
      event_type: "turned_over",
      asset: "USDC",
      network: "ethereum",
      source: "Exchange turnover under the writ",
      description: "Funds turned over by the exchange",
    },
  });
export type CreateRecoveryEventBody = z.infer<typeof CreateRecoveryEventBody>;

export const RecoveryEvent = z
  .object({
    object: z.literal("recovery_event"),
    id: z.string(),
    recovery_event_id: z.string(),
    matter_id: z.string(),
    livemode: z.boolean(),
    event_type: z.enum(RECOVERY_EVENT_TYPES),
    asset: z.string(),
    gross_amount: z.number().meta({ description: "canonical; in the matter's currency" }),
    usd_value: z.number().meta({ description: "alias of gross_amount: always the same value" }),
    currency: z.string().meta({ description: "the matter's currency, in which gross_amount is counted" }),
    network: z.string().nullable(),
    source: z.string().nullable(),
    description: z.string().nullable(),
    packet_id: z.string().nullable(),
    status: z.enum(LEDGER_RECORD_STATUSES),
    created_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "RecoveryEvent" });
export type RecoveryEvent = z.infer<typeof RecoveryEvent>;

export const CreateRemittanceEventBody = z
  .object({
    matter_id: NonBlankText(64),
    amount: PositiveLedgerAmount,
    destination: Text(500).nullable().optional(),
    asset: NonBlankText(50).optional(),
    waterfall_id: NonBlankText(64).nullable().optional(),
    source_recovery_event_id: NonBlankText(64).nullable().optional(),
  })
  .meta({
    id: "CreateRemittanceEventBody",
    example: { matter_id: EXAMPLE_MATTER, amount: 50000, destination: "Claimant trust account ****1234", asset: "USD" },
  });
export type CreateRemittanceEventBody = z.infer<typeof CreateRemittanceEventBody>;

export const RemittanceEvent = z
  .object({
    object: z.literal("remittance_event"),
    id: z.string(),
    remittance_event_id: z.string(),
    matter_id: z.string(),
    livemode: z.boolean(),
    destination: z.string().nullable(),
    asset: z.string(),
    amount: z.number(),
    currency: z.string(),
    waterfall_id: z.string().nullable(),
    source_recovery_event_id: z.string().nullable(),
    status: z.enum(LEDGER_RECORD_STATUSES),
    created_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "RemittanceEvent" });
export type RemittanceEvent = z.infer<typeof RemittanceEvent>;

export const MatterLedger = z
  .object({
    object: z.literal("matter_ledger"),
    matter_id: z.string(),
    recovery_events: z.array(RecoveryEvent).meta({ description: "oldest first" }),
    remittance_events: z.array(RemittanceEvent).meta({ description: "oldest first" }),
    total_recovered: Amount,
    total_remitted: Amount,
    remittable: Amount.meta({ description: "total_recovered minus total_remitted: the most a new remittance may be" }),
  })
  .meta({ id: "MatterLedger" });
export type MatterLedger = z.infer<typeof MatterLedger>;

const LEDGER_WRITE_ANSWERS = {
  404: { description: "Unknown matter_id (or a referenced packet, waterfall or recovery event)" },
  409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
} as const;

export const ledgerOperations = {
  createRecoveryEvent: defineOperation({
    id: "createRecoveryEvent",
    method: "POST",
    path: "/v1/ledger/recovery-events",
    scope: "ledger:write",
    tag: "Ledger",
    summary:
      "Record money recovered for a matter. `gross_amount` is canonical; `usd_value` is accepted as its alias and both are returned.",
    successStatus: 201,
    body: CreateRecoveryEventBody,
    response: RecoveryEvent,
    idempotent: true,
    events: ["recovery_event.created"],
    alsoAnswers: LEDGER_WRITE_ANSWERS,
  }),
  createRemittanceEvent: defineOperation({
    id: "createRemittanceEvent",
    method: "POST",
    path: "/v1/ledger/remittance-events",
    scope: "ledger:write",
    tag: "Ledger",
    summary:
      "Record money sent on from a matter. The matter's remittances never sum above its recovery events (409 conflict), even under concurrent requests; a matter under a sanctions hold refuses remittances (409 sanctions_gate).",
    successStatus: 201,
    body: CreateRemittanceEventBody,
    response: RemittanceEvent,
    idempotent: true,
    events: ["remittance_event.created"],
    alsoAnswers: {
      404: LEDGER_WRITE_ANSWERS[404],
      409: {
        description:
          "More than recovered minus remitted (conflict), a sanctions hold (sanctions_gate), a closed matter, or the Idempotency-Key reused or in flight",
      },
    },
  }),
  retrieveMatterLedger: defineOperation({
    id: "retrieveMatterLedger",
    method: "GET",
    path: "/v1/ledger/matters/{matter_id}",
    scope: "ledger:read",
    tag: "Ledger",
    summary: "A matter's recovery and remittance events with exact totals.",
    successStatus: 200,
    response: MatterLedger,
    idempotent: false,
    events: [],
  }),
};
