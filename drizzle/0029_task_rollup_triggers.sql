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
-- Adds the tasks of `added` to the roll-ups and subtracts those of `removed`. The append-only
-- counters (tasks_paid_daily, tasks_created_daily, tasks_org_daily) get one signed row per key
-- changed, which no other writer waits for; the client roll-ups are upserted in key order
-- (concurrent writers lock shared rows in one order), and a client row whose count reaches 0 is
-- deleted, by its key. A roll-up no change touches is not written (a submission, unpaid, appends to
-- the created and organization counters only).
CREATE FUNCTION task_rollup_apply(added task_rollup_change[], removed task_rollup_change[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  changes task_rollup_change[] := coalesce(added, '{}') || coalesce(removed, '{}');
  any_paid boolean;
  any_org boolean;
  k record;
BEGIN
  IF cardinality(changes) = 0 THEN
    RETURN;
  END IF;
  SELECT bool_or(c.paid_day IS NOT NULL), bool_or(c.org_id <> '') INTO any_paid, any_org FROM unnest(changes) c;

  IF any_paid THEN
    INSERT INTO tasks_paid_daily (day, service_type, status, tasks, revenue_cad)
    SELECT c.paid_day, c.service_type, c.status, sum(c.n)::int, sum(c.n * c.revenue)
    FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
    WHERE c.paid_day IS NOT NULL
    GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0 OR sum(c.n * c.revenue) <> 0;

    FOR k IN
      INSERT INTO tasks_paid_clients_daily AS d (day, api_key_id, requester_contact, tasks, revenue_cad)
      SELECT c.paid_day, c.api_key_id, c.requester_contact, sum(c.n)::int, sum(c.n * c.revenue)
      FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
      WHERE c.paid_day IS NOT NULL
      GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0 OR sum(c.n * c.revenue) <> 0
      ORDER BY 1, 2, 3
      ON CONFLICT (day, api_key_id, requester_contact) DO UPDATE
        SET tasks = d.tasks + excluded.tasks, revenue_cad = d.revenue_cad + excluded.revenue_cad
      RETURNING d.day, d.api_key_id, d.requester_contact, d.tasks
    LOOP
      IF k.tasks = 0 THEN
        DELETE FROM tasks_paid_clients_daily
        WHERE day = k.day AND api_key_id = k.api_key_id AND requester_contact = k.requester_contact;
      END IF;
    END LOOP;

    FOR k IN
      INSERT INTO tasks_paid_clients_weekly AS d (week, api_key_id, requester_contact, tasks, revenue_cad)
      SELECT date_trunc('week', c.paid_day)::date, c.api_key_id, c.requester_contact, sum(c.n)::int, sum(c.n * c.revenue)
      FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
      WHERE c.paid_day IS NOT NULL
      GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0 OR sum(c.n * c.revenue) <> 0
      ORDER BY 1, 2, 3
      ON CONFLICT (week, api_key_id, requester_contact) DO UPDATE
        SET tasks = d.tasks + excluded.tasks, revenue_cad = d.revenue_cad + excluded.revenue_cad
      RETURNING d.week, d.api_key_id, d.requester_contact, d.tasks
    LOOP
      IF k.tasks = 0 THEN
        DELETE FROM tasks_paid_clients_weekly
        WHERE week = k.week AND api_key_id = k.api_key_id AND requester_contact = k.requester_contact;
      END IF;
    END LOOP;
  END IF;

  INSERT INTO tasks_created_daily (day, status, tasks)
  SELECT c.created_day, c.status, sum(c.n)::int
  FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
  GROUP BY 1, 2 HAVING sum(c.n) <> 0;

  IF any_org THEN
    INSERT INTO tasks_org_daily (org_id, day, status, tasks, paid_revenue_cad)
    SELECT c.org_id, c.created_day, c.status, sum(c.n)::int,
           coalesce(sum(c.n * c.revenue) FILTER (WHERE c.paid_day IS NOT NULL), 0)
    FROM (SELECT a.*, 1 AS n FROM unnest(added) a UNION ALL SELECT r.*, -1 FROM unnest(removed) r) c
    WHERE c.org_id <> ''
    GROUP BY 1, 2, 3
    HAVING sum(c.n) <> 0 OR coalesce(sum(c.n * c.revenue) FILTER (WHERE c.paid_day IS NOT NULL), 0) <> 0;
  END IF;
END
$$;
--> statement-breakpoint
-- Folds the rows of every key of the append-only counters that has appended rows into one row
-- (`compacted`), dropping keys that sum to 0; returns the rows appended that were folded. Each
-- table in one statement: rows appended meanwhile by other transactions are not in its snapshot and
-- stay for the next run, so the sums never change. Run by the housekeeping job (lib/analytics/task-rollups.ts).
CREATE FUNCTION task_rollup_compact() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  appended integer := 0;
  n integer;
BEGIN
  SELECT count(*) INTO n FROM tasks_paid_daily WHERE NOT compacted;
  appended := appended + n;
  WITH keys AS (SELECT DISTINCT day, service_type, status FROM tasks_paid_daily WHERE NOT compacted),
  moved AS (
    DELETE FROM tasks_paid_daily t USING keys k
    WHERE t.day = k.day AND t.service_type = k.service_type AND t.status = k.status
    RETURNING t.day, t.service_type, t.status, t.tasks, t.revenue_cad)
  INSERT INTO tasks_paid_daily (day, service_type, status, tasks, revenue_cad, compacted)
  SELECT day, service_type, status, sum(tasks)::int, sum(revenue_cad), true FROM moved
  GROUP BY 1, 2, 3 HAVING sum(tasks) <> 0 OR sum(revenue_cad) <> 0;

  SELECT count(*) INTO n FROM tasks_created_daily WHERE NOT compacted;
  appended := appended + n;
  WITH keys AS (SELECT DISTINCT day, status FROM tasks_created_daily WHERE NOT compacted),
  moved AS (
    DELETE FROM tasks_created_daily t USING keys k
    WHERE t.day = k.day AND t.status = k.status
    RETURNING t.day, t.status, t.tasks)
  INSERT INTO tasks_created_daily (day, status, tasks, compacted)
  SELECT day, status, sum(tasks)::int, true FROM moved
  GROUP BY 1, 2 HAVING sum(tasks) <> 0;

  SELECT count(*) INTO n FROM tasks_org_daily WHERE NOT compacted;
  appended := appended + n;
  WITH keys AS (SELECT DISTINCT org_id, day, status FROM tasks_org_daily WHERE NOT compacted),
  moved AS (
    DELETE FROM tasks_org_daily t USING keys k
    WHERE t.org_id = k.org_id AND t.day = k.day AND t.status = k.status
    RETURNING t.org_id, t.day, t.status, t.tasks, t.paid_revenue_cad)
  INSERT INTO tasks_org_daily (org_id, day, status, tasks, paid_revenue_cad, compacted)
  SELECT org_id, day, status, sum(tasks)::int, sum(paid_revenue_cad), true FROM moved
  GROUP BY 1, 2, 3 HAVING sum(tasks) <> 0 OR sum(paid_revenue_cad) <> 0;
  RETURN appended;
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
--> statement-breakpoint
SELECT task_rollup_compact();
