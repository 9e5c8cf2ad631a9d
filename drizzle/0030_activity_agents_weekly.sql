CREATE TABLE "activity_agents_weekly" (
	"week" date NOT NULL,
	"agent_model" text NOT NULL,
	"agent_name" text NOT NULL,
	"org_id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency_ms_sum" bigint NOT NULL,
	"first_at" timestamp with time zone NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "activity_agents_weekly_pk" PRIMARY KEY("week","agent_model","agent_name","org_id","api_key_id")
);
--> statement-breakpoint
CREATE INDEX "activity_agents_weekly_org_id_week_idx" ON "activity_agents_weekly" USING btree ("org_id","week");