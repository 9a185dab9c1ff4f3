CREATE TABLE "deadlines" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"judgment_id" text NOT NULL,
	"matter_id" text NOT NULL,
	"key" text NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "deadlines_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "deadlines_judgment_key_key" UNIQUE("organization_id","environment","judgment_id","key")
);
--> statement-breakpoint
CREATE TABLE "judgment_validations" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "judgment_validations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"judgment_id" text NOT NULL,
	"matter_id" text NOT NULL,
	"ready" boolean NOT NULL,
	"review_required" boolean NOT NULL,
	"options" jsonb NOT NULL,
	"result" jsonb NOT NULL,
	"validated_at" timestamp (3) with time zone NOT NULL,
	"request_id" text NOT NULL,
	"actor_id" text NOT NULL,
	CONSTRAINT "judgment_validations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "judgments" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"court" text NOT NULL,
	"case_number" text NOT NULL,
	"jurisdiction" text NOT NULL,
	"creditor" text NOT NULL,
	"debtor" text NOT NULL,
	"amount" numeric(15, 2) NOT NULL,
	"currency" text NOT NULL,
	"amount_form" text NOT NULL,
	"valuation_time" timestamp (3) with time zone,
	"date_entered" date NOT NULL,
	"status" text NOT NULL,
	"appeal_stay_status" text NOT NULL,
	"bankruptcy_status" text NOT NULL,
	"renewal_deadline" date,
	"review_status" text NOT NULL,
	"review_owner" text NOT NULL,
	"review_notes" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "judgments_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "judgment_validations_judgment_idx" ON "judgment_validations" USING btree ("organization_id","environment","judgment_id","id");--> statement-breakpoint
CREATE INDEX "judgments_matter_idx" ON "judgments" USING btree ("organization_id","environment","matter_id","id");