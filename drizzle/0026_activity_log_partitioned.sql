-- The activity log partitioned by month of "at" (issue 32 item 6, docs/decisions.md 22): retention
-- drops a month whose whole range is past the cutoff (one DROP TABLE) instead of deleting its rows.
-- The table is rebuilt: renamed aside, recreated as PARTITION BY RANGE ("at") with the same columns,
-- defaults and index names (drizzle's snapshot names them), one partition per UTC month from the
-- oldest row's month (at most 10 years back) to 2 months ahead plus a DEFAULT partition for
-- anything else, the rows copied, the id sequence handed over, the old table dropped. The primary
-- key becomes ("id", "at") in the next migration (0027, generated): PostgreSQL requires the
-- partition key in it. Later months are created ahead by the privacy-retention job
-- (lib/privacy/activity-partitions.ts), which names them the same way: activity_log_YYYY_MM.
-- The roll-up triggers of 0025 leave with the old table; they are created again on the new one
-- after the copy (the copied rows are already counted in the roll-ups). Statement-level triggers
-- with transition tables on a partitioned table see the rows of every partition.
ALTER TABLE "activity_log" RENAME TO "activity_log_unpartitioned";
--> statement-breakpoint
ALTER TABLE "activity_log_unpartitioned" RENAME CONSTRAINT "activity_log_pkey" TO "activity_log_unpartitioned_pkey";
--> statement-breakpoint
ALTER INDEX "activity_log_at_idx" RENAME TO "activity_log_unpartitioned_at_idx";
--> statement-breakpoint
ALTER INDEX "activity_log_api_key_id_at_idx" RENAME TO "activity_log_unpartitioned_api_key_id_at_idx";
--> statement-breakpoint
ALTER INDEX "activity_log_org_id_at_idx" RENAME TO "activity_log_unpartitioned_org_id_at_idx";
--> statement-breakpoint
CREATE TABLE "activity_log" (
	"id" bigint DEFAULT nextval('activity_log_id_seq'::regclass) NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"request_id" text,
	"api_key_id" text,
	"ip" text,
	"method" text NOT NULL,
	"endpoint" text NOT NULL,
	"status" integer NOT NULL,
	"latency_ms" integer NOT NULL,
	"agent_model" text,
	"agent_name" text,
	"org_id" text,
	"identity_valid" boolean
) PARTITION BY RANGE ("at");
--> statement-breakpoint
ALTER SEQUENCE "activity_log_id_seq" OWNED BY "activity_log"."id";
--> statement-breakpoint
CREATE TABLE "activity_log_default" PARTITION OF "activity_log" DEFAULT;
--> statement-breakpoint
DO $$
DECLARE
	now_month timestamp := date_trunc('month', now() AT TIME ZONE 'UTC');
	month timestamp;
BEGIN
	SELECT greatest(
		coalesce(date_trunc('month', min("at") AT TIME ZONE 'UTC'), now_month),
		now_month - interval '120 months'
	) INTO month FROM "activity_log_unpartitioned";
	month := least(month, now_month);
	WHILE month <= now_month + interval '2 months' LOOP
		EXECUTE format(
			'CREATE TABLE %I PARTITION OF "activity_log" FOR VALUES FROM (%L) TO (%L)',
			'activity_log_' || to_char(month, 'YYYY_MM'),
			to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
			to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00'
		);
		month := month + interval '1 month';
	END LOOP;
END
$$;
--> statement-breakpoint
INSERT INTO "activity_log" ("id", "at", "request_id", "api_key_id", "ip", "method", "endpoint", "status", "latency_ms", "agent_model", "agent_name", "org_id", "identity_valid")
	SELECT "id", "at", "request_id", "api_key_id", "ip", "method", "endpoint", "status", "latency_ms", "agent_model", "agent_name", "org_id", "identity_valid"
	FROM "activity_log_unpartitioned";
--> statement-breakpoint
DROP TABLE "activity_log_unpartitioned";
--> statement-breakpoint
CREATE INDEX "activity_log_at_idx" ON "activity_log" USING btree ("at");
--> statement-breakpoint
CREATE INDEX "activity_log_api_key_id_at_idx" ON "activity_log" USING btree ("api_key_id","at");
--> statement-breakpoint
CREATE INDEX "activity_log_org_id_at_idx" ON "activity_log" USING btree ("org_id","at");
--> statement-breakpoint
CREATE TRIGGER activity_rollup_insert AFTER INSERT ON activity_log
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_rollup_apply();
--> statement-breakpoint
CREATE TRIGGER activity_rollup_update AFTER UPDATE ON activity_log
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_rollup_apply();
--> statement-breakpoint
CREATE TRIGGER activity_rollup_delete AFTER DELETE ON activity_log
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_rollup_apply();
