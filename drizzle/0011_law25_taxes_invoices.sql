CREATE TABLE "invoice_sequences" (
	"year" integer PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "erasure_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"processed_at" timestamp with time zone,
	"processed_by" text,
	"early_reason" text
);
--> statement-breakpoint
CREATE TABLE "privacy_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"action" text NOT NULL,
	"account_id" text,
	"actor" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "privacy_incidents" (
	"id" text PRIMARY KEY NOT NULL,
	"occurred_at" timestamp with time zone,
	"discovered_at" timestamp with time zone NOT NULL,
	"description" text NOT NULL,
	"information_concerned" text NOT NULL,
	"persons_concerned" integer,
	"risk_of_serious_injury" boolean NOT NULL,
	"measures" text,
	"commission_notified_at" timestamp with time zone,
	"persons_notified_at" timestamp with time zone,
	"recorded_by_key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "number" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "subtotal_cad" numeric(12, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "gst_cad" numeric(12, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "qst_cad" numeric(12, 2);--> statement-breakpoint
ALTER TABLE "erasure_requests" ADD CONSTRAINT "erasure_requests_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_incidents" ADD CONSTRAINT "privacy_incidents_recorded_by_key_id_api_keys_id_fk" FOREIGN KEY ("recorded_by_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "erasure_requests_status_due_at_idx" ON "erasure_requests" USING btree ("status","due_at");--> statement-breakpoint
CREATE INDEX "erasure_requests_account_id_idx" ON "erasure_requests" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "privacy_audit_account_id_at_idx" ON "privacy_audit" USING btree ("account_id","at");--> statement-breakpoint
CREATE INDEX "privacy_incidents_discovered_at_idx" ON "privacy_incidents" USING btree ("discovered_at");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_uq" ON "invoices" USING btree ("number");