CREATE TABLE "actions" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"campaign_id" text,
	"type" text NOT NULL,
	"title" text NOT NULL,
	"owner_id" text,
	"priority" text NOT NULL,
	"status" text NOT NULL,
	"due_at" timestamp (3) with time zone,
	"linked_packet_id" text,
	"assignment_notes" text,
	"completion_notes" text,
	"evidence_refs" jsonb NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "actions_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "actions_list_idx" ON "actions" USING btree ("organization_id","environment","id");--> statement-breakpoint
CREATE INDEX "actions_matter_idx" ON "actions" USING btree ("organization_id","environment","matter_id","id");