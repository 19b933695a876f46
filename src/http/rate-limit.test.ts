import { describe, expect, it } from 'vitest';
import { call, expectError, manualClock, useTestApp } from '../../test/helpers.js';

const URL = '/public/v1/integrations';
const WINDOW = 3600;

describe('rate limit (API.md §8): sliding log per organisation', () => {
  const clock = manualClock();

  const { t, orgs: { acme, beta } } = useTestApp({ clock, env: { API_RATE_LIMIT: '3', API_RATE_WINDOW_SECONDS: String(WINDOW) } }, 'Acme', 'Beta');

  const get = (key: string, url = URL) => call(t.app, key, { method: 'GET', url });

  it('counts every route and credential of the organisation together, with headers on every answer', async () => {
    const start = clock.now();
    const second = (await t.deps.services.organizations.createApiKey(acme.id, 'second')).apiKey;

    const r1 = await get(acme.apiKey);
    expect(r1.statusCode).toBe(200);
    expect(r1.headers).toMatchObject({
      'ratelimit-limit': '3',
      'ratelimit-remaining': '2',
      'ratelimit-reset': String(WINDOW),
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': String(WINDOW),
    });

    clock.advance(10_000);
    // A request that fails validation still counts (it was admitted), and carries the headers.
    const r2 = await get(second, '/public/v1/notifications?page=x');
    expectError(r2, 400, 'VALIDATION_FAILED');
    expect(r2.headers['ratelimit-remaining']).toBe('1');
    expect(r2.headers['ratelimit-reset']).toBe(String(WINDOW - 10));

    clock.advance(10_000);
    const r3 = await get(acme.apiKey, '/public/v1/groups');
    expect(r3.statusCode).toBe(200);
    expect(r3.headers['ratelimit-remaining']).toBe('0');

    // The limit+1-th request is refused until the oldest leaves the window.
    clock.advance(10_000);
    const r4 = await get(second);
    expectError(r4, 429, 'RATE_LIMITED');
    expect(r4.headers['retry-after']).toBe(String(WINDOW - 30));
    expect(r4.headers['ratelimit-remaining']).toBe('0');
    expect(r4.headers['x-ratelimit-reset']).toBe(String(WINDOW - 30));

    // Other organisations have their own budget.
    expect((await get(beta.apiKey)).headers['ratelimit-remaining']).toBe('2');

    // One millisecond before the oldest leaves: still refused (and rejections were not counted).
    clock.set(start + WINDOW * 1000 - 1);
    const r5 = await get(acme.apiKey);
    expectError(r5, 429, 'RATE_LIMITED');
    expect(r5.headers['retry-after']).toBe('1');

    // Exactly when it leaves: admitted, and only that one slot was freed.
    clock.set(start + WINDOW * 1000);
    const r6 = await get(acme.apiKey);
    expect(r6.statusCode).toBe(200);
    expect(r6.headers['ratelimit-remaining']).toBe('0');
    expect(r6.headers['ratelimit-reset']).toBe('10');
    expectError(await get(acme.apiKey), 429, 'RATE_LIMITED');
  });

  it("uses the plan's rate limit when the plan sets one", async () => {
    const org = await t.createOrg('Pro');
    await t.deps.services.organizations.setPlan(org.id, 'pro');
    const r = await get(org.apiKey);
    expect(r.headers['ratelimit-limit']).toBe('300');
    expect(r.headers['ratelimit-remaining']).toBe('299');
  });

  it('does not rate-limit unauthenticated answers or health checks', async () => {
    const r = await get('tdk_unknown');
    expectError(r, 401, 'AUTH_INVALID');
    expect(r.headers['ratelimit-limit']).toBeUndefined();
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
