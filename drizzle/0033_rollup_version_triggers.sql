-- The version of the closed part of the per-client task roll-ups (docs/decisions.md 25; table in
-- lib/db/schema/task-rollups.ts). The dashboard keeps the per-client sums of the ISO weeks that
-- ended at least two days ago in memory (lib/analytics/top-clients.ts) and reads only the weeks
-- after them. These triggers raise `tasks_paid_clients` whenever a statement changes a row of
-- tasks_paid_clients_daily or tasks_paid_clients_weekly in a week that ended before today
-- (America/Toronto): a refund, an erasure or a charge of an older task. Payments of the current
-- week (every ordinary write) do not touch the counter, so it is no hot row. A day of margin on
-- either side (readers cache weeks ended two days ago, writers bump from the day after a week
-- ends) covers a transaction open across midnight and clocks a few hours apart.
INSERT INTO rollup_versions (name, version) VALUES ('tasks_paid_clients', 0);
--> statement-breakpoint
CREATE FUNCTION tasks_paid_clients_closed_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  today date := (now() AT TIME ZONE 'America/Toronto')::date;
  closed boolean := false;
BEGIN
  IF TG_TABLE_NAME = 'tasks_paid_clients_weekly' THEN
    IF TG_OP <> 'DELETE' THEN
      SELECT EXISTS (SELECT 1 FROM new_rows r WHERE r.week + 7 <= today) INTO closed;
    END IF;
    IF NOT closed AND TG_OP <> 'INSERT' THEN
      SELECT EXISTS (SELECT 1 FROM old_rows r WHERE r.week + 7 <= today) INTO closed;
    END IF;
  ELSE
    IF TG_OP <> 'DELETE' THEN
      SELECT EXISTS (
        SELECT 1 FROM new_rows r WHERE date_trunc('week', r.day::timestamp)::date + 7 <= today) INTO closed;
    END IF;
    IF NOT closed AND TG_OP <> 'INSERT' THEN
      SELECT EXISTS (
        SELECT 1 FROM old_rows r WHERE date_trunc('week', r.day::timestamp)::date + 7 <= today) INTO closed;
    END IF;
  END IF;
  IF closed THEN
    UPDATE rollup_versions SET version = version + 1 WHERE name = 'tasks_paid_clients';
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_paid_clients_daily_bump_insert AFTER INSERT ON tasks_paid_clients_daily
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tasks_paid_clients_closed_bump();
--> statement-breakpoint
CREATE TRIGGER tasks_paid_clients_daily_bump_update AFTER UPDATE ON tasks_paid_clients_daily
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tasks_paid_clients_closed_bump();
--> statement-breakpoint
CREATE TRIGGER tasks_paid_clients_daily_bump_delete AFTER DELETE ON tasks_paid_clients_daily
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tasks_paid_clients_closed_bump();
--> statement-breakpoint
CREATE TRIGGER tasks_paid_clients_weekly_bump_insert AFTER INSERT ON tasks_paid_clients_weekly
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tasks_paid_clients_closed_bump();
--> statement-breakpoint
CREATE TRIGGER tasks_paid_clients_weekly_bump_update AFTER UPDATE ON tasks_paid_clients_weekly
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tasks_paid_clients_closed_bump();
--> statement-breakpoint
CREATE TRIGGER tasks_paid_clients_weekly_bump_delete AFTER DELETE ON tasks_paid_clients_weekly
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tasks_paid_clients_closed_bump();
