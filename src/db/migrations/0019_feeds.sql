CREATE TABLE "feed_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"feed_id" uuid NOT NULL,
	"key" text NOT NULL,
	"title" text,
	"link" text,
	"published_at" timestamp with time zone,
	"first_seen_at" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"post_group" text,
	"posts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "feeds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"url" text NOT NULL,
	"title" text,
	"integration_ids" jsonb NOT NULL,
	"template" text NOT NULL,
	"mode" text NOT NULL,
	"poll_minutes" integer NOT NULL,
	"backfill" integer DEFAULT 0 NOT NULL,
	"etag" text,
	"last_modified" text,
	"next_poll_at" timestamp with time zone NOT NULL,
	"last_success_at" timestamp with time zone,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "feed_items" ADD CONSTRAINT "feed_items_feed_id_feeds_id_fk" FOREIGN KEY ("feed_id") REFERENCES "public"."feeds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feeds" ADD CONSTRAINT "feeds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "feed_items_feed_key_uq" ON "feed_items" USING btree ("feed_id","key");--> statement-breakpoint
CREATE INDEX "feed_items_feed_seen_idx" ON "feed_items" USING btree ("feed_id","first_seen_at");--> statement-breakpoint
CREATE INDEX "feeds_org_idx" ON "feeds" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "feeds_due_idx" ON "feeds" USING btree ("next_poll_at") WHERE "feeds"."deleted_at" IS NULL;