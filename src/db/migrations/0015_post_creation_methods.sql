ALTER TYPE "public"."creation_method" ADD VALUE 'IMPORT';--> statement-breakpoint
ALTER TYPE "public"."creation_method" ADD VALUE 'FEED';--> statement-breakpoint
ALTER TYPE "public"."creation_method" ADD VALUE 'SERIES';--> statement-breakpoint
ALTER TYPE "public"."creation_method" ADD VALUE 'EVERGREEN';