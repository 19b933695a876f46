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
-- (records it) only if fewer than p_limit were admitted in the window before p_now; the advisory
-- transaction lock serialises callers for the same key so two processes cannot both take the last
-- slot. Returns whether it admitted, how many are now counted, and the oldest counted time.
CREATE OR REPLACE FUNCTION tidings_rate_take(p_key text, p_limit bigint, p_window_ms bigint, p_now bigint)
RETURNS TABLE (admitted boolean, counted bigint, oldest bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_count bigint;
  v_oldest bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_key, 0));
  DELETE FROM rate_limit_hits WHERE key = p_key AND at <= p_now - p_window_ms;
  SELECT count(*), min(at) INTO v_count, v_oldest FROM rate_limit_hits WHERE key = p_key;
  IF v_count < p_limit THEN
    INSERT INTO rate_limit_hits (key, at) VALUES (p_key, p_now);
    RETURN QUERY SELECT true, v_count + 1, coalesce(v_oldest, p_now);
  ELSE
    RETURN QUERY SELECT false, v_count, v_oldest;
  END IF;
END;
$$;
