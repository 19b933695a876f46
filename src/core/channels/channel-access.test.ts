import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { integrations, posts } from '../../db/schema/index.js';
import { PLATFORM_METADATA } from '../../platforms/metadata.js';
import { PlatformError, type PlatformAdapter } from '../../platforms/platform.js';
import { call, expectError, expectIsolated, manualClock, useTestApp } from '../../../test/helpers.js';

/**
 * A small stateful token service standing in for a platform with expiring, rotating tokens: the
 * lifecycle under test (refresh ahead, refresh on expiry, give up and notify) is ours, not the
 * platform's. Platform-faithful refresh is covered by each OAuth adapter's contract suite.
 */
function rotatingTokenPlatform() {
  const state = { valid: new Set<string>(['access-0']), refreshToken: 'refresh-0', revoked: false, refreshCalls: 0, n: 0 };
  const adapter: PlatformAdapter = {
    metadata: { ...PLATFORM_METADATA.x, tools: [{ methodName: 'whoami', description: 'echo', dataSchema: z.object({ shout: z.boolean().optional() }) }] },
    validate: () => [],
    publish: () => Promise.reject(new PlatformError('unsupported', 'not here')),
    async refresh(ctx) {
      state.refreshCalls++;
      const c = ctx.credentials as { refreshToken: string };
      if (state.revoked || c.refreshToken !== state.refreshToken) throw new PlatformError('reconnect_required', 'invalid_grant');
      state.n++;
      state.refreshToken = `refresh-${state.n}`;
      state.valid = new Set([`access-${state.n}`]);
      return { credentials: { accessToken: `access-${state.n}`, refreshToken: state.refreshToken }, expiresAt: new Date(ctx.clock.now() + 3600_000) };
    },
    async runTool(_name, data, ctx) {
      const c = ctx.credentials as { accessToken: string };
      if (!state.valid.has(c.accessToken)) throw new PlatformError('auth_expired', 'token expired');
      return { token: c.accessToken, data };
    },
    async analytics(days, ctx) {
      const c = ctx.credentials as { accessToken: string };
      if (!state.valid.has(c.accessToken)) throw new PlatformError('auth_expired', 'token expired');
      return [{ label: 'Followers', percentageChange: 0, data: [{ total: 10 + state.n, date: new Date(ctx.clock.now()).toISOString().slice(0, 10) }] }];
    },
  };
  return { adapter, state };
}

describe('channel access: token lifecycle, tools and analytics routes', () => {
  const clock = manualClock();
  const platform = rotatingTokenPlatform();
  const { t, orgs: { acme, beta } } = useTestApp({ clock }, 'Acme', 'Beta');

  beforeAll(() => {
    t.deps.adapters.x = platform.adapter;
  });

  async function channel(expiresInMs: number, accessToken = 'access-0', refreshToken = 'refresh-0') {
    return t.deps.repositories.integrations.insertIntegration({
      organizationId: acme.id,
      identifier: 'x',
      internalId: `u-${Math.random()}`,
      name: 'Acme X',
      credentials: t.deps.secretBox.seal(JSON.stringify({ accessToken, refreshToken })),
      tokenExpiresAt: new Date(clock.now() + expiresInMs),
    });
  }
  const trigger = (key: string, id: string, body: Record<string, unknown>) => call(t.app, key, { method: 'POST', url: `/public/v1/integration-trigger/${id}`, payload: body });
  const stored = async (id: string) => {
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, id));
    return { row: row!, creds: JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { accessToken: string; refreshToken: string } };
  };

  it('runs a tool with valid credentials; validates its data by path; unknown tools 404', async () => {
    const ch = await channel(3600_000);
    const ok = await trigger(acme.apiKey, ch.id, { methodName: 'whoami', data: { shout: true } });
    expect(ok.json()).toEqual({ output: { token: 'access-0', data: { shout: true } } });
    const bad = expectError(await trigger(acme.apiKey, ch.id, { methodName: 'whoami', data: { shout: 'yes' } }), 400, 'VALIDATION_FAILED');
    expect(bad.fields![0]!.path).toBe('data.shout');
    expectError(await trigger(acme.apiKey, ch.id, { methodName: 'nope' }), 404, 'NOT_FOUND');
    expect(platform.state.refreshCalls).toBe(0);
  });

  it('refreshes a token that expires within 5 minutes before using it, and stores the rotated tokens', async () => {
    const ch = await channel(60_000);
    const res = await trigger(acme.apiKey, ch.id, { methodName: 'whoami' });
    expect(res.json<{ output: { token: string } }>().output.token).toBe(`access-${platform.state.n}`);
    const { row, creds } = await stored(ch.id);
    expect(creds).toEqual({ accessToken: `access-${platform.state.n}`, refreshToken: platform.state.refreshToken });
    expect(row.tokenExpiresAt!.getTime()).toBe(clock.now() + 3600_000);
  });

  it('refreshes once on auth_expired and retries', async () => {
    const ch = await channel(3600_000, 'stale-token', platform.state.refreshToken);
    const before = platform.state.refreshCalls;
    const res = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/analytics/${ch.id}?date=7` });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ label: string }[]>()[0]!.label).toBe('Followers');
    expect(platform.state.refreshCalls).toBe(before + 1);
  });

  it('a failed refresh marks the channel refreshNeeded, notifies once, and answers 409', async () => {
    const ch = await channel(3600_000, 'stale-token', 'refresh-revoked');
    const res = await trigger(acme.apiKey, ch.id, { methodName: 'whoami' });
    expectError(res, 409, 'CHANNEL_NEEDS_RECONNECT');
    const { row } = await stored(ch.id);
    expect(row.refreshNeeded).toBe(true);
    expectError(await trigger(acme.apiKey, ch.id, { methodName: 'whoami' }), 409, 'CHANNEL_NEEDS_RECONNECT');
    const n = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/notifications' })).json<{ notifications: { content: string }[] }>();
    expect(n.notifications.filter((x) => x.content.startsWith('Channel Acme X (x) must be reconnected'))).toHaveLength(1);
  });

  it('a refresh that lost a race uses the winner’s stored tokens instead of giving up', async () => {
    const ch = await channel(60_000, 'stale-token', 'refresh-old-rotated-away');
    // Another process already refreshed and stored valid tokens.
    await platform.adapter.refresh!({ credentials: { refreshToken: platform.state.refreshToken }, clock, http: { request: () => Promise.reject(new Error('unused')) }, logger: console, signal: new AbortController().signal, openMedia: () => Promise.reject(new Error('unused')) });
    await t.deps.database.db
      .update(integrations)
      .set({ credentials: t.deps.secretBox.seal(JSON.stringify({ accessToken: `access-${platform.state.n}`, refreshToken: platform.state.refreshToken })) })
      .where(eq(integrations.id, ch.id));
    // This request read the row before that write: simulate by running access on the old row.
    const oldRow = { ...(await stored(ch.id)).row, credentials: t.deps.secretBox.seal(JSON.stringify({ accessToken: 'stale-token', refreshToken: 'refresh-old-rotated-away' })) };
    const out = await t.deps.access.run(oldRow, (a, ctx) => a.runTool!('whoami', {}, ctx));
    expect(out).toMatchObject({ token: `access-${platform.state.n}` });
    expect((await stored(ch.id)).row.refreshNeeded).toBe(false);
  });

  it('analytics: [] for platforms that report none; post analytics: missing / [] ', async () => {
    const tg = await t.deps.repositories.integrations.insertIntegration({ organizationId: acme.id, identifier: 'telegram', internalId: '-100', name: 'TG', credentials: t.deps.secretBox.seal('{}') });
    expect((await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/analytics/${tg.id}?date=30` })).json()).toEqual([]);
    const [missing, unpublished] = await t.deps.database.db
      .insert(posts)
      .values([
        { organizationId: acme.id, integrationId: tg.id, group: 'a', publishDate: new Date(clock.now()), state: 'PUBLISHED', releaseId: 'missing' },
        { organizationId: acme.id, integrationId: tg.id, group: 'b', publishDate: new Date(clock.now()), state: 'QUEUE' },
      ])
      .returning();
    expect((await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${missing!.id}?date=7` })).json()).toEqual({ missing: true });
    expect((await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${unpublished!.id}?date=7` })).json()).toEqual([]);
    const bad = expectError(await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/analytics/${tg.id}` }), 400, 'VALIDATION_FAILED');
    expect(bad.fields![0]!.path).toBe('date');

    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/analytics/${tg.id}?date=7` }, acme, beta);
    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/analytics/post/${missing!.id}?date=7` }, acme, beta);
    const ch = await channel(3600_000, `access-${platform.state.n}`, platform.state.refreshToken);
    await expectIsolated(t.app, { method: 'POST', url: `/public/v1/integration-trigger/${ch.id}`, payload: { methodName: 'whoami' } }, acme, beta);
  });
});
