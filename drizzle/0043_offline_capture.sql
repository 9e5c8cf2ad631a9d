ALTER TABLE "proof_files" ADD COLUMN "device_captured_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_visits" ADD COLUMN "check_in_received_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_visits" ADD COLUMN "check_in_offline" boolean DEFAULT false NOT NULL;