import { decimalPlaces, FIAT_DECIMALS } from "@crs/core";
import { z } from "zod";

export const Timestamp = z.string().meta({ format: "date-time", description: "ISO 8601 UTC with milliseconds" });
export const Environment = z.enum(["sandbox", "live"]);

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
