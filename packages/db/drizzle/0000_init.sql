CREATE TABLE "api_keys" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"environment" text NOT NULL,
	"kind" text NOT NULL,
	"scopes" text[] NOT NULL,
	"pinned_version" text,
	"revoked_at" timestamp (3) with time zone,
	"last_used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "api_keys_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "chain_heads" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"head_sequence" bigint NOT NULL,
	"head_hash" text NOT NULL,
	CONSTRAINT "chain_heads_organization_id_environment_pk" PRIMARY KEY("organization_id","environment")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"sequence" bigint NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"created" timestamp (3) with time zone NOT NULL,
	"livemode" boolean NOT NULL,
	"api_version" text NOT NULL,
	"data" jsonb NOT NULL,
	"audit_ref" text NOT NULL,
	"matter_id" text,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	"signature" text NOT NULL,
	CONSTRAINT "events_organization_id_environment_sequence_pk" PRIMARY KEY("organization_id","environment","sequence"),
	CONSTRAINT "events_organization_id_id_key" UNIQUE("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"key" text NOT NULL,
	"route" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer NOT NULL,
	"response_body" text NOT NULL,
	"response_request_id" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_records_organization_id_environment_key_pk" PRIMARY KEY("organization_id","environment","key")
);
--> statement-breakpoint
CREATE TABLE "matters" (
	"organization_id" text NOT NULL,
	"environment" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"mode" text NOT NULL,
	"lead_counsel" text,
	"economics" jsonb NOT NULL,
	"notes" text,
	"status" text NOT NULL,
	"retention_policy" text,
	"close_reason" text,
	"close_notes" text,
	"closed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_request_id" text NOT NULL,
	"last_actor_id" text NOT NULL,
	CONSTRAINT "matters_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"environment" text NOT NULL,
	"plan" text NOT NULL,
	"rate_per_second" double precision NOT NULL,
	"rate_burst" integer NOT NULL,
	"webhook_fallback_url" text,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_buckets" (
	"bucket" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"admitted" boolean NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "events_matter_idx" ON "events" USING btree ("organization_id","environment","matter_id","sequence");--> statement-breakpoint
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "matters_list_idx" ON "matters" USING btree ("organization_id","environment","id");