import { decimalPlaces, ENVIRONMENTS, FIAT_DECIMALS, isCalendarDate } from "@crs/core";
import { z } from "zod";

/** Free text of at most `max` characters. */
export const Text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/** Text that must say something: trimmed, then at least one character. */
export const NonBlankText = (max: number) => Text(max).trim().min(1, "must not be blank");

/** A YYYY-MM-DD date that exists on the calendar (2024-02-30 does not). */
export const CalendarDate = z
  .string()
  .refine(isCalendarDate, "must be a real calendar date written YYYY-MM-DD")
  .meta({ format: "date", description: "YYYY-MM-DD, a real calendar date" });

export const Currency = z.string().regex(/^[A-Z]{3}$/, "must be a three-letter ISO 4217 code such as USD");

/** Any JSON object the service keeps as sent. */
export const JsonObject = z.record(z.string(), z.unknown());

export const Timestamp = z.string().meta({ format: "date-time", description: "ISO 8601 UTC with milliseconds" });

/**
 * A date-time a client sends: ISO 8601 with `Z` or an offset, in year 0001 or later (PostgreSQL has no
 * year 0, so `0000-…` would otherwise fail at the database instead of naming the field).
 */
export const DateTimeInput = z.iso
  .datetime({ offset: true, error: "must be an ISO 8601 date-time such as 2026-07-01T17:00:00Z" })
  .refine((value) => !value.startsWith("0000"), "must be in year 0001 or later")
  .meta({ format: "date-time" });
export const Environment = z.enum(ENVIRONMENTS);

/** A percentage 0..100 with at most two decimals, so it converts exactly to basis points. */
export const Percentage = z
  .number()
  .min(0, "must be between 0 and 100")
  .max(100, "must be between 0 and 100")
  .refine((n) => decimalPlaces(n) <= 2, "must have at most 2 decimal places");

export const FiatAmountValue = z
  .number()
  .min(0, "must not be negative")
  .refine((n) => decimalPlaces(n) <= FIAT_DECIMALS, `must have at most ${FIAT_DECIMALS} decimal places`);

export const Amount = z
  .object({ amount: z.number(), currency: z.string(), valuation_time: Timestamp })
  .meta({ id: "Amount" });

export const Audit = z
  .object({
    request_id: z.string(),
    actor_id: z.string(),
    organization_id: z.string(),
    matter_id: z.string().nullable(),
    timestamp: Timestamp,
  })
  .meta({ id: "Audit" });

/** An object id as a filter or cursor: `<prefix>_<26 base32 chars>`; anything else is a 400. */
export const ObjectIdParam = z.string().regex(/^[a-z]+_[0-9a-z]{26}$/, "must be an object id");
const cursor = ObjectIdParam;

export const ListQuery = z.object({
  // Digits only: `0x10` or `1e1` are not page sizes, though Number() would read them as such.
  limit: z
    .preprocess(
      (value) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value),
      z
        .number({ error: "must be an integer between 1 and 100" })
        .int("must be an integer between 1 and 100")
        .min(1, "must be an integer between 1 and 100")
        .max(100, "must be an integer between 1 and 100"),
    )
    .default(20),
  starting_after: cursor.optional(),
  ending_before: cursor.optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

export function listOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean(), url: z.string() })
    .meta({ id });
}

/**
 * A piece of evidence a record cites (packets, trace requests): one shape wherever a client sends it.
 * Only `source_id` is required; the rest may be omitted or null.
 */
export const SourceRefInput = z
  .object({
    source_id: NonBlankText(200),
    source_type: Text(100).nullable().optional(),
    title: Text(500).nullable().optional(),
    uri: Text(2048).nullable().optional(),
    hash: Text(200).nullable().optional(),
    chain_of_custody_id: Text(200).nullable().optional(),
    admissibility_notes: Text(10_000).nullable().optional(),
  })
  .meta({ id: "SourceRefInput" });
