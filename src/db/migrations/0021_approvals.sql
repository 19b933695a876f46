CREATE TABLE "approval_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"scope" text NOT NULL,
	"scope_id" uuid,
	"approver_roles" jsonb DEFAULT '["owner","admin"]'::jsonb NOT NULL,
	"approver_user_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reapprove_on_edit" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "preview_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"kind" text NOT NULL,
	"group" text,
	"from_date" timestamp with time zone,
	"to_date" timestamp with time zone,
	"customer_id" uuid,
	"title" text DEFAULT '' NOT NULL,
	"allow_approval" boolean DEFAULT false NOT NULL,
	"password_hash" text,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_by_name" text NOT NULL,
	"last_viewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "approval_exempt" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "approval" text;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "approval_rule_id" uuid;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "approval_requested_by" jsonb;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "approval_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "approval_decided_by" text;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "approval_decided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "approval_reported_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approval_rules" ADD CONSTRAINT "approval_rules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "approval_rules_scope_uq" ON "approval_rules" USING btree ("organization_id","scope",coalesce("scope_id", '00000000-0000-0000-0000-000000000000'::uuid));--> statement-breakpoint
CREATE UNIQUE INDEX "preview_links_token_uq" ON "preview_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "preview_links_org_idx" ON "preview_links" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "posts_approval_idx" ON "posts" USING btree ("organization_id","approval") WHERE "posts"."approval" in ('pending_approval', 'changes_requested') and "posts"."deleted_at" is null;