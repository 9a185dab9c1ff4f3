import {
  MATTER_CLOSE_REASONS,
  MATTER_MODES,
  MATTER_STATUSES,
  PATCHABLE_MATTER_STATUSES,
  RECOVERY_PHASES,
} from "@crs/core";
import { z } from "zod";
import { Amount, Audit, Percentage, Timestamp } from "./common";

const Currency = z.string().regex(/^[A-Z]{3}$/, "must be a three-letter ISO 4217 code such as USD");

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

const Text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

export const CreateMatterBody = z
  .object({
    name: Text(200).trim().min(1, "must not be empty"),
    mode: z.enum(MATTER_MODES).default("recovery"),
    lead_counsel: Text(200).optional(),
    economics: MatterEconomicsInput.optional(),
    notes: Text(10_000).optional(),
  })
  .meta({ id: "CreateMatterBody" });
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
  .meta({ id: "UpdateMatterBody" });
export type UpdateMatterBody = z.infer<typeof UpdateMatterBody>;

export const CloseMatterBody = z
  .object({
    reason: z.enum(MATTER_CLOSE_REASONS),
    notes: Text(10_000).optional(),
  })
  .meta({ id: "CloseMatterBody" });
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
    judgment_value: Amount,
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
