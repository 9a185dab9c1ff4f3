-- The JSON size of each stored object a list returns whole: a job's result and an event's data. A list page
-- weighs its objects by these (without reading them) and stops short of its limit once they are large; the
-- writes record them from the JSON they send. Rows written before are measured here from their jsonb text,
-- which spaces its separators, so their sizes run a little above the JSON's.
ALTER TABLE "events" ADD COLUMN "data_bytes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "result_bytes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "jobs" SET "result_bytes" = octet_length("result"::text) WHERE "result" IS NOT NULL;--> statement-breakpoint
-- Events refuse UPDATE (0001): the guard is lifted for this one fill, in this migration's transaction, which
-- holds the table against every other writer until it commits. No hashed or signed field changes.
ALTER TABLE "events" DISABLE TRIGGER "events_append_only";--> statement-breakpoint
UPDATE "events" SET "data_bytes" = octet_length("data"::text);--> statement-breakpoint
ALTER TABLE "events" ENABLE TRIGGER "events_append_only";
