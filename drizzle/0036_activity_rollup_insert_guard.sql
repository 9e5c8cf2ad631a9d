-- activity_rollup_apply() of migration 0031, with one guard at the top (docs/decisions.md 27): an
-- INSERT statement none of whose rows names an organisation returns at once. Every statement of the
-- INSERT branch counts only rows with `org_id IS NOT NULL` (the agents' tiers also need a valid
-- identity), so the roll-ups are unchanged; a chunk of anonymous activity rows no longer pays for
-- three grouped upserts over its transition table. UPDATE and DELETE are as before.
CREATE OR REPLACE FUNCTION activity_rollup_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Every roll-up counts only rows that name an organisation: a statement without one (the
  -- anonymous public reads, most of the traffic) has nothing to add, and skips the three
  -- grouped upserts below (about 350 µs a statement on embedded PGlite).
  -- (Nested: a DELETE statement has no new_rows to name.)
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.org_id IS NOT NULL) THEN
      RETURN NULL;
    END IF;
  END IF;
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

    -- The weekly rows, after the daily ones: a bound that went is the earliest or latest bound of
    -- the week's daily rows left (seven primary-key lookups).
    WITH gone AS (
      SELECT date_trunc('week', o.at AT TIME ZONE 'America/Toronto')::date AS week, o.agent_model,
             coalesce(o.agent_name, '') AS agent_name, o.org_id, coalesce(o.api_key_id, '') AS api_key_id,
             count(*)::int AS requests, (count(*) FILTER (WHERE o.status >= 400))::int AS errors,
             sum(o.latency_ms) AS latency_ms_sum, min(o.at) AS first_at, max(o.at) AS last_at
      FROM old_rows o
      WHERE o.identity_valid AND o.agent_model IS NOT NULL AND o.org_id IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5
    )
    UPDATE activity_agents_weekly w SET
      requests = w.requests - g.requests,
      errors = w.errors - g.errors,
      latency_ms_sum = w.latency_ms_sum - g.latency_ms_sum,
      first_at = CASE WHEN g.first_at > w.first_at THEN w.first_at ELSE coalesce((
        SELECT min(d.first_at) FROM activity_agents_daily d
        WHERE d.day = ANY (ARRAY[w.week, w.week + 1, w.week + 2, w.week + 3, w.week + 4, w.week + 5, w.week + 6])
          AND d.agent_model = w.agent_model AND d.agent_name = w.agent_name AND d.org_id = w.org_id
          AND d.api_key_id = w.api_key_id), w.first_at) END,
      last_at = CASE WHEN g.last_at < w.last_at THEN w.last_at ELSE coalesce((
        SELECT max(d.last_at) FROM activity_agents_daily d
        WHERE d.day = ANY (ARRAY[w.week, w.week + 1, w.week + 2, w.week + 3, w.week + 4, w.week + 5, w.week + 6])
          AND d.agent_model = w.agent_model AND d.agent_name = w.agent_name AND d.org_id = w.org_id
          AND d.api_key_id = w.api_key_id), w.last_at) END
    FROM gone g
    WHERE w.week = g.week AND w.agent_model = g.agent_model AND w.agent_name = g.agent_name
      AND w.org_id = g.org_id AND w.api_key_id = g.api_key_id;

    DELETE FROM activity_agents_weekly w
    WHERE w.requests <= 0
      AND w.week IN (SELECT date_trunc('week', o.at AT TIME ZONE 'America/Toronto')::date FROM old_rows o);

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

    INSERT INTO activity_agents_weekly AS w
      (week, agent_model, agent_name, org_id, api_key_id, requests, errors, latency_ms_sum, first_at, last_at)
    SELECT date_trunc('week', n.at AT TIME ZONE 'America/Toronto')::date, n.agent_model, coalesce(n.agent_name, ''),
           n.org_id, coalesce(n.api_key_id, ''), count(*), count(*) FILTER (WHERE n.status >= 400), sum(n.latency_ms),
           min(n.at), max(n.at)
    FROM new_rows n
    WHERE n.identity_valid AND n.agent_model IS NOT NULL AND n.org_id IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (week, agent_model, agent_name, org_id, api_key_id) DO UPDATE SET
      requests = w.requests + excluded.requests,
      errors = w.errors + excluded.errors,
      latency_ms_sum = w.latency_ms_sum + excluded.latency_ms_sum,
      first_at = least(w.first_at, excluded.first_at),
      last_at = greatest(w.last_at, excluded.last_at);

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
