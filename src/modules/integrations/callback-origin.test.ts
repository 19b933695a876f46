import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonSimulator, type MastodonSimulator } from '../../platforms/mastodon/mastodon.simulator.js';
import { signUp, type Browser } from '../../../test/browser.js';
import { call, useTestApp } from '../../../test/helpers.js';

const INSTANCE = 'https://mastodon.example';
/** PUBLIC_URL as it defaults: `localhost`, while the person's browser may be at 127.0.0.1. */
const PUBLIC = 'http://localhost:4567';
const OTHER = 'http://127.0.0.1:4567';

/**
 * One server, two addresses (issue 25 item 1): platforms send the browser back to the callback
 * at PUBLIC_URL (registered with them); a connection the app began at another address of the
 * server is finished at that address, where the page can reach the app's window.
 */
describe('the OAuth callback finishes at the address the person began at', () => {
  let sim: MastodonSimulator;
  let person: Browser;
  afterAll(async () => {
    await sim.close();
  });

  const { t, orgs: { beta: apiOrg } } = useTestApp(async () => {
    sim = await startMastodonSimulator({ publicUrl: INSTANCE });
    sim.addAccount({ username: 'alice', display_name: 'Alice Example' });
    return { env: { PLATFORM_ORIGINS: `${INSTANCE}=${sim.origin}`, PUBLIC_URL: PUBLIC, SIGNUP: 'open' } };
  }, 'Beta');
  beforeAll(async () => {
    person = await signUp(t.app, { email: 'greta@example.test', organization: 'Acme' });
  });

  /** The platform approves and sends the browser to PUBLIC_URL's callback: answers that path and query. */
  async function approve(url: string): Promise<string> {
    const res = await fetch(url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC}/integrations/social/mastodon/callback`);
    return `${back.pathname}${back.search}`;
  }
  const channelsOf = async (b: Browser) => (await b.get('/public/v1/integrations')).json<{ identifier: string; name: string }[]>();

  it('begun by the app at 127.0.0.1: the callback at PUBLIC_URL sends the browser on to 127.0.0.1 with the same query, which finishes', async () => {
    const begun = await person.get(`/public/v1/social/mastodon?instanceUrl=${encodeURIComponent(INSTANCE)}`, { host: '127.0.0.1:4567' });
    expect(begun.statusCode).toBe(200);
    const back = await approve(begun.json<{ url: string }>().url);

    const atPublic = await t.app.inject({ method: 'GET', url: back, headers: { host: 'localhost:4567' } });
    expect(atPublic.statusCode).toBe(303);
    expect(atPublic.headers.location).toBe(`${OTHER}${back}`);
    expect(atPublic.headers['referrer-policy']).toBe('no-referrer');
    // nothing is finished (nor the state used) at the wrong address
    expect(await channelsOf(person)).toEqual([]);

    const atOther = await t.app.inject({ method: 'GET', url: back, headers: { host: '127.0.0.1:4567' } });
    expect(atOther.statusCode).toBe(200);
    expect(atOther.body).toContain('Alice Example');
    expect(atOther.body).toContain('tidings:connected');
    expect(await channelsOf(person)).toEqual([expect.objectContaining({ identifier: 'mastodon', name: 'Alice Example' })]);

    // used up: the callback at PUBLIC_URL no longer sends anyone anywhere
    const replay = await t.app.inject({ method: 'GET', url: back, headers: { host: 'localhost:4567' } });
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('expired or was already used');
  });

  it('begun at PUBLIC_URL’s own address: finished at the callback, no redirect', async () => {
    const begun = await person.get(`/public/v1/social/mastodon?instanceUrl=${encodeURIComponent(INSTANCE)}`, { host: 'localhost:4567' });
    const back = await approve(begun.json<{ url: string }>().url);
    const res = await t.app.inject({ method: 'GET', url: back, headers: { host: 'localhost:4567' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Alice Example');
  });

  it('begun by an API caller (no browser session): finished at PUBLIC_URL, whatever address the caller used', async () => {
    const begun = await call(t.app, apiOrg.apiKey, { method: 'GET', url: `/public/v1/social/mastodon?instanceUrl=${encodeURIComponent(INSTANCE)}`, headers: { host: '127.0.0.1:4567' } });
    const back = await approve(begun.json<{ url: string }>().url);
    const res = await t.app.inject({ method: 'GET', url: back, headers: { host: 'localhost:4567' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Alice Example');
  });

  it('is no open redirect: a state the service did not hand out is refused where it lands', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/integrations/social/mastodon/callback?code=x&state=forged', headers: { host: 'evil.example' } });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).toContain('expired or was already used');
  });
});
