-- Rate-limit buckets are drawn on in leases (see packages/core/src/rate-limits.ts): the row keeps the leases
-- processes hold and a version for the compare-and-set of each draw. `admitted` was the answer of the old
-- one-statement draw and is no longer written.
ALTER TABLE "rate_limit_buckets" ADD COLUMN "leases" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_limit_buckets" ADD COLUMN "version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_limit_buckets" DROP COLUMN "admitted";
