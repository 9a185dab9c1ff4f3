import { WATERFALL_HOLDBACK_REASONS } from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../operation";
import { Amount, NonBlankText, Percentage, Timestamp } from "../schemas/common";
import { ReviewState } from "./judgments";
import { LedgerAmountValue } from "./ledger";

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

const Costs = z
  .record(NonBlankText(100), LedgerAmountValue)
  .refine((costs) => Object.keys(costs).length <= 50, "must name at most 50 costs")
  .meta({ description: "cost name → amount (≥ 0, two decimals), taken off the gross first, in name order" });

export const CalculateWaterfallBody = z
  .object({
    matter_id: NonBlankText(64),
    recovery_event_ids: z
      .array(NonBlankText(64))
      .min(1, "must name at least one recovery event (omit it to use all of the matter's)")
      .max(1000, "must name at most 1000 recovery events")
      .refine((ids) => new Set(ids).size === ids.length, "must not name a recovery event twice")
      .optional(),
    costs: Costs.optional(),
    platform_percentage: Percentage.optional().meta({
      description: "0..100, two decimals; default: the matter's economics.platform_percentage",
    }),
  })
  .meta({
    id: "CalculateWaterfallBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      costs: { filing_fees: 1250, expert_witness: 4800.5 },
      platform_percentage: 5,
    },
  });
export type CalculateWaterfallBody = z.infer<typeof CalculateWaterfallBody>;

const WaterfallAmount = z.number().meta({ description: "in the matter's currency, two decimals at most" });

export const Waterfall = z
  .object({
    object: z.literal("waterfall"),
    id: z.string(),
    waterfall_id: z.string(),
    matter_id: z.string(),
    livemode: z.boolean(),
    currency: z.string(),
    recovery_event_ids: z.array(z.string()).meta({ description: "the recovery events whose sum is the gross" }),
    gross_recovered: Amount,
    costs: z.record(z.string(), WaterfallAmount).meta({ description: "cost name → amount applied" }),
    cost_items: z.array(z.object({ name: z.string(), requested: WaterfallAmount, applied: WaterfallAmount })).meta({
      description: "each cost as requested and as applied: less only when the gross ran out",
    }),
    costs_total: WaterfallAmount,
    counsel_fee: Amount,
    platform_economics: Amount,
    holdbacks: z.array(
      z.object({
        reason: z.enum(WATERFALL_HOLDBACK_REASONS),
        claimant_id: z.string().nullable(),
        amount: WaterfallAmount,
      }),
    ),
    holdbacks_total: WaterfallAmount,
    distributable: WaterfallAmount.meta({
      description: "what was split pro rata among claimants (and the unallocated part)",
    }),
    claimant_distributions: z.array(z.object({ claimant_id: z.string(), share: z.number(), amount: WaterfallAmount })),
    rates: z.object({
      counsel_fee_percentage: z.number(),
      platform_percentage: z.number(),
      holdback_percentage: z.number(),
    }),
    claimants: z
      .array(
        z.object({
          claimant_id: z.string(),
          share: z.number(),
          status: z.string(),
          sanctions_review: z.boolean(),
          payable: z.boolean(),
        }),
      )
      .meta({ description: "every claimant of the matter as the calculation saw it, in creation order" }),
    remittance_constraints: z.object({
      total_recovered: WaterfallAmount,
      total_remitted: WaterfallAmount,
      remittable: WaterfallAmount,
    }),
    review_state: ReviewState,
    calculated_at: Timestamp,
  })
  .meta({ id: "Waterfall" });
export type Waterfall = z.infer<typeof Waterfall>;

export const waterfallOperations = {
  calculate: defineOperation({
    id: "calculateWaterfall",
    method: "POST",
    path: "/v1/waterfall/calculate",
    scope: "waterfall:calculate",
    tag: "Waterfall",
    summary:
      "Split recovered money: costs, counsel fee, platform economics, holdbacks and pro-rata claimant distributions, in integer cents; the parts always sum to the gross. Stored as the matter's current waterfall.",
    successStatus: 200,
    body: CalculateWaterfallBody,
    response: Waterfall,
    idempotent: true,
    events: ["waterfall.calculated"],
    alsoAnswers: {
      404: { description: "Unknown matter_id, or a recovery event that is not the matter's" },
      409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
    },
  }),
  retrieveForMatter: defineOperation({
    id: "retrieveMatterWaterfall",
    method: "GET",
    path: "/v1/waterfall/matters/{matter_id}",
    scope: "waterfall:read",
    tag: "Waterfall",
    summary: "The matter's current waterfall: the latest calculated. 404 when none has been calculated.",
    successStatus: 200,
    response: Waterfall,
    idempotent: false,
    events: [],
  }),
};
