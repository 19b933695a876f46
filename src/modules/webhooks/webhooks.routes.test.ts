import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { Resolver } from '../../lib/safe-address.js';
import { createManualClock, type ManualClock } from '../../lib/clock.js';
import { createChannel } from '../../../test/factories.js';
import { call, expectError, expectIsolated, type TestOrg, useTestApp } from '../../../test/helpers.js';

/** Names these tests resolve themselves: nothing goes to a real resolver (or the internet). */
const NAMES: Record<string, string[]> = {
  'hooks.example': ['93.184.216.34'],
  'other.example': ['93.184.216.35'],
  'private.example': ['10.0.0.5'],
  'mixed.example': ['93.184.216.34', '127.0.0.1'],
};
const resolve: Resolver = (hostname) => {
  const addresses = NAMES[hostname];
  if (!addresses) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
  return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
};

interface View {
  id: string;
  name: string;
  url: string;
  events: string[];
  integrations: string[];
  enabled: boolean;
  disabledReason: string | null;
  secretPreviousValidUntil: string | null;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}
interface LogEntry {
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  durationMs: number | null;
  responseSnippet: string | null;
  error: string | null;
  at: string;
  nextAttemptAt: string | null;
  state: string;
}
interface LogPage {
  deliveries: LogEntry[];
  total: number;
  page: number;
  limit: number;
  hasMore: boolean;
}

describe('webhooks', () => {
  let clock: ManualClock;
  const { t, orgs: { acme, beta } } = useTestApp(() => {
    clock = createManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
    return { clock, webhookResolve: resolve };
  }, 'Acme', 'Beta');

  const sqlRows = async <T>(text: string, params: unknown[]) => (await t.deps.database.sql.executeSql(text, params)).rows as T[];
  const create = (org: TestOrg, payload: Record<string, unknown>) => call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/webhooks', payload });
  const created = async (org: TestOrg, payload: Record<string, unknown> = {}) => {
    const res = await create(org, { name: 'Hook', url: 'https://hooks.example/in', ...payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<View & { secret: string }>();
  };
  const deliveriesOf = (webhookId: string) =>
    sqlRows<{ id: string; event_type: string; state: string; event_id: string; lease_owner: string | null; next_attempt_at: Date | null }>(
      'SELECT id, event_type, state, event_id, lease_owner, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq',
      [webhookId],
    );
  const sendTest = async (org: TestOrg, id: string) => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/webhooks/${id}/test` });
    expect(res.statusCode, res.body).toBe(202);
    return res.json<{ deliveryId: string; eventId: string }>();
  };
  const log = async (org: TestOrg, id: string, page = 0) => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/webhooks/${id}/deliveries?page=${page}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<LogPage>();
  };
  /** Signs and verifies a message with the secret, as a receiver would (Standard Webhooks). */
  const verifies = (secret: string, signWith = secret) => {
    const payload = JSON.stringify({ type: 'webhook.test' });
    const id = 'msg_1';
    const now = new Date();
    const signature = new Webhook(signWith).sign(id, now, payload);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
    try {
      new Webhook(secret).verify(payload, headers);
      return true;
    } catch {
      return false;
    }
  };

  describe('happy', () => {
    it('creates (with the secret, once), lists, gets, updates and deletes', async () => {
      const channel = await createChannel(t, acme, 'bluesky', { name: 'Sky' });
      const res = await create(acme, { name: '  Main ', url: 'https://hooks.example/in', events: ['post.published', 'post.failed'], integrations: [channel.id] });
      expect(res.statusCode).toBe(201);
      const hook = res.json<View & { secret: string }>();
      expect(hook).toEqual({
        id: expect.any(String),
        name: 'Main',
        url: 'https://hooks.example/in',
        events: ['post.published', 'post.failed'],
        integrations: [channel.id],
        enabled: true,
        disabledReason: null,
        secretPreviousValidUntil: null,
        createdAt: new Date(clock.now()).toISOString(),
        updatedAt: new Date(clock.now()).toISOString(),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      });
      expect(Buffer.from(hook.secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
      expect(verifies(hook.secret)).toBe(true);
      expect(verifies(hook.secret, `whsec_${Buffer.alloc(24, 1).toString('base64')}`)).toBe(false);
      // Stored sealed, never in clear.
      const [stored] = await sqlRows<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [hook.id]);
      expect(stored!.secret).not.toContain(hook.secret.slice(6));
      expect(t.deps.secretBox.open(stored!.secret)).toBe(hook.secret);

      const { secret: _secret, ...view } = hook;
      const list = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/webhooks' });
      expect(list.json()).toEqual([view]);
      expect(list.body).not.toContain('whsec_');
      const got = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${hook.id}` });
      expect(got.json()).toEqual(view);

      clock.advance(1000);
      const updated = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/webhooks/${hook.id}`, payload: { name: 'Renamed', events: [], integrations: [] } });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json()).toEqual({ ...view, name: 'Renamed', events: [], integrations: [], updatedAt: new Date(clock.now()).toISOString() });
      expect(updated.body).not.toContain('whsec_');

      const deleted = await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/webhooks/${hook.id}` });
      expect(deleted.json()).toEqual({ id: hook.id, deleted: true });
      expect((await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/webhooks' })).json()).toEqual([]);
      expectError(await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${hook.id}` }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/webhooks/${hook.id}` }), 404, 'NOT_FOUND');
    });

    it('defaults: every event, every channel, enabled; a literal public IP is accepted', async () => {
      const hook = await created(acme, { url: 'http://93.184.216.34:8080/x' });
      expect({ events: hook.events, integrations: hook.integrations, enabled: hook.enabled, url: hook.url }).toEqual({ events: [], integrations: [], enabled: true, url: 'http://93.184.216.34:8080/x' });
      const off = await created(acme, { enabled: false });
      expect(off.enabled).toBe(false);
    });

    it('rotation answers a new secret once; the previous one stays sealed and valid for 24 h', async () => {
      const hook = await created(acme);
      const res = await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${hook.id}/rotate-secret` });
      expect(res.statusCode, res.body).toBe(200);
      const until = new Date(clock.now() + 24 * 3600_000).toISOString();
      const rotated = res.json<{ secret: string; previousValidUntil: string }>();
      expect(rotated).toEqual({ secret: expect.stringMatching(/^whsec_/), previousValidUntil: until });
      expect(rotated.secret).not.toBe(hook.secret);
      expect(verifies(rotated.secret)).toBe(true);
      expect(verifies(rotated.secret, hook.secret)).toBe(false);

      const [row] = await sqlRows<{ secret: string; previous_secret: string; previous_secret_expires_at: Date }>(
        'SELECT secret, previous_secret, previous_secret_expires_at FROM webhooks WHERE id = $1',
        [hook.id],
      );
      expect(t.deps.secretBox.open(row!.secret)).toBe(rotated.secret);
      expect(t.deps.secretBox.open(row!.previous_secret)).toBe(hook.secret);
      expect(new Date(row!.previous_secret_expires_at).toISOString()).toBe(until);

      const view = (await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${hook.id}` })).json<View>();
      expect(view.secretPreviousValidUntil).toBe(until);
      expect(JSON.stringify(view)).not.toContain('whsec_');
      clock.advance(24 * 3600_000 + 1);
      const later = (await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${hook.id}` })).json<View>();
      expect(later.secretPreviousValidUntil).toBeNull();
    });

    it('POST /test queues one pending webhook.test delivery, to that webhook only', async () => {
      const org = await t.createOrg('Tester');
      const a = await created(org, { name: 'A' });
      const b = await created(org, { name: 'B' });
      const sent = await sendTest(org, a.id);
      const rows = await deliveriesOf(a.id);
      expect(rows).toEqual([expect.objectContaining({ id: sent.deliveryId, event_id: sent.eventId, event_type: 'webhook.test', state: 'pending' })]);
      expect(new Date(rows[0]!.next_attempt_at!).getTime()).toBe(clock.now());
      expect(await deliveriesOf(b.id)).toEqual([]);
      const [event] = await sqlRows<{ type: string; payload: unknown }>('SELECT type, payload FROM events WHERE id = $1', [sent.eventId]);
      expect(event).toEqual({ type: 'webhook.test', payload: { webhook: { id: a.id, name: 'A' }, message: 'This is a test event from Tidings' } });
      // A disabled webhook can still be tested.
      await call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/webhooks/${b.id}`, payload: { enabled: false } });
      await sendTest(org, b.id);
      expect((await deliveriesOf(b.id)).map((d) => d.state)).toEqual(['pending']);
    });

    it('a test of a webhook deleted meanwhile writes nothing (no event without its delivery)', async () => {
      const org = await t.createOrg('Race');
      const hook = await created(org);
      await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/webhooks/${hook.id}` });
      expect(await t.deps.repositories.webhooks.emitTest(org.id, hook, new Date(clock.now()))).toBeUndefined();
      expect(await sqlRows('SELECT id FROM events WHERE organization_id = $1', [org.id])).toEqual([]);
      expectError(await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/webhooks/${hook.id}/test` }), 404, 'NOT_FOUND');
    });

    it('resend puts a delivery back on the queue: pending, due now, lease cleared', async () => {
      const hook = await created(acme);
      const { deliveryId } = await sendTest(acme, hook.id);
      await sqlRows(
        "UPDATE webhook_deliveries SET state = 'failed', attempts = 8, next_attempt_at = NULL, lease_owner = 'w1', lease_until = now() WHERE id = $1",
        [deliveryId],
      );
      clock.advance(5000);
      const res = await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${hook.id}/deliveries/${deliveryId}/resend` });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toEqual({ deliveryId, state: 'pending' });
      const [row] = await deliveriesOf(hook.id);
      expect({ state: row!.state, lease: row!.lease_owner, next: new Date(row!.next_attempt_at!).getTime() }).toEqual({ state: 'pending', lease: null, next: clock.now() });
    });

    it('the log lists every attempt and every delivery not attempted yet, newest first, 50 a page', async () => {
      const hook = await created(acme);
      const start = clock.now();
      const d1 = await sendTest(acme, hook.id);
      clock.advance(1000);
      const d2 = await sendTest(acme, hook.id);
      clock.advance(1000);
      const d3 = await sendTest(acme, hook.id);
      // 55 attempts of the first delivery, the last one delivered.
      await sqlRows(
        `INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, status_code, duration_ms, response_snippet, error, at, next_attempt_at)
         SELECT $1, $2, i, CASE WHEN i = 55 THEN 200 ELSE 500 END, 10 + i, 'answer ' || i, CASE WHEN i = 55 THEN NULL ELSE 'HTTP 500' END,
                to_timestamp($3::double precision / 1000) + (10 + i) * interval '1 second',
                CASE WHEN i = 55 THEN NULL ELSE to_timestamp($3::double precision / 1000) + (11 + i) * interval '1 second' END
         FROM generate_series(1, 55) AS i`,
        [d1.deliveryId, hook.id, start],
      );
      await sqlRows("UPDATE webhook_deliveries SET state = 'delivered', attempts = 55 WHERE id = $1", [d1.deliveryId]);

      const p0 = await log(acme, hook.id);
      expect({ total: p0.total, page: p0.page, limit: p0.limit, hasMore: p0.hasMore, n: p0.deliveries.length }).toEqual({ total: 57, page: 0, limit: 50, hasMore: true, n: 50 });
      expect(p0.deliveries[0]).toEqual({
        deliveryId: d1.deliveryId,
        eventId: d1.eventId,
        eventType: 'webhook.test',
        attempt: 55,
        statusCode: 200,
        durationMs: 65,
        responseSnippet: 'answer 55',
        error: null,
        at: new Date(start + 65_000).toISOString(),
        nextAttemptAt: null,
        state: 'delivered',
      });
      expect(p0.deliveries[1]).toMatchObject({ attempt: 54, statusCode: 500, error: 'HTTP 500', nextAttemptAt: new Date(start + 65_000).toISOString(), state: 'delivered' });
      expect(p0.deliveries.map((e) => e.attempt)).toEqual(Array.from({ length: 50 }, (_, i) => 55 - i));

      const p1 = await log(acme, hook.id, 1);
      expect({ page: p1.page, hasMore: p1.hasMore }).toEqual({ page: 1, hasMore: false });
      expect(p1.deliveries.map((e) => [e.deliveryId, e.attempt])).toEqual([
        [d1.deliveryId, 5],
        [d1.deliveryId, 4],
        [d1.deliveryId, 3],
        [d1.deliveryId, 2],
        [d1.deliveryId, 1],
        [d3.deliveryId, 0],
        [d2.deliveryId, 0],
      ]);
      expect(p1.deliveries[5]).toEqual({
        deliveryId: d3.deliveryId,
        eventId: d3.eventId,
        eventType: 'webhook.test',
        attempt: 0,
        statusCode: null,
        durationMs: null,
        responseSnippet: null,
        error: null,
        at: new Date(start + 2000).toISOString(),
        nextAttemptAt: new Date(start + 2000).toISOString(),
        state: 'pending',
      });
      expect((await log(acme, hook.id, 2)).deliveries).toEqual([]);
    });

    it('disabling and deleting cancel pending deliveries (and only pending ones); enabling clears what the service recorded', async () => {
      const hook = await created(acme);
      const first = await sendTest(acme, hook.id);
      await sqlRows("UPDATE webhook_deliveries SET state = 'delivered' WHERE id = $1", [first.deliveryId]);
      await sendTest(acme, hook.id);
      await sqlRows("UPDATE webhooks SET enabled = false, disabled_reason = 'The receiver answered 410 Gone', failing_since = now() WHERE id = $1", [hook.id]);
      expect((await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${hook.id}` })).json<View>()).toMatchObject({ enabled: false, disabledReason: 'The receiver answered 410 Gone' });

      const enabled = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/webhooks/${hook.id}`, payload: { enabled: true } });
      expect(enabled.json<View>()).toMatchObject({ enabled: true, disabledReason: null });
      const [flags] = await sqlRows<{ failing_since: Date | null }>('SELECT failing_since FROM webhooks WHERE id = $1', [hook.id]);
      expect(flags!.failing_since).toBeNull();
      expect((await deliveriesOf(hook.id)).map((d) => d.state)).toEqual(['delivered', 'pending']);
      // `enabled: true` on an enabled webhook changes nothing: its failure window keeps running.
      await sqlRows('UPDATE webhooks SET failing_since = $2 WHERE id = $1', [hook.id, new Date(clock.now() - 3600_000)]);
      await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/webhooks/${hook.id}`, payload: { name: 'Same', enabled: true } });
      const [still] = await sqlRows<{ failing_since: Date | null }>('SELECT failing_since FROM webhooks WHERE id = $1', [hook.id]);
      expect(new Date(still!.failing_since!).getTime()).toBe(clock.now() - 3600_000);

      const disabled = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/webhooks/${hook.id}`, payload: { enabled: false } });
      expect(disabled.json<View>()).toMatchObject({ enabled: false, disabledReason: null });
      expect((await deliveriesOf(hook.id)).map((d) => d.state)).toEqual(['delivered', 'cancelled']);

      const other = await created(acme);
      await sendTest(acme, other.id);
      await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/webhooks/${other.id}` });
      expect((await deliveriesOf(other.id)).map((d) => d.state)).toEqual(['cancelled']);
      // The log of a deleted webhook is gone with it; a resend of its delivery is not found.
      const [cancelled] = await deliveriesOf(other.id);
      expectError(await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${other.id}/deliveries/${cancelled!.id}/resend` }), 404, 'NOT_FOUND');
    });

    it('an event emitted by a route reaches only the webhooks whose filters take it', async () => {
      const org = await t.createOrg('Fanout');
      const a = await createChannel(t, org, 'bluesky', { name: 'A' });
      const b = await createChannel(t, org, 'mastodon', { name: 'B' });
      const byType = await created(org, { name: 'published only', events: ['post.published'] });
      const byChannel = await created(org, { name: 'channel A only', integrations: [a.id] });
      const everything = await created(org, { name: 'everything' });
      const disabled = await created(org, { name: 'disabled', enabled: false });
      const other = await created(beta, { name: "beta's" });

      expect((await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/integrations/${b.id}` })).statusCode).toBe(200);
      expect(await deliveriesOf(byType.id)).toEqual([]);
      expect(await deliveriesOf(byChannel.id)).toEqual([]);
      expect((await deliveriesOf(everything.id)).map((d) => d.event_type)).toEqual(['integration.disconnected']);

      expect((await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/integrations/${a.id}` })).statusCode).toBe(200);
      expect(await deliveriesOf(byType.id)).toEqual([]);
      expect((await deliveriesOf(byChannel.id)).map((d) => [d.event_type, d.state])).toEqual([['integration.disconnected', 'pending']]);
      expect((await deliveriesOf(everything.id)).map((d) => d.event_type)).toEqual(['integration.disconnected', 'integration.disconnected']);
      expect(await deliveriesOf(disabled.id)).toEqual([]);
      expect(await deliveriesOf(other.id)).toEqual([]);
      const [payload] = await sqlRows<{ payload: { integration: { id: string } } }>(
        'SELECT e.payload FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.webhook_id = $1',
        [byChannel.id],
      );
      expect(payload!.payload.integration.id).toBe(a.id);
    });
  });

  describe('errors', () => {
    it('refuses URLs that are not http(s), carry credentials or reach private addresses, naming url', async () => {
      const cases: [string, RegExp][] = [
        ['http://127.0.0.1/', /127\.0\.0\.1 is a private or reserved address/],
        ['http://10.0.0.1/', /10\.0\.0\.1 is a private or reserved address/],
        ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a private or reserved address/],
        ['http://[::1]/', /::1 is a private or reserved address/],
        ['http://[::ffff:127.0.0.1]/', /private or reserved address/],
        ['ftp://x', /only http and https URLs are allowed, not ftp/],
        ['http://user:pw@example.com/', /URLs with credentials are not allowed/],
        ['https://private.example/hook', /private\.example resolves to 10\.0\.0\.5, a private or reserved address/],
        ['https://mixed.example/hook', /mixed\.example resolves to 127\.0\.0\.1/],
        ['https://unknown.example/hook', /unknown\.example could not be resolved/],
        ['not a url', /not a valid URL/],
      ];
      for (const [url, reason] of cases) {
        const body = expectError(await create(acme, { name: 'Bad', url }), 400, 'VALIDATION_FAILED');
        expect(body.fields, url).toEqual([{ path: 'url', message: expect.stringMatching(reason) }]);
      }
      const hook = await created(acme);
      const body = expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/webhooks/${hook.id}`, payload: { url: 'http://192.168.1.1/' } }), 400, 'VALIDATION_FAILED');
      expect(body.fields).toEqual([{ path: 'url', message: expect.stringMatching(/192\.168\.1\.1 is a private/) }]);
      expect((await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${hook.id}` })).json<View>().url).toBe('https://hooks.example/in');
      const longUrl = `https://hooks.example/${'a'.repeat(2048)}`;
      expect(expectError(await create(acme, { name: 'Long', url: longUrl }), 400, 'VALIDATION_FAILED').fields![0]!.path).toBe('url');
    });

    it('unknown event types and channel ids are named; name is required', async () => {
      const channel = await createChannel(t, acme, 'bluesky');
      const otherOrgs = await createChannel(t, beta, 'bluesky');
      let body = expectError(await create(acme, { name: 'x', url: 'https://hooks.example/', events: ['post.published', 'post.exploded'] }), 400, 'VALIDATION_FAILED');
      expect(body.fields!.map((f) => f.path)).toEqual(['events.1']);
      body = expectError(await create(acme, { name: 'x', url: 'https://hooks.example/', events: ['webhook.test'] }), 400, 'VALIDATION_FAILED');
      expect(body.fields!.map((f) => f.path)).toEqual(['events.0']);
      body = expectError(await create(acme, { name: 'x', url: 'https://hooks.example/', integrations: [channel.id, otherOrgs.id, 'nope'] }), 400, 'VALIDATION_FAILED');
      expect(body.fields).toEqual([
        { path: 'integrations.1', message: `Unknown channel ${otherOrgs.id}` },
        { path: 'integrations.2', message: 'Unknown channel nope' },
      ]);
      const hook = await created(acme);
      body = expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/webhooks/${hook.id}`, payload: { integrations: ['nope'] } }), 400, 'VALIDATION_FAILED');
      expect(body.fields!.map((f) => f.path)).toEqual(['integrations.0']);
      body = expectError(await create(acme, { name: ' ', url: 'https://hooks.example/' }), 400, 'VALIDATION_FAILED');
      expect(body.fields).toEqual([{ path: 'name', message: 'Required' }]);
      body = expectError(await create(acme, { name: 'x'.repeat(101), url: 'https://hooks.example/' }), 400, 'VALIDATION_FAILED');
      expect(body.fields!.map((f) => f.path)).toEqual(['name']);
    });

    it('the plan limits how many webhooks an organisation has', async () => {
      const org = await t.createOrg('Free');
      await t.deps.services.organizations.setPlan(org.id, 'free');
      const first = await created(org);
      const body = expectError(await create(org, { name: 'Second', url: 'https://hooks.example/' }), 403, 'PLAN_LIMIT_REACHED');
      expect(body.message).toBe('Plan limit reached: webhooks — the "free" plan allows 1 webhooks and 1 are in use');
      await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/webhooks/${first.id}` });
      await created(org);
    });

    it('unknown ids answer 404; a bad page is named', async () => {
      const none = '00000000-0000-0000-0000-000000000000';
      expectError(await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${none}` }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: '/public/v1/webhooks/not-an-id', payload: { name: 'x' } }), 404, 'NOT_FOUND');
      const hook = await created(acme);
      expectError(await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${hook.id}/deliveries/${none}/resend` }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${hook.id}/deliveries/x/resend` }), 404, 'NOT_FOUND');
      const body = expectError(await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/webhooks/${hook.id}/deliveries?page=-1` }), 400, 'VALIDATION_FAILED');
      expect(body.fields![0]!.path).toBe('page');
    });
  });

  describe('security', () => {
    it("another organisation's webhook answers 404 on every id route", async () => {
      const hook = await created(acme);
      const { deliveryId } = await sendTest(acme, hook.id);
      const base = `/public/v1/webhooks/${hook.id}`;
      await expectIsolated(t.app, { method: 'GET', url: base }, acme, beta);
      await expectIsolated(t.app, { method: 'PUT', url: base, payload: { name: 'Mine now' } }, acme, beta);
      await expectIsolated(t.app, { method: 'POST', url: `${base}/rotate-secret` }, acme, beta);
      await expectIsolated(t.app, { method: 'POST', url: `${base}/test` }, acme, beta);
      await expectIsolated(t.app, { method: 'GET', url: `${base}/deliveries` }, acme, beta);
      await expectIsolated(t.app, { method: 'POST', url: `${base}/deliveries/${deliveryId}/resend` }, acme, beta);
      await expectIsolated(t.app, { method: 'DELETE', url: base }, acme, beta);
      const theirs = (await call(t.app, beta.apiKey, { method: 'GET', url: '/public/v1/webhooks' })).json<View[]>();
      expect(theirs.map((w) => w.id)).not.toContain(hook.id);
      expect(theirs.every((w) => w.name !== 'Mine now')).toBe(true);
    });

    it("a delivery of another webhook (same organisation or not) is not found through this one", async () => {
      const a = await created(acme);
      const b = await created(acme);
      const theirs = await created(beta);
      const ofB = await sendTest(acme, b.id);
      const ofBeta = await sendTest(beta, theirs.id);
      expectError(await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${a.id}/deliveries/${ofB.deliveryId}/resend` }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/webhooks/${a.id}/deliveries/${ofBeta.deliveryId}/resend` }), 404, 'NOT_FOUND');
      expect((await log(acme, a.id)).deliveries).toEqual([]);
    });
  });
});
