CREATE TABLE "evergreen_channel_states" (
	"queue_id" uuid NOT NULL,
	"integration_id" uuid NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"paused_at" timestamp with time zone,
	"paused_reason" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evergreen_channel_states_queue_id_integration_id_pk" PRIMARY KEY("queue_id","integration_id")
);
--> statement-breakpoint
CREATE TABLE "evergreen_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"queue_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"content" text NOT NULL,
	"variations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"media" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "evergreen_queues" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"integration_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"order" text DEFAULT 'sequence' NOT NULL,
	"min_gap_days" integer DEFAULT 30 NOT NULL,
	"horizon_days" integer DEFAULT 7 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "evergreen_uses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"queue_id" uuid NOT NULL,
	"item_id" uuid NOT NULL,
	"variation" integer DEFAULT 0 NOT NULL,
	"integration_id" uuid NOT NULL,
	"post_id" uuid,
	"slot_at" timestamp with time zone NOT NULL,
	"outcome" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evergreen_uses_slot_uq" UNIQUE("integration_id","slot_at")
);
--> statement-breakpoint
ALTER TABLE "evergreen_channel_states" ADD CONSTRAINT "evergreen_channel_states_queue_id_evergreen_queues_id_fk" FOREIGN KEY ("queue_id") REFERENCES "public"."evergreen_queues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evergreen_channel_states" ADD CONSTRAINT "evergreen_channel_states_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evergreen_items" ADD CONSTRAINT "evergreen_items_queue_id_evergreen_queues_id_fk" FOREIGN KEY ("queue_id") REFERENCES "public"."evergreen_queues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evergreen_queues" ADD CONSTRAINT "evergreen_queues_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evergreen_uses" ADD CONSTRAINT "evergreen_uses_queue_id_evergreen_queues_id_fk" FOREIGN KEY ("queue_id") REFERENCES "public"."evergreen_queues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evergreen_uses" ADD CONSTRAINT "evergreen_uses_item_id_evergreen_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."evergreen_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evergreen_uses" ADD CONSTRAINT "evergreen_uses_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evergreen_uses" ADD CONSTRAINT "evergreen_uses_post_id_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evergreen_items_queue_idx" ON "evergreen_items" USING btree ("queue_id","position");--> statement-breakpoint
CREATE INDEX "evergreen_queues_org_idx" ON "evergreen_queues" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "evergreen_uses_item_idx" ON "evergreen_uses" USING btree ("item_id","integration_id","slot_at");--> statement-breakpoint
CREATE INDEX "evergreen_uses_queue_idx" ON "evergreen_uses" USING btree ("queue_id","integration_id","slot_at");