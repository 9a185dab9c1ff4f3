CREATE TABLE "artifacts" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"key" text NOT NULL,
	"content_type" text NOT NULL,
	"sha256" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "artifacts_organization_id_environment_key_pk" PRIMARY KEY("organization_id","environment","key")
);
--> statement-breakpoint
CREATE TABLE "packet_exports" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"packet_id" text NOT NULL,
	"matter_id" text NOT NULL,
	"format" text NOT NULL,
	"redaction_profile" text NOT NULL,
	"include_chain_of_custody" boolean NOT NULL,
	"packet_content_hash" text NOT NULL,
	"artifact_sha256" text NOT NULL,
	"artifact_bytes" integer NOT NULL,
	"content_type" text NOT NULL,
	"export_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"request_id" text NOT NULL,
	"actor_id" text NOT NULL,
	CONSTRAINT "packet_exports_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "packets" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"judgment_id" text,
	"recovery_event_ids" jsonb NOT NULL,
	"manifest" jsonb NOT NULL,
	"content_hash" text NOT NULL,
	"review_status" text NOT NULL,
	"review_owner" text NOT NULL,
	"review_notes" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "packets_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "recovery_events" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"event_type" text NOT NULL,
	"asset" text NOT NULL,
	"gross_amount" numeric(15, 2) NOT NULL,
	"currency" text NOT NULL,
	"network" text,
	"source" text,
	"description" text,
	"packet_id" text,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "recovery_events_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "remittance_events" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"destination" text,
	"asset" text NOT NULL,
	"amount" numeric(15, 2) NOT NULL,
	"currency" text NOT NULL,
	"waterfall_id" text,
	"source_recovery_event_id" text,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "remittance_events_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "waterfalls" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"gross_amount" numeric(15, 2) NOT NULL,
	"platform_economics" numeric(15, 2) NOT NULL,
	"currency" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"request_id" text NOT NULL,
	"actor_id" text NOT NULL,
	CONSTRAINT "waterfalls_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "packet_exports_packet_idx" ON "packet_exports" USING btree ("organization_id","environment","packet_id","id");--> statement-breakpoint
CREATE INDEX "packets_list_idx" ON "packets" USING btree ("organization_id","environment","id");--> statement-breakpoint
CREATE INDEX "packets_matter_idx" ON "packets" USING btree ("organization_id","environment","matter_id","id");--> statement-breakpoint
CREATE INDEX "recovery_events_matter_idx" ON "recovery_events" USING btree ("organization_id","environment","matter_id","id");--> statement-breakpoint
CREATE INDEX "remittance_events_matter_idx" ON "remittance_events" USING btree ("organization_id","environment","matter_id","id");--> statement-breakpoint
CREATE INDEX "waterfalls_matter_idx" ON "waterfalls" USING btree ("organization_id","environment","matter_id","id");