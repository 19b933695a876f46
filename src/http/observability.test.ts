import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildAdminApp, buildApp } from '../app.js';
import { answer, startReceiver } from '../core/webhooks/receiver.testkit.js';
import { posts } from '../db/schema/posts.js';
import { realtimeManualClock, waitFor } from '../../test/factories.js';
import { call, expectError, useTestApp, type TestApp, type TestOrg } from '../../test/helpers.js';

/**
 * Observability (issue 29): `GET /metrics` (Prometheus text, behind METRICS_TOKEN), what its
 * counters say after a publish, a refused publish and a 429, and `x-request-id`.
 */

const TOKEN = 'metrics-token-0123456789';

/** Every metric the app names (the process metrics come with the `tidings_` prefix too). */
const METRIC_NAMES = [
  'tidings_publish_outcomes_total',
  'tidings_publish_lag_seconds',
  'tidings_posts_due_unpublished',
  'tidings_posts_overdue',
  'tidings_overdue_posts_reported_total',
  'tidings_http_request_duration_seconds',
  'tidings_rate_limit_refusals_total',
  'tidings_webhook_deliveries_total',
  'tidings_video_jobs_total',
  'tidings_db_pool_connections',
  'tidings_process_cpu_seconds_total',
  'tidings_process_resident_memory_bytes',
  'tidings_nodejs_eventloop_lag_seconds',
];

async function scrape(t: TestApp): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
}

/** The value of one sample line (`name{labels} value`), undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(m[3]);
  }
  return undefined;
}

describe('/metrics without METRICS_TOKEN', () => {
  const { t } = useTestApp({});

  it('answers 404 like any unknown route, so nothing leaks', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expectError(res, 404, 'ROUTE_NOT_FOUND');
  });

  it('x-request-id: a safe incoming id is honoured and echoed (body and header); anything else gets a new one', async () => {
    const mine = await t.app.inject({ method: 'GET', url: '/public/v1/nothing-here', headers: { 'x-request-id': 'lb-7f3a.42:abc' } });
    expect(mine.headers['x-request-id']).toBe('lb-7f3a.42:abc');
    expect(expectError(mine, 404, 'ROUTE_NOT_FOUND').requestId).toBe('lb-7f3a.42:abc');

    for (const bad of ['has space', 'x'.repeat(129), 'quote"d', '']) {
      const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } });
      expect(res.headers['x-request-id'], JSON.stringify(bad)).toMatch(/^req-[0-9a-f]{12}$/);
    }
    const none = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(none.headers['x-request-id']).toMatch(/^req-[0-9a-f]{12}$/);
  });

  it("request log lines carry the request's id (reqId), the caller's when it sent one", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const logged = await buildApp(t.deps, { logger: pino({ level: 'info' }, sink), webApp: false });
    try {
      await logged.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-123' } });
      const mine = lines.filter((l) => l.reqId === 'trace-123');
      expect(mine.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    } finally {
      await logged.close();
    }
  });

  it('the admin app (METRICS_PORT) serves /metrics without a token, and /readyz of this process', async () => {
    const admin = await buildAdminApp(t.deps);
    try {
      const metrics = await admin.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.statusCode, metrics.body).toBe(200);
      expect(metrics.body).toContain('# TYPE tidings_publish_outcomes_total counter');
      const ready = await admin.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json()).toMatchObject({ role: 'all', checks: { database: { ok: true }, migrations: { ok: true } } });
      expect((await admin.inject({ method: 'GET', url: '/public/v1/integrations' })).statusCode).toBe(404);
    } finally {
      await admin.close();
    }
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  const clock = realtimeManualClock();
  const { t, orgs } = useTestApp({ clock, startWorker: true, env: { METRICS_TOKEN: TOKEN, API_RATE_LIMIT: '40', ALLOW_PRIVATE_TARGETS: 'true' } }, 'Acme', 'Busy');

  async function sandboxChannel(org: TestOrg): Promise<string> {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'telegram' } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  }

  async function postNow(org: TestOrg, channel: string, content: string): Promise<string> {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel }, value: [{ content, image: [] }] }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ postId: string }[]>()[0]!.postId;
  }

  /** Waits (reading the row, not the API, so the rate budget is not spent) until the post left the queue. */
  function ended(id: string) {
    return waitFor(async () => {
      const [row] = await t.deps.database.db.select().from(posts).where(eq(posts.id, id));
      return row && row.state !== 'QUEUE' ? row : undefined;
    }, 20_000, `post ${id} to end`);
  }

  it('401 without a token, with a wrong one, or with the token not as a bearer', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/metrics' });
    expectError(missing, 401, 'AUTH_MISSING');
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer /);
    expectError(await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer not-the-token-at-all' } }), 401, 'AUTH_INVALID');
    expectError(await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: TOKEN } }), 401, 'AUTH_INVALID');
  });

  it('200 with the token: Prometheus text naming every metric', async () => {
    const text = await scrape(t);
    for (const name of METRIC_NAMES) expect(text, name).toContain(`# TYPE ${name} `);
    // scrape-time gauges are read from the database
    expect(sample(text, 'tidings_posts_due_unpublished')).toBe(0);
    expect(sample(text, 'tidings_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    // PostgreSQL: the pg pool's figures; embedded: its one connection
    if (t.deps.database.kind === 'postgres') expect(sample(text, 'tidings_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    else expect(sample(text, 'tidings_db_pool_connections', { state: 'max' })).toBe(1);
  });

  it('a publish counts one published outcome for its platform and one lag sample; a refused one counts its failure kind', async () => {
    const channel = await sandboxChannel(orgs.acme);
    const ok = await ended(await postNow(orgs.acme, channel, 'Counted once'));
    expect(ok.state).toBe('PUBLISHED');
    let text = await scrape(t);
    expect(sample(text, 'tidings_publish_outcomes_total', { platform: 'telegram', outcome: 'published', kind: 'none' })).toBe(1);
    expect(sample(text, 'tidings_publish_lag_seconds_count', { platform: 'telegram' })).toBe(1);
    expect(sample(text, 'tidings_publish_lag_seconds_sum', { platform: 'telegram' })).toBeGreaterThanOrEqual(0);

    const fault = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: `/public/v1/sandbox/channels/${channel}/faults`, payload: { kind: 'duplicate' } });
    expect(fault.statusCode, fault.body).toBe(200);
    const refused = await ended(await postNow(orgs.acme, channel, 'Refused by the platform'));
    expect(refused.state).toBe('ERROR');
    text = await scrape(t);
    expect(sample(text, 'tidings_publish_outcomes_total', { platform: 'telegram', outcome: 'error', kind: 'rejected' })).toBe(1);
    expect(sample(text, 'tidings_publish_outcomes_total', { platform: 'telegram', outcome: 'published', kind: 'none' })).toBe(1);
    // the HTTP histogram names route templates, never raw URLs
    expect(sample(text, 'tidings_http_request_duration_seconds_count', { method: 'POST', route: '/public/v1/sandbox/channels/:id/faults', status_code: '200' })).toBe(1);
    expect(text).not.toContain(channel);
  });

  it('a 429 from the API rate limit counts one refusal', async () => {
    let text = await scrape(t);
    expect(sample(text, 'tidings_rate_limit_refusals_total', { front: 'api' })).toBeUndefined();
    let refused = 0;
    for (let i = 0; i < 41 && refused === 0; i++) {
      const res = await call(t.app, orgs.busy.apiKey, { method: 'GET', url: '/public/v1/integrations' });
      if (res.statusCode === 429) refused++;
      else expect(res.statusCode, res.body).toBe(200);
    }
    expect(refused).toBe(1);
    text = await scrape(t);
    expect(sample(text, 'tidings_rate_limit_refusals_total', { front: 'api' })).toBe(1);
    expect(sample(text, 'tidings_http_request_duration_seconds_count', { method: 'GET', route: '/public/v1/integrations', status_code: '429' })).toBe(1);
  });

  it('webhook deliveries count by outcome: delivered, and retry when the receiver fails', async () => {
    const good = await startReceiver(answer(200, 'ok'));
    const bad = await startReceiver(answer(500, 'down'));
    try {
      for (const [name, receiver] of [['good', good], ['bad', bad]] as const) {
        const made = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/webhooks', payload: { name, url: receiver.url } });
        expect(made.statusCode, made.body).toBe(201);
        const sent = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${made.json<{ id: string }>().id}/test` });
        expect(sent.statusCode, sent.body).toBeLessThan(300);
      }
      const text = await waitFor(async () => {
        const s = await scrape(t);
        return sample(s, 'tidings_webhook_deliveries_total', { outcome: 'delivered' }) === 1 && sample(s, 'tidings_webhook_deliveries_total', { outcome: 'retry' }) === 1 ? s : undefined;
      }, 15_000, 'one delivered and one retried delivery');
      expect(sample(text, 'tidings_webhook_deliveries_total', { outcome: 'failed' })).toBeUndefined();
      expect(good.requests).toHaveLength(1);
      expect(bad.requests).toHaveLength(1);
    } finally {
      await good.close();
      await bad.close();
    }
  });

  it('requests no route takes share one route label', async () => {
    await t.app.inject({ method: 'GET', url: '/no/such/place-1' });
    await t.app.inject({ method: 'GET', url: '/no/such/place-2' });
    const text = await scrape(t);
    expect(sample(text, 'tidings_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(2);
    expect(text).not.toContain('place-1');
  });
});
