-- Two btree entries a row instead of four (lib/db/schema/activity-log.ts, docs/decisions.md 27):
-- the primary key becomes (at, id), which serves every read by time, so the index on `at` goes;
-- the per-key and per-organization indexes hold only the rows that name a key or an organization.
-- Every reader looks those up by one (`api_key_id = …`, `IN (…)`, `org_id = …`, which imply NOT
-- NULL), so the planner still uses them, and an anonymous request's row (the public reads, most of
-- the traffic) writes the primary key's entry alone. Built again on every partition, in this
-- migration's transaction, under the table's lock: activity rows queued meanwhile wait for it.
DROP INDEX "activity_log_at_idx";--> statement-breakpoint
DROP INDEX "activity_log_api_key_id_at_idx";--> statement-breakpoint
DROP INDEX "activity_log_org_id_at_idx";--> statement-breakpoint
ALTER TABLE "activity_log" DROP CONSTRAINT "activity_log_id_at_pk";--> statement-breakpoint
ALTER TABLE "activity_log" ADD CONSTRAINT "activity_log_at_id_pk" PRIMARY KEY("at","id");--> statement-breakpoint
CREATE INDEX "activity_log_api_key_id_at_idx" ON "activity_log" USING btree ("api_key_id","at") WHERE "activity_log"."api_key_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "activity_log_org_id_at_idx" ON "activity_log" USING btree ("org_id","at") WHERE "activity_log"."org_id" IS NOT NULL;