CREATE TABLE "media_unclaimed" (
	"storage_key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "media_storage_key_idx" ON "media" USING btree ("storage_key");