import { beforeAll, describe, expect, it } from 'vitest';
import { Browser, shownSecret, signUp } from '../../../test/browser.js';
import { call, manualClock, useTestApp } from '../../../test/helpers.js';
import { oauthPost } from '../../../test/oauth-client.js';

interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

describe('device login (RFC 8628 and the Postiz CLI protocol)', () => {
  const clock = manualClock();
  let owner: Browser;
  let orgId: string;
  let secondOrgId: string;

  /** The Postiz CLI's first call: JSON content type, no body at all. */
  const postizStart = async () => {
    const res = await t.app.inject({ method: 'POST', url: '/device/code', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<DeviceStart>();
  };
  const postizPoll = (deviceCode: string) => t.app.inject({ method: 'POST', url: '/device/token', headers: { 'content-type': 'application/json' }, payload: { device_code: deviceCode } });

  async function approve(b: Browser, userCode: string, organizationId: string, decision: 'approve' | 'deny' = 'approve') {
    const page = await b.get(`/device/verify?code=${encodeURIComponent(userCode)}`);
    expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
    const res = await b.post('/device/verify', { code: userCode, organizationId, decision });
    return res;
  }

  const { t } = useTestApp({ clock, env: { PUBLIC_URL: 'http://tidings.test', DEVICE_POLL_INTERVAL_SECONDS: '2' } });

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'owner@example.test', organization: 'Acme' });
    await owner.get('/account');
    await owner.post('/account/organizations', { name: 'Second' });
    const user = await t.deps.repositories.accounts.findUserByEmail('owner@example.test');
    const ms = await t.deps.repositories.accounts.listMemberships(user!.id);
    orgId = ms.find((m) => m.name === 'Acme')!.organizationId;
    secondOrgId = ms.find((m) => m.name === 'Second')!.organizationId;
  });

  it('Postiz protocol: code → pending → approved on the verification page for a chosen organisation → the token, once', async () => {
    const start = await postizStart();
    expect(start).toEqual({
      device_code: expect.stringMatching(/^[0-9a-f]{64}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: 'http://tidings.test/device/verify',
      verification_uri_complete: `http://tidings.test/device/verify?code=${encodeURIComponent(start.user_code)}`,
      expires_in: 900,
      interval: 2,
    });
    const pending = await postizPoll(start.device_code);
    expect([pending.statusCode, pending.json<{ error: string }>().error]).toEqual([400, 'authorization_pending']);
    // polled again at once: the Postiz dialect never says slow_down (its CLI would give up)
    expect((await postizPoll(start.device_code)).json<{ error: string }>().error).toBe('authorization_pending');

    // signed out, the verification page sends to sign-in and back
    const anon = await new Browser(t.app).get(`/device/verify?code=${start.user_code}`);
    expect(anon.headers.location).toBe(`/account/login?next=${encodeURIComponent(`/device/verify?code=${start.user_code}`)}`);

    const page = await owner.get(`/device/verify?code=${start.user_code.toLowerCase().replace('-', ' ')}`);
    expect(page.body).toContain('<strong>Command-line login (postiz CLI)</strong>');
    expect(page.body).toContain(`<option value="${secondOrgId}">Second</option>`);
    const done = await owner.post('/device/verify', { code: start.user_code, organizationId: secondOrgId, decision: 'approve' });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('go back to your terminal');

    const ok = await postizPoll(start.device_code);
    expect(ok.statusCode).toBe(200);
    const body = ok.json<{ access_token: string; api_url: string; organization_id: string }>();
    expect(body).toMatchObject({ access_token: expect.stringMatching(/^pos_/), api_url: 'http://tidings.test', organization_id: secondOrgId });
    expect(ok.headers['cache-control']).toBe('no-store');
    // the token acts for "Second"
    await call(t.app, body.access_token, { method: 'POST', url: '/public/v1/groups', payload: { name: 'from the CLI' } });
    const acmeKey = (await t.deps.services.organizations.createApiKey(orgId, 'k')).apiKey;
    expect((await call(t.app, acmeKey, { method: 'GET', url: '/public/v1/groups' })).json()).toEqual([]);
    // handed out once
    const again = await postizPoll(start.device_code);
    expect([again.statusCode, again.json<{ error: string }>().error]).toEqual([400, 'invalid_device_code']);
    // and listed among the approved apps
    expect((await owner.get('/account/approved-apps')).body).toContain('Command-line login (postiz CLI)');
  });

  it('RFC 8628: slow_down when polling faster than the interval, access_denied when declined, expired_token after 15 minutes', async () => {
    const start = (await oauthPost(t.app, '/oauth/device_authorization', { client_id: 'postiz-cli' })).json<DeviceStart>();
    const poll = () => oauthPost(t.app, '/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: start.device_code, client_id: 'postiz-cli' });
    expect((await poll()).json<{ error: string }>().error).toBe('authorization_pending');
    expect((await poll()).json()).toMatchObject({ error: 'slow_down', error_description: 'Poll at most every 7 s' });
    clock.advance(7_000);
    expect((await poll()).json<{ error: string }>().error).toBe('authorization_pending');
    const res = await approve(owner, start.user_code, orgId, 'deny');
    expect(res.body).toContain('The device was refused');
    expect((await poll()).json<{ error: string }>().error).toBe('access_denied');

    const late = (await oauthPost(t.app, '/oauth/device_authorization', { client_id: 'postiz-cli' })).json<DeviceStart>();
    clock.advance(900_001);
    expect((await oauthPost(t.app, '/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: late.device_code, client_id: 'postiz-cli' })).json<{ error: string }>().error).toBe('expired_token');
    const page = await owner.get(`/device/verify?code=${late.user_code}`);
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain('older than 15 minutes');
  });

  it('RFC 8628: approved → access and refresh tokens for the client that asked, once; unknown codes are invalid_grant', async () => {
    const start = (await oauthPost(t.app, '/oauth/device_authorization', { client_id: 'postiz-cli', scope: 'api' })).json<DeviceStart>();
    await approve(owner, start.user_code, orgId);
    const grant = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: start.device_code };
    // another client cannot collect it
    const registered = (await t.app.inject({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: ['https://x.example/cb'], token_endpoint_auth_method: 'none' } })).json<{ client_id: string }>();
    expect((await oauthPost(t.app, '/oauth/token', { ...grant, client_id: registered.client_id })).json<{ error: string }>().error).toBe('invalid_grant');
    const ok = await oauthPost(t.app, '/oauth/token', { ...grant, client_id: 'postiz-cli' });
    expect(ok.json()).toMatchObject({ access_token: expect.stringMatching(/^pos_/), refresh_token: expect.stringMatching(/^por_/), token_type: 'Bearer', organization_id: orgId });
    expect((await oauthPost(t.app, '/oauth/token', { ...grant, client_id: 'postiz-cli' })).json<{ error: string }>().error).toBe('invalid_grant');
    expect((await oauthPost(t.app, '/oauth/token', { ...grant, device_code: 'nope', client_id: 'postiz-cli' })).json<{ error: string }>().error).toBe('invalid_grant');
  });

  it('members cannot approve devices; wrong codes are throttled per person', async () => {
    await owner.get('/account');
    await owner.post('/account/switch', { organizationId: orgId });
    await owner.get('/account/organization');
    const inv = await owner.post('/account/organization/invitations', { email: '', role: 'member' });
    const member = await signUp(t.app, { email: 'member@example.test', invite: shownSecret(inv.body).split('/').at(-1)!, ip: '198.51.100.20' });
    const start = await postizStart();
    const page = await member.get(`/device/verify?code=${start.user_code}`);
    expect(page.body).toContain('Only owners and admins can give a device access');
    await member.get('/account');
    const forced = await member.post('/device/verify', { code: start.user_code, organizationId: orgId, decision: 'approve' }, { csrf: member.csrf() });
    expect(forced.statusCode).toBe(403);
    expect((await postizPoll(start.device_code)).json<{ error: string }>().error).toBe('authorization_pending');

    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await member.get('/device/verify?code=BBBB-BBBB')).statusCode);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(404));
    expect(statuses[10]).toBe(429);
    // even the right code waits now
    expect((await member.get(`/device/verify?code=${start.user_code}`)).statusCode).toBe(429);
  });
});
