import dns from 'node:dns';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { runInNewContext } from 'node:vm';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { connectStates, instanceApps, integrations } from '../../db/schema/index.js';
import { startMastodonSimulator, type MastodonSimulator } from '../../platforms/mastodon/mastodon.simulator.js';
import { call, expectError, expectIsolated, type TestOrg, useTestApp } from '../../../test/helpers.js';

const INSTANCE = 'https://mastodon.example';

describe('connecting an OAuth channel through the API (mastodon: app registered per instance)', () => {
  let sim: MastodonSimulator;
  afterAll(async () => {
    await sim.close();
  });
  const { t, orgs: { acme, beta } } = useTestApp(async () => {
    sim = await startMastodonSimulator({ publicUrl: INSTANCE });
    sim.addAccount({ username: 'alice', display_name: 'Alice Example' });
    return { env: { PLATFORM_ORIGINS: `${INSTANCE}=${sim.origin}`, PUBLIC_URL: 'https://tidings.example' } };
  }, 'Acme', 'Beta');

  /** What the user's browser does: open the URL, approve at the platform, follow the redirect back. */
  async function approveAndReturn(url: string) {
    const res = await fetch(url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe('https://tidings.example/integrations/social/mastodon/callback');
    return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  }

  const begin = (org: TestOrg, query: string) => call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/social/mastodon?${query}` });

  it('GET /social/mastodon registers the app on the instance once and returns the authorisation URL (rewritten)', async () => {
    const res = await begin(acme, `instanceUrl=${encodeURIComponent('mastodon.example/@someone')}`);
    expect(res.statusCode).toBe(200);
    const url = new URL(res.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe('https://tidings.example/integrations/social/mastodon/callback');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')!.length).toBeGreaterThan(30);
    await begin(acme, `instanceUrl=${encodeURIComponent(INSTANCE)}`);
    expect(await t.deps.database.db.select().from(instanceApps)).toHaveLength(1);
    expect(sim.apps.size).toBe(1);
  });

  it('the callback exchanges the code, creates the channel and shows a page; the state works once', async () => {
    const { url } = (await begin(acme, `instanceUrl=${encodeURIComponent(INSTANCE)}`)).json<{ url: string }>();
    const back = await fetch(url, { redirect: 'manual' });
    const location = new URL(back.headers.get('location')!);
    const page = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('Alice Example');
    const list = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ identifier: string; name: string; profile: string }[]>();
    expect(list).toEqual([expect.objectContaining({ identifier: 'mastodon', name: 'Alice Example', profile: '@alice@mastodon.example' })]);
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, acme.id));
    expect(row!.instanceUrl).toBe(INSTANCE);
    expect(JSON.stringify(row)).not.toContain(location.searchParams.get('code')!);

    const replay = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` });
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('expired or was already used');
  });

  it('reconnecting (refresh=) updates the same channel and clears refreshNeeded; another org cannot target it', async () => {
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, acme.id));
    await t.deps.database.db.update(integrations).set({ refreshNeeded: true }).where(eq(integrations.id, row!.id));
    const { url } = (await begin(acme, `refresh=${row!.id}&instanceUrl=${encodeURIComponent(INSTANCE)}`)).json<{ url: string }>();
    expect((await approveAndReturn(url)).statusCode).toBe(200);
    const rows = await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, acme.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.refreshNeeded).toBe(false);
    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/social/mastodon?refresh=${row!.id}&instanceUrl=${encodeURIComponent(INSTANCE)}` }, acme, beta);
  });

  it('an expired state is refused; a denied authorisation is reported; nothing is created', async () => {
    const { url } = (await begin(beta, `instanceUrl=${encodeURIComponent(INSTANCE)}`)).json<{ url: string }>();
    const state = new URL(url).searchParams.get('state')!;
    await t.deps.database.db.update(connectStates).set({ expiresAt: new Date(Date.now() - 1000) });
    const expired = await t.app.inject({ method: 'GET', url: `/integrations/social/mastodon/callback?code=x&state=${state}` });
    expect(expired.statusCode).toBe(400);
    const second = (await begin(beta, `instanceUrl=${encodeURIComponent(INSTANCE)}`)).json<{ url: string }>();
    const denied = await t.app.inject({ method: 'GET', url: `/integrations/social/mastodon/callback?error=access_denied&error_description=The+user+said+no&state=${new URL(second.url).searchParams.get('state')!}` });
    expect(denied.statusCode).toBe(400);
    expect(denied.body).toContain('The user said no');
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, beta.id))).toHaveLength(0);
  });

  /** The page's inline script, run against a stand-in window (opener or not), and what it did. */
  function runPageScript(res: LightMyRequestResponse, opener: 'same-origin' | 'cross-origin' | 'none') {
    const nonce = /script-src 'nonce-([^']+)'/.exec(String(res.headers['content-security-policy']))![1]!;
    const script = new RegExp(`<script nonce="${nonce.replace(/[+/=]/g, (c) => `\\${c}`)}">([^<]*)</script>`).exec(res.body)![1]!;
    const attr = /<body data-message="([^"]*)"/.exec(res.body)![1]!;
    const posted: { message: unknown; origin: string }[] = [];
    const broadcast: unknown[] = [];
    let closed = false;
    const location = { origin: 'https://tidings.example' };
    const openerWindow =
      opener === 'none'
        ? null
        : {
            get location() {
              if (opener === 'cross-origin') throw new Error('SecurityError: cross-origin frame');
              return { origin: 'https://tidings.example' };
            },
            postMessage: (message: unknown, origin: string) => posted.push({ message, origin }),
          };
    const win = { opener: openerWindow, close: () => (closed = true) };
    const doc = { body: { getAttribute: (name: string) => (name === 'data-message' ? decodeEntities(attr) : null) } };
    class FakeChannel {
      constructor(readonly name: string) {}
      postMessage(m: unknown) {
        broadcast.push(m);
      }
      close() {}
    }
    runInNewContext(script, { window: win, document: doc, location, BroadcastChannel: FakeChannel });
    return { posted, broadcast, closed, message: JSON.parse(decodeEntities(attr)) as Record<string, unknown> };
  }

  it('the callback page tells the app window that opened it (same origin) and closes; without an opener it stays, with a link back', async () => {
    const { url } = (await begin(acme, `instanceUrl=${encodeURIComponent(INSTANCE)}`)).json<{ url: string }>();
    const res = await approveAndReturn(url);
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]{20,}'; style-src 'nonce-/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<a href="/channels">Back to your channels</a>');
    expect(res.body).toContain('is connected to Tidings. You can close this window.');
    // every inline element carries this response's nonce
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(res.body.match(/<(script|style)[^>]*>/g)!.every((tag) => tag.includes(`nonce="${nonce}"`))).toBe(true);

    const same = runPageScript(res, 'same-origin');
    const channel = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ id: string }[]>()[0]!;
    expect(same.message).toEqual({ type: 'tidings:connected', identifier: 'mastodon', integration: { id: channel.id, name: 'Alice Example', profile: '@alice@mastodon.example', identifier: 'mastodon' } });
    expect(same.posted).toEqual([{ message: same.message, origin: 'https://tidings.example' }]);
    expect(same.closed).toBe(true);
    expect(same.broadcast).toEqual([same.message]);

    const none = runPageScript(res, 'none');
    expect(none.posted).toEqual([]);
    expect(none.closed).toBe(false);
    const foreign = runPageScript(res, 'cross-origin');
    expect(foreign.posted).toEqual([]);
    expect(foreign.closed).toBe(false);

    // a new response, a new nonce
    const again = await approveAndReturn((await begin(acme, `instanceUrl=${encodeURIComponent(INSTANCE)}`)).json<{ url: string }>().url);
    expect(String(again.headers['content-security-policy'])).not.toContain(nonce);
  });

  it('a failed connection is reported to the opener with the code and message; names on the page are escaped', async () => {
    const failed = await t.app.inject({ method: 'GET', url: '/integrations/social/mastodon/callback?code=x&state=no-such-state' });
    expect(failed.statusCode).toBe(400);
    const run = runPageScript(failed, 'same-origin');
    expect(run.message).toMatchObject({ type: 'tidings:connect-failed', identifier: 'mastodon', code: 'VALIDATION_FAILED' });
    expect(String(run.message.message)).toContain('expired or was already used');
    expect(run.posted).toHaveLength(1);
    expect(run.closed).toBe(true);
    expect(failed.body).toContain('<a href="/channels">');

    const evil = sim.addAccount({ username: 'eve', display_name: `</script><img src=x onerror="alert(1)"> Eve & 'co'` });
    sim.signIn(evil.id);
    try {
      const { url } = (await begin(acme, `instanceUrl=${encodeURIComponent(INSTANCE)}`)).json<{ url: string }>();
      const res = await approveAndReturn(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('<img');
      // the page's own script is the only one closed
      expect(res.body.split('</script>')).toHaveLength(2);
      expect(res.body).toContain('&#60;/script&#62;&#60;img src=x onerror=&#34;alert(1)&#34;&#62; Eve &#38; &#39;co&#39;');
      const ran = runPageScript(res, 'same-origin');
      expect(ran.message).toMatchObject({ type: 'tidings:connected', integration: { name: `</script><img src=x onerror="alert(1)"> Eve & 'co'` } });
    } finally {
      sim.signIn([...sim.accounts.values()][0]!.id);
    }
  });

  it('names a missing or private instance', async () => {
    const missing = expectError(await begin(beta, ''), 400, 'VALIDATION_FAILED');
    expect(missing.fields![0]!.path).toBe('instanceUrl');
    const priv = expectError(await begin(beta, `instanceUrl=${encodeURIComponent('http://127.0.0.1:9')}`), 400, 'VALIDATION_FAILED');
    expect(priv.message).toMatch(/private or reserved/);
  });

  it('an instanceUrl that is not the address of a server is the caller\'s mistake: 400 naming it, with no DNS lookup', async () => {
    const lookups = vi.spyOn(dns.promises, 'lookup');
    try {
      for (const bad of ['not a URL', 'foo', 'localhost:x', 'http://', 'javascript:alert(1)', 'ftp://files.example.org', 'https://user:pw@mastodon.example', '%%%', 'a..b', '-x.example', '1.2.3.4.5', 'https://masto don.social', 'https://mastodon.social:99999']) {
        const res = expectError(await begin(beta, `instanceUrl=${encodeURIComponent(bad)}`), 400, 'VALIDATION_FAILED');
        expect(res.fields, bad).toEqual([{ path: 'instanceUrl', message: 'Must be the address of your instance, e.g. https://mastodon.social' }]);
      }
      expect(lookups).not.toHaveBeenCalled();
      // A well-formed name that does not exist is looked up, and answered as the caller's mistake too (not 502).
      const missing = expectError(await begin(beta, `instanceUrl=${encodeURIComponent('https://no-such-instance.invalid')}`), 400, 'VALIDATION_FAILED');
      expect(missing.fields).toEqual([{ path: 'instanceUrl', message: 'no-such-instance.invalid could not be found (no such host)' }]);
      expect(lookups).toHaveBeenCalledWith('no-such-instance.invalid', expect.anything());
    } finally {
      lookups.mockRestore();
    }
  });
});

describe('an instance the caller named that fails is the caller\'s problem: 400 naming instanceUrl, never 502', () => {
  let silent: Server;
  let failing: Server;
  const sockets = new Set<Socket>();
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([silent, failing].map((srv) => new Promise((r) => srv.close(r))));
  });

  const { t, orgs: { acme: org } } = useTestApp(async () => {
    // one that accepts and never answers, one that answers 503, and a port nobody listens on
    silent = createServer((s) => sockets.add(s));
    failing = createServer((s) => {
      s.once('data', () => s.end('HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\ndown'));
    });
    const listen = (srv: Server) => new Promise<number>((r) => srv.listen(0, '127.0.0.1', () => r((srv.address() as AddressInfo).port)));
    const [silentPort, failingPort, closedPort] = [await listen(silent), await listen(failing), await closedLoopbackPort()];
    return {
      env: {
        PLATFORM_TIMEOUT_SECONDS: '1',
        PLATFORM_ORIGINS: [`https://refused.example=http://127.0.0.1:${closedPort}`, `https://silent.example=http://127.0.0.1:${silentPort}`, `https://failing.example=http://127.0.0.1:${failingPort}`].join(','),
      },
    };
  }, 'Acme');

  it.each([
    ['refused.example', /refused\.example could not be reached/],
    ['silent.example', /silent\.example could not be reached: .*timed out/],
    ['failing.example', /failing\.example could not be reached/],
  ])('%s → 400 VALIDATION_FAILED on instanceUrl saying what happened; nothing stored', async (host, says) => {
    const res = expectError(await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/social/mastodon?instanceUrl=${encodeURIComponent(`https://${host}/`)}` }), 400, 'VALIDATION_FAILED');
    expect(res.fields).toHaveLength(1);
    expect(res.fields![0]!.path).toBe('instanceUrl');
    expect(res.fields![0]!.message).toMatch(says);
    expect(await t.deps.database.db.select().from(instanceApps)).toHaveLength(0);
    expect(await t.deps.database.db.select().from(connectStates)).toHaveLength(0);
  });
});

async function closedLoopbackPort(): Promise<number> {
  const srv = createServer();
  const port = await new Promise<number>((r) => srv.listen(0, '127.0.0.1', () => r((srv.address() as AddressInfo).port)));
  await new Promise((r) => srv.close(r));
  return port;
}

/** The page's numeric character references back to text (what the browser's parser does). */
function decodeEntities(s: string): string {
  return s.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
}
