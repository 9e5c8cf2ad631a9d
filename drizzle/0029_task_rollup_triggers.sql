-- Daily roll-ups of the non-sandbox tasks kept by triggers (issue 32 item 4; docs/decisions.md 23;
-- tables in lib/db/schema/task-rollups.ts). Statement-level triggers with transition tables on
-- `tasks` (each INSERT adds its rows, each DELETE subtracts them, each UPDATE does both) and on the
-- `charge` rows of `ledger_entries` (a charge turns its task's revenue from its price into the
-- charge), in the transaction of the statement, so the roll-ups equal a recount of `tasks` joined
-- with its charge whatever wrote them. Days are calendar days in America/Toronto
-- (OPERATOR_TIMEZONE, lib/billing/dates.ts).

-- One task's place in the roll-ups: its days, dimensions and revenue (CAD).
CREATE TYPE task_rollup_change AS (
  paid_day date,
  created_day date,
  service_type text,
  status text,
  org_id text,
  api_key_id text,
  requester_contact text,
  revenue numeric
);
--> statement-breakpoint
-- The roll-up place of task `t` whose `charge` ledger row has `charge_cad` (negative CAD, null when
-- it has none). Revenue: the charge, or else the price, or 0, less the refund once refunded (the
-- rule of lib/analytics/analytics.ts).
CREATE FUNCTION task_rollup_change_of(t tasks, charge_cad numeric) RETURNS task_rollup_change
LANGUAGE sql STABLE AS $$
  SELECT ROW(
    (t.paid_at AT TIME ZONE 'America/Toronto')::date,
    (t.created_at AT TIME ZONE 'America/Toronto')::date,
    t.service_type,
    t.status,
    coalesce(t.org_id, ''),
    coalesce(t.api_key_id, ''),
    CASE WHEN t.api_key_id IS NULL THEN t.requester_contact ELSE '' END,
    coalesce(-charge_cad, t.price_cad, 0)
      - CASE WHEN t.refund_status = 'refunded' THEN coalesce(t.refund_amount_cad, 0) ELSE 0 END
  )::task_rollup_change
$$;
--> statement-breakpoint
-- Adds the tasks of `added` to the roll-ups and subtracts those of `removed`. Rows are upserted in
-- key order (concurrent writers lock shared roll-up rows in one order), and a row whose count
-- reaches 0 is deleted.
CREATE FUNCTION task_rollup_apply(added task_rollup_change[], removed task_rollup_change[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(added), 0) + coalesce(cardinality(removed), 0) = 0 THEN
    RETURN;
  END IF;

  INSERT INTO tasks_paid_daily AS d (day, service_type, status, tasks, revenue_cad)
  SELECT c.paid_day, c.service_type, c.status, sum(c.n)::int, sum(c.n * c.revenue)
  FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
  WHERE c.paid_day IS NOT NULL
  GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0 OR sum(c.n * c.revenue) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (day, service_type, status) DO UPDATE
    SET tasks = d.tasks + excluded.tasks, revenue_cad = d.revenue_cad + excluded.revenue_cad;
  DELETE FROM tasks_paid_daily d
  USING (SELECT DISTINCT c.paid_day, c.service_type, c.status
         FROM (SELECT * FROM unnest(added) UNION ALL SELECT * FROM unnest(removed)) c
         WHERE c.paid_day IS NOT NULL) k
  WHERE d.tasks = 0 AND d.day = k.paid_day AND d.service_type = k.service_type AND d.status = k.status;

  INSERT INTO tasks_paid_clients_daily AS d (day, api_key_id, requester_contact, tasks, revenue_cad)
  SELECT c.paid_day, c.api_key_id, c.requester_contact, sum(c.n)::int, sum(c.n * c.revenue)
  FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
  WHERE c.paid_day IS NOT NULL
  GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0 OR sum(c.n * c.revenue) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (day, api_key_id, requester_contact) DO UPDATE
    SET tasks = d.tasks + excluded.tasks, revenue_cad = d.revenue_cad + excluded.revenue_cad;
  DELETE FROM tasks_paid_clients_daily d
  USING (SELECT DISTINCT c.paid_day, c.api_key_id, c.requester_contact
         FROM (SELECT * FROM unnest(added) UNION ALL SELECT * FROM unnest(removed)) c
         WHERE c.paid_day IS NOT NULL) k
  WHERE d.tasks = 0 AND d.day = k.paid_day AND d.api_key_id = k.api_key_id
    AND d.requester_contact = k.requester_contact;

  INSERT INTO tasks_paid_clients_weekly AS d (week, api_key_id, requester_contact, tasks, revenue_cad)
  SELECT date_trunc('week', c.paid_day)::date, c.api_key_id, c.requester_contact, sum(c.n)::int, sum(c.n * c.revenue)
  FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
  WHERE c.paid_day IS NOT NULL
  GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0 OR sum(c.n * c.revenue) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (week, api_key_id, requester_contact) DO UPDATE
    SET tasks = d.tasks + excluded.tasks, revenue_cad = d.revenue_cad + excluded.revenue_cad;
  DELETE FROM tasks_paid_clients_weekly d
  USING (SELECT DISTINCT date_trunc('week', c.paid_day)::date AS week, c.api_key_id, c.requester_contact
         FROM (SELECT * FROM unnest(added) UNION ALL SELECT * FROM unnest(removed)) c
         WHERE c.paid_day IS NOT NULL) k
  WHERE d.tasks = 0 AND d.week = k.week AND d.api_key_id = k.api_key_id
    AND d.requester_contact = k.requester_contact;

  INSERT INTO tasks_created_daily AS d (day, status, tasks)
  SELECT c.created_day, c.status, sum(c.n)::int
  FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
  GROUP BY 1, 2 HAVING sum(c.n) <> 0
  ORDER BY 1, 2
  ON CONFLICT (day, status) DO UPDATE SET tasks = d.tasks + excluded.tasks;
  DELETE FROM tasks_created_daily d
  USING (SELECT DISTINCT c.created_day, c.status
         FROM (SELECT * FROM unnest(added) UNION ALL SELECT * FROM unnest(removed)) c) k
  WHERE d.tasks = 0 AND d.day = k.created_day AND d.status = k.status;

  INSERT INTO tasks_org_daily AS d (org_id, day, status, tasks, paid_revenue_cad)
  SELECT c.org_id, c.created_day, c.status, sum(c.n)::int,
         coalesce(sum(c.n * c.revenue) FILTER (WHERE c.paid_day IS NOT NULL), 0)
  FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
  WHERE c.org_id <> ''
  GROUP BY 1, 2, 3
  HAVING sum(c.n) <> 0 OR coalesce(sum(c.n * c.revenue) FILTER (WHERE c.paid_day IS NOT NULL), 0) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (org_id, day, status) DO UPDATE
    SET tasks = d.tasks + excluded.tasks, paid_revenue_cad = d.paid_revenue_cad + excluded.paid_revenue_cad;
  DELETE FROM tasks_org_daily d
  USING (SELECT DISTINCT c.org_id, c.created_day, c.status
         FROM (SELECT * FROM unnest(added) UNION ALL SELECT * FROM unnest(removed)) c
         WHERE c.org_id <> '') k
  WHERE d.tasks = 0 AND d.org_id = k.org_id AND d.day = k.created_day AND d.status = k.status;
END
$$;
--> statement-breakpoint
-- The trigger on `tasks`: new rows added, old rows removed, each with its current charge. An
-- UPDATE that changed nothing the roll-ups count (most: deadlines, proof, timestamps) writes nothing.
CREATE FUNCTION task_rollup_on_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added task_rollup_change[];
  removed task_rollup_change[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT array_agg(task_rollup_change_of(n, l.amount_cad) ORDER BY n.id) INTO added
    FROM new_rows n LEFT JOIN ledger_entries l ON l.task_id = n.id AND l.kind = 'charge'
    WHERE NOT n.sandbox;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT array_agg(task_rollup_change_of(o, l.amount_cad) ORDER BY o.id) INTO removed
    FROM old_rows o LEFT JOIN ledger_entries l ON l.task_id = o.id AND l.kind = 'charge'
    WHERE NOT o.sandbox;
  END IF;
  IF added IS NOT DISTINCT FROM removed THEN
    RETURN NULL;
  END IF;
  PERFORM task_rollup_apply(added, removed);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- The trigger on `ledger_entries`: a charge row added counts its task with the charge instead of
-- without it; a charge row removed, the other way round (an UPDATE does both).
CREATE FUNCTION task_rollup_on_charges() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added task_rollup_change[];
  removed task_rollup_change[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT array_agg(task_rollup_change_of(t, n.amount_cad)), array_agg(task_rollup_change_of(t, NULL))
    INTO added, removed
    FROM new_rows n JOIN tasks t ON t.id = n.task_id
    WHERE n.kind = 'charge' AND NOT t.sandbox;
    PERFORM task_rollup_apply(added, removed);
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT array_agg(task_rollup_change_of(t, NULL)), array_agg(task_rollup_change_of(t, o.amount_cad))
    INTO added, removed
    FROM old_rows o JOIN tasks t ON t.id = o.task_id
    WHERE o.kind = 'charge' AND NOT t.sandbox;
    PERFORM task_rollup_apply(added, removed);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_rollup_insert AFTER INSERT ON tasks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_rollup_on_tasks();
--> statement-breakpoint
CREATE TRIGGER tasks_rollup_update AFTER UPDATE ON tasks
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_rollup_on_tasks();
--> statement-breakpoint
CREATE TRIGGER tasks_rollup_delete AFTER DELETE ON tasks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_rollup_on_tasks();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_task_rollup_insert AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_rollup_on_charges();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_task_rollup_update AFTER UPDATE ON ledger_entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_rollup_on_charges();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_task_rollup_delete AFTER DELETE ON ledger_entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_rollup_on_charges();
--> statement-breakpoint
-- Backfill: the tasks already there (the triggers' lock on `tasks` holds writers back until the
-- migration commits, so no task is counted twice or missed).
SELECT task_rollup_apply(
  (SELECT array_agg(task_rollup_change_of(t, l.amount_cad))
   FROM tasks t LEFT JOIN ledger_entries l ON l.task_id = t.id AND l.kind = 'charge'
   WHERE NOT t.sandbox),
  NULL);
