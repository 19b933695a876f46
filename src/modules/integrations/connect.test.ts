import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { platformEnvPrefix } from '../../config.js';
import { integrations } from '../../db/schema/index.js';
import { PLATFORM_METADATA } from '../../platforms/metadata.js';
import { PLATFORM_IDENTIFIERS } from '../../platforms/platform.js';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from '../../platforms/bluesky/bluesky.simulator.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';
import { eventsOf } from '../../../test/factories.js';
import { EVENT_PAYLOAD_SCHEMAS } from '../../core/webhooks/event-schemas.js';
import { call, expectError, useTestApp } from '../../../test/helpers.js';
import { DISCORD } from '../../../test/oauth-apps.js';

const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';

describe('connecting channels through the API', () => {
  let sim: TelegramSimulator;
  let sky: BlueskySimulator;
  afterAll(async () => {
    await sim.close();
    await sky.close();
  });

  const { t, orgs: { acme } } = useTestApp(async () => {
    sim = await startTelegramSimulator();
    sim.addBot(TOKEN, { id: 123456, username: 'tidings_bot' });
    sim.addChat({ id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [123456] });
    sky = await startBlueskySimulator();
    sky.addAccount({ handle: 'acme.bsky.social', did: 'did:plc:acme123', password: 'app-pass-1234', displayName: 'Acme on Bluesky' });
    const origins = [`https://api.telegram.org=${sim.origin}`, ...[BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO].map((o) => `${o}=${sky.origin}`)];
    return { env: { PLATFORM_ORIGINS: origins.join(',') } };
  }, 'Acme');

  const rows = () => t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, acme.id));

  it('GET /social/{credential platform} answers the JSON Schema of the body to post', async () => {
    const res = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/social/telegram' });
    const body = res.json<{ url: null; credentials: { required: string[]; properties: Record<string, unknown> } }>();
    expect(body.url).toBeNull();
    expect(body.credentials.required.sort()).toEqual(['botToken', 'chatId']);
    const bsky = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/social/bluesky' })).json<{ credentials: { properties: { service: { default: string } } } }>();
    expect(bsky.credentials.properties.service.default).toBe('https://bsky.social');
  });

  it('POST /social/telegram verifies with the platform, stores encrypted credentials and answers 201', async () => {
    const res = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acmenews' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'telegram', name: 'Acme News', profile: 'acmenews', disabled: false, refreshNeeded: false });
    expect(res.body).not.toContain(TOKEN.split(':')[1]!);
    const [row] = await rows();
    expect(row!.internalId).toBe('-1001234567890');
    expect(row!.credentials).not.toContain(TOKEN);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toMatchObject({ botToken: TOKEN, chatId: '-1001234567890' });
    expect((await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/is-connected' })).json()).toEqual({ connected: true });
  });

  it('connecting the same account again updates the one channel and clears refreshNeeded', async () => {
    const [before] = await rows();
    await t.deps.database.db.update(integrations).set({ refreshNeeded: true, name: 'old name' }).where(eq(integrations.id, before!.id));
    const res = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '-1001234567890' } });
    expect(res.json()).toMatchObject({ id: before!.id, name: 'Acme News', refreshNeeded: false });
    expect(await rows()).toHaveLength(1);
    // integration.connected, in the same transaction as the channel: once as new, once as a reconnect.
    const connected = (await eventsOf(t, acme.id)).filter((e) => e.type === 'integration.connected');
    expect(connected.map((e) => e.payload)).toEqual([
      { integration: { id: before!.id, identifier: 'telegram', name: 'Acme News' }, reconnected: false, connectedAt: expect.any(String) },
      { integration: { id: before!.id, identifier: 'telegram', name: 'Acme News' }, reconnected: true, connectedAt: expect.any(String) },
    ]);
    for (const e of connected) EVENT_PAYLOAD_SCHEMAS['integration.connected'].strict().parse(e.payload);
  });

  it('POST /social/telegram?refresh={id} reconnects the channel named with new credentials, never a second channel', async () => {
    const [before] = await rows();
    await t.deps.database.db.update(integrations).set({ refreshNeeded: true }).where(eq(integrations.id, before!.id));
    // The bot token was revoked and a new one issued for the same bot; the client names the channel.
    const rotated = '123456:ZZyyXXwwVVuuTTssRRqqPPooNNmmLLkkJJ';
    sim.addBot(rotated, { id: 123456, username: 'tidings_bot' });
    const res = await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/social/telegram?refresh=${before!.id}`, payload: { botToken: rotated, chatId: '@acmenews' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ id: before!.id, refreshNeeded: false });
    const after = await rows();
    expect(after).toHaveLength(1);
    expect(JSON.parse(t.deps.secretBox.open(after[0]!.credentials!))).toMatchObject({ botToken: rotated });
    // Credentials for another chat do not turn this channel into another account, nor make a second one.
    sim.addChat({ id: -1009999999999, title: 'Other Chat', username: 'otherchat', admins: [123456] });
    const other = await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/social/telegram?refresh=${before!.id}`, payload: { botToken: rotated, chatId: '@otherchat' } });
    expect(expectError(other, 409, 'CONFLICT').message).toContain('reconnect it with that account');
    expect(await rows()).toHaveLength(1);
    // A channel of another platform, of another organisation, or no channel at all: 404, nothing stored.
    const beta = await t.createOrg('Beta refresh');
    for (const [org, refresh] of [[acme, '00000000-0000-4000-8000-000000000000'], [acme, 'nope'], [beta, before!.id]] as const) {
      expectError(await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/social/telegram?refresh=${refresh}`, payload: { botToken: rotated, chatId: '@acmenews' } }), 404, 'NOT_FOUND');
    }
    const sky = (await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/social/bluesky?refresh=${before!.id}`, payload: { identifier: 'acme.bsky.social', password: 'app-pass-1234' } }));
    expectError(sky, 404, 'NOT_FOUND');
    expect(await rows()).toHaveLength(1);
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, beta.id))).toHaveLength(0);
  });

  it('bad credentials → 400 naming the field, nothing stored', async () => {
    const org = await t.createOrg('Fresh');
    const badToken = expectError(
      await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: '999:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ', chatId: '@acmenews' } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(badToken.fields![0]!.path).toBe('botToken');
    const badChat = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@nowhere' } }), 400, 'VALIDATION_FAILED');
    expect(badChat.fields![0]!.path).toBe('chatId');
    const malformed = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { chatId: 5 } }), 400, 'VALIDATION_FAILED');
    expect(malformed.fields!.map((f) => f.path).sort()).toEqual(['botToken', 'chatId']);
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('a platform that is down → 502, nothing stored', async () => {
    const org = await t.createOrg('Down');
    sim.inject({ path: /getMe/, status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });
    expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acmenews' } }), 502, 'PLATFORM_UNREACHABLE');
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('the plan limit on channels answers 403; reconnecting an existing channel is still allowed', async () => {
    await t.deps.services.organizations.setPlan(acme.id, 'free');
    await t.deps.repositories.integrations.insertIntegration({ organizationId: acme.id, identifier: 'x', internalId: 'x1', name: 'X 1' });
    await t.deps.repositories.integrations.insertIntegration({ organizationId: acme.id, identifier: 'x', internalId: 'x2', name: 'X 2' });
    sim.addChat({ id: -100777, title: 'Second', admins: [123456] });
    const over = expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '-100777' } }), 403, 'PLAN_LIMIT_REACHED');
    expect(over.message).toContain('channels');
    const again = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acmenews' } });
    expect(again.statusCode).toBe(201);
  });

  it('bluesky: an app-password login with service defaulting to bsky.social; a wrong password names the field', async () => {
    const org = await t.createOrg('Sky');
    const bad = expectError(
      await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: 'acme.bsky.social', password: 'wrong' } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(bad.fields![0]!.path).toBe('password');
    // A service host that does not exist is the user's mistake in that field, not a 502.
    const nowhere = expectError(
      await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: 'acme.bsky.social', password: 'app-pass-1234', service: 'https://no-such-host.invalid' } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(nowhere.fields![0]!.path).toBe('service');
    expect(nowhere.message).toContain('no-such-host.invalid could not be found');
    const ok = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: 'acme.bsky.social', password: 'app-pass-1234' } });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ identifier: 'bluesky', name: 'Acme on Bluesky', profile: 'acme.bsky.social' });
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id));
    expect(row!.internalId).toBe('did:plc:acme123');
    expect(row!.tokenExpiresAt).not.toBeNull();
    expect(row!.credentials).not.toContain('app-pass-1234');
  });

  it('an unknown platform is named; an OAuth platform without its app says which variables to set', async () => {
    const unknown = expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/social/myspace' }), 400, 'VALIDATION_FAILED');
    expect(unknown.fields).toEqual([{ path: 'identifier', message: 'Unknown platform' }]);
    const gmb = expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/social/gmb' }), 400, 'PLATFORM_APP_NOT_CONFIGURED');
    expect(gmb.message).toContain('GMB_CLIENT_ID and GMB_CLIENT_SECRET');
  });
});

describe('every identifier of the API can be connected', () => {
  // Every OAuth platform's app configured (nothing is called: the authorisation URL is built locally).
  const apps = Object.fromEntries(
    PLATFORM_IDENTIFIERS.filter((id) => PLATFORM_METADATA[id].authKind === 'oauth2').flatMap((id) => [
      [`${platformEnvPrefix(id)}_CLIENT_ID`, `client-${id}`],
      [`${platformEnvPrefix(id)}_CLIENT_SECRET`, `secret-${id}`],
    ]),
  );
  const { t, orgs: { everywhere: org } } = useTestApp({ env: { ...apps, DISCORD_BOT_TOKEN: DISCORD.botToken } }, 'Everywhere');

  it.each(PLATFORM_IDENTIFIERS.filter((id) => PLATFORM_METADATA[id].authKind !== 'instance-oauth2'))('GET /social/%s answers the connect form or the authorisation URL', async (id) => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/social/${id}` });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ url: string | null; credentials?: { properties: Record<string, unknown> } }>();
    if (PLATFORM_METADATA[id].authKind === 'credentials') {
      expect(body.url).toBeNull();
      expect(Object.keys(body.credentials!.properties).length).toBeGreaterThan(0);
    } else {
      expect(new URL(body.url!).protocol).toBe('https:');
      expect(body.url).toContain(encodeURIComponent(`/integrations/social/${id}/callback`));
    }
  });
});
