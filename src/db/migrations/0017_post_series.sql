CREATE TABLE "post_series" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"rule" jsonb NOT NULL,
	"template" jsonb NOT NULL,
	"type" text NOT NULL,
	"horizon_days" integer DEFAULT 30 NOT NULL,
	"materialized_through" timestamp with time zone,
	"next_index" integer DEFAULT 0 NOT NULL,
	"completed_at" timestamp with time zone,
	"broken_reason" text,
	"broken_at" timestamp with time zone,
	"previous_series_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "post_series" ADD CONSTRAINT "post_series_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "post_series_org_idx" ON "post_series" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "post_series_extend_idx" ON "post_series" USING btree ("materialized_through");--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "series_id" uuid;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "series_index" integer;--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_series_id_post_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."post_series"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "posts_series_occurrence_idx" ON "posts" USING btree ("series_id","series_index","integration_id","position");
