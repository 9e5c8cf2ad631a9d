CREATE TABLE "export_job_parts" (
	"job_id" text NOT NULL,
	"seq" integer NOT NULL,
	"content" text NOT NULL,
	CONSTRAINT "export_job_parts_job_id_seq_pk" PRIMARY KEY("job_id","seq")
);
--> statement-breakpoint
CREATE TABLE "export_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"format" text NOT NULL,
	"account_id" text,
	"requested_by" text NOT NULL,
	"notify_email" text NOT NULL,
	"lang" text DEFAULT 'en' NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"active_key" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"section" integer DEFAULT -1 NOT NULL,
	"after" jsonb,
	"section_rows" integer DEFAULT 0 NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"parts" integer DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"error" text,
	"audit_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "export_job_parts" ADD CONSTRAINT "export_job_parts_job_id_export_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."export_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "export_jobs_active_key_uq" ON "export_jobs" USING btree ("active_key") WHERE "export_jobs"."active_key" is not null;--> statement-breakpoint
CREATE INDEX "export_jobs_status_next_attempt_at_idx" ON "export_jobs" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "export_jobs_account_id_idx" ON "export_jobs" USING btree ("account_id");