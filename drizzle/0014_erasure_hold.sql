ALTER TABLE "erasure_requests" ADD COLUMN "balance_to_refund_cad" numeric(12, 2);--> statement-breakpoint
ALTER TABLE "erasure_requests" ADD COLUMN "withdrawn_at" timestamp with time zone;