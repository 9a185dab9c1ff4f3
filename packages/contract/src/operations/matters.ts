import {
  MATTER_CLOSE_REASONS,
  MATTER_MODES,
  MATTER_STATUSES,
  PATCHABLE_MATTER_STATUSES,
  RECOVERY_PHASES,
} from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../operation";
import { Amount, Audit, Currency, ListQuery, listOf, Percentage, Text, Timestamp } from "../schemas/common";

export const MatterEconomicsInput = z.object({
  currency: Currency.optional(),
  counsel_fee_percentage: Percentage.optional(),
  platform_percentage: Percentage.optional(),
  holdback_percentage: Percentage.optional(),
});

export const MatterEconomics = z
  .object({
    currency: z.string(),
    counsel_fee_percentage: z.number(),
    platform_percentage: z.number(),
    holdback_percentage: z.number(),
  })
  .meta({ id: "MatterEconomics" });

export const CreateMatterBody = z
  .object({
    name: Text(200).trim().min(1, "must not be empty"),
    mode: z.enum(MATTER_MODES).default("recovery"),
    lead_counsel: Text(200).optional(),
    economics: MatterEconomicsInput.optional(),
    notes: Text(10_000).optional(),
  })
  .meta({
    id: "CreateMatterBody",
    example: {
      name: "Acme Holdings v. Doe Trading",
      mode: "recovery",
      lead_counsel: "Jane Counsel",
      economics: { currency: "USD", counsel_fee_percentage: 33.33, platform_percentage: 5, holdback_percentage: 2 },
      notes: "Referred by the trustee.",
    },
  });
export type CreateMatterBody = z.infer<typeof CreateMatterBody>;

export const UpdateMatterBody = z
  .object({
    name: Text(200).trim().min(1, "must not be empty").optional(),
    status: z.enum(PATCHABLE_MATTER_STATUSES).optional(),
    lead_counsel: Text(200).nullable().optional(),
    economics: MatterEconomicsInput.optional(),
    notes: Text(10_000).nullable().optional(),
    retention_policy: Text(200).nullable().optional(),
  })
  .meta({ id: "UpdateMatterBody", example: { status: "on_hold", retention_policy: "7y" } });
export type UpdateMatterBody = z.infer<typeof UpdateMatterBody>;

export const CloseMatterBody = z
  .object({
    reason: z.enum(MATTER_CLOSE_REASONS),
    notes: Text(10_000).optional(),
  })
  .meta({ id: "CloseMatterBody", example: { reason: "settled", notes: "Settled at mediation." } });
export type CloseMatterBody = z.infer<typeof CloseMatterBody>;

export const Matter = z
  .object({
    object: z.literal("matter"),
    id: z.string(),
    matter_id: z.string(),
    organization_id: z.string(),
    livemode: z.boolean(),
    name: z.string(),
    mode: z.enum(MATTER_MODES),
    lead_counsel: z.string().nullable(),
    economics: MatterEconomics,
    notes: z.string().nullable(),
    status: z.enum(MATTER_STATUSES),
    retention_policy: z.string().nullable(),
    close_reason: z.enum(MATTER_CLOSE_REASONS).nullable(),
    close_notes: z.string().nullable(),
    closed_at: Timestamp.nullable(),
    sanctions_hold: z.boolean().meta({
      description:
        "true while a sanctions hit on one of its parties awaits a reviewer; remittances and packets other than sanctions_review and ofac_report will be refused until then",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "Matter" });
export type Matter = z.infer<typeof Matter>;

export const MatterDashboard = z
  .object({
    object: z.literal("matter_dashboard"),
    matter_id: z.string(),
    judgment_value: Amount.meta({ description: "the sum of the matter's active judgments in the matter's currency" }),
    other_judgment_values: z.array(Amount).meta({
      description:
        "active judgments in other currencies, summed per currency: amounts in different currencies are never added together",
    }),
    known_crypto_exposure: Amount,
    open_actions: z.number().int(),
    open_packets: z.number().int(),
    alerts: z.number().int(),
    recovery_events: z.number().int(),
    platform_economics: Amount,
    recovery_phase: z.enum(RECOVERY_PHASES),
    phase_index: z.number().int(),
    packets: z.number().int(),
    remittances: z.number().int(),
  })
  .meta({ id: "MatterDashboard" });
export type MatterDashboard = z.infer<typeof MatterDashboard>;

export const matterOperations = {
  create: defineOperation({
    id: "createMatter",
    method: "POST",
    path: "/v1/matters",
    scope: "matters:write",
    tag: "Matters",
    summary: "Create a matter.",
    successStatus: 201,
    body: CreateMatterBody,
    response: Matter,
    idempotent: true,
    events: ["matter.created"],
  }),
  list: defineOperation({
    id: "listMatters",
    method: "GET",
    path: "/v1/matters",
    scope: "matters:read",
    tag: "Matters",
    summary: "List matters, most recent first.",
    successStatus: 200,
    query: ListQuery,
    response: listOf(Matter, "MatterList"),
    idempotent: false,
    events: [],
  }),
  get: defineOperation({
    id: "retrieveMatter",
    method: "GET",
    path: "/v1/matters/{matter_id}",
    scope: "matters:read",
    tag: "Matters",
    summary: "Retrieve a matter.",
    successStatus: 200,
    response: Matter,
    idempotent: false,
    events: [],
  }),
  update: defineOperation({
    id: "updateMatter",
    method: "PATCH",
    path: "/v1/matters/{matter_id}",
    scope: "matters:write",
    tag: "Matters",
    summary: "Update a matter's name, status (active or on_hold), counsel, economics, notes or retention policy.",
    successStatus: 200,
    body: UpdateMatterBody,
    response: Matter,
    idempotent: true,
    events: ["matter.updated"],
  }),
  dashboard: defineOperation({
    id: "retrieveMatterDashboard",
    method: "GET",
    path: "/v1/matters/{matter_id}/dashboard",
    scope: "matters:read",
    tag: "Matters",
    summary: "The matter's figures: judgment value, exposure, open work, alerts, recovery phase.",
    successStatus: 200,
    response: MatterDashboard,
    idempotent: false,
    events: [],
  }),
  close: defineOperation({
    id: "closeMatter",
    method: "POST",
    path: "/v1/matters/{matter_id}/close",
    scope: "matters:write",
    tag: "Matters",
    summary:
      "Close a matter; afterwards it refuses writes to itself and its children. Its queued and running jobs are canceled with it.",
    successStatus: 200,
    body: CloseMatterBody,
    response: Matter,
    idempotent: true,
    events: ["matter.closed", "job.canceled"],
  }),
};
