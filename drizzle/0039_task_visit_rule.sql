ALTER TABLE "tasks" ADD COLUMN "visit_rule" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "no_visit_reason" text;