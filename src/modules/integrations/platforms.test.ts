import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PLATFORM_IDENTIFIERS } from '../../platforms/platform.js';
import { buildTestApp, call, expectError, type TestApp } from '../../../test/helpers.js';

/**
 * `GET /platforms`: which platforms this deployment can connect, and for those whose OAuth app
 * belongs to the deployment, what an administrator must register. Readiness follows the
 * variables that are set; values never appear.
 */

type Readiness = {
  identifier: string;
  name: string;
  authKind: string;
  ready: boolean;
  available: boolean;
  sandbox: boolean;
  setup: null | {
    app: string;
    variables: { name: string; set: boolean }[];
    missing: string[];
    callbackUrl: string;
    consoleUrl: string | null;
    docsPath: string;
    docsUrl: string | null;
  };
};

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});
afterAll(async () => {
  await t?.close();
});

async function list(env: Record<string, string>) {
  t = await buildTestApp({ env });
  const org = await t.createOrg();
  const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/platforms' });
  expect(res.statusCode).toBe(200);
  const body = res.json<Readiness[]>();
  return { body, byId: new Map(body.map((p) => [p.identifier, p])), raw: res.body };
}

describe('GET /platforms', () => {
  it('with SANDBOX=off: no platform offers a sandbox, and connecting a sandbox channel is refused', async () => {
    const { body } = await list({ SANDBOX: 'off' });
    expect(body.filter((p) => p.sandbox).map((p) => p.identifier)).toEqual([]);
    const org = await t!.createOrg('Off');
    const res = await call(t!.app, org.apiKey, { method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'x' } });
    expect(res.json<{ code: string; message: string }>()).toMatchObject({ code: 'PLATFORM_NOT_AVAILABLE', message: expect.stringMatching(/SANDBOX=off/) });
  });

  it('without any app variables: credential and per-instance platforms are ready, the 22 with a deployment app say what is missing', async () => {
    const { body, byId } = await list({ PUBLIC_URL: 'https://social.example.org/' });
    expect(body.map((p) => p.identifier)).toEqual([...PLATFORM_IDENTIFIERS]);

    expect(byId.get('bluesky')).toMatchObject({ name: 'Bluesky', authKind: 'credentials', ready: true, available: true, setup: null });
    expect(byId.get('mastodon')).toMatchObject({ authKind: 'instance-oauth2', ready: true, setup: null });
    expect(byId.get('telegram')).toMatchObject({ ready: true, setup: null });
    // every platform offers a sandbox here (SANDBOX is on by default)
    expect(body.filter((p) => !p.sandbox).map((p) => p.identifier)).toEqual([]);

    expect(byId.get('x')).toEqual({
      identifier: 'x',
      name: 'X',
      authKind: 'oauth2',
      instanceBased: false,
      ready: false,
      available: true,
      // not ready for live channels, but a sandbox channel needs no app
      sandbox: true,
      setup: {
        app: expect.stringContaining('OAuth 2.0'),
        variables: [
          { name: 'X_CLIENT_ID', set: false },
          { name: 'X_CLIENT_SECRET', set: false },
        ],
        missing: ['X_CLIENT_ID', 'X_CLIENT_SECRET'],
        // exactly what is pasted into the developer console: PUBLIC_URL without its trailing slash
        callbackUrl: 'https://social.example.org/integrations/social/x/callback',
        consoleUrl: 'https://developer.x.com/en/portal/dashboard',
        docsPath: 'docs/platforms.md#app-x',
        docsUrl: null,
      },
    });
    expect(byId.get('linkedin-page')?.setup).toMatchObject({
      missing: ['LINKEDIN_PAGE_CLIENT_ID', 'LINKEDIN_PAGE_CLIENT_SECRET'],
      callbackUrl: 'https://social.example.org/integrations/social/linkedin-page/callback',
    });
    expect(byId.get('discord')?.setup?.missing).toEqual(['DISCORD_CLIENT_ID', 'DISCORD_CLIENT_SECRET', 'DISCORD_BOT_TOKEN']);

    const needingSetup = body.filter((p) => !p.ready).map((p) => p.identifier);
    expect(needingSetup).toHaveLength(22);
    expect(body.filter((p) => p.setup !== null)).toHaveLength(22);
  });

  it('with the variables set: ready, nothing missing, and no value is ever shown', async () => {
    const { byId, raw } = await list({
      PUBLIC_URL: 'http://localhost:4123',
      DOCS_URL: 'https://git.example.org/tidings/blob/main/docs/',
      X_CLIENT_ID: 'x-client-id-VALUE',
      X_CLIENT_SECRET: 'x-client-secret-VALUE',
      DISCORD_CLIENT_ID: 'discord-id-VALUE',
      DISCORD_CLIENT_SECRET: 'discord-secret-VALUE',
      REDDIT_CLIENT_ID: 'reddit-id-VALUE',
    });
    expect(byId.get('x')).toMatchObject({
      ready: true,
      setup: {
        variables: [
          { name: 'X_CLIENT_ID', set: true },
          { name: 'X_CLIENT_SECRET', set: true },
        ],
        missing: [],
        callbackUrl: 'http://localhost:4123/integrations/social/x/callback',
        docsUrl: 'https://git.example.org/tidings/blob/main/docs/platforms.md#app-x',
      },
    });
    // Discord also needs its bot
    expect(byId.get('discord')).toMatchObject({ ready: false, setup: { missing: ['DISCORD_BOT_TOKEN'] } });
    // half an app is not an app
    expect(byId.get('reddit')).toMatchObject({
      ready: false,
      setup: { variables: [{ name: 'REDDIT_CLIENT_ID', set: true }, { name: 'REDDIT_CLIENT_SECRET', set: false }], missing: ['REDDIT_CLIENT_SECRET'] },
    });
    expect(byId.get('threads')).toMatchObject({ ready: false, setup: { callbackUrl: 'http://localhost:4123/integrations/social/threads/callback' } });
    expect(raw).not.toContain('VALUE');

    // connecting checks the same metadata: Discord's missing bot is named before anything starts
    const org = await t!.createOrg('Second');
    const discord = await call(t!.app, org.apiKey, { method: 'GET', url: '/public/v1/social/discord' });
    expect(expectError(discord, 400, 'PLATFORM_APP_NOT_CONFIGURED').message).toBe('Discord is not configured on this server: set DISCORD_BOT_TOKEN');
    const reddit = await call(t!.app, org.apiKey, { method: 'GET', url: '/public/v1/social/reddit' });
    expect(expectError(reddit, 400, 'PLATFORM_APP_NOT_CONFIGURED').message).toBe('Reddit is not configured on this server: set REDDIT_CLIENT_SECRET');
  });

  it('needs a credential', async () => {
    t = await buildTestApp();
    const res = await call(t.app, undefined, { method: 'GET', url: '/public/v1/platforms' });
    expect(res.statusCode).toBe(401);
  });
});
