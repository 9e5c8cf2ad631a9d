CREATE TABLE "sla_credit_checks" (
	"task_id" text PRIMARY KEY NOT NULL,
	"outcome" text NOT NULL,
	"checked_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sla_credit_checks" ADD CONSTRAINT "sla_credit_checks_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;