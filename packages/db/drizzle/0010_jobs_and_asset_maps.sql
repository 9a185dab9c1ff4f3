CREATE TABLE "asset_maps" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"matter_id" text NOT NULL,
	"job_id" text NOT NULL,
	"status" text NOT NULL,
	"chain" text NOT NULL,
	"request" jsonb NOT NULL,
	"result" jsonb,
	"exposure_usd_cents" bigint,
	"review_status" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "asset_maps_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "asset_maps_job_uq" UNIQUE("organization_id","environment","job_id")
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"input" jsonb NOT NULL,
	"result" jsonb,
	"error" jsonb,
	"matter_id" text,
	"attempts" integer NOT NULL,
	"max_attempts" integer NOT NULL,
	"lease_expires_at" timestamp (3) with time zone,
	"run_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "jobs_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE INDEX "asset_maps_matter_idx" ON "asset_maps" USING btree ("organization_id","environment","matter_id","id");--> statement-breakpoint
CREATE INDEX "jobs_list_idx" ON "jobs" USING btree ("organization_id","environment","id");--> statement-breakpoint
CREATE INDEX "jobs_status_idx" ON "jobs" USING btree ("organization_id","environment","status","id");--> statement-breakpoint
CREATE INDEX "jobs_leases_idx" ON "jobs" USING btree ("lease_expires_at") WHERE status = 'running';