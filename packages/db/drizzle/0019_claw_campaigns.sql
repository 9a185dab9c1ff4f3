CREATE TABLE "claw_campaigns" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"judgment_id" text NOT NULL,
	"mode" text NOT NULL,
	"pressure_level" integer NOT NULL,
	"pressure_reason" text,
	"counsel_approval_id" text,
	"target_set" jsonb NOT NULL,
	"focus" jsonb,
	"expansion" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "claw_campaigns_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "claw_campaigns_pressure_level_check" CHECK ("claw_campaigns"."pressure_level" BETWEEN 0 AND 6)
);
--> statement-breakpoint
ALTER TABLE "actions" ADD COLUMN "review_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "claw_campaigns_list_idx" ON "claw_campaigns" USING btree ("organization_id","environment","id");--> statement-breakpoint
CREATE INDEX "claw_campaigns_matter_idx" ON "claw_campaigns" USING btree ("organization_id","environment","matter_id","id");