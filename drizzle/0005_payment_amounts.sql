CREATE TABLE "payment_amounts" (
	"task_id" text PRIMARY KEY NOT NULL,
	"amount_micro" bigint NOT NULL,
	"assigned_at" timestamp with time zone NOT NULL,
	"released_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "payment_amounts" ADD CONSTRAINT "payment_amounts_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_amounts_held_uq" ON "payment_amounts" USING btree ("amount_micro") WHERE released_at is null;--> statement-breakpoint
CREATE INDEX "payment_amounts_amount_idx" ON "payment_amounts" USING btree ("amount_micro","assigned_at");