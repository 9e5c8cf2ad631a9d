CREATE TABLE "dispute_files" (
	"id" text PRIMARY KEY NOT NULL,
	"dispute_id" text NOT NULL,
	"filename" text NOT NULL,
	"mime_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sla_credits" (
	"task_id" text PRIMARY KEY NOT NULL,
	"days_late" integer NOT NULL,
	"percent" integer NOT NULL,
	"amount_cad" numeric(12, 2) NOT NULL,
	"usdc_micro" bigint,
	"invoice_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sla_credits_amount_positive" CHECK (amount_cad > 0)
);
--> statement-breakpoint
CREATE TABLE "task_disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"reason" text NOT NULL,
	"details" text NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolution" text,
	"resolution_reason" text,
	"refund_amount_cad" numeric(12, 2),
	"refund_usdc_micro" bigint,
	"follow_up_task_id" text,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "refund_usdc_micro" bigint;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "redo_of_task_id" text;--> statement-breakpoint
ALTER TABLE "dispute_files" ADD CONSTRAINT "dispute_files_dispute_id_task_disputes_id_fk" FOREIGN KEY ("dispute_id") REFERENCES "public"."task_disputes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_credits" ADD CONSTRAINT "sla_credits_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_disputes" ADD CONSTRAINT "task_disputes_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dispute_files_dispute_id_idx" ON "dispute_files" USING btree ("dispute_id");--> statement-breakpoint
CREATE UNIQUE INDEX "task_disputes_task_open_uq" ON "task_disputes" USING btree ("task_id") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "task_disputes_task_id_idx" ON "task_disputes" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "task_disputes_status_opened_at_idx" ON "task_disputes" USING btree ("status","opened_at");--> statement-breakpoint
CREATE INDEX "tasks_sla_credit_candidates_idx" ON "tasks" USING btree ("execution_deadline","id") WHERE not sandbox and paid_at is not null and status in ('completed', 'failed') and (completed_at is null or completed_at > execution_deadline);