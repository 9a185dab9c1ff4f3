import { z } from "zod";
import { ListQuery, ObjectIdParam, Timestamp } from "./common";

export const EVENT_TYPES = [
  "matter.created",
  "matter.updated",
  "matter.closed",
  "party.created",
  "party.updated",
  "judgment.created",
  "judgment.updated",
  "judgment.validated",
  "judgment.enforcement_set",
  "packet.created",
  "packet.exported",
  "recovery_event.created",
  "remittance_event.created",
  "waterfall.calculated",
  "job.created",
  "job.completed",
  "job.failed",
  "job.canceled",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.deleted",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const Event = z
  .object({
    id: z.string(),
    object: z.literal("event"),
    type: z.enum(EVENT_TYPES),
    created: Timestamp,
    livemode: z.boolean(),
    api_version: z.string(),
    data: z.record(z.string(), z.unknown()),
    audit_ref: z.string().meta({ description: "the request that produced the event (part of the signed content)" }),
    sequence: z.number().int(),
    prev_hash: z.string(),
    hash: z.string(),
    signature: z.string(),
  })
  .meta({ id: "Event" });
export type Event = z.infer<typeof Event>;

export const ListEventsQuery = ListQuery.extend({
  matter_id: ObjectIdParam.optional(),
  type: z.enum(EVENT_TYPES).optional(),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const ChainVerification = z
  .object({
    object: z.literal("chain_verification"),
    valid: z.boolean(),
    events_checked: z.number().int(),
    first_break: z
      .object({
        sequence: z.number().int(),
        event_id: z.string(),
        reason: z.enum(["hash_mismatch", "prev_hash_mismatch", "sequence_gap", "signature_invalid"]),
      })
      .nullable(),
    head: z.object({ sequence: z.number().int(), hash: z.string() }),
    verified_at: Timestamp,
  })
  .meta({ id: "ChainVerification" });
export type ChainVerification = z.infer<typeof ChainVerification>;
