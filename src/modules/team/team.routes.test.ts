import { beforeAll, describe, expect, it } from 'vitest';
import { logIn, signUp, type Browser } from '../../../test/browser.js';
import { buildTestApp, call, expectError, manualClock, useTestApp } from '../../../test/helpers.js';

interface Me {
  user: { id: string; email: string; name: string; timezone: string | null };
  organization: { id: string; name: string; role: string };
  organizations: { id: string; name: string; role: string }[];
  csrfToken: string;
}

describe('the web app on the public API (session cookie)', () => {
  const clock = manualClock();
  let owner: Browser;
  let me: Me;
  let apiKey: string;

  const { t } = useTestApp({ clock, env: { API_RATE_LIMIT: '90', API_RATE_WINDOW_SECONDS: '3600', APP_RATE_LIMIT: '600', APP_RATE_WINDOW_SECONDS: '60', SIGNUP: 'invite' } });

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'owner@example.test', name: 'Olga', organization: 'Acme' });
    me = (await owner.api('GET', '/public/v1/me')).json<Me>();
    apiKey = (await t.deps.services.organizations.createApiKey(me.organization.id, 'script')).apiKey;
  });

  describe('happy', () => {
    it('GET /me: the person, the organisation the session works in, and the CSRF token', async () => {
      expect(me).toEqual({
        user: { id: expect.any(String), email: 'owner@example.test', name: 'Olga', timezone: null },
        organization: { id: expect.any(String), name: 'Acme', role: 'owner' },
        organizations: [{ id: me.organization.id, name: 'Acme', role: 'owner' }],
        csrfToken: expect.any(String),
      });
    });

    it('every route answers the session like the organisation’s key; writes need X-CSRF-Token', async () => {
      const made = await owner.api('POST', '/public/v1/groups', { name: 'From the app' });
      expect(made.statusCode).toBe(201);
      expect((await call(t.app, apiKey, { method: 'GET', url: '/public/v1/groups' })).json()).toEqual([made.json()]);
      const noToken = await owner.api('POST', '/public/v1/groups', { name: 'x' }, { csrf: null });
      expectError(noToken, 403, 'CSRF_FAILED');
      const wrong = await owner.api('POST', '/public/v1/groups', { name: 'x' }, { csrf: 'forged-token' });
      expectError(wrong, 403, 'CSRF_FAILED');
      const crossSite = await t.app.inject({ method: 'POST', url: '/public/v1/groups', payload: { name: 'x' }, headers: { cookie: `tidings_session=${owner.cookies.get('tidings_session')}`, 'x-csrf-token': me.csrfToken, 'sec-fetch-site': 'cross-site' } });
      expectError(crossSite, 403, 'CSRF_FAILED');
      // an ended session is a 401 naming the sign-in page
      const gone = await t.app.inject({ method: 'GET', url: '/public/v1/groups', headers: { cookie: 'tidings_session=not-a-session' } });
      expect(expectError(gone, 401, 'SESSION_REQUIRED').message).toContain('/account/login');
    });

    it('PUT /me: name and time zone (an IANA name), named when unknown', async () => {
      const res = await owner.api('PUT', '/public/v1/me', { timezone: 'Europe/Paris', name: 'Olga B.' });
      expect(res.json<Me>().user).toMatchObject({ timezone: 'Europe/Paris', name: 'Olga B.' });
      const bad = await owner.api('PUT', '/public/v1/me', { timezone: 'Mars/Olympus' });
      expect(expectError(bad, 400, 'VALIDATION_FAILED').fields).toEqual([{ path: 'timezone', message: expect.stringContaining('Unknown time zone') }]);
      expect((await owner.api('PUT', '/public/v1/me', { timezone: null })).json<Me>().user.timezone).toBeNull();
    });

    it('the app’s calls do not consume the organisation’s 90 per hour; an API key still gets its 429 at 91', async () => {
      clock.advance(3_600_001);
      for (let i = 0; i < 120; i++) {
        const res = await owner.api('GET', '/public/v1/integrations');
        expect(res.statusCode).toBe(200);
        if (i === 0) expect(res.headers['ratelimit-limit']).toBe('600');
        if (i % 50 === 49) clock.advance(61_000); // the app's own window is a minute
      }
      const statuses: number[] = [];
      for (let i = 0; i < 91; i++) statuses.push((await call(t.app, apiKey, { method: 'GET', url: '/public/v1/integrations' })).statusCode);
      expect(statuses.slice(0, 90).every((s) => s === 200)).toBe(true);
      expect(statuses[90]).toBe(429);
      // …and the app goes on
      expect((await owner.api('GET', '/public/v1/integrations')).statusCode).toBe(200);
      clock.advance(3_600_001);
    });

    it('members and invitations, API keys and approved apps as JSON', async () => {
      const inv = await owner.api('POST', '/public/v1/invitations', { email: 'ann@example.test', role: 'admin' });
      expect(inv.statusCode).toBe(201);
      const { link, invitation } = inv.json<{ link: string; invitation: { id: string } }>();
      const members = (await owner.api('GET', '/public/v1/members')).json<{ members: { email: string; role: string }[]; invitations: { id: string }[] }>();
      expect(members.members).toEqual([expect.objectContaining({ email: 'owner@example.test', role: 'owner' })]);
      expect(members.invitations.map((i) => i.id)).toEqual([invitation.id]);
      const ann = await signUp(t.app, { email: 'ann@example.test', invite: link.split('/').at(-1)! });
      const annMe = (await ann.api('GET', '/public/v1/me')).json<Me>();
      expect(annMe.organization).toMatchObject({ id: me.organization.id, role: 'admin' });
      expect((await owner.api('PUT', `/public/v1/members/${annMe.user.id}`, { role: 'member' })).json()).toEqual({ userId: annMe.user.id, role: 'member' });
      expectError(await ann.api('GET', '/public/v1/api-keys'), 403, 'FORBIDDEN');

      const key = await owner.api('POST', '/public/v1/api-keys', { name: 'CI' });
      expect(key.statusCode).toBe(201);
      const { apiKey: ci, key: row } = key.json<{ apiKey: string; key: { id: string; prefix: string } }>();
      expect(ci.startsWith(row.prefix)).toBe(true);
      expect((await owner.api('GET', '/public/v1/api-keys')).json<{ name: string }[]>().map((k) => k.name)).toEqual(['script', 'CI']);
      expect((await owner.api('DELETE', `/public/v1/api-keys/${row.id}`)).statusCode).toBe(200);
      expect((await call(t.app, ci, { method: 'GET', url: '/public/v1/groups' })).statusCode).toBe(401);

      expect((await owner.api('GET', '/public/v1/approved-apps')).json()).toEqual([]);
      expect((await owner.api('DELETE', `/public/v1/members/${annMe.user.id}`)).statusCode).toBe(200);
      // removed: her session has no organisation left to work in
      expectError(await ann.api('GET', '/public/v1/integrations'), 403, 'FORBIDDEN');
    });

    it('switching organisation: every later call acts for it', async () => {
      await owner.get('/account');
      await owner.post('/account/organizations', { name: 'Second' });
      const list = (await owner.api('GET', '/public/v1/me')).json<Me>();
      expect(list.organization.name).toBe('Second');
      expect((await owner.api('GET', '/public/v1/groups')).json()).toEqual([]);
      const back = await owner.api('PUT', '/public/v1/me/organization', { organizationId: me.organization.id });
      expect(back.json<Me>().organization.name).toBe('Acme');
      expect((await owner.api('GET', '/public/v1/groups')).json<{ name: string }[]>().map((g) => g.name)).toEqual(['From the app']);
      expectError(await owner.api('PUT', '/public/v1/me/organization', { organizationId: (await t.createOrg('Not mine')).id }), 404, 'NOT_FOUND');
    });
  });

  describe('security', () => {
    it('API keys and tokens cannot reach the people routes', async () => {
      for (const [method, url] of [
        ['GET', '/public/v1/me'],
        ['GET', '/public/v1/members'],
        ['POST', '/public/v1/invitations'],
        ['GET', '/public/v1/api-keys'],
        ['POST', '/public/v1/api-keys'],
        ['GET', '/public/v1/approved-apps'],
      ] as const) {
        const res = await call(t.app, apiKey, { method, url, ...(method === 'POST' ? { payload: { name: 'x', role: 'member' } } : {}) });
        expectError(res, 403, 'FORBIDDEN');
      }
    });

    it('the app has a per-person budget of its own', async () => {
      const t2 = await buildTestApp({ env: { APP_RATE_LIMIT: '3', APP_RATE_WINDOW_SECONDS: '60' } });
      try {
        const b = await signUp(t2.app, { email: 'p@example.test' });
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await b.api('GET', '/public/v1/groups')).statusCode);
        expect(statuses).toEqual([200, 200, 200, 429]);
        // the budget is the person's, whichever of their sessions calls
        const second = await logIn(t2.app, 'p@example.test');
        expect((await second.api('GET', '/public/v1/groups')).statusCode).toBe(429);
      } finally {
        await t2.close();
      }
    });
  });
});
