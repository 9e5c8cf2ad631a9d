-- Daily roll-ups of the activity log kept by triggers (issue 32 item 4; docs/decisions.md 21;
-- tables in lib/db/schema/activity-rollups.ts). Statement-level triggers with transition tables:
-- each INSERT or COPY adds its rows, each DELETE subtracts them, each UPDATE does both, in the
-- transaction of the statement, so the roll-ups equal a recount of the log whatever wrote it.
-- Days are calendar days in America/Toronto (OPERATOR_TIMEZONE, lib/billing/dates.ts).

-- The earliest (p_last false) or latest (p_last true) `at` of the log rows of one roll-up row of
-- activity_agents_daily, null when none is left: read through activity_log_api_key_id_at_idx.
CREATE FUNCTION activity_agents_daily_bound(p_day date, p_model text, p_name text, p_org text, p_key text, p_last boolean)
RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE
  lo timestamptz := p_day::timestamp AT TIME ZONE 'America/Toronto';
  hi timestamptz := (p_day + 1)::timestamp AT TIME ZONE 'America/Toronto';
  found_at timestamptz;
BEGIN
  IF p_key = '' AND p_last THEN
    SELECT a.at INTO found_at FROM activity_log a
    WHERE a.api_key_id IS NULL AND a.at >= lo AND a.at < hi AND a.identity_valid
      AND a.agent_model = p_model AND a.org_id = p_org AND coalesce(a.agent_name, '') = p_name
    ORDER BY a.at DESC LIMIT 1;
  ELSIF p_key = '' THEN
    SELECT a.at INTO found_at FROM activity_log a
    WHERE a.api_key_id IS NULL AND a.at >= lo AND a.at < hi AND a.identity_valid
      AND a.agent_model = p_model AND a.org_id = p_org AND coalesce(a.agent_name, '') = p_name
    ORDER BY a.at LIMIT 1;
  ELSIF p_last THEN
    SELECT a.at INTO found_at FROM activity_log a
    WHERE a.api_key_id = p_key AND a.at >= lo AND a.at < hi AND a.identity_valid
      AND a.agent_model = p_model AND a.org_id = p_org AND coalesce(a.agent_name, '') = p_name
    ORDER BY a.at DESC LIMIT 1;
  ELSE
    SELECT a.at INTO found_at FROM activity_log a
    WHERE a.api_key_id = p_key AND a.at >= lo AND a.at < hi AND a.identity_valid
      AND a.agent_model = p_model AND a.org_id = p_org AND coalesce(a.agent_name, '') = p_name
    ORDER BY a.at LIMIT 1;
  END IF;
  RETURN found_at;
END
$$;
--> statement-breakpoint
CREATE FUNCTION activity_rollup_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    WITH gone AS (
      SELECT (o.at AT TIME ZONE 'America/Toronto')::date AS day, o.agent_model,
             coalesce(o.agent_name, '') AS agent_name, o.org_id, coalesce(o.api_key_id, '') AS api_key_id,
             count(*)::int AS requests, (count(*) FILTER (WHERE o.status >= 400))::int AS errors,
             sum(o.latency_ms) AS latency_ms_sum, min(o.at) AS first_at, max(o.at) AS last_at
      FROM old_rows o
      WHERE o.identity_valid AND o.agent_model IS NOT NULL AND o.org_id IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5
    )
    UPDATE activity_agents_daily d SET
      requests = d.requests - g.requests,
      errors = d.errors - g.errors,
      latency_ms_sum = d.latency_ms_sum - g.latency_ms_sum,
      -- A bound that went with the rows is looked up again among the rows left.
      first_at = CASE WHEN g.first_at > d.first_at THEN d.first_at ELSE coalesce(
        activity_agents_daily_bound(d.day, d.agent_model, d.agent_name, d.org_id, d.api_key_id, false), d.first_at) END,
      last_at = CASE WHEN g.last_at < d.last_at THEN d.last_at ELSE coalesce(
        activity_agents_daily_bound(d.day, d.agent_model, d.agent_name, d.org_id, d.api_key_id, true), d.last_at) END
    FROM gone g
    WHERE d.day = g.day AND d.agent_model = g.agent_model AND d.agent_name = g.agent_name
      AND d.org_id = g.org_id AND d.api_key_id = g.api_key_id;

    DELETE FROM activity_agents_daily d
    WHERE d.requests <= 0 AND d.day IN (SELECT (o.at AT TIME ZONE 'America/Toronto')::date FROM old_rows o);

    WITH gone AS (
      SELECT (o.at AT TIME ZONE 'America/Toronto')::date AS day, o.org_id, o.method, o.endpoint,
             count(*)::int AS requests, (count(*) FILTER (WHERE o.status >= 400))::int AS errors
      FROM old_rows o
      WHERE o.org_id IS NOT NULL
      GROUP BY 1, 2, 3, 4
    )
    UPDATE activity_endpoints_daily d SET requests = d.requests - g.requests, errors = d.errors - g.errors
    FROM gone g
    WHERE d.org_id = g.org_id AND d.day = g.day AND d.method = g.method AND d.endpoint = g.endpoint;

    DELETE FROM activity_endpoints_daily d
    WHERE d.requests <= 0 AND (d.org_id, d.day) IN (
      SELECT o.org_id, (o.at AT TIME ZONE 'America/Toronto')::date FROM old_rows o WHERE o.org_id IS NOT NULL);
  END IF;

  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    -- In key order, so that concurrent writers lock roll-up rows in the same order (no deadlock).
    INSERT INTO activity_agents_daily AS d
      (day, agent_model, agent_name, org_id, api_key_id, requests, errors, latency_ms_sum, first_at, last_at)
    SELECT (n.at AT TIME ZONE 'America/Toronto')::date, n.agent_model, coalesce(n.agent_name, ''), n.org_id,
           coalesce(n.api_key_id, ''), count(*), count(*) FILTER (WHERE n.status >= 400), sum(n.latency_ms),
           min(n.at), max(n.at)
    FROM new_rows n
    WHERE n.identity_valid AND n.agent_model IS NOT NULL AND n.org_id IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (day, agent_model, agent_name, org_id, api_key_id) DO UPDATE SET
      requests = d.requests + excluded.requests,
      errors = d.errors + excluded.errors,
      latency_ms_sum = d.latency_ms_sum + excluded.latency_ms_sum,
      first_at = least(d.first_at, excluded.first_at),
      last_at = greatest(d.last_at, excluded.last_at);

    INSERT INTO activity_endpoints_daily AS d (org_id, day, method, endpoint, requests, errors)
    SELECT n.org_id, (n.at AT TIME ZONE 'America/Toronto')::date, n.method, n.endpoint, count(*),
           count(*) FILTER (WHERE n.status >= 400)
    FROM new_rows n
    WHERE n.org_id IS NOT NULL
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (org_id, day, method, endpoint) DO UPDATE SET
      requests = d.requests + excluded.requests,
      errors = d.errors + excluded.errors;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER activity_rollup_insert AFTER INSERT ON activity_log
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_rollup_apply();
--> statement-breakpoint
CREATE TRIGGER activity_rollup_update AFTER UPDATE ON activity_log
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_rollup_apply();
--> statement-breakpoint
CREATE TRIGGER activity_rollup_delete AFTER DELETE ON activity_log
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_rollup_apply();
--> statement-breakpoint
-- Backfill: the rows already logged (the triggers' lock on activity_log holds writers back until
-- this migration commits, so no row is counted twice or missed).
INSERT INTO activity_agents_daily
  (day, agent_model, agent_name, org_id, api_key_id, requests, errors, latency_ms_sum, first_at, last_at)
SELECT (a.at AT TIME ZONE 'America/Toronto')::date, a.agent_model, coalesce(a.agent_name, ''), a.org_id,
       coalesce(a.api_key_id, ''), count(*), count(*) FILTER (WHERE a.status >= 400), sum(a.latency_ms),
       min(a.at), max(a.at)
FROM activity_log a
WHERE a.identity_valid AND a.agent_model IS NOT NULL AND a.org_id IS NOT NULL
GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO activity_endpoints_daily (org_id, day, method, endpoint, requests, errors)
SELECT a.org_id, (a.at AT TIME ZONE 'America/Toronto')::date, a.method, a.endpoint, count(*),
       count(*) FILTER (WHERE a.status >= 400)
FROM activity_log a
WHERE a.org_id IS NOT NULL
GROUP BY 1, 2, 3, 4;
