ALTER TYPE "public"."media_type" ADD VALUE 'audio';--> statement-breakpoint
CREATE TABLE "video_credit_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"period" text NOT NULL,
	"credits" integer NOT NULL,
	"note" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"output" text NOT NULL,
	"params" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"progress" real DEFAULT 0 NOT NULL,
	"stage" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 2 NOT NULL,
	"credits" integer NOT NULL,
	"credit_period" text NOT NULL,
	"credit_state" text DEFAULT 'reserved' NOT NULL,
	"lease_owner" text,
	"boss_job_id" uuid,
	"checkpoint" jsonb,
	"media_id" uuid,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "video_jobs_status_ck" CHECK ("video_jobs"."status" in ('queued', 'running', 'succeeded', 'failed')),
	CONSTRAINT "video_jobs_credit_state_ck" CHECK ("video_jobs"."credit_state" in ('reserved', 'spent', 'refunded'))
);
--> statement-breakpoint
ALTER TABLE "video_credit_grants" ADD CONSTRAINT "video_credit_grants_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_jobs" ADD CONSTRAINT "video_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_jobs" ADD CONSTRAINT "video_jobs_media_id_media_id_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "video_credit_grants_org_period_idx" ON "video_credit_grants" USING btree ("organization_id","period");--> statement-breakpoint
CREATE INDEX "video_jobs_org_created_idx" ON "video_jobs" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "video_jobs_org_period_idx" ON "video_jobs" USING btree ("organization_id","credit_period");--> statement-breakpoint
CREATE INDEX "video_jobs_running_idx" ON "video_jobs" USING btree ("status") WHERE "video_jobs"."status" in ('queued', 'running');