CREATE TABLE "enforcement_postures" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"judgment_id" text NOT NULL,
	"matter_id" text NOT NULL,
	"strategy" text,
	"venues" jsonb NOT NULL,
	"priorities" jsonb NOT NULL,
	"notes" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "enforcement_postures_organization_id_judgment_id_pk" PRIMARY KEY("organization_id","judgment_id")
);
--> statement-breakpoint
CREATE TABLE "matter_authority_decisions" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "matter_authority_decisions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"matter_id" text NOT NULL,
	"decision" text NOT NULL,
	"notes" text,
	"decided_at" timestamp (3) with time zone NOT NULL,
	"request_id" text NOT NULL,
	"actor_id" text NOT NULL,
	CONSTRAINT "matter_authority_decisions_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "matter_authority_decisions_matter_idx" ON "matter_authority_decisions" USING btree ("organization_id","environment","matter_id","id");