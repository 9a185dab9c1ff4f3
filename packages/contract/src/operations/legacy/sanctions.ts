import { PACKET_STATUSES } from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../../operation";
import { NonBlankText, Text, Timestamp } from "../../schemas/common";
import { ReviewState } from "../judgments";
import { BlockedPropertyAnalysis, SanctionsReviewDetails } from "../packets";
import { SanctionsHit, WalletInput } from "../parties";

/**
 * Sanctions (2026-06-11). A screen records its hits as the matter's sanctions hits (the same rows,
 * hold and clearing as a party's hits); a review is a packet of type `sanctions_review` and an OFAC
 * report one of type `ofac_report`, their ids being packet ids.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";
const Names = (what: string) => z.array(NonBlankText(200)).max(100, `must have at most 100 ${what}`);

export const ScreenBody = z
  .object({
    matter_id: NonBlankText(64),
    wallets: z.array(WalletInput).max(100, "must have at most 100 wallets").optional(),
    entities: Names("entities").optional(),
    counterparties: Names("counterparties").optional(),
  })
  .refine(
    (body) => (body.wallets?.length ?? 0) + (body.entities?.length ?? 0) + (body.counterparties?.length ?? 0) > 0,
    { message: "must name at least one wallet, entity or counterparty to screen", path: ["wallets"] },
  )
  .meta({
    id: "LegacySanctionsScreenBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      wallets: [{ address: "0x8ba1f109551bD432803012645Ac136ddd64DBA72", network: "ethereum" }],
      entities: ["Doe Trading Ltd"],
      counterparties: ["Example Exchange Ltd"],
    },
  });

export const SanctionsScreen = z
  .object({
    object: z.literal("sanctions_screen"),
    review_id: z.string().nullable().meta({
      description:
        "the screen its hits are recorded under (`sanc_…`): this one when it raised new hits, else the earlier one that did; null for a clear screen, which records nothing",
    }),
    matter_id: z.string(),
    status: z.enum(["clear", "hit"]),
    matches: z.array(SanctionsHit),
    ordinary_collection_paused: z.boolean().meta({ description: "the matter is on sanctions hold" }),
    required_actions: z.array(z.string()),
    list_size: z.number().int().meta({ description: "entries of the list screened against" }),
  })
  .meta({ id: "LegacySanctionsScreen" });
export type SanctionsScreen = z.infer<typeof SanctionsScreen>;

export const SanctionsReviewPacketBody = z
  .object({
    matter_id: NonBlankText(64),
    screen_id: NonBlankText(64),
    notes: Text(10_000).nullable().optional(),
  })
  .meta({
    id: "LegacySanctionsReviewPacketBody",
    example: { matter_id: EXAMPLE_MATTER, screen_id: "sanc_01k1z9t7ab3q7mxw2c4d8e6f0g", notes: "Wallet match." },
  });

export const SanctionsReview = z
  .object({
    object: z.literal("sanctions_review"),
    id: z.string(),
    review_id: z.string().meta({ description: "the packet id" }),
    packet_id: z.string(),
    matter_id: z.string(),
    screen_id: z.string().nullable(),
    status: z.enum(PACKET_STATUSES).meta({ description: "the packet's status" }),
    blocked_property_analysis: BlockedPropertyAnalysis.nullable(),
    ofac_report_required: z.boolean(),
    hits: SanctionsReviewDetails.shape.hits,
    notes: z.string().nullable(),
    review_state: ReviewState,
    content_hash: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacySanctionsReview" });
export type SanctionsReview = z.infer<typeof SanctionsReview>;

export const OFAC_REPORT_TYPES = ["blocked_property", "rejected_transaction", "annual_blocked_property"] as const;

export const OfacReportBody = z
  .object({
    matter_id: NonBlankText(64),
    sanctions_review_id: NonBlankText(64),
    report_type: z.enum(OFAC_REPORT_TYPES),
    counsel_owner: NonBlankText(200),
  })
  .meta({
    id: "LegacyOfacReportBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      sanctions_review_id: "pkt_01k1z9t7ab3q7mxw2c4d8e6f0g",
      report_type: "blocked_property",
      counsel_owner: "Jane Counsel",
    },
  });

export const OfacReport = z
  .object({
    object: z.literal("ofac_report"),
    id: z.string(),
    ofac_report_id: z.string().meta({ description: "the packet id" }),
    packet_id: z.string(),
    matter_id: z.string(),
    sanctions_review_id: z.string(),
    report_type: z.enum(OFAC_REPORT_TYPES),
    counsel_owner: z.string(),
    status: z.enum(PACKET_STATUSES).meta({ description: "the packet's status" }),
    submitted_by: z.null().meta({ description: "always null: the service prepares the report, counsel files it" }),
    submitted_at: z.null().meta({ description: "always null: the service prepares the report, counsel files it" }),
    review_state: ReviewState,
    content_hash: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacyOfacReport" });
export type OfacReport = z.infer<typeof OfacReport>;

const CLOSED_OR_KEY = "The matter is closed, or the Idempotency-Key was reused or is in flight";

export const sanctionsOperations = {
  screen: defineOperation({
    id: "legacyScreenSanctions",
    method: "POST",
    path: "/v1/sanctions/screen",
    scope: "sanctions:screen",
    tag: "Sanctions",
    summary:
      "Screen wallets, entities and counterparties of a matter against the sanctions list; hits put the matter on sanctions hold.",
    successStatus: 200,
    body: ScreenBody,
    response: SanctionsScreen,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: {
      404: { description: "Unknown matter_id" },
      409: {
        description: `${CLOSED_OR_KEY}, or the sanctions list is empty (details.reason sanctions_list_empty): nothing can be screened`,
      },
    },
    rpc: false,
    surface: "legacy",
    successor: {
      operation: "createParty",
      note: "Screening runs on every party and wallet write; a review is a packet of type sanctions_review.",
    },
  }),
  reviewPacket: defineOperation({
    id: "legacyCreateSanctionsReviewPacket",
    method: "POST",
    path: "/v1/sanctions/review-packet",
    scope: "sanctions:write",
    tag: "Sanctions",
    summary: "Prepare the review of a screen's hits: a packet of type sanctions_review.",
    successStatus: 201,
    body: SanctionsReviewPacketBody,
    response: SanctionsReview,
    idempotent: true,
    events: ["packet.created"],
    alsoAnswers: {
      404: { description: "Unknown matter_id, or a screen_id with no hits on the matter" },
      409: { description: CLOSED_OR_KEY },
    },
    rpc: false,
    surface: "legacy",
    successor: { operation: "createPacket", note: "A packet of type sanctions_review." },
  }),
  ofacReport: defineOperation({
    id: "legacyCreateOfacReportPacket",
    method: "POST",
    path: "/v1/sanctions/ofac-report-workflow",
    scope: "sanctions:write",
    tag: "Sanctions",
    summary: "Prepare an OFAC report from a sanctions review: a packet of type ofac_report.",
    successStatus: 201,
    body: OfacReportBody,
    response: OfacReport,
    idempotent: true,
    events: ["packet.created"],
    alsoAnswers: {
      404: { description: "Unknown matter_id, or a sanctions_review_id that is not a review of the matter" },
      409: { description: CLOSED_OR_KEY },
    },
    rpc: false,
    surface: "legacy",
    successor: { operation: "createPacket", note: "A packet of type ofac_report." },
  }),
  get: defineOperation({
    id: "legacyRetrieveSanctionsReview",
    method: "GET",
    path: "/v1/sanctions/{review_id}",
    scope: "sanctions:read",
    tag: "Sanctions",
    summary: "Retrieve a sanctions review (a packet of type sanctions_review); any other packet is not one (404).",
    successStatus: 200,
    response: SanctionsReview,
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: { operation: "retrievePacket", note: "Sanctions reviews are packets." },
  }),
};
