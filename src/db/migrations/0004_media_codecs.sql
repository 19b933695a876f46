ALTER TABLE "media" ALTER COLUMN "duration" SET DATA TYPE double precision;--> statement-breakpoint
ALTER TABLE "media" ADD COLUMN "codecs" text;