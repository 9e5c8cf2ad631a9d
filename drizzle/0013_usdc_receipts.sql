ALTER TABLE "invoices" ALTER COLUMN "account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "payment_network" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "payment_tx_hash" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "usdc_micro" bigint;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "exchange_rate" numeric(18, 8);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "refers_to_invoice_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "receipt_invoice_id" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_refers_to_invoice_id_invoices_id_fk" FOREIGN KEY ("refers_to_invoice_id") REFERENCES "public"."invoices"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_usdc_receipt_task_uq" ON "invoices" USING btree ("task_id") WHERE kind = 'usdc_receipt';