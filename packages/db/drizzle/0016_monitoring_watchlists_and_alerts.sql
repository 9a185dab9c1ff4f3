CREATE TABLE "alerts" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"watchlist_id" text,
	"source_key" text NOT NULL,
	"type" text NOT NULL,
	"fact_key" text NOT NULL,
	"fact" jsonb NOT NULL,
	"severity" text NOT NULL,
	"status" text NOT NULL,
	"target" jsonb NOT NULL,
	"reason" text NOT NULL,
	"triage_notes" text,
	"triaged_at" timestamp (3) with time zone,
	"packet_id" text,
	"action_id" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "alerts_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "alerts_fact_key" UNIQUE("organization_id","environment","source_key","type","fact_key")
);
--> statement-breakpoint
CREATE TABLE "watchlist_addresses" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"watchlist_id" text NOT NULL,
	"address" text NOT NULL,
	"reason" text NOT NULL,
	"source_refs" jsonb NOT NULL,
	"swept_to_block" bigint,
	"added_at" timestamp (3) with time zone NOT NULL,
	"request_id" text NOT NULL,
	"actor_id" text NOT NULL,
	CONSTRAINT "watchlist_addresses_organization_id_environment_watchlist_id_address_pk" PRIMARY KEY("organization_id","environment","watchlist_id","address")
);
--> statement-breakpoint
CREATE TABLE "watchlists" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"name" text NOT NULL,
	"chain" text NOT NULL,
	"thresholds" jsonb NOT NULL,
	"status" text NOT NULL,
	"last_swept_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "watchlists_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "alerts_list_idx" ON "alerts" USING btree ("organization_id","environment","id");--> statement-breakpoint
CREATE INDEX "alerts_matter_idx" ON "alerts" USING btree ("organization_id","environment","matter_id","id");--> statement-breakpoint
CREATE INDEX "watchlists_list_idx" ON "watchlists" USING btree ("organization_id","environment","id");--> statement-breakpoint
CREATE INDEX "watchlists_matter_idx" ON "watchlists" USING btree ("organization_id","environment","matter_id","id");