DROP INDEX "ledger_entries_account_id_created_at_idx";--> statement-breakpoint
CREATE INDEX "chain_transfers_chain_id_block_number_idx" ON "chain_transfers" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE INDEX "emails_lower_to_address_created_at_idx" ON "emails" USING btree (lower("to_address"),"created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_created_id_amount_idx" ON "ledger_entries" USING btree ("account_id","created_at","id","amount_cad");--> statement-breakpoint
CREATE INDEX "tasks_active_status_created_at_idx" ON "tasks" USING btree ("status","created_at") WHERE not sandbox and status in ('received', 'accepted_pending_payment', 'counter_offered', 'paid', 'dispatched', 'on_site');--> statement-breakpoint
CREATE INDEX "tasks_list_created_at_id_idx" ON "tasks" USING btree ("created_at","id") WHERE not sandbox;--> statement-breakpoint
CREATE INDEX "tasks_list_updated_at_id_idx" ON "tasks" USING btree ("updated_at","id") WHERE not sandbox;--> statement-breakpoint
CREATE INDEX "tasks_list_review_deadline_id_idx" ON "tasks" USING btree ("review_deadline","id") WHERE not sandbox;