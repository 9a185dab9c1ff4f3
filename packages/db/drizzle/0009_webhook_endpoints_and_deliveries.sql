CREATE TABLE "webhook_deliveries" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"webhook_endpoint_id" text,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"delivered_at" timestamp (3) with time zone,
	"first_attempt_at" timestamp (3) with time zone,
	"lease_expires_at" timestamp (3) with time zone,
	CONSTRAINT "webhook_deliveries_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"url" text NOT NULL,
	"enabled_events" text[] NOT NULL,
	"status" text NOT NULL,
	"signing_secret_box" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "webhook_endpoints_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "webhook_fallback_secret_box" text;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" USING btree ("organization_id","environment","webhook_endpoint_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_leases_idx" ON "webhook_deliveries" USING btree ("lease_expires_at") WHERE status = 'delivering';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_queued_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "webhook_endpoints_list_idx" ON "webhook_endpoints" USING btree ("organization_id","environment","id");