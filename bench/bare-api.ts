/**
 * The bare baseline of `api-bench.ts` (issue 29): a plain Fastify server doing per request the work
 * an authenticated `GET /public/v1/integrations` of Tidings needs, and nothing else, on the same
 * PostgreSQL database and with the same pool size:
 *   - sha256 of the Authorization value → the key's owner (organisation, plan rate limit), cached
 *     5 s (AUTH_CACHE_SECONDS' default) — the same join Tidings runs on a miss;
 *   - one `tidings_rate_take` (the organisation's sliding-log budget, migration 0001), with the
 *     rate-limit headers;
 *   - the organisation's channels (integrations ⟕ customers, only the columns the answer shows);
 *   - the same JSON body as Tidings, serialised by Fastify's default (JSON.stringify).
 * The rate take and the channels are named statements (prepared once per connection), as Tidings
 * sends them, so the floor has the same database work.
 * No validation, hooks, request ids, metrics or error shapes: it is the floor the service is
 * measured against, not a second implementation. Started by api-bench.ts:
 *   DATABASE_URL=… PORT=… node --import tsx bench/bare-api.ts
 */
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const port = Number(process.env.PORT ?? 3918);
const poolSize = Number(process.env.DATABASE_POOL_SIZE ?? 10);
const defaultLimit = Number(process.env.API_RATE_LIMIT ?? 90);
const windowMs = Number(process.env.API_RATE_WINDOW_SECONDS ?? 3600) * 1000;
const CACHE_MS = 5000;

const pool = new pg.Pool({ connectionString: url, max: poolSize });
pool.on('error', () => undefined);

const OWNER_SQL = `SELECT o.id AS org, p.rate_limit AS rate_limit
  FROM api_keys k JOIN organizations o ON o.id = k.organization_id JOIN plans p ON p.name = o.plan_name
  WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND o.deleted_at IS NULL`;
const TAKE_SQL = 'SELECT admitted, counted, oldest FROM tidings_rate_take($1, $2, $3, $4)';
const CHANNELS_SQL = `SELECT i.id, i.name, i.identifier, i.picture, i.disabled, i.profile, c.id AS customer_id, c.name AS customer_name,
    i.refresh_needed, i.sandbox, i.posting_times, i.default_settings, i.created_at, i.updated_at
  FROM integrations i LEFT JOIN customers c ON c.id = i.customer_id AND c.deleted_at IS NULL
  WHERE i.organization_id = $1 AND i.deleted_at IS NULL
  ORDER BY i.created_at, i.id`;

const owners = new Map<string, { org: string; limit: number; until: number }>();

interface ChannelRow {
  id: string;
  name: string;
  identifier: string;
  picture: string | null;
  disabled: boolean;
  profile: string | null;
  customer_id: string | null;
  customer_name: string | null;
  refresh_needed: boolean;
  sandbox: boolean;
  posting_times: unknown;
  default_settings: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

const app = Fastify({ logger: false });

app.get('/readyz', async () => ({ status: 'ok' }));

app.get('/public/v1/integrations', async (req, reply) => {
  const key = req.headers.authorization?.trim();
  if (!key) return reply.code(401).send({ code: 'AUTH_MISSING' });
  const hash = createHash('sha256').update(key).digest('hex');
  const now = Date.now();
  let owner = owners.get(hash);
  if (!owner || owner.until <= now) {
    const { rows } = await pool.query<{ org: string; rate_limit: number | null }>(OWNER_SQL, [hash]);
    if (!rows[0]) return reply.code(401).send({ code: 'AUTH_INVALID' });
    owner = { org: rows[0].org, limit: rows[0].rate_limit ?? defaultLimit, until: now + CACHE_MS };
    owners.set(hash, owner);
  }
  const { rows: takes } = await pool.query<{ admitted: boolean; counted: string; oldest: string | null }>({ name: 'bare_take', text: TAKE_SQL, values: [`api:${owner.org}`, owner.limit, windowMs, now] });
  const take = takes[0]!;
  const reset = Math.max(0, Math.ceil((Number(take.oldest ?? now) + windowMs - now) / 1000));
  const remaining = Math.max(0, owner.limit - Number(take.counted));
  void reply.headers({
    'ratelimit-limit': owner.limit,
    'ratelimit-remaining': remaining,
    'ratelimit-reset': reset,
    'x-ratelimit-limit': owner.limit,
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
  });
  if (!take.admitted) return reply.code(429).send({ code: 'RATE_LIMITED' });
  const { rows } = await pool.query<ChannelRow>({ name: 'bare_channels', text: CHANNELS_SQL, values: [owner.org] });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    identifier: r.identifier,
    picture: r.picture,
    disabled: r.disabled,
    profile: r.profile,
    ...(r.customer_id ? { customer: { id: r.customer_id, name: r.customer_name } } : {}),
    refreshNeeded: r.refresh_needed,
    sandbox: r.sandbox,
    postingTimes: r.posting_times,
    settings: r.default_settings ?? {},
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }));
});

const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

await app.listen({ port, host: '127.0.0.1' });
