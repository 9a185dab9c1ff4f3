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

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

export const ChainCheckpoint = z
  .object({
    object: z.literal("chain_checkpoint"),
    livemode: z.boolean(),
    sequence: z.number().int().meta({ description: "the head's sequence (0 for an empty log)" }),
    hash: z.string().meta({ description: "the hash of the event at `sequence` (64 zeros for an empty log)" }),
    issued_at: Timestamp,
    signature: z.string().meta({
      description:
        "hex Ed25519 signature, with the event signing key, over the UTF-8 bytes of " +
        "JCS({object, livemode, sequence, hash, issued_at})",
    }),
  })
  .meta({ id: "ChainCheckpoint" });
export type ChainCheckpoint = z.infer<typeof ChainCheckpoint>;

/** A whole number written in digits, as a query parameter carries it. */
const SequenceParam = z.preprocess(
  (value) => (typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : value),
  z.number({ error: "must be a whole number" }).int("must be a whole number").min(0, "must be a whole number"),
);

export const VerifyChainQuery = z
  .object({
    checkpoint_sequence: SequenceParam.optional(),
    checkpoint_hash: z.string().regex(HEX64, "must be 64 lowercase hex characters").optional(),
    checkpoint_issued_at: z.string().min(1).max(40).optional(),
    checkpoint_signature: z.string().regex(HEX128, "must be 128 lowercase hex characters").optional(),
    since_checkpoint: z
      .enum(["true", "false"], { error: "must be true or false" })
      .optional()
      .meta({ description: "true: check only the checkpoint's event and what came after it" }),
  })
  .superRefine((query, ctx) => {
    const parts = ["checkpoint_sequence", "checkpoint_hash", "checkpoint_issued_at", "checkpoint_signature"] as const;
    const given = parts.filter((part) => query[part] !== undefined);
    if (given.length > 0 || query.since_checkpoint === "true") {
      for (const part of parts) {
        if (query[part] === undefined) {
          ctx.addIssue({ code: "custom", path: [part], message: "is required with the other checkpoint fields" });
        }
      }
    }
  });
export type VerifyChainQuery = z.infer<typeof VerifyChainQuery>;

export const ChainVerification = z
  .object({
    object: z.literal("chain_verification"),
    valid: z.boolean(),
    events_checked: z.number().int(),
    first_break: z
      .object({
        sequence: z.number().int(),
        event_id: z.string().nullable().meta({ description: "null when the log has no event at `sequence`" }),
        reason: z.enum([
          "hash_mismatch",
          "prev_hash_mismatch",
          "sequence_gap",
          "signature_invalid",
          "truncated",
          "rollback",
        ]),
      })
      .nullable(),
    head: z.object({ sequence: z.number().int(), hash: z.string() }),
    started_from: z
      .object({ sequence: z.number().int(), hash: z.string() })
      .nullable()
      .meta({ description: "the checkpoint the walk started at (since_checkpoint=true), or null for a full walk" }),
    verified_at: Timestamp,
  })
  .meta({ id: "ChainVerification" });
export type ChainVerification = z.infer<typeof ChainVerification>;
