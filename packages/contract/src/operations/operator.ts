import { z } from "zod";
import { defineOperation } from "../operation";
import { NonBlankText, ObjectIdParam, Text, Timestamp } from "../schemas/common";
import { Judgment } from "./judgments";
import { Packet, ReviewPacketBody, SetPacketStatusBody } from "./packets";
import { SanctionsHit } from "./parties";
import { WebhookDelivery } from "./webhook-endpoints";

export const MatterAuthority = z
  .object({
    object: z.literal("matter_authority"),
    matter_id: z.string(),
    granted: z.boolean(),
    basis: z.enum(["operator_grant", "operator_revoke", "ready_judgment", "none"]).meta({
      description:
        "an operator's grant or revoke (held until an operator clears it), else a judgment with a ready latest validation and no stay in effect, else none",
    }),
    judgment_ids: z.array(z.string()).meta({ description: "the judgments that carry authority (ready_judgment)" }),
    operator_decision: z
      .object({
        decision: z.enum(["grant", "revoke", "clear"]),
        notes: z.string().nullable(),
        decided_at: Timestamp,
        actor_id: z.string(),
      })
      .nullable()
      .meta({ description: "the operator's latest decision on the matter; clear withdrew the one before" }),
  })
  .meta({ id: "MatterAuthority" });
export type MatterAuthority = z.infer<typeof MatterAuthority>;

const MatterDecisionBody = z.object({
  matter_id: NonBlankText(64),
  notes: Text(10_000).optional(),
});

export const ClearReviewBody = z.object({
  judgment_id: NonBlankText(64),
  reviewer: Text(200).optional().meta({ description: "recorded as review_owner" }),
  notes: Text(10_000).optional().meta({ description: "recorded as review_notes" }),
});

export const ClearSanctionsHitBody = z.object({
  hit_id: NonBlankText(64),
  notes: NonBlankText(10_000).meta({ description: "why the hit is cleared (a false positive, a licence, …)" }),
});

const OPERATOR_WRITE_ANSWERS = {
  409: {
    description: "The matter is closed, nothing awaits the decision, or the Idempotency-Key was reused or is in flight",
  },
} as const;

/**
 * The internal API: operator decisions, on tRPC only (no REST path), behind the privileged
 * `operator:write` scope that no sandbox key holds. Each appends the catalog event closest to it
 * (there is no operator event type): `matter.updated` for authority and sanctions decisions,
 * `judgment.updated` for a cleared review, with the decision in the event's data.
 */
export const SetWebhookFallbackBody = z
  .object({
    url: z.string().trim().min(1, "must not be empty").max(2048, "must be at most 2048 characters").nullable().meta({
      description: "the URL that receives every event while the organization has no endpoint; null clears it",
    }),
  })
  .meta({ id: "SetWebhookFallbackBody" });
export type SetWebhookFallbackBody = z.infer<typeof SetWebhookFallbackBody>;

export const WebhookFallback = z
  .object({
    object: z.literal("webhook_fallback"),
    organization_id: z.string(),
    livemode: z.boolean(),
    url: z.string().nullable(),
    signing_secret: z.string().nullable().meta({
      description: "whsec_… for the URL just set (a new one on every set), shown this once; null when cleared",
    }),
  })
  .meta({ id: "WebhookFallback" });
export type WebhookFallback = z.infer<typeof WebhookFallback>;

export const RedeliverWebhookBody = z
  .object({ webhook_delivery_id: ObjectIdParam })
  .meta({ id: "RedeliverWebhookBody" });
export type RedeliverWebhookBody = z.infer<typeof RedeliverWebhookBody>;

export const operatorOperations = {
  authority: defineOperation({
    id: "retrieveMatterAuthority",
    method: "GET",
    scope: "operator:write",
    tag: "Operator",
    summary: "Whether a matter has granted authority, and why.",
    successStatus: 200,
    query: z.object({ matter_id: NonBlankText(64) }),
    response: MatterAuthority,
    idempotent: false,
    events: [],
  }),
  grantAuthority: defineOperation({
    id: "grantMatterAuthority",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary: "Grant a matter authority, whatever its judgments' validations, until an operator clears it.",
    successStatus: 200,
    body: MatterDecisionBody,
    response: MatterAuthority,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: OPERATOR_WRITE_ANSWERS,
  }),
  revokeAuthority: defineOperation({
    id: "revokeMatterAuthority",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary: "Revoke a matter's authority; it outlasts later ready validations until an operator clears it.",
    successStatus: 200,
    body: MatterDecisionBody,
    response: MatterAuthority,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: OPERATOR_WRITE_ANSWERS,
  }),
  clearAuthorityDecision: defineOperation({
    id: "clearMatterAuthorityDecision",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary: "Withdraw the operator's grant or revoke: authority follows the matter's judgments again.",
    successStatus: 200,
    body: MatterDecisionBody,
    response: MatterAuthority,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: OPERATOR_WRITE_ANSWERS,
  }),
  clearReview: defineOperation({
    id: "clearEnforcementReview",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary: "Clear the pending review of a judgment's enforcement posture.",
    successStatus: 200,
    body: ClearReviewBody,
    response: Judgment,
    idempotent: true,
    events: ["judgment.updated"],
    alsoAnswers: OPERATOR_WRITE_ANSWERS,
  }),
  setPacketStatus: defineOperation({
    id: "setPacketStatus",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary:
      "Advance a packet as its recipient answers: exported → served → acknowledged | contested → complied | closed (closed from any open status). Appends matter.updated with the decision.",
    successStatus: 200,
    body: SetPacketStatusBody,
    response: Packet,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: { 409: { description: "The move is not allowed from the packet's status, or the matter is closed" } },
  }),
  reviewPacket: defineOperation({
    id: "reviewPacket",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary:
      "Record a reviewer's decision on a packet (review_status, owner, notes). Appends matter.updated with the decision. A destination wallet certificate is approved only with a complete, clear sanctions screen.",
    successStatus: 200,
    body: ReviewPacketBody,
    response: Packet,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: {
      409: {
        description: `${OPERATOR_WRITE_ANSWERS[409].description}; or a destination wallet certificate approved without a complete, clear sanctions screen`,
      },
    },
  }),
  clearSanctionsHit: defineOperation({
    id: "clearSanctionsHit",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary: "Clear a sanctions hit after review; the matter leaves sanctions hold when none is left open.",
    successStatus: 200,
    body: ClearSanctionsHitBody,
    response: SanctionsHit,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: OPERATOR_WRITE_ANSWERS,
  }),
  setWebhookFallback: defineOperation({
    id: "setWebhookFallback",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary:
      "Set or clear the organization's webhook fallback URL (same target rules as endpoints); it receives every event while the organization has no endpoint.",
    successStatus: 200,
    body: SetWebhookFallbackBody,
    response: WebhookFallback,
    idempotent: true,
    events: [],
    secretResponseFields: ["signing_secret"],
  }),
  redeliverWebhook: defineOperation({
    id: "redeliverWebhook",
    method: "POST",
    scope: "operator:write",
    tag: "Operator",
    summary: "Send a dead delivery again: back to queued, with a new job and a new retry window.",
    successStatus: 200,
    body: RedeliverWebhookBody,
    response: WebhookDelivery,
    idempotent: true,
    events: [],
    alsoAnswers: {
      409: { description: "The delivery is not dead, or its endpoint is disabled or deleted" },
    },
  }),
};
