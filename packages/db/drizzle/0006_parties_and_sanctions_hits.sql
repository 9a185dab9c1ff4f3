CREATE TABLE "parties" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"role" text NOT NULL,
	"name" text NOT NULL,
	"legal_name" text,
	"type" text,
	"aliases" jsonb NOT NULL,
	"identifiers" jsonb NOT NULL,
	"wallets" jsonb NOT NULL,
	"economics" jsonb NOT NULL,
	"contact" jsonb NOT NULL,
	"notes" text,
	"share" numeric(7, 6),
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "parties_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "sanctions_hits" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"party_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"matched_field" text NOT NULL,
	"matched_value" text NOT NULL,
	"matched_network" text,
	"matched_path" text,
	"entry_kind" text NOT NULL,
	"entry_value" text NOT NULL,
	"entry_network" text,
	"entry_program" text,
	"entry_source" text NOT NULL,
	"status" text NOT NULL,
	"cleared_at" timestamp (3) with time zone,
	"clear_notes" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "sanctions_hits_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "sanctions_hits_party_fingerprint_key" UNIQUE("organization_id","environment","party_id","fingerprint")
);
--> statement-breakpoint
ALTER TABLE "matters" ADD COLUMN "sanctions_hold" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "parties_list_idx" ON "parties" USING btree ("organization_id","environment","id");--> statement-breakpoint
CREATE INDEX "parties_matter_idx" ON "parties" USING btree ("organization_id","environment","matter_id","id");--> statement-breakpoint
CREATE INDEX "sanctions_hits_matter_idx" ON "sanctions_hits" USING btree ("organization_id","environment","matter_id","status");