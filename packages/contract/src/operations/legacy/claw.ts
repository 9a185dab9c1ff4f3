import {
  CLAW_BLOCKER_TYPES,
  CLAW_GATE_STATUSES,
  CLAW_GATES,
  CLAW_LEAD_TYPES,
  CLAW_MODES,
  CLAW_PRESSURE_LEVELS,
  DEFAULT_MAX_LEADS,
  EXPANSION_TYPES,
  FOCUS_CRITERIA,
  FOCUS_TARGET_TYPES,
  MAX_FOCUS_WEIGHT,
  MAX_LEADS,
  MAX_PRESSURE_LEVEL,
  NEXT_CLAW_ACTIONS,
} from "@crs/core";
import { z } from "zod";
import { JOB_VERBS_SUCCESSOR } from "../../legacy";
import { defineOperation } from "../../operation";
import { Audit, ListQuery, listOf, NonBlankText, ObjectIdParam, Timestamp } from "../../schemas/common";
import { Packet } from "../packets";
import { Action, CreateActionBody } from "./actions";
import { ClaimSourceRef } from "./debtors";
import { Alert } from "./monitoring";

/**
 * Claw campaigns (2026-06-11): a matter's enforcement campaign against one of its judgments, with a
 * pressure level (0 observe … 6 recover/distribute) that rises only as its mode allows and, from
 * freeze/block on, with counsel's approval. `focus` ranks the matter's targets, `expand` proposes leads
 * from the debtor graph; the board gathers what the operator works from. Every write is gated.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

const PressureLevel = z
  .number({ error: `must be an integer from 0 to ${MAX_PRESSURE_LEVEL}` })
  .int(`must be an integer from 0 to ${MAX_PRESSURE_LEVEL}`)
  .min(0, `must be an integer from 0 to ${MAX_PRESSURE_LEVEL}`)
  .max(MAX_PRESSURE_LEVEL, `must be an integer from 0 to ${MAX_PRESSURE_LEVEL}`)
  .meta({ description: `0..6: ${CLAW_PRESSURE_LEVELS.map((name, level) => `${level} ${name}`).join(", ")}` });

const CounselApprovalId = NonBlankText(200).meta({
  description:
    "counsel's approval of this pressure (the caller's reference to it, kept as sent); required to raise the level to 4 (freeze_block) or above",
});

/** A list of names from `values`, none twice. */
function distinctList<const T extends readonly [string, ...string[]]>(values: T, noun: string) {
  return z
    .array(z.enum(values))
    .min(1, `must name at least one ${noun}`)
    .max(values.length, `must name at most ${values.length} ${noun}s`)
    .refine((items) => new Set(items).size === items.length, `must not name a ${noun} twice`);
}

export const ClawTargetSet = z
  .object({
    party_ids: z
      .array(NonBlankText(64))
      .max(50, "must name at most 50 parties")
      .refine((ids) => new Set(ids).size === ids.length, "must not name a party twice")
      .meta({ description: "debtors or counterparties of the campaign's matter; empty: the matter's debtors" }),
  })
  .meta({ id: "LegacyClawTargetSet", description: "Who the campaign pursues." });

export const ClawGate = z
  .object({
    gate: z.enum(CLAW_GATES),
    status: z.enum(CLAW_GATE_STATUSES),
    reasons: z.array(z.string()),
    required_actions: z.array(z.string()),
  })
  .meta({ id: "LegacyClawGate" });

export const ClawOperatorState = z
  .object({
    focus_score: z.number().meta({ description: "the best score of the latest focus; 0 before any" }),
    expand_queue: z.number().int().meta({ description: "how many leads the latest expand proposed" }),
    next_claw_action: z.enum(NEXT_CLAW_ACTIONS),
  })
  .meta({ id: "LegacyClawOperatorState" });

export const ClawCampaign = z
  .object({
    object: z.literal("claw_campaign"),
    id: z.string(),
    campaign_id: z.string(),
    matter_id: z.string(),
    judgment_id: z.string(),
    mode: z.enum(CLAW_MODES),
    pressure_level: z.number().int(),
    pressure_name: z.enum(CLAW_PRESSURE_LEVELS),
    pressure_reason: z.string().nullable(),
    counsel_approval_id: z.string().nullable(),
    target_set: ClawTargetSet,
    operator_state: ClawOperatorState,
    gates: z.array(ClawGate),
    focused_at: Timestamp.nullable(),
    expanded_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "LegacyClawCampaign" });
export type ClawCampaign = z.infer<typeof ClawCampaign>;

export const ClawRankedTarget = z
  .object({
    target_type: z.enum(FOCUS_TARGET_TYPES),
    target_id: z.string().meta({ description: "a party id, a wallet address (EVM in lower case) or a hypothesis id" }),
    label: z.string(),
    focus_score: z.number().meta({ description: "0..1, the weighted mean of the criteria scores, 4 decimals" }),
    criteria_scores: z.partialRecord(z.enum(FOCUS_CRITERIA), z.number()),
    reason: z.string(),
    source_refs: z.array(ClaimSourceRef),
  })
  .meta({ id: "LegacyClawRankedTarget" });

export const ClawLead = z
  .object({
    lead_id: z.string().meta({ description: "`lead_` and a digest of its type and node: stable for the same lead" }),
    lead_type: z.enum(CLAW_LEAD_TYPES),
    node_id: z.string().meta({ description: "the debtor graph's node" }),
    label: z.string(),
    record_id: z.string().nullable(),
    found_from_party_id: z.string(),
    confidence: z.number(),
    reason: z.string(),
    claim_ids: z.array(z.string()),
    source_refs: z.array(ClaimSourceRef),
  })
  .meta({ id: "LegacyClawLead" });

export const ClawBlocker = z
  .object({ type: z.enum(CLAW_BLOCKER_TYPES), message: z.string(), object_id: z.string() })
  .meta({ id: "LegacyClawBlocker" });

export const CreateClawCampaignBody = z
  .object({
    matter_id: NonBlankText(64),
    judgment_id: NonBlankText(64).meta({ description: "the judgment of the matter the campaign enforces" }),
    mode: z.enum(CLAW_MODES).optional().meta({ description: "default `measured`" }),
    target_set: ClawTargetSet.optional(),
  })
  .meta({
    id: "LegacyCreateClawCampaignBody",
    example: { matter_id: EXAMPLE_MATTER, judgment_id: "judgment_01k1z9r5ht3q7mxw2c4d8e6f0g", mode: "measured" },
  });

export const UpdateClawCampaignBody = z
  .object({
    mode: z.enum(CLAW_MODES).optional(),
    target_set: ClawTargetSet.optional().meta({ description: "replaces the set; clears the latest focus and expand" }),
    pressure_level: PressureLevel.optional(),
    counsel_approval_id: CounselApprovalId.optional(),
    reason: NonBlankText(2000).optional().meta({ description: "why the pressure changes" }),
  })
  .superRefine((body, ctx) => {
    for (const field of ["counsel_approval_id", "reason"] as const) {
      if (body[field] !== undefined && body.pressure_level === undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: "goes with pressure_level: send both or neither" });
      }
    }
  })
  .meta({ id: "LegacyUpdateClawCampaignBody", example: { mode: "assertive" } });

export const ChangePressureBody = z
  .object({
    pressure_level: PressureLevel,
    reason: NonBlankText(2000).meta({ description: "why the pressure changes, kept on the campaign and in the event" }),
    counsel_approval_id: CounselApprovalId.optional(),
  })
  .meta({
    id: "LegacyChangePressureBody",
    example: { pressure_level: 4, reason: "Funds reached an exchange deposit.", counsel_approval_id: "ca-2026-117" },
  });

export const FocusBody = z
  .object({
    criteria: distinctList(FOCUS_CRITERIA, "criterion"),
    weights: z
      .record(
        z.string(),
        z
          .number({ error: `must be a number from 0 to ${MAX_FOCUS_WEIGHT}` })
          .min(0, `must be a number from 0 to ${MAX_FOCUS_WEIGHT}`)
          .max(MAX_FOCUS_WEIGHT, `must be a number from 0 to ${MAX_FOCUS_WEIGHT}`),
      )
      .optional()
      .meta({ description: "criterion → weight (0 to 100); a criterion left out weighs 1" }),
  })
  .superRefine((body, ctx) => {
    const weights = body.weights ?? {};
    for (const name of Object.keys(weights)) {
      if (!(body.criteria as readonly string[]).includes(name)) {
        ctx.addIssue({ code: "custom", path: ["weights", name], message: "must name one of the criteria sent" });
      }
    }
    if (body.criteria.length > 0 && body.criteria.every((criterion) => weights[criterion] === 0)) {
      ctx.addIssue({ code: "custom", path: ["weights"], message: "must not weigh every criterion 0" });
    }
  })
  .meta({
    id: "LegacyClawFocusBody",
    example: { criteria: ["exposure", "packet_readiness", "freeze_capability"], weights: { exposure: 2 } },
  });

export const ExpandBody = z
  .object({
    expansion_types: distinctList(EXPANSION_TYPES, "expansion type")
      .optional()
      .meta({ description: "what to propose; all when omitted" }),
    max_leads: z
      .number({ error: `must be an integer from 1 to ${MAX_LEADS}` })
      .int(`must be an integer from 1 to ${MAX_LEADS}`)
      .min(1, `must be an integer from 1 to ${MAX_LEADS}`)
      .max(MAX_LEADS, `must be an integer from 1 to ${MAX_LEADS}`)
      .optional()
      .meta({ description: `default ${DEFAULT_MAX_LEADS}` }),
  })
  .meta({ id: "LegacyClawExpandBody", example: { expansion_types: ["wallets", "exchanges"], max_leads: 10 } });

export const CampaignActionBody = CreateActionBody.omit({ matter_id: true, campaign_id: true }).meta({
  id: "LegacyClawCampaignActionBody",
  example: { type: "call_exchange", title: "Ask the exchange to freeze the deposit account", review_required: true },
});

export const ClawFocus = z
  .object({
    object: z.literal("claw_focus"),
    campaign_id: z.string(),
    criteria: z.array(z.enum(FOCUS_CRITERIA)),
    weights: z.partialRecord(z.enum(FOCUS_CRITERIA), z.number()),
    ranked_targets: z.array(ClawRankedTarget),
    focused_at: Timestamp,
  })
  .meta({ id: "LegacyClawFocus" });
export type ClawFocus = z.infer<typeof ClawFocus>;

export const ClawExpansion = z
  .object({
    object: z.literal("claw_expansion"),
    campaign_id: z.string(),
    expansion_types: z.array(z.enum(EXPANSION_TYPES)),
    max_leads: z.number().int(),
    leads: z.array(ClawLead),
    total_leads: z.number().int().meta({ description: "how many leads there were before max_leads cut them" }),
    truncated: z.boolean(),
    expanded_at: Timestamp,
  })
  .meta({ id: "LegacyClawExpansion" });
export type ClawExpansion = z.infer<typeof ClawExpansion>;

export const ClawBoard = z
  .object({
    object: z.literal("claw_board"),
    campaign: ClawCampaign,
    focus_queue: z.array(ClawRankedTarget).meta({ description: "the latest focus's ranking; empty before any" }),
    expand_queue: z.array(ClawLead).meta({ description: "the latest expand's leads; empty before any" }),
    packet_queue: z
      .array(Packet)
      .meta({ description: "the matter's packets awaiting a reviewer (review pending or rejected), not closed" }),
    alerts: z
      .array(Alert)
      .meta({ description: "the matter's monitoring alerts still to act on (new, actionable, escalated)" }),
    blockers: z.array(ClawBlocker),
  })
  .meta({ id: "LegacyClawBoard" });
export type ClawBoard = z.infer<typeof ClawBoard>;

export const ListClawCampaignsQuery = ListQuery.extend({ matter_id: ObjectIdParam.optional() });

const GATES =
  "403 sanctions_gate while a sanctions hit on the matter awaits review, 403 authority_required without granted authority on the matter";
const CAMPAIGN_WRITE_ANSWERS = {
  403: { description: `The key lacks the scope, or a gate refused the write: ${GATES}.` },
  404: { description: "Unknown campaign (or another organization's)" },
  409: {
    description:
      "stay_in_effect (the campaign's judgment is stayed), or conflict (closed matter, Idempotency-Key reused or in flight)",
  },
} as const;
/** A write that moves pressure also answers 409 for a raise its mode does not allow, and 422 without counsel's approval. */
const PRESSURE_WRITE_ANSWERS = {
  ...CAMPAIGN_WRITE_ANSWERS,
  409: {
    description:
      "stay_in_effect (the campaign's judgment is stayed), or conflict (closed matter, a raise beyond the mode's step, Idempotency-Key reused or in flight)",
  },
  422: { description: "Invalid body, or a raise to level 4 or above without counsel_approval_id" },
} as const;
const legacy = { rpc: false, surface: "legacy", successor: JOB_VERBS_SUCCESSOR } as const;
const write = { scope: "claw:write", tag: "Claw campaigns", idempotent: true, events: ["matter.updated"] } as const;
const read = { scope: "claw:read", tag: "Claw campaigns", idempotent: false, events: [] } as const;

export const clawOperations = {
  create: defineOperation({
    id: "legacyCreateClawCampaign",
    method: "POST",
    path: "/v1/claw/campaigns",
    summary: "Start a campaign against one of a matter's judgments, at pressure level 0 (observe).",
    successStatus: 200,
    body: CreateClawCampaignBody,
    response: ClawCampaign,
    alsoAnswers: {
      ...CAMPAIGN_WRITE_ANSWERS,
      404: { description: "Unknown matter_id, judgment_id (or one of another matter), or a target_set party" },
      422: { description: "Invalid body, or a claimant named in target_set.party_ids" },
    },
    ...write,
    ...legacy,
  }),
  list: defineOperation({
    id: "legacyListClawCampaigns",
    method: "GET",
    path: "/v1/claw/campaigns",
    summary: "List campaigns, most recent first, optionally of one matter.",
    successStatus: 200,
    query: ListClawCampaignsQuery,
    response: listOf(ClawCampaign, "LegacyClawCampaignList"),
    ...read,
    ...legacy,
  }),
  get: defineOperation({
    id: "legacyRetrieveClawCampaign",
    method: "GET",
    path: "/v1/claw/campaigns/{campaign_id}",
    summary: "Retrieve a campaign, with its gates and operator state as they stand now.",
    successStatus: 200,
    response: ClawCampaign,
    ...read,
    ...legacy,
  }),
  update: defineOperation({
    id: "legacyUpdateClawCampaign",
    method: "PATCH",
    path: "/v1/claw/campaigns/{campaign_id}",
    summary: "Change a campaign's mode, target set or pressure level (by the pressure rules).",
    successStatus: 200,
    body: UpdateClawCampaignBody,
    response: ClawCampaign,
    alsoAnswers: PRESSURE_WRITE_ANSWERS,
    ...write,
    ...legacy,
  }),
  focus: defineOperation({
    id: "legacyFocusClawCampaign",
    method: "POST",
    path: "/v1/claw/campaigns/{campaign_id}/focus",
    summary: "Rank the campaign's targets (parties, wallets, exchange hypotheses) by weighted criteria.",
    successStatus: 200,
    body: FocusBody,
    response: ClawFocus,
    alsoAnswers: CAMPAIGN_WRITE_ANSWERS,
    ...write,
    ...legacy,
  }),
  expand: defineOperation({
    id: "legacyExpandClawCampaign",
    method: "POST",
    path: "/v1/claw/campaigns/{campaign_id}/expand",
    summary: "Propose leads from the pursued parties' debtor graphs (asset maps and the case record).",
    successStatus: 200,
    body: ExpandBody,
    response: ClawExpansion,
    alsoAnswers: CAMPAIGN_WRITE_ANSWERS,
    ...write,
    ...legacy,
  }),
  pressure: defineOperation({
    id: "legacyChangeClawPressure",
    method: "POST",
    path: "/v1/claw/campaigns/{campaign_id}/pressure",
    summary: "Move a campaign's pressure level, with the reason (and counsel's approval from level 4).",
    successStatus: 200,
    body: ChangePressureBody,
    response: ClawCampaign,
    alsoAnswers: PRESSURE_WRITE_ANSWERS,
    ...write,
    ...legacy,
  }),
  createAction: defineOperation({
    id: "legacyCreateClawCampaignAction",
    method: "POST",
    path: "/v1/claw/campaigns/{campaign_id}/actions",
    summary: "Add an open action to the campaign's matter, linked to the campaign (as POST /v1/actions does).",
    successStatus: 200,
    body: CampaignActionBody,
    response: Action,
    alsoAnswers: {
      ...CAMPAIGN_WRITE_ANSWERS,
      404: { description: "Unknown campaign, or linked_packet_id (or a packet of another matter)" },
    },
    ...write,
    ...legacy,
  }),
  board: defineOperation({
    id: "legacyRetrieveClawBoard",
    method: "GET",
    path: "/v1/claw/campaigns/{campaign_id}/board",
    summary: "The campaign's board: its queues, the matter's packets awaiting review and alerts, and its blockers.",
    successStatus: 200,
    response: ClawBoard,
    ...read,
    ...legacy,
  }),
};
