ALTER TABLE "tasks" ADD COLUMN "refund_settled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "refund_tx_hash" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "refund_note" text;