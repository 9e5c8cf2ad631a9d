-- The per-key and per-organization indexes of activity_log become partial (lib/db/schema/activity-log.ts,
-- docs/decisions.md 27): they hold only the rows that name a key or an organization. Every reader
-- looks rows up by one (`api_key_id = …`, `IN (…)`, `org_id = …`, which imply NOT NULL), so the
-- planner still uses them, and an anonymous request's row (most of the traffic: the public reads)
-- writes two index entries fewer. Built again on every partition, under the table's lock.
DROP INDEX "activity_log_api_key_id_at_idx";--> statement-breakpoint
DROP INDEX "activity_log_org_id_at_idx";--> statement-breakpoint
CREATE INDEX "activity_log_api_key_id_at_idx" ON "activity_log" USING btree ("api_key_id","at") WHERE "activity_log"."api_key_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "activity_log_org_id_at_idx" ON "activity_log" USING btree ("org_id","at") WHERE "activity_log"."org_id" IS NOT NULL;