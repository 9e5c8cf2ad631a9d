CREATE TABLE "task_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"dispute_id" text,
	"amount_cad" numeric(12, 2),
	"usdc_micro" bigint,
	"outcome" text,
	"settlement_id" text,
	"tx_hash" text,
	"invoice_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_refunds_amount_not_negative" CHECK (amount_cad is null or amount_cad >= 0)
);
--> statement-breakpoint
ALTER TABLE "task_refunds" ADD CONSTRAINT "task_refunds_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_refunds_task_id_idx" ON "task_refunds" USING btree ("task_id","created_at");--> statement-breakpoint
-- Backfill (issue 42): the refunds already given, owed and settled become entries, so every cap
-- counts them. Prepaid tasks: each ledger refund is a credit. Other tasks: each settlement recorded
-- in the audit log (`refund.settle`, append-only) is a settlement entry. Any task with a refund
-- still pending: one owed entry with the amount it shows.
INSERT INTO "task_refunds" ("id", "task_id", "kind", "source", "amount_cad", "invoice_id", "created_at")
SELECT 'rfd_bf' || replace(gen_random_uuid()::text, '-', ''), l."task_id", 'credit',
	CASE WHEN t."status" = 'cancelled' THEN 'cancellation'
		WHEN EXISTS (SELECT 1 FROM "sla_credits" s WHERE s."invoice_id" = l."invoice_id") THEN 'sla_credit'
		ELSE 'dispute' END,
	l."amount_cad", l."invoice_id", l."created_at"
FROM "ledger_entries" l JOIN "tasks" t ON t."id" = l."task_id"
WHERE l."kind" = 'refund';
--> statement-breakpoint
INSERT INTO "task_refunds" ("id", "task_id", "kind", "source", "amount_cad", "outcome", "tx_hash", "created_at")
SELECT 'rfd_bf' || replace(gen_random_uuid()::text, '-', ''), a."task_id", 'settlement', 'settlement',
	CASE WHEN a."details"->>'outcome' = 'refunded' THEN coalesce((a."details"->>'amount_cad')::numeric, 0) ELSE 0 END,
	a."details"->>'outcome', a."details"->>'tx_hash', a."at"
FROM "audit_log" a JOIN "tasks" t ON t."id" = a."task_id"
WHERE a."action" = 'refund.settle' AND t."payment_method" IS DISTINCT FROM 'account'
	AND a."details"->>'outcome' IN ('refunded', 'denied');
--> statement-breakpoint
INSERT INTO "task_refunds" ("id", "task_id", "kind", "source", "amount_cad", "usdc_micro", "created_at")
SELECT 'rfd_bf' || replace(gen_random_uuid()::text, '-', ''), t."id", 'owed',
	CASE WHEN t."status" = 'cancelled' THEN 'cancellation'
		WHEN EXISTS (SELECT 1 FROM "sla_credits" s WHERE s."task_id" = t."id")
			AND NOT EXISTS (SELECT 1 FROM "task_disputes" d WHERE d."task_id" = t."id" AND d."refund_amount_cad" IS NOT NULL) THEN 'sla_credit'
		ELSE 'dispute' END,
	t."refund_amount_cad", t."refund_usdc_micro", t."updated_at"
FROM "tasks" t
WHERE t."refund_status" = 'pending';
