ALTER TABLE "sanctions_hits" ALTER COLUMN "party_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sanctions_hits" ADD COLUMN "screen_id" text;--> statement-breakpoint
ALTER TABLE "sanctions_hits" ADD COLUMN "subject" text;--> statement-breakpoint
CREATE UNIQUE INDEX "sanctions_hits_screen_fingerprint_key" ON "sanctions_hits" USING btree ("organization_id","environment","matter_id","fingerprint") WHERE party_id IS NULL;--> statement-breakpoint
CREATE INDEX "sanctions_hits_screen_idx" ON "sanctions_hits" USING btree ("organization_id","environment","screen_id");