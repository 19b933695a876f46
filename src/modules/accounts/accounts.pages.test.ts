import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Browser, logIn, shownSecret, signUp } from '../../../test/browser.js';
import { buildTestApp, call, manualClock, type TestApp } from '../../../test/helpers.js';
import { startSmtpReceiver } from '../../../test/smtp.js';
import { hashCredential } from '../../lib/tokens.js';

const PW = 'correct horse battery';

async function orgIdOf(t: TestApp, email: string, name?: string) {
  const user = await t.deps.repositories.accounts.findUserByEmail(email);
  const ms = await t.deps.repositories.accounts.listMemberships(user!.id);
  return (name ? ms.find((m) => m.name === name) : ms[0])!.organizationId;
}

describe('accounts: sign-up, sign-in, sessions', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await buildTestApp({ env: { SIGNUP: 'invite', SMTP_URL: smtp.url, SMTP_FROM: 'Tidings <tidings@example.test>', PUBLIC_URL: 'http://tidings.test' } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  describe('happy', () => {
    it('a fresh deployment opens on making the first account: sign-in leads to sign-up with the first-account notice', async () => {
      const visitor = new Browser(t.app);
      const login = await t.app.inject({ method: 'GET', url: '/account/login' });
      expect(login.statusCode).toBe(303);
      expect(login.headers.location).toBe('/account/signup');
      await visitor.get('/account/signup');
      expect(visitor.lastHtml).toContain('This is the first account of this Tidings');
    });

    it('the first account owns the deployment and adopts the organisations made by the admin CLI', async () => {
      const cliOrg = await t.createOrg('Made by CLI');
      const owner = await signUp(t.app, { email: ' Owner@Example.TEST ', name: 'Olga' });
      const page = await owner.get('/account');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Signed in as <strong>owner@example.test</strong>');
      expect(page.body).toContain('Made by CLI');
      const user = await t.deps.repositories.accounts.findUserByEmail('owner@example.test');
      expect(user!.deploymentOwnerSince).not.toBeNull();
      expect(user!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await t.deps.repositories.accounts.findMembership(cliOrg.id, user!.id)).toMatchObject({ role: 'owner' });
    });

    it('later sign-ups follow SIGNUP=invite: refused without an invitation, accepted with one', async () => {
      const stranger = new Browser(t.app);
      await stranger.get('/account/signup');
      expect(stranger.lastHtml).toContain('by invitation only');
      const refused = await stranger.post('/account/signup', { email: 'stranger@example.test', password: PW });
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('by invitation only');
      expect(await t.deps.repositories.accounts.findUserByEmail('stranger@example.test')).toBeUndefined();

      const owner = await logIn(t.app, 'owner@example.test');
      await owner.get('/account/organization');
      const invited = await owner.post('/account/organization/invitations', { email: 'ivy@example.test', role: 'admin' });
      expect(invited.statusCode).toBe(200);
      const link = shownSecret(invited.body);
      expect(link).toMatch(/^http:\/\/tidings\.test\/account\/invite\/[0-9A-Za-z]{43}$/);
      // mailed through SMTP too, with the same link
      expect(smtp.linkTo('ivy@example.test')).toBe(link);
      const token = link.split('/').at(-1)!;

      const wrongAddress = new Browser(t.app);
      await wrongAddress.get(`/account/signup?invite=${token}`);
      const mismatch = await wrongAddress.post('/account/signup', { email: 'other@example.test', password: PW, invite: token });
      expect(mismatch.statusCode).toBe(400);
      expect(mismatch.body).toContain('This invitation is for ivy@example.test');

      const ivy = await signUp(t.app, { email: 'ivy@example.test', invite: token });
      const org = await ivy.get('/account/organization');
      expect(org.body).toContain('<strong>admin</strong>');
      // used once
      const again = new Browser(t.app);
      const second = await again.get(`/account/invite/${token}`);
      expect(second.statusCode).toBe(404);
    });

    it('signs in with a new session id each time; the cookie is HttpOnly, SameSite=Lax, not Secure on http', async () => {
      const b = new Browser(t.app);
      await b.get('/account/login');
      // a session id planted before sign-in (fixation) is not the one signed in
      b.cookies.set('tidings_session', 'planted-by-attacker-0123456789');
      const res = await b.post('/account/login', { email: 'OWNER@example.test', password: PW });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/account');
      const cookie = b.lastSetCookies.find((c) => c.startsWith('tidings_session='))!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).not.toMatch(/Secure/);
      const token = b.cookies.get('tidings_session')!;
      expect(token).not.toBe('planted-by-attacker-0123456789');
      expect(await t.deps.repositories.sessions.findLiveSession(hashCredential('planted-by-attacker-0123456789'), new Date())).toBeUndefined();
      const again = await logIn(t.app, 'owner@example.test');
      expect(again.cookies.get('tidings_session')).not.toBe(token);
      // back to where sign-in was asked for, never to another site
      const next = new Browser(t.app);
      await next.get('/account/login?next=%2Faccount%2Fapi-keys');
      expect((await next.post('/account/login', { email: 'owner@example.test', password: PW, next: '/account/api-keys' })).headers.location).toBe('/account/api-keys');
      const evil = new Browser(t.app);
      await evil.get('/account/login');
      expect((await evil.post('/account/login', { email: 'owner@example.test', password: PW, next: '//evil.example/x' })).headers.location).toBe('/account');
    });

    it('sign out ends this session; sign out everywhere ends them all', async () => {
      const a = await logIn(t.app, 'owner@example.test');
      const b = await logIn(t.app, 'owner@example.test');
      await a.get('/account');
      expect((await a.post('/account/logout', {})).headers.location).toBe('/account/login');
      expect((await a.get('/account')).headers.location).toBe('/account/login?next=%2Faccount');
      expect((await b.get('/account')).statusCode).toBe(200);
      const c = await logIn(t.app, 'owner@example.test');
      await b.get('/account');
      await b.post('/account/logout-everywhere', {});
      expect((await b.get('/account')).statusCode).toBe(303);
      expect((await c.get('/account')).statusCode).toBe(303);
    });

    it('changing the password rotates this session and ends the others', async () => {
      await signUp(t.app, { email: 'pat@example.test', invite: await inviteToken(t, 'member') });
      const a = await logIn(t.app, 'pat@example.test');
      const other = await logIn(t.app, 'pat@example.test');
      const before = a.cookies.get('tidings_session');
      await a.get('/account');
      const wrong = await a.post('/account/password', { current: 'not it at all', password: 'a new password 1' });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.body).toContain('This is not your current password');
      await a.get('/account');
      const ok = await a.post('/account/password', { current: PW, password: 'a new password 1' });
      expect(ok.statusCode).toBe(303);
      expect(a.cookies.get('tidings_session')).not.toBe(before);
      expect((await a.get('/account?changed=password')).body).toContain('Your password is changed');
      expect((await other.get('/account')).statusCode).toBe(303);
      await logIn(t.app, 'pat@example.test', 'a new password 1');
    });

    it('password reset: a one-time link by mail; it signs out everywhere and works once', async () => {
      const session = await logIn(t.app, 'ivy@example.test');
      const b = new Browser(t.app);
      await b.get('/account/forgot');
      const sent = await b.post('/account/forgot', { email: 'IVY@example.test' });
      expect(sent.statusCode).toBe(200);
      expect(sent.body).toContain('If an account has this address');
      const link = smtp.linkTo('ivy@example.test');
      expect(link).toMatch(/^http:\/\/tidings\.test\/account\/reset\?token=/);
      // an unknown address gets the same answer and no mail
      const mailsBefore = smtp.mails.length;
      await b.get('/account/forgot');
      expect((await b.post('/account/forgot', { email: 'nobody@example.test' })).body).toContain('If an account has this address');
      expect(smtp.mails.length).toBe(mailsBefore);

      const path = link.replace('http://tidings.test', '');
      const form = await b.get(path);
      expect(form.body).toContain('For <strong>ivy@example.test</strong>');
      expect(form.headers['referrer-policy']).toBe('no-referrer');
      const short = await b.post('/account/reset', { token: new URL(link).searchParams.get('token')!, password: 'short' });
      expect(short.statusCode).toBe(400);
      expect(short.body).toContain('Use at least 10 characters');
      await b.get(path);
      const done = await b.post('/account/reset', { token: new URL(link).searchParams.get('token')!, password: 'brand new secret 2' });
      expect(done.statusCode).toBe(303);
      expect((await session.get('/account')).statusCode).toBe(303);
      await logIn(t.app, 'ivy@example.test', 'brand new secret 2');
      const reused = await new Browser(t.app).get(path);
      expect(reused.statusCode).toBe(404);
      expect(reused.body).toContain('not valid any more');
    });

    it('organisations: create, switch; members see the list, owners and admins manage', async () => {
      const owner = await logIn(t.app, 'owner@example.test');
      await owner.get('/account');
      expect((await owner.post('/account/organizations', { name: 'Second Org' })).headers.location).toBe('/account/organization');
      const org = await owner.get('/account/organization');
      expect(org.body).toContain('<h1>Second Org</h1>');
      await owner.get('/account');
      const firstId = await orgIdOf(t, 'owner@example.test', 'Made by CLI');
      expect((await owner.post('/account/switch', { organizationId: firstId })).statusCode).toBe(303);
      expect((await owner.get('/account/organization')).body).toContain('<h1>Made by CLI</h1>');
      // not a member: not found, not switched
      await owner.get('/account');
      const other = await t.createOrg('Not mine');
      expect((await owner.post('/account/switch', { organizationId: other.id })).statusCode).toBe(404);
      await owner.get('/account');
      expect((await owner.post('/account/switch', { organizationId: 'not-a-uuid' })).statusCode).toBe(404);
    });
  });

  describe('API keys (developer settings)', () => {
    it('create (shown once), list with prefix and last use, revoke at once; the key works on the API meanwhile', async () => {
      const owner = await logIn(t.app, 'owner@example.test');
      await owner.get('/account/api-keys');
      const made = await owner.post('/account/api-keys', { name: 'n8n' });
      expect(made.statusCode).toBe(201);
      const key = shownSecret(made.body);
      expect(key).toMatch(/^tdk_/);
      const orgId = await orgIdOf(t, 'owner@example.test', 'Made by CLI');
      const used = await call(t.app, key, { method: 'GET', url: '/public/v1/integrations' });
      expect(used.statusCode).toBe(200);
      const list = await owner.get('/account/api-keys');
      expect(list.body).toContain(`<code>${key.slice(0, 10)}…</code>`);
      expect(list.body).not.toContain(key);
      const row = (await t.deps.services.organizations.listApiKeys(orgId)).find((k) => k.name === 'n8n')!;
      expect(row.organizationId).toBe(orgId);
      const revoked = await owner.post(`/account/api-keys/${row.id}/revoke`, {}, { csrf: owner.csrf() });
      expect(revoked.statusCode).toBe(303);
      expect((await call(t.app, key, { method: 'GET', url: '/public/v1/integrations' })).statusCode).toBe(401);
    });

    it('members cannot manage keys; another organisation’s key is not found', async () => {
      const pat = await logIn(t.app, 'pat@example.test', 'a new password 1');
      const page = await pat.get('/account/api-keys');
      expect(page.statusCode).toBe(403);
      expect(page.body).toContain('This needs the admin role');
      const other = await t.createOrg('Elsewhere');
      const [foreign] = await t.deps.services.organizations.listApiKeys(other.id);
      const owner = await logIn(t.app, 'owner@example.test');
      await owner.get('/account/api-keys');
      const res = await owner.post(`/account/api-keys/${foreign!.id}/revoke`, {}, { csrf: owner.csrf() });
      expect(res.statusCode).toBe(404);
      expect((await call(t.app, other.apiKey, { method: 'GET', url: '/public/v1/integrations' })).statusCode).toBe(200);
    });
  });

  describe('security', () => {
    it('forms without the CSRF token, with another browser’s, or sent cross-site are refused (403), nothing changes', async () => {
      const owner = await logIn(t.app, 'owner@example.test');
      const orgId = await orgIdOf(t, 'owner@example.test', 'Made by CLI');
      const before = (await t.deps.services.organizations.listApiKeys(orgId)).length;
      await owner.get('/account/api-keys');
      const none = await owner.post('/account/api-keys', { name: 'csrf' }, { csrf: null });
      expect(none.statusCode).toBe(403);
      expect(none.body).toContain('CSRF_FAILED');
      const attacker = await logIn(t.app, 'ivy@example.test', 'brand new secret 2');
      await attacker.get('/account/api-keys').catch(() => undefined);
      await attacker.get('/account');
      const foreignToken = attacker.csrf();
      expect((await owner.post('/account/api-keys', { name: 'csrf' }, { csrf: foreignToken })).statusCode).toBe(403);
      await owner.get('/account/api-keys');
      const crossSite = await owner.post('/account/api-keys', { name: 'csrf' }, { headers: { 'sec-fetch-site': 'cross-site' } });
      expect(crossSite.statusCode).toBe(403);
      expect((await t.deps.services.organizations.listApiKeys(orgId)).length).toBe(before);
      // the sign-in form is protected too (login CSRF)
      const fresh = new Browser(t.app);
      expect((await fresh.post('/account/login', { email: 'owner@example.test', password: PW }, { csrf: null })).statusCode).toBe(403);
    });

    it('pages are not framable, not cached and leak no referrer', async () => {
      const res = await new Browser(t.app).get('/account/login');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    });

    it('names bad fields and escapes what it echoes', async () => {
      const b = new Browser(t.app);
      await b.get('/account/login');
      const res = await b.post('/account/login', { email: '<script>alert(1)</script>', password: '' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('Enter your password');
      expect(res.body).not.toContain('<script>alert(1)</script>');
      expect(res.body).toContain('&lt;script&gt;');
    });
  });
});

describe('accounts: throttles and settings', () => {
  let t: TestApp;
  const clock = manualClock();
  afterEach(async () => t?.close());

  it('throttles failed sign-ins per account and per address; the wait ends; wrong password and unknown address look alike', async () => {
    t = await buildTestApp({ clock, env: { SIGNUP: 'open', LOGIN_FAILURE_LIMIT: '3', LOGIN_FAILURE_WINDOW_SECONDS: '600' } });
    await signUp(t.app, { email: 'a@example.test' });
    const b = new Browser(t.app, { ip: '198.51.100.7' });
    const attempt = async (email: string, password: string) => {
      await b.get('/account/login');
      return b.post('/account/login', { email, password });
    };
    const unknown = await attempt('nobody@example.test', 'whatever pass');
    const wrong = await attempt('a@example.test', 'whatever pass');
    expect([unknown.statusCode, wrong.statusCode]).toEqual([401, 401]);
    expect(unknown.body.match(/<div class="notice bad"[^>]*>([^<]*)</)![1]).toBe(wrong.body.match(/<div class="notice bad"[^>]*>([^<]*)</)![1]);
    await attempt('a@example.test', 'whatever pass');
    // three failures from this address: the next attempt from it waits, whatever the account
    await signUp(t.app, { email: 'b@example.test' });
    const fromAddress = await attempt('b@example.test', PW);
    expect(fromAddress.statusCode).toBe(429);
    // a third failure for the account from another address: the account waits, from anywhere
    const second = new Browser(t.app, { ip: '198.51.100.8' });
    await second.get('/account/login');
    expect((await second.post('/account/login', { email: 'a@example.test', password: 'nope nope nope' })).statusCode).toBe(401);
    const elsewhere = new Browser(t.app, { ip: '203.0.113.9' });
    await elsewhere.get('/account/login');
    const locked = await elsewhere.post('/account/login', { email: 'a@example.test', password: PW });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.body).toContain('Too many attempts');
    clock.advance(601_000);
    await elsewhere.get('/account/login');
    expect((await elsewhere.post('/account/login', { email: 'a@example.test', password: PW })).statusCode).toBe(303);
  });

  it('SIGNUP=open gives each new person an organisation of their own; SIGNUP=off refuses everyone after the first', async () => {
    t = await buildTestApp({ env: { SIGNUP: 'open' } });
    await signUp(t.app, { email: 'first@example.test', organization: 'First Co' });
    const second = await signUp(t.app, { email: 'second@example.test', organization: 'Second Co' });
    expect((await second.get('/account/organization')).body).toContain('<h1>Second Co</h1>');
    await t.close();
    t = await buildTestApp({ env: { SIGNUP: 'off' } });
    await signUp(t.app, { email: 'first@example.test' });
    const b = new Browser(t.app);
    await b.get('/account/signup');
    const res = await b.post('/account/signup', { email: 'late@example.test', password: PW });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('does not accept new accounts');
  });

  it('behind an https PUBLIC_URL the cookies are Secure and __Host- prefixed', async () => {
    t = await buildTestApp({ env: { PUBLIC_URL: 'https://tidings.example.com' } });
    const b = new Browser(t.app);
    await b.get('/account/signup');
    expect(b.lastSetCookies[0]).toMatch(/^__Host-tidings_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    await b.post('/account/signup', { email: 'sec@example.test', password: PW });
    const session = b.lastSetCookies.find((c) => c.startsWith('__Host-tidings_session='))!;
    expect(session).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax/);
    expect(session).not.toMatch(/Domain=/);
  });

  it('without SMTP the reset link is written to the log', async () => {
    const lines: string[] = [];
    t = await buildTestApp({ env: { PUBLIC_URL: 'http://tidings.test' }, logger: { warn: (_o: unknown, msg?: string) => lines.push(msg ?? ''), error: () => undefined } });
    await signUp(t.app, { email: 'solo@example.test' });
    const b = new Browser(t.app);
    await b.get('/account/forgot');
    await b.post('/account/forgot', { email: 'solo@example.test' });
    const line = lines.find((l) => l.includes('No SMTP_URL set'));
    expect(line).toMatch(/http:\/\/tidings\.test\/account\/reset\?token=[0-9A-Za-z]{43}/);
  });
});

async function inviteToken(t: TestApp, role: 'member' | 'admin') {
  const owner = await logIn(t.app, 'owner@example.test');
  await owner.get('/account/organization');
  const res = await owner.post('/account/organization/invitations', { email: '', role });
  return shownSecret(res.body).split('/').at(-1)!;
}
