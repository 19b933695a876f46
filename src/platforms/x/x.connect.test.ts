import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { startXSimulator, type XSimulator } from './x.simulator.js';

/** Connecting X through the public API and the OAuth callback, against the X simulator. */
describe('connecting an X channel through the API', () => {
  let sim: XSimulator;
  let t: TestApp;
  let acme: TestOrg;

  beforeAll(async () => {
    sim = await startXSimulator();
    sim.addClient({ clientId: 'cid', clientSecret: 'csecret' });
    sim.addUser({ id: '1460000000000000001', name: 'Acme Inc.', username: 'acme', profile_image_url: 'https://pbs.twimg.com/a.jpg' });
    sim.addUser({ id: '1460000000000000002', name: 'Someone Else', username: 'else' });
    t = await buildTestApp({
      env: { PLATFORM_ORIGINS: `https://x.com=${sim.origin},https://api.x.com=${sim.origin}`, X_CLIENT_ID: 'cid', X_CLIENT_SECRET: 'csecret', PUBLIC_URL: 'https://tidings.example' },
    });
    acme = await t.createOrg('Acme');
  });
  afterAll(async () => {
    await t.close();
    await sim.close();
  });

  /** Opens the authorisation URL (the simulator approves at once) and follows the callback. */
  async function authorise(url: string) {
    const res = await fetch(url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe('https://tidings.example/integrations/social/x/callback');
    return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  }

  it('GET /social/x → authorise → callback stores the channel with sealed tokens', async () => {
    const begun = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/social/x' });
    expect(begun.statusCode).toBe(200);
    const { url } = begun.json<{ url: string }>();
    expect(url.startsWith(sim.origin)).toBe(true);
    const page = await authorise(url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('X connected');
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, acme.id));
    expect(row).toMatchObject({ identifier: 'x', internalId: '1460000000000000001', name: 'Acme Inc.', profile: 'acme' });
    expect(row!.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 7000_000);
    const creds = JSON.parse(t.deps.secretBox.open(row!.credentials!)) as Record<string, unknown>;
    expect(creds).toMatchObject({ userId: '1460000000000000001', username: 'acme', accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect(row!.credentials).not.toContain(creds.accessToken as string);
  });

  it('reconnecting with another X account is refused', async () => {
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, acme.id));
    sim.approveAs('1460000000000000002');
    const begun = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/social/x?refresh=${row!.id}` });
    const page = await authorise(begun.json<{ url: string }>().url);
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('reconnect it with that account');
    sim.approveAs('1460000000000000001');
  });

  it('without X_CLIENT_ID/X_CLIENT_SECRET the server says which variables to set', async () => {
    const bare = await buildTestApp();
    try {
      const org = await bare.createOrg('Bare');
      const err = expectError(await call(bare.app, org.apiKey, { method: 'GET', url: '/public/v1/social/x' }), 400, 'PLATFORM_APP_NOT_CONFIGURED');
      expect(err.message).toContain('X_CLIENT_ID');
    } finally {
      await bare.close();
    }
  });
});
