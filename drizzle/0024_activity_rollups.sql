CREATE TABLE "activity_agents_daily" (
	"day" date NOT NULL,
	"agent_model" text NOT NULL,
	"agent_name" text NOT NULL,
	"org_id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency_ms_sum" bigint NOT NULL,
	"first_at" timestamp with time zone NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "activity_agents_daily_pk" PRIMARY KEY("day","agent_model","agent_name","org_id","api_key_id")
);
--> statement-breakpoint
CREATE TABLE "activity_endpoints_daily" (
	"day" date NOT NULL,
	"org_id" text NOT NULL,
	"method" text NOT NULL,
	"endpoint" text NOT NULL,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	CONSTRAINT "activity_endpoints_daily_pk" PRIMARY KEY("org_id","day","method","endpoint")
);
--> statement-breakpoint
CREATE INDEX "activity_agents_daily_org_id_day_idx" ON "activity_agents_daily" USING btree ("org_id","day");