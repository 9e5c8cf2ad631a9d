CREATE TABLE "policy_counters" (
	"day" date NOT NULL,
	"version" text NOT NULL,
	"reason_code" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "policy_counters_day_version_reason_code_pk" PRIMARY KEY("day","version","reason_code")
);
--> statement-breakpoint
ALTER TABLE "proof_files" ADD COLUMN "position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "proof_files" ADD COLUMN "capture" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "policy" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "receipt" text;