CREATE TABLE "network_attributions" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"wallet_address" text NOT NULL,
	"signal_type" text NOT NULL,
	"source" text NOT NULL,
	"legal_process_id" text,
	"observed_at" timestamp (3) with time zone NOT NULL,
	"raw_value_redacted" text NOT NULL,
	"privacy_restrictions" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "network_attributions_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "network_attributions_matter_idx" ON "network_attributions" USING btree ("organization_id","environment","matter_id","id");