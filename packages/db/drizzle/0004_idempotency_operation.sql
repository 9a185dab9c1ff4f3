-- Records stored before this migration named an HTTP route; they keep it (prefixed), so a retry of
-- such a key within its 24 hours is a 409 conflict rather than a second write.
ALTER TABLE "idempotency_records" ADD COLUMN "operation" text;--> statement-breakpoint
UPDATE "idempotency_records" SET "operation" = 'route:' || "route";--> statement-breakpoint
ALTER TABLE "idempotency_records" ALTER COLUMN "operation" SET NOT NULL;
