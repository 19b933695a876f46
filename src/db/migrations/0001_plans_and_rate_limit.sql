-- Named plans. NULL = unlimited. Self-hosted organisations get `unlimited` by default; the other
-- rows are starting points an operator can edit (UPDATE plans ...) or extend.
INSERT INTO "plans" ("name", "max_channels", "max_scheduled_posts_per_month", "max_webhooks", "video_credits_per_month", "rate_limit") VALUES
  ('unlimited', NULL, NULL, NULL, NULL, NULL),
  ('free', 3, 30, 1, 0, 30),
  ('standard', 10, 500, 5, 10, 90),
  ('pro', 50, NULL, 25, 60, 300)
ON CONFLICT ("name") DO NOTHING;
--> statement-breakpoint
-- Sliding-log rate limiter shared by every process in PostgreSQL mode. One call admits a request
-- (records it) only if fewer than p_limit were admitted in the window before p_now. The key's
-- counter row serialises callers for that key (the upsert locks it until commit), so two processes
-- cannot both take the last slot; the counter makes the cost independent of the limit. Rate-limit
-- bookkeeping does not need to survive a crash, so its commits do not wait for the WAL flush.
CREATE OR REPLACE FUNCTION tidings_rate_take(p_key text, p_limit bigint, p_window_ms bigint, p_now bigint)
RETURNS TABLE (admitted boolean, counted bigint, oldest bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_count bigint;
  v_gone bigint;
  v_oldest bigint;
  v_admit boolean;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  INSERT INTO rate_limit_counters AS c (key, n) VALUES (p_key, 0)
    ON CONFLICT (key) DO UPDATE SET n = c.n
    RETURNING c.n INTO v_count;
  WITH gone AS (
    DELETE FROM rate_limit_hits h WHERE h.key = p_key AND h.at <= p_now - p_window_ms RETURNING 1
  ) SELECT count(*) INTO v_gone FROM gone;
  v_count := v_count - v_gone;
  v_admit := v_count < p_limit;
  IF v_admit THEN
    INSERT INTO rate_limit_hits (key, at) VALUES (p_key, p_now);
    v_count := v_count + 1;
  END IF;
  UPDATE rate_limit_counters c SET n = v_count WHERE c.key = p_key;
  SELECT h.at INTO v_oldest FROM rate_limit_hits h WHERE h.key = p_key ORDER BY h.at LIMIT 1;
  RETURN QUERY SELECT v_admit, v_count, coalesce(v_oldest, p_now);
END;
$$;
--> statement-breakpoint
-- Housekeeping: drops entries older than p_before for every key, under each key's lock, and
-- forgets keys left empty (addresses that failed once and never came back).
CREATE OR REPLACE FUNCTION tidings_rate_sweep(p_before bigint)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  k text;
  v_count bigint;
  v_gone bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  FOR k IN SELECT c.key FROM rate_limit_counters c LOOP
    SELECT c.n INTO v_count FROM rate_limit_counters c WHERE c.key = k FOR UPDATE;
    CONTINUE WHEN NOT FOUND;
    DELETE FROM rate_limit_hits h WHERE h.key = k AND h.at <= p_before;
    GET DIAGNOSTICS v_gone = ROW_COUNT;
    IF v_count - v_gone <= 0 THEN
      DELETE FROM rate_limit_counters c WHERE c.key = k;
    ELSIF v_gone > 0 THEN
      UPDATE rate_limit_counters c SET n = v_count - v_gone WHERE c.key = k;
    END IF;
  END LOOP;
END;
$$;
