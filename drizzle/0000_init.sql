CREATE TABLE "activity_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"request_id" text,
	"api_key_id" text,
	"ip" text,
	"method" text NOT NULL,
	"endpoint" text NOT NULL,
	"status" integer NOT NULL,
	"latency_ms" integer NOT NULL,
	"agent_model" text,
	"agent_name" text,
	"org_id" text,
	"identity_valid" boolean
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"details" jsonb,
	"dedupe_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "alerts_dedupe_key_uq" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"contact" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_hint" text NOT NULL,
	"scopes" text[] DEFAULT '{audit_only,task_create}' NOT NULL,
	"created_by_key_id" text,
	"created_ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_uq" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "auth_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"purpose" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_cursors" (
	"network" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"last_scanned_block" bigint NOT NULL,
	"last_block_hash" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"chain_id" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_time" timestamp with time zone,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"token_address" text NOT NULL,
	"amount_micro" bigint NOT NULL,
	"task_id" text,
	"status" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_transfers_chain_tx_log_uq" UNIQUE("chain_id","tx_hash","log_index")
);
--> statement-breakpoint
CREATE TABLE "client_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"contact_name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"company_name" text,
	"phone" text,
	"address_line1" text,
	"address_line2" text,
	"city" text,
	"province" text DEFAULT 'QC' NOT NULL,
	"postal_code" text,
	"lang" text DEFAULT 'en' NOT NULL,
	"tos_accepted_at" timestamp with time zone,
	"status" text DEFAULT 'pending_deposit' NOT NULL,
	"discount_percent" numeric(5, 2) DEFAULT 0 NOT NULL,
	"email_verified_at" timestamp with time zone,
	"api_key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "client_accounts_org_id_uq" UNIQUE("org_id"),
	CONSTRAINT "client_accounts_email_uq" UNIQUE("email"),
	CONSTRAINT "client_accounts_email_lowercase" CHECK (email = lower(email)),
	CONSTRAINT "client_accounts_discount_range" CHECK (discount_percent between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"webhook_id" text,
	"kind" text NOT NULL,
	"url" text NOT NULL,
	"task_id" text,
	"event" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"attempted_at" timestamp with time zone[] DEFAULT '{}' NOT NULL,
	"last_http_status" integer,
	"last_error" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"dead_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"fallback_email_sent" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deliveries_event_kind_webhook_uq" UNIQUE NULLS NOT DISTINCT("event_id","kind","webhook_id")
);
--> statement-breakpoint
CREATE TABLE "emails" (
	"id" text PRIMARY KEY NOT NULL,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"text_body" text NOT NULL,
	"html_body" text,
	"template" text,
	"lang" text,
	"task_id" text,
	"account_id" text,
	"dedupe_key" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"provider" text,
	"provider_message_id" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "emails_dedupe_key_uq" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE TABLE "event_consumers" (
	"name" text PRIMARY KEY NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exchange_rates" (
	"id" serial PRIMARY KEY NOT NULL,
	"pair" text NOT NULL,
	"rate" numeric(18, 8) NOT NULL,
	"source" text NOT NULL,
	"as_of" timestamp with time zone NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"endpoint" text,
	"state" text DEFAULT 'in_progress' NOT NULL,
	"response_status" integer,
	"response_headers" jsonb,
	"response_body" text,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"task_id" text,
	"kind" text NOT NULL,
	"amount_cad" numeric(12, 2) NOT NULL,
	"lines" jsonb NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"job" text PRIMARY KEY NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_status" text,
	"last_error" text,
	"duration_ms" integer,
	"details" jsonb,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_cad" numeric(12, 2) NOT NULL,
	"task_id" text,
	"invoice_id" text,
	"description" text,
	"created_by_key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "preauthorizations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"api_key_id" text,
	"amount_cad" numeric(12, 2) NOT NULL,
	"valid_until" timestamp with time zone NOT NULL,
	"consumed_by_task_id" text,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "proof_files" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"filename" text NOT NULL,
	"mime_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_events" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"task_id" text,
	"type" text NOT NULL,
	"task_status" text,
	"api_key_id" text,
	"account_id" text,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_events_seq_uq" UNIQUE("seq")
);
--> statement-breakpoint
CREATE TABLE "task_scores" (
	"task_id" text PRIMARY KEY NOT NULL,
	"api_key_id" text,
	"rating" smallint NOT NULL,
	"outcome" text,
	"feedback" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_scores_rating_range" CHECK (rating between 1 and 5)
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"sandbox" boolean DEFAULT false NOT NULL,
	"service_type" text NOT NULL,
	"status" text DEFAULT 'received' NOT NULL,
	"location_address" text NOT NULL,
	"task_description" text NOT NULL,
	"requester_contact" text NOT NULL,
	"urgency" text DEFAULT 'standard' NOT NULL,
	"budget_limit" numeric(12, 2),
	"max_cost_cad" numeric(12, 2),
	"special_instructions" text,
	"preferred_output" text,
	"callback_url" text,
	"lang" text DEFAULT 'fr' NOT NULL,
	"api_key_id" text,
	"access_token_hash" text,
	"agent_identity" text,
	"org_id" text,
	"estimate_cad" numeric(12, 2),
	"estimate" jsonb,
	"location" jsonb,
	"needs_counter_offer" boolean DEFAULT false NOT NULL,
	"price_cad" numeric(12, 2),
	"counter_offer_amount" numeric(12, 2),
	"review_reason" text,
	"operator_notes" text,
	"failure_reason" text,
	"review_deadline" timestamp with time zone NOT NULL,
	"execution_deadline" timestamp with time zone NOT NULL,
	"reviewed_at" timestamp with time zone,
	"exchange_rate" numeric(18, 8),
	"rate_source" text,
	"rate_as_of" timestamp with time zone,
	"payment_usdc_micro" bigint,
	"payment_expires_at" timestamp with time zone,
	"payment_method" text,
	"account_id" text,
	"payment_network" text,
	"payment_tx_hash" text,
	"paid_at" timestamp with time zone,
	"dispatched_at" timestamp with time zone,
	"on_site_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"cancel_reason" text,
	"refund_status" text DEFAULT 'none' NOT NULL,
	"refund_amount_cad" numeric(12, 2),
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_payment_usdc_positive" CHECK (payment_usdc_micro is null or payment_usdc_micro > 0),
	CONSTRAINT "tasks_version_positive" CHECK (version >= 1)
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_key_id_api_keys_id_fk" FOREIGN KEY ("created_by_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auth_tokens" ADD CONSTRAINT "auth_tokens_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chain_transfers" ADD CONSTRAINT "chain_transfers_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_accounts" ADD CONSTRAINT "client_accounts_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_event_id_task_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."task_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_created_by_key_id_api_keys_id_fk" FOREIGN KEY ("created_by_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preauthorizations" ADD CONSTRAINT "preauthorizations_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preauthorizations" ADD CONSTRAINT "preauthorizations_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preauthorizations" ADD CONSTRAINT "preauthorizations_consumed_by_task_id_tasks_id_fk" FOREIGN KEY ("consumed_by_task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proof_files" ADD CONSTRAINT "proof_files_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_scores" ADD CONSTRAINT "task_scores_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_scores" ADD CONSTRAINT "task_scores_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_log_at_idx" ON "activity_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "activity_log_api_key_id_at_idx" ON "activity_log" USING btree ("api_key_id","at");--> statement-breakpoint
CREATE INDEX "activity_log_org_id_at_idx" ON "activity_log" USING btree ("org_id","at");--> statement-breakpoint
CREATE INDEX "alerts_kind_created_at_idx" ON "alerts" USING btree ("kind","created_at");--> statement-breakpoint
CREATE INDEX "api_keys_created_by_key_id_idx" ON "api_keys" USING btree ("created_by_key_id");--> statement-breakpoint
CREATE INDEX "api_keys_contact_idx" ON "api_keys" USING btree ("contact");--> statement-breakpoint
CREATE INDEX "auth_tokens_account_id_idx" ON "auth_tokens" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "chain_transfers_task_id_idx" ON "chain_transfers" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "chain_transfers_status_idx" ON "chain_transfers" USING btree ("status");--> statement-breakpoint
CREATE INDEX "client_accounts_api_key_id_idx" ON "client_accounts" USING btree ("api_key_id");--> statement-breakpoint
CREATE INDEX "deliveries_status_next_attempt_at_idx" ON "deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "deliveries_webhook_id_status_idx" ON "deliveries" USING btree ("webhook_id","status");--> statement-breakpoint
CREATE INDEX "deliveries_task_id_idx" ON "deliveries" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "deliveries_expires_at_idx" ON "deliveries" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "emails_status_created_at_idx" ON "emails" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "emails_task_id_idx" ON "emails" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "exchange_rates_pair_fetched_at_idx" ON "exchange_rates" USING btree ("pair","fetched_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "invoices_account_id_issued_at_idx" ON "invoices" USING btree ("account_id","issued_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_id_created_at_idx" ON "ledger_entries" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_task_id_idx" ON "ledger_entries" USING btree ("task_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_task_charge_uq" ON "ledger_entries" USING btree ("task_id") WHERE kind = 'charge';--> statement-breakpoint
CREATE INDEX "preauthorizations_account_id_valid_until_idx" ON "preauthorizations" USING btree ("account_id","valid_until");--> statement-breakpoint
CREATE INDEX "proof_files_task_id_idx" ON "proof_files" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "task_events_task_id_seq_idx" ON "task_events" USING btree ("task_id","seq");--> statement-breakpoint
CREATE INDEX "task_events_api_key_id_seq_idx" ON "task_events" USING btree ("api_key_id","seq");--> statement-breakpoint
CREATE INDEX "task_events_account_id_idx" ON "task_events" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "task_scores_created_at_idx" ON "task_scores" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "tasks_status_idx" ON "tasks" USING btree ("status");--> statement-breakpoint
CREATE INDEX "tasks_created_at_idx" ON "tasks" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "tasks_api_key_id_idx" ON "tasks" USING btree ("api_key_id");--> statement-breakpoint
CREATE INDEX "tasks_requester_contact_idx" ON "tasks" USING btree ("requester_contact");--> statement-breakpoint
CREATE INDEX "tasks_account_id_idx" ON "tasks" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "tasks_org_id_idx" ON "tasks" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_open_payment_usdc_uq" ON "tasks" USING btree ("payment_usdc_micro") WHERE status in ('accepted_pending_payment', 'counter_offered') and not sandbox;--> statement-breakpoint
CREATE INDEX "webhooks_api_key_id_active_idx" ON "webhooks" USING btree ("api_key_id") WHERE deleted_at is null;