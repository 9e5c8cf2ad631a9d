CREATE TABLE "tasks_created_daily" (
	"day" date NOT NULL,
	"status" text NOT NULL,
	"tasks" integer NOT NULL,
	"compacted" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks_org_daily" (
	"org_id" text NOT NULL,
	"day" date NOT NULL,
	"status" text NOT NULL,
	"tasks" integer NOT NULL,
	"paid_revenue_cad" numeric(12, 2) NOT NULL,
	"compacted" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks_paid_clients_daily" (
	"day" date NOT NULL,
	"api_key_id" text NOT NULL,
	"requester_contact" text NOT NULL,
	"tasks" integer NOT NULL,
	"revenue_cad" numeric(12, 2) NOT NULL,
	CONSTRAINT "tasks_paid_clients_daily_pk" PRIMARY KEY("day","api_key_id","requester_contact")
);
--> statement-breakpoint
CREATE TABLE "tasks_paid_clients_weekly" (
	"week" date NOT NULL,
	"api_key_id" text NOT NULL,
	"requester_contact" text NOT NULL,
	"tasks" integer NOT NULL,
	"revenue_cad" numeric(12, 2) NOT NULL,
	CONSTRAINT "tasks_paid_clients_weekly_pk" PRIMARY KEY("week","api_key_id","requester_contact")
);
--> statement-breakpoint
CREATE TABLE "tasks_paid_daily" (
	"day" date NOT NULL,
	"service_type" text NOT NULL,
	"status" text NOT NULL,
	"tasks" integer NOT NULL,
	"revenue_cad" numeric(12, 2) NOT NULL,
	"compacted" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tasks_created_daily_day_idx" ON "tasks_created_daily" USING btree ("day","status");--> statement-breakpoint
CREATE INDEX "tasks_created_daily_appended_idx" ON "tasks_created_daily" USING btree ("day") WHERE not compacted;--> statement-breakpoint
CREATE INDEX "tasks_org_daily_org_id_day_idx" ON "tasks_org_daily" USING btree ("org_id","day","status");--> statement-breakpoint
CREATE INDEX "tasks_org_daily_appended_idx" ON "tasks_org_daily" USING btree ("day") WHERE not compacted;--> statement-breakpoint
CREATE INDEX "tasks_paid_daily_day_idx" ON "tasks_paid_daily" USING btree ("day","service_type","status");--> statement-breakpoint
CREATE INDEX "tasks_paid_daily_appended_idx" ON "tasks_paid_daily" USING btree ("day") WHERE not compacted;