import { asc, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { notifications, webhookAttempts, webhookDeliveries, webhooks, workerHeartbeats } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { createSecretBox } from '../../lib/secret-box.js';
import { emitEvent, type EventType } from '../../core/events/events.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { createChannel, eventsOf, realtimeManualClock, waitFor } from '../../../test/factories.js';
import { WEBHOOK_RETRY_DELAYS_MS, retryDelayMs } from './delivery.js';
import { answer, answerInTurn, neverAnswer, newWebhookSecret, startReceiver, type Receiver, type Responder } from '../../core/webhooks/receiver.testkit.js';

const PRIVATE_OK = { ALLOW_PRIVATE_TARGETS: 'true' };

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function app(opts: { env?: Record<string, string>; clock?: ManualClock; startWorker?: boolean } = {}) {
  const clock = opts.clock ?? realtimeManualClock();
  const t = await buildTestApp({ clock, env: opts.env ?? PRIVATE_OK, startWorker: opts.startWorker });
  cleanups.push(() => t.close());
  const org = await t.createOrg();
  return { t, org, clock };
}

async function receiver(respond?: Responder) {
  const r = await startReceiver(respond);
  cleanups.push(() => r.close());
  return r;
}

async function createWebhook(
  t: TestApp,
  org: TestOrg,
  url: string,
  opts: { name?: string; secret?: string; previousSecret?: string; previousSecretExpiresAt?: Date; events?: string[] } = {},
) {
  const secret = opts.secret ?? newWebhookSecret();
  const [row] = await t.deps.database.db
    .insert(webhooks)
    .values({
      organizationId: org.id,
      name: opts.name ?? 'hook',
      url,
      events: opts.events ?? [],
      secret: t.deps.secretBox.seal(secret),
      previousSecret: opts.previousSecret ? t.deps.secretBox.seal(opts.previousSecret) : null,
      previousSecretExpiresAt: opts.previousSecretExpiresAt ?? null,
    })
    .returning();
  return { ...row!, plainSecret: secret };
}

function emit(t: TestApp, org: TestOrg, clock: ManualClock, type: EventType, payload: Record<string, unknown>, opts: { webhookId?: string; at?: Date } = {}) {
  return t.deps.database.db.transaction((tx) => emitEvent(tx, org.id, type, payload, opts.at ?? new Date(clock.now()), { webhookId: opts.webhookId }));
}

async function deliveriesOf(t: TestApp, webhookId: string) {
  return t.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(asc(webhookDeliveries.seq));
}

async function attemptsOf(t: TestApp, webhookId: string) {
  return t.deps.database.db.select().from(webhookAttempts).where(eq(webhookAttempts.webhookId, webhookId)).orderBy(asc(webhookAttempts.seq));
}

async function webhookRow(t: TestApp, id: string) {
  const [row] = await t.deps.database.db.select().from(webhooks).where(eq(webhooks.id, id));
  return row!;
}

function headersOf(r: Receiver, i: number): Record<string, string> {
  const h = r.requests[i]!.headers;
  return { 'webhook-id': String(h['webhook-id']), 'webhook-timestamp': String(h['webhook-timestamp']), 'webhook-signature': String(h['webhook-signature']) };
}

describe('webhook delivery: the request', () => {
  it('POSTs the event as JSON with Standard Webhooks headers that verify with the secret, and not with another', async () => {
    const { t, org, clock } = await app();
    const r = await receiver(answer(200, 'x'.repeat(2500)));
    const hook = await createWebhook(t, org, r.url);
    const eventId = await emit(t, org, clock, 'integration.disconnected', { integration: { id: 'i1', identifier: 'bluesky', name: 'B' } });

    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);

    expect(r.requests).toHaveLength(1);
    const req = r.requests[0]!;
    const [delivery] = await deliveriesOf(t, hook.id);
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Tidings-Webhooks/1');
    expect(req.headers['webhook-id']).toBe(delivery!.id);
    expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    expect(req.json).toEqual({
      id: eventId,
      type: 'integration.disconnected',
      timestamp: new Date(clock.now()).toISOString(),
      data: { integration: { id: 'i1', identifier: 'bluesky', name: 'B' } },
    });
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(hook.plainSecret).verify(req.body, headersOf(r, 0))).toEqual(req.json);
    expect(() => new Webhook(newWebhookSecret()).verify(req.body, headersOf(r, 0))).toThrow(/signature/i);
    // A body changed in transit does not verify either.
    expect(() => new Webhook(hook.plainSecret).verify(req.body.replace('bluesky', 'mastodon'), headersOf(r, 0))).toThrow();

    expect(delivery).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200, lastError: null, leaseOwner: null, leaseUntil: null, nextAttemptAt: null });
    const attempts = await attemptsOf(t, hook.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ deliveryId: delivery!.id, attempt: 1, statusCode: 200, error: null, nextAttemptAt: null, at: new Date(clock.now()) });
    // The log keeps the first 1,000 characters of the answer.
    expect(attempts[0]!.responseSnippet).toBe('x'.repeat(1000));
  });

  it('signs with both secrets while the previous one is valid, then with the new one only', async () => {
    const { t, org, clock } = await app();
    const r = await receiver();
    const previous = newWebhookSecret();
    const hook = await createWebhook(t, org, r.url, { previousSecret: previous, previousSecretExpiresAt: new Date(clock.now() + 60_000) });

    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    await t.deps.webhookDelivery.runOnce();
    const both = String(r.requests[0]!.headers['webhook-signature']).split(' ');
    expect(both).toHaveLength(2);
    expect(both.every((s) => s.startsWith('v1,'))).toBe(true);
    // A receiver that knows either secret accepts it (the standard tries every signature).
    expect(new Webhook(hook.plainSecret).verify(r.requests[0]!.body, headersOf(r, 0))).toBeTruthy();
    expect(new Webhook(previous).verify(r.requests[0]!.body, headersOf(r, 0))).toBeTruthy();

    clock.advance(61_000);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i2' } });
    await t.deps.webhookDelivery.runOnce();
    expect(r.requests).toHaveLength(2);
    const one = String(r.requests[1]!.headers['webhook-signature']).split(' ');
    expect(one).toHaveLength(1);
    expect(new Webhook(hook.plainSecret).verify(r.requests[1]!.body, headersOf(r, 1))).toBeTruthy();
    expect(() => new Webhook(previous).verify(r.requests[1]!.body, headersOf(r, 1))).toThrow(/signature/i);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const { t, org, clock } = await app();
    const r = await receiver((req, i, res) => (req.path === '/hook' ? answer(302, '', { location: '/elsewhere' }) : answer(200))(req, i, res));
    const hook = await createWebhook(t, org, r.url);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    await t.deps.webhookDelivery.runOnce();
    expect(r.requests.map((q) => q.path)).toEqual(['/hook']);
    const [d] = await deliveriesOf(t, hook.id);
    expect(d).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 302 });
    expect(d!.lastError).toMatch(/redirects are not followed/);
  });
  it('a secret this process cannot open is a failed attempt in the log, nothing sent', async () => {
    const { t, org, clock } = await app();
    const r = await receiver();
    const hook = await createWebhook(t, org, r.url);
    const foreign = createSecretBox('another-secret-0123456789abcdefghijklmnopqrstuvwxyz', []).seal(newWebhookSecret());
    await t.deps.database.db.update(webhooks).set({ secret: foreign }).where(eq(webhooks.id, hook.id));
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
    expect(r.requests).toHaveLength(0);
    const [a] = await attemptsOf(t, hook.id);
    expect(a).toMatchObject({ attempt: 1, statusCode: null });
    expect(a!.error).toMatch(/signing secret cannot be opened/);
    expect((await deliveriesOf(t, hook.id))[0]).toMatchObject({ state: 'pending', attempts: 1, leaseOwner: null });
  });
});

describe('webhook delivery: the address guard at send time', () => {
  it('refuses loopback without ALLOW_PRIVATE_TARGETS (literal and by name): failed attempts, nothing sent', async () => {
    const { t, org, clock } = await app({ env: {} });
    const r = await receiver();
    const literal = await createWebhook(t, org, r.url, { name: 'literal' });
    const byName = await createWebhook(t, org, r.url.replace('127.0.0.1', 'localhost'), { name: 'by name' });
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    expect(await t.deps.webhookDelivery.runOnce()).toBe(2);

    expect(r.requests).toHaveLength(0);
    for (const hook of [literal, byName]) {
      const [a] = await attemptsOf(t, hook.id);
      expect(a).toMatchObject({ attempt: 1, statusCode: null });
      expect(a!.error).toMatch(/private or reserved address/);
      const [d] = await deliveriesOf(t, hook.id);
      expect(d).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
      expect(d!.nextAttemptAt!.getTime()).toBeGreaterThan(clock.now());
    }
    expect((await attemptsOf(t, byName.id))[0]!.error).toMatch(/localhost resolves to/);
  });
});

describe('webhook delivery: retries and outcomes', () => {
  it('retries on the schedule with the same webhook-id and stops at the first 2xx; the log matches what the receiver saw', async () => {
    const { t, org, clock } = await app();
    const r = await receiver(answerInTurn(500, 500, 200));
    const hook = await createWebhook(t, org, r.url);
    const t0 = clock.now();
    await emit(t, org, clock, 'post.published', { postId: 'p1', rootPostId: 'p1' });

    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
    expect((await webhookRow(t, hook.id)).failingSince).toEqual(new Date(t0));
    // Not due before the first delay (5 s − 10 %).
    clock.advance(4_400);
    expect(await t.deps.webhookDelivery.runOnce()).toBe(0);
    const [first] = await attemptsOf(t, hook.id);
    const retryAt = first!.nextAttemptAt!.getTime();
    expect(retryAt).toBeGreaterThanOrEqual(t0 + 4_500);
    expect(retryAt).toBeLessThanOrEqual(t0 + 5_500);

    clock.set(retryAt);
    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
    const t1 = clock.now();
    const second = (await attemptsOf(t, hook.id))[1]!;
    expect(second.nextAttemptAt!.getTime() - t1).toBeGreaterThanOrEqual(0.9 * 5 * 60_000);
    expect(second.nextAttemptAt!.getTime() - t1).toBeLessThanOrEqual(1.1 * 5 * 60_000);
    clock.set(second.nextAttemptAt!.getTime() - 1_000);
    expect(await t.deps.webhookDelivery.runOnce()).toBe(0);
    clock.set(second.nextAttemptAt!.getTime());
    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
    const t2 = clock.now();

    // Stopped at the 2xx: nothing more, whatever the time.
    clock.advance(30 * 3_600_000);
    expect(await t.deps.webhookDelivery.runOnce()).toBe(0);

    expect(r.requests).toHaveLength(3);
    const [d] = await deliveriesOf(t, hook.id);
    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([d!.id, d!.id, d!.id]);
    expect(r.requests.map((q) => Number(q.headers['webhook-timestamp']))).toEqual([t0, t1, t2].map((x) => Math.floor(x / 1000)));
    // Same event, same bytes (the timestamp header differs, so the signatures do).
    expect(new Set(r.requests.map((q) => q.body)).size).toBe(1);
    expect(d).toMatchObject({ state: 'delivered', attempts: 3, lastStatus: 200, lastError: null, deliveredAt: new Date(t2) });

    const log = await attemptsOf(t, hook.id);
    expect(log.map((a) => ({ attempt: a.attempt, status: a.statusCode, snippet: a.responseSnippet, at: a.at.getTime(), error: a.error }))).toEqual([
      { attempt: 1, status: 500, snippet: 'answer 1', at: t0, error: 'answered 500' },
      { attempt: 2, status: 500, snippet: 'answer 2', at: t1, error: 'answered 500' },
      { attempt: 3, status: 200, snippet: 'answer 3', at: t2, error: null },
    ]);
    expect(log[2]!.nextAttemptAt).toBeNull();
    expect((await webhookRow(t, hook.id)).failingSince).toBeNull();
  });

  it('gives up after 8 attempts (the documented schedule, about 27.6 h)', async () => {
    const total = WEBHOOK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeCloseTo(27.6, 1);
    expect(retryDelayMs(1, () => 0)).toBe(4_500);
    expect(retryDelayMs(7, () => 0.999_999)).toBeGreaterThan(10 * 3_600_000 * 1.0999);
    expect(retryDelayMs(7, () => 0.999_999)).toBeLessThanOrEqual(10 * 3_600_000 * 1.1);
    expect(retryDelayMs(8)).toBeUndefined();

    const { t, org, clock } = await app();
    const r = await receiver(answer(503));
    const hook = await createWebhook(t, org, r.url);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    for (let i = 0; i < 8; i++) {
      expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
      // Keep the failing streak short of 24 h, so only the schedule decides.
      await t.deps.database.db.update(webhooks).set({ failingSince: new Date(clock.now()) }).where(eq(webhooks.id, hook.id));
      const [d] = await deliveriesOf(t, hook.id);
      if (d!.nextAttemptAt) clock.set(d!.nextAttemptAt.getTime());
    }
    clock.advance(48 * 3_600_000);
    expect(await t.deps.webhookDelivery.runOnce()).toBe(0);
    expect(r.requests).toHaveLength(8);
    const [d] = await deliveriesOf(t, hook.id);
    expect(d).toMatchObject({ state: 'failed', attempts: 8, lastStatus: 503, nextAttemptAt: null });
    expect((await attemptsOf(t, hook.id)).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('410 Gone disables the webhook at once: pending deliveries cancelled, a notification, webhook.disabled to the other webhooks', async () => {
    const { t, org, clock } = await app();
    const gone = await receiver(answer(410, 'gone'));
    const other = await receiver();
    const hook = await createWebhook(t, org, gone.url, { name: 'Old CRM' });
    const otherHook = await createWebhook(t, org, other.url, { name: 'Other' });
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    // A later event, not yet due, for the same webhook: cancelled by the disabling.
    await emit(t, org, clock, 'integration.disconnected', { integration: { id: 'i1' } }, { at: new Date(clock.now() + 3_600_000) });

    await t.deps.webhookDelivery.drain();

    expect(gone.requests).toHaveLength(1);
    const row = await webhookRow(t, hook.id);
    expect(row.enabled).toBe(false);
    expect(row.disabledReason).toMatch(/410 Gone/);
    expect((await deliveriesOf(t, hook.id)).map((d) => d.state)).toEqual(['failed', 'cancelled']);
    const notes = await t.deps.database.db.select().from(notifications).where(eq(notifications.organizationId, org.id));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.content).toContain('Old CRM');
    expect(notes[0]!.content).toMatch(/disabled/);

    const disabled = (await eventsOf(t, org.id)).filter((e) => e.type === 'webhook.disabled');
    expect(disabled).toEqual([{ type: 'webhook.disabled', payload: { webhook: { id: hook.id, name: 'Old CRM', url: gone.url }, reason: row.disabledReason } }]);
    // The other webhook got the first event and the disabling (the later event is not due yet).
    expect(other.requests.map((q) => q.json.type)).toEqual(['integration.connected', 'webhook.disabled']);
    expect(other.requests[1]!.json.data).toEqual({ webhook: { id: hook.id, name: 'Old CRM', url: gone.url }, reason: row.disabledReason });
    expect((await deliveriesOf(t, otherHook.id)).map((d) => d.state)).toEqual(['delivered', 'pending', 'delivered']);

    // Later events no longer reach it.
    clock.advance(2 * 3_600_000);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i2' } });
    await t.deps.webhookDelivery.drain();
    expect(gone.requests).toHaveLength(1);
  });

  it('disables a webhook whose deliveries have failed for 24 h (not before)', async () => {
    const { t, org, clock } = await app();
    const failing = await receiver(answer(500));
    const other = await receiver();
    const hook = await createWebhook(t, org, failing.url, { name: 'Flaky' });
    await createWebhook(t, org, other.url, { events: ['webhook.disabled'] });
    const t0 = clock.now();
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } }, { webhookId: hook.id });
    await t.deps.webhookDelivery.runOnce();
    expect((await webhookRow(t, hook.id)).failingSince).toEqual(new Date(t0));

    // 23 h later a new event fails too: still enabled, the streak still dates from t0.
    clock.set(t0 + 23 * 3_600_000);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i2' } }, { webhookId: hook.id });
    await t.deps.webhookDelivery.drain();
    expect(await webhookRow(t, hook.id)).toMatchObject({ enabled: true, failingSince: new Date(t0) });

    clock.set(t0 + 24 * 3_600_000 + 60_000);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i3' } }, { webhookId: hook.id });
    await t.deps.webhookDelivery.drain();
    const row = await webhookRow(t, hook.id);
    expect(row.enabled).toBe(false);
    expect(row.disabledReason).toMatch(/failing for 24 hours/);
    // The three due deliveries went out together; the first outcome disabled it, and the others,
    // still pending when their own outcomes came, had been cancelled with it.
    expect((await deliveriesOf(t, hook.id)).map((d) => d.state).sort()).toEqual(['cancelled', 'cancelled', 'failed']);
    expect(other.requests.map((q) => q.json.type)).toEqual(['webhook.disabled']);
    expect(other.requests[0]!.json.data).toMatchObject({ webhook: { id: hook.id, name: 'Flaky' } });
    const notes = await t.deps.database.db.select().from(notifications).where(eq(notifications.organizationId, org.id));
    expect(notes.map((n) => n.content)).toEqual([expect.stringContaining('Flaky')]);
  });

  it('a delivery whose webhook was disabled or deleted meanwhile is cancelled without sending', async () => {
    const { t, org, clock } = await app();
    const r = await receiver();
    const off = await createWebhook(t, org, r.url, { name: 'off' });
    const gone = await createWebhook(t, org, r.url, { name: 'deleted' });
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    await t.deps.database.db.update(webhooks).set({ enabled: false }).where(eq(webhooks.id, off.id));
    await t.deps.database.db.update(webhooks).set({ deletedAt: new Date(clock.now()) }).where(eq(webhooks.id, gone.id));
    await t.deps.webhookDelivery.drain();
    expect(r.requests).toHaveLength(0);
    for (const h of [off, gone]) {
      expect((await deliveriesOf(t, h.id)).map((d) => d.state)).toEqual(['cancelled']);
      expect(await attemptsOf(t, h.id)).toEqual([]);
    }
  });
});

describe('webhook delivery: ordering, isolation, crash safety', () => {
  it("keeps one post's events in order under retries, without holding back other posts", async () => {
    const { t, org, clock } = await app();
    let failedOnce = false;
    const r = await receiver((req, i, res) => {
      if (req.json.type === 'post.scheduled' && !failedOnce) {
        failedOnce = true;
        return answer(500)(req, i, res);
      }
      answer(200)(req, i, res);
    });
    const hook = await createWebhook(t, org, r.url);
    await emit(t, org, clock, 'post.scheduled', { postId: 'P', rootPostId: 'P' }); // A
    await emit(t, org, clock, 'post.published', { postId: 'P', rootPostId: 'P' }); // B, same post
    await emit(t, org, clock, 'post.published', { postId: 'Q', rootPostId: 'Q' }); // another post

    await t.deps.webhookDelivery.drain();
    expect(r.requests.map((q) => `${q.json.type}:${String(q.json.data.postId)}`).sort()).toEqual(['post.published:Q', 'post.scheduled:P']);
    // B waits while A is retrying, however often the worker looks.
    clock.advance(1_000);
    expect(await t.deps.webhookDelivery.runOnce()).toBe(0);
    expect((await deliveriesOf(t, hook.id)).map((d) => d.state)).toEqual(['pending', 'pending', 'delivered']);

    clock.advance(5_000);
    await t.deps.webhookDelivery.drain();
    expect(r.requests.slice(2).map((q) => `${q.json.type}:${String(q.json.data.postId)}`)).toEqual(['post.scheduled:P', 'post.published:P']);
    expect((await deliveriesOf(t, hook.id)).map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('a receiver that never answers does not delay deliveries to another webhook', async () => {
    const { t, org, clock } = await app({ env: { ...PRIVATE_OK, WEBHOOK_TIMEOUT_SECONDS: '4', WEBHOOK_CONCURRENCY: '6', WEBHOOK_CONCURRENCY_PER_WEBHOOK: '4' }, startWorker: true });
    const hang = await receiver(neverAnswer);
    const ok = await receiver();
    const slow = await createWebhook(t, org, hang.url);
    const fast = await createWebhook(t, org, ok.url);
    for (let i = 0; i < 10; i++) await emit(t, org, clock, 'integration.connected', { integration: { id: `i${i}` } }, { webhookId: slow.id });
    // The per-webhook limit (4) holds the hanging ones.
    await waitFor(async () => hang.requests.length >= 4, 10_000, 'the hanging receiver to hold its requests');

    const sentAt = Date.now();
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'x' } }, { webhookId: fast.id });
    await waitFor(async () => ok.requests.length === 1, 10_000, 'the other webhook to receive');
    expect(Date.now() - sentAt).toBeLessThan(2_500);
    // …while the first receiver is still hanging, within its per-webhook limit.
    expect(hang.hanging()).toBe(4);
    expect(hang.requests).toHaveLength(4);

    // The hung requests end as timeouts in the log and are retried later.
    const timedOut = await waitFor(async () => {
      const log = await attemptsOf(t, slow.id);
      return log.length >= 4 ? log : undefined;
    }, 15_000, 'the timeouts to be recorded');
    expect(timedOut.slice(0, 4).map((a) => ({ status: a.statusCode, error: a.error }))).toEqual(Array(4).fill({ status: null, error: 'no answer within 4 s' }));
    expect((await deliveriesOf(t, fast.id)).map((d) => d.state)).toEqual(['delivered']);
  });

  it("one webhook's backlog, larger than a lease's look-ahead, does not hide another webhook's due delivery", async () => {
    const { t, org, clock } = await app({ env: { ...PRIVATE_OK, WEBHOOK_TIMEOUT_SECONDS: '1', WEBHOOK_CONCURRENCY: '6', WEBHOOK_CONCURRENCY_PER_WEBHOOK: '4' } });
    const hang = await receiver(neverAnswer);
    const ok = await receiver();
    const slow = await createWebhook(t, org, hang.url);
    const fast = await createWebhook(t, org, ok.url);
    const at = new Date(clock.now());
    await t.deps.database.db.transaction(async (tx) => {
      for (let i = 0; i < 60; i++) await emitEvent(tx, org.id, 'integration.connected', { integration: { id: `i${i}` } }, at, { webhookId: slow.id });
      await emitEvent(tx, org.id, 'integration.connected', { integration: { id: 'x' } }, at, { webhookId: fast.id });
    });
    // One pass: the 4 slots of the slow webhook, and the other webhook's delivery behind its 60.
    expect(await t.deps.webhookDelivery.runOnce()).toBe(5);
    expect(hang.requests).toHaveLength(4);
    expect(ok.requests).toHaveLength(1);
    expect((await deliveriesOf(t, fast.id)).map((d) => d.state)).toEqual(['delivered']);
  });

  it('the running worker wakes on NOTIFY and delivers', async () => {
    const { t, org, clock } = await app({ startWorker: true });
    const r = await receiver();
    const hook = await createWebhook(t, org, r.url);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    await waitFor(async () => (await deliveriesOf(t, hook.id))[0]?.state === 'delivered', 10_000, 'delivered');
    expect(r.requests).toHaveLength(1);
  });

  it('DELETE /integrations/{id} reaches the running worker: integration.disconnected to the webhooks whose filters take it', async () => {
    const { t, org } = await app({ startWorker: true });
    const r = await receiver();
    const channel = await createChannel(t, org, 'bluesky', { name: 'My Bluesky' });
    const other = await createChannel(t, org, 'mastodon');
    const all = await createWebhook(t, org, r.url, { name: 'all' });
    const thisChannel = await createWebhook(t, org, `${r.url}?channel`, { name: 'this channel' });
    await t.deps.database.db.update(webhooks).set({ integrationIds: [channel.id] }).where(eq(webhooks.id, thisChannel.id));
    const otherChannel = await createWebhook(t, org, `${r.url}?other`, { name: 'other channel' });
    await t.deps.database.db.update(webhooks).set({ integrationIds: [other.id] }).where(eq(webhooks.id, otherChannel.id));

    const res = await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/integrations/${channel.id}` });
    expect(res.statusCode).toBe(200);

    await waitFor(async () => r.requests.length === 2, 10_000, 'two deliveries');
    expect(r.requests.map((q) => q.path).sort()).toEqual(['/hook', '/hook?channel']);
    for (const [i, q] of r.requests.entries()) {
      expect(q.json).toMatchObject({ type: 'integration.disconnected', data: { integration: { id: channel.id, identifier: 'bluesky', name: 'My Bluesky' } } });
      const secret = q.path === '/hook' ? all.plainSecret : thisChannel.plainSecret;
      expect(new Webhook(secret).verify(q.body, headersOf(r, i))).toEqual(q.json);
    }
    await waitFor(async () => (await deliveriesOf(t, all.id))[0]?.state === 'delivered', 10_000, 'recorded');
    expect(await deliveriesOf(t, otherChannel.id)).toEqual([]);
  });

  it('a delivery leased by a live worker waits for its lease to run out; one leased by a dead worker (no fresh heartbeat) is taken at once, with the same webhook-id', async () => {
    const { t, org, clock } = await app();
    const r = await receiver();
    const hook = await createWebhook(t, org, r.url);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    const [d] = await deliveriesOf(t, hook.id);
    const leaseTo = (owner: string) =>
      t.deps.database.db.update(webhookDeliveries).set({ leaseOwner: owner, leaseUntil: new Date(clock.now() + 60_000) }).where(eq(webhookDeliveries.id, d!.id));
    const beat = (owner: string) =>
      t.deps.database.db
        .insert(workerHeartbeats)
        .values({ workerId: owner, role: 'worker', beatAt: new Date(clock.now()) })
        .onConflictDoUpdate({ target: workerHeartbeats.workerId, set: { beatAt: new Date(clock.now()) } });

    // Another worker, alive (it beat just now), holds the lease: it is left to it until the lease runs out.
    await beat('live-worker');
    await leaseTo('live-worker');
    expect(await t.deps.webhookDelivery.runOnce()).toBe(0);
    clock.advance(10_000);
    await beat('live-worker');
    expect(await t.deps.webhookDelivery.runOnce()).toBe(0);
    clock.advance(51_000);
    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([d!.id]);

    // A worker whose last beat is older than the dead-worker limit: its lease is taken at once.
    await t.deps.database.db.update(webhookDeliveries).set({ state: 'pending', nextAttemptAt: new Date(clock.now()) }).where(eq(webhookDeliveries.id, d!.id));
    await beat('dead-worker');
    clock.advance(20_000);
    await leaseTo('dead-worker');
    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([d!.id, d!.id]);
    expect((await deliveriesOf(t, hook.id))[0]).toMatchObject({ state: 'delivered', leaseOwner: null });
  });

  it('in embedded mode a restarted worker takes its old incarnation’s leases at start; on PostgreSQL once that incarnation’s heartbeat is stale', async () => {
    const { t, org, clock } = await app();
    const r = await receiver();
    const hook = await createWebhook(t, org, r.url);
    await emit(t, org, clock, 'integration.connected', { integration: { id: 'i1' } });
    const [d] = await deliveriesOf(t, hook.id);
    await t.deps.database.db
      .update(webhookDeliveries)
      .set({ leaseOwner: 'previous-incarnation', leaseUntil: new Date(clock.now() + 60_000) })
      .where(eq(webhookDeliveries.id, d!.id));

    // The old incarnation beat just now: on PostgreSQL it is presumed alive for a while.
    await t.deps.database.db.insert(workerHeartbeats).values({ workerId: 'previous-incarnation', role: 'worker', beatAt: new Date(clock.now()) });
    await t.deps.webhookDelivery.start();
    if (t.deps.database.kind === 'pglite') {
      await waitFor(async () => r.requests.length === 1, 10_000, 'the delivery to be taken over');
    } else {
      expect(await t.deps.webhookDelivery.runOnce()).toBe(0);
      expect(r.requests).toHaveLength(0);
      clock.advance(16_000);
      t.deps.webhookDelivery.poke();
      await waitFor(async () => r.requests.length === 1, 10_000, 'the delivery to be taken over');
    }
    expect(r.requests[0]!.headers['webhook-id']).toBe(d!.id);
    await waitFor(async () => (await deliveriesOf(t, hook.id))[0]?.state === 'delivered', 10_000, 'delivered');
  });
});
