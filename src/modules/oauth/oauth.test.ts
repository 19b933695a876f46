import { beforeAll, describe, expect, it } from 'vitest';
import { Browser, shownSecret, signUp } from '../../../test/browser.js';
import { buildTestApp, call, manualClock, useTestApp } from '../../../test/helpers.js';
import { consent, oauthPost, pkce, registerApp } from '../../../test/oauth-client.js';

const REDIRECT = 'https://app.example/callback';

interface Tokens {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  scope: string;
  id: string;
  organization_id: string;
  expires_in?: number;
}

describe('OAuth 2.1 authorisation server', () => {
  const clock = manualClock();
  let owner: Browser;
  let orgId: string;
  let app: { clientId: string; clientSecret?: string };
  let basic: { id: string; secret: string };

  /** Approves a fresh request and exchanges the code: the tokens. */
  async function grant(b: Browser = owner, organizationId?: string): Promise<Tokens> {
    const { verifier, challenge } = pkce();
    const back = await consent(b, { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 's1' }, { organizationId });
    const res = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }, basic);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Tokens>();
  }

  const apiAs = (token: string, url = '/public/v1/groups') => call(t.app, token, { method: 'GET', url });

  const { t } = useTestApp({ clock, env: { PUBLIC_URL: 'http://tidings.test', SIGNUP: 'invite', API_RATE_LIMIT: '100000' } });

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'owner@example.test', organization: 'Acme' });
    const user = await t.deps.repositories.accounts.findUserByEmail('owner@example.test');
    orgId = (await t.deps.repositories.accounts.listMemberships(user!.id))[0]!.organizationId;
    app = await registerApp(owner, { name: 'Scheduler Pro', logoUrl: 'https://app.example/logo.png', redirectUris: [REDIRECT, 'http://127.0.0.1:8123/cb'] });
    basic = { id: app.clientId, secret: app.clientSecret! };
  });

  describe('happy', () => {
    it('publishes its metadata (RFC 8414)', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      expect(res.json()).toMatchObject({
        issuer: 'http://tidings.test',
        authorization_endpoint: 'http://tidings.test/oauth/authorize',
        token_endpoint: 'http://tidings.test/oauth/token',
        revocation_endpoint: 'http://tidings.test/oauth/revoke',
        registration_endpoint: 'http://tidings.test/oauth/register',
        device_authorization_endpoint: 'http://tidings.test/oauth/device_authorization',
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      });
    });

    it('code + PKCE: the consent page names the app and organisation; the pos_ token acts for the granting organisation', async () => {
      const { verifier, challenge } = pkce();
      const page = await owner.get(`/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&code_challenge=${challenge}&code_challenge_method=S256&state=xyz`);
      expect(page.body).toContain('<strong>Scheduler Pro</strong> asks to act for one of your organisations');
      expect(page.body).toContain('registered by the organisation <strong>Acme</strong>');
      expect(page.body).toContain('<option value="' + orgId + '">Acme</option>');
      expect(page.headers['x-frame-options']).toBe('DENY');
      const back = await consent(owner, { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' });
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get('state')).toBe('xyz');
      expect(back.searchParams.get('iss')).toBe('http://tidings.test');
      expect(back.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{32}$/);
      const res = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }, basic);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const tokens = res.json<Tokens>();
      expect(tokens).toEqual({
        access_token: expect.stringMatching(/^pos_[0-9A-Za-z]{40}$/),
        refresh_token: expect.stringMatching(/^por_[0-9A-Za-z]{40}$/),
        token_type: 'Bearer',
        scope: 'api',
        id: orgId,
        organization_id: orgId,
      });
      // stored as a hash only
      const rows = await t.deps.database.sql.executeSql('SELECT token_hash FROM oauth_access_tokens', []);
      expect(JSON.stringify(rows.rows)).not.toContain(tokens.access_token);
      // the token resolves to Acme: it sees what Acme's API key made, and what it makes Acme's key sees
      const made = await call(t.app, tokens.access_token, { method: 'POST', url: '/public/v1/groups', payload: { name: 'Made with OAuth' } });
      expect(made.statusCode).toBe(201);
      const { apiKey } = (await t.deps.services.organizations.createApiKey(orgId, 'check'));
      expect((await apiAs(apiKey)).json<{ name: string }[]>().map((g) => g.name)).toContain('Made with OAuth');
      // the approval is in the organisation's activity log, as the person who gave it (issue 31)
      const log = (await owner.api('GET', '/public/v1/activity?action=oauth_app.approved')).json<{ entries: { action: string; actor: { kind: string }; target: { name: string | null }; details: Record<string, unknown> }[] }>().entries;
      expect(log).toEqual([expect.objectContaining({ action: 'oauth_app.approved', actor: expect.objectContaining({ kind: 'user' }), target: expect.objectContaining({ name: 'Scheduler Pro' }), details: { scope: 'api', via: 'consent' } })]);
    });

    it('a public client (PKCE, no secret) with client_secret_post-style body; a confidential one may send its secret in the body too', async () => {
      const pub = await registerApp(owner, { name: 'Desktop', kind: 'public', redirectUris: ['http://127.0.0.1:9999/cb'] });
      const { verifier, challenge } = pkce();
      const back = await consent(owner, { client_id: pub.clientId, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' });
      // one registered redirect URI: it may be left out
      expect(back.toString()).toMatch(/^http:\/\/127\.0\.0\.1:9999\/cb\?code=/);
      const res = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', client_id: pub.clientId, code: back.searchParams.get('code')!, code_verifier: verifier });
      expect(res.statusCode, res.body).toBe(200);
      expect((await apiAs(res.json<Tokens>().access_token)).statusCode).toBe(200);
      const withSecret = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', client_id: pub.clientId, client_secret: 'x', code: 'y', code_verifier: verifier });
      expect(withSecret.statusCode).toBe(401);

      const { verifier: v2, challenge: c2 } = pkce();
      const back2 = await consent(owner, { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: c2, code_challenge_method: 'S256' });
      const post = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', client_id: app.clientId, client_secret: app.clientSecret, code: back2.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: v2 });
      expect(post.statusCode).toBe(200);
    });

    it('refresh rotates: a new pair each time, the old access token retired', async () => {
      const first = await grant();
      const res = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic);
      expect(res.statusCode, res.body).toBe(200);
      const second = res.json<Tokens>();
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(second.access_token).not.toBe(first.access_token);
      expect((await apiAs(second.access_token)).statusCode).toBe(200);
      expect((await apiAs(first.access_token)).statusCode).toBe(401);
    });

    it('the approved-apps page lists what the person approved; revoking stops its tokens at once', async () => {
      const tokens = await grant();
      const page = await owner.get('/account/approved-apps');
      expect(page.body).toContain('Scheduler Pro');
      expect(page.body).toContain('<td>Acme</td>');
      const grantId = /action="\/account\/approved-apps\/([0-9a-f-]{36})\/revoke"/.exec(page.body)![1]!;
      // the web app's JSON list: the app's logo and what each scope lets it do
      const listed = (await owner.api('GET', '/public/v1/approved-apps')).json<{ id: string; clientName: string; logoUrl: string | null; scopes: { name: string; description: string }[] }[]>();
      expect(listed.find((g) => g.id === grantId)).toMatchObject({
        clientName: 'Scheduler Pro',
        logoUrl: 'https://app.example/logo.png',
        scopes: [{ name: 'api', description: expect.stringContaining('public API') }],
      });
      expect((await apiAs(tokens.access_token)).statusCode).toBe(200);
      const revoked = await owner.post(`/account/approved-apps/${grantId}/revoke`, {}, { csrf: owner.csrf() });
      expect(revoked.statusCode).toBe(303);
      // revoked by grant: any one of this person's grants may be the one listed first
      const stillLive = (await t.deps.repositories.oauth.listUserGrants((await t.deps.repositories.accounts.findUserByEmail('owner@example.test'))!.id)).map((g) => g.id);
      expect(stillLive).not.toContain(grantId);
    });

    it('API keys and pos_ tokens of one organisation share its rate limit', async () => {
      const tokens = await grant();
      clock.advance(3_600_001); // a fresh window: only this test's requests count
      await t.deps.database.sql.executeSql(`INSERT INTO plans (name, rate_limit) VALUES ('tiny', 4) ON CONFLICT (name) DO UPDATE SET rate_limit = 4`, []);
      await t.deps.services.organizations.setPlan(orgId, 'tiny');
      const { apiKey } = await t.deps.services.organizations.createApiKey(orgId, 'rl');
      const statuses = [];
      for (const cred of [apiKey, tokens.access_token, apiKey, tokens.access_token, tokens.access_token, apiKey]) statuses.push((await apiAs(cred)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      clock.advance(3_600_001);
      await t.deps.services.organizations.setPlan(orgId, 'unlimited');
    });

    it('dynamic registration (RFC 7591): 201 with a client id (and a secret unless public); the consent page says it registered itself', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/register',
        payload: { client_name: 'Some MCP client', redirect_uris: ['http://localhost:7777/cb'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
      });
      expect(res.statusCode, res.body).toBe(201);
      const client = res.json<{ client_id: string; client_secret?: string; token_endpoint_auth_method: string }>();
      expect(client.client_secret).toBeUndefined();
      expect(client.token_endpoint_auth_method).toBe('none');
      const { verifier, challenge } = pkce();
      const page = await owner.get(`/oauth/authorize?client_id=${client.client_id}&response_type=code&code_challenge=${challenge}&code_challenge_method=S256`);
      expect(page.body).toContain('<strong>registered itself</strong>');
      const back = await consent(owner, { client_id: client.client_id, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' });
      const tokens = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', client_id: client.client_id, code: back.searchParams.get('code')!, code_verifier: verifier });
      expect(tokens.statusCode).toBe(200);

      const confidential = await t.app.inject({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: ['https://x.example/cb'] } });
      expect(confidential.json()).toMatchObject({ client_secret: expect.stringMatching(/^tdcs_/), client_secret_expires_at: 0, token_endpoint_auth_method: 'client_secret_basic', client_name: 'Unnamed app' });
      const bad = await t.app.inject({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: ['http://evil.example/cb'] } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error: 'invalid_redirect_uri', error_description: expect.stringContaining('must use https') });
    });
  });

  describe('errors', () => {
    it('an unknown client or a redirect URI it did not register is shown to the person, never redirected to', async () => {
      const { challenge } = pkce();
      const unknown = await owner.get(`/oauth/authorize?client_id=tdc_nope&response_type=code&code_challenge=${challenge}&code_challenge_method=S256`);
      expect(unknown.statusCode).toBe(400);
      expect(unknown.body).toContain('not registered here');
      const mismatch = await owner.get(`/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent('https://app.example/callback/../evil')}&response_type=code&code_challenge=${challenge}&code_challenge_method=S256`);
      expect(mismatch.statusCode).toBe(400);
      expect(mismatch.headers.location).toBeUndefined();
      expect(mismatch.body).toContain('redirect_uri mismatch');
      const prefix = await owner.get(`/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(REDIRECT + 'x')}&response_type=code&code_challenge=${challenge}&code_challenge_method=S256`);
      expect(prefix.statusCode).toBe(400);
    });

    it('without PKCE S256, or another response type, the error goes back to the app with the state', async () => {
      const { challenge } = pkce();
      const base = `/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=st`;
      for (const [query, error] of [
        [`&response_type=code`, 'invalid_request'],
        [`&response_type=code&code_challenge=${challenge}&code_challenge_method=plain`, 'invalid_request'],
        [`&response_type=code&code_challenge=${challenge}`, 'invalid_request'],
        [`&response_type=token&code_challenge=${challenge}&code_challenge_method=S256`, 'unsupported_response_type'],
        [`&response_type=code&code_challenge=${challenge}&code_challenge_method=S256&scope=admin`, 'invalid_scope'],
      ] as const) {
        const res = await owner.get(base + query);
        expect(res.statusCode).toBe(303);
        const loc = new URL(String(res.headers.location));
        expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
        expect({ error: loc.searchParams.get('error'), state: loc.searchParams.get('state') }).toEqual({ error, state: 'st' });
      }
    });

    it('denying sends access_denied back', async () => {
      const { challenge } = pkce();
      const back = await consent(owner, { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'd' }, { approve: false });
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe('d');
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('token endpoint: PKCE mismatch, redirect mismatch, wrong secret, expired and replayed codes', async () => {
      const fresh = async () => {
        const p = pkce();
        const back = await consent(owner, { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: p.challenge, code_challenge_method: 'S256' });
        return { code: back.searchParams.get('code')!, verifier: p.verifier };
      };
      const exchange = (code: string, verifier: string, extra: Record<string, string> = {}, auth = basic) =>
        oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...extra }, auth);

      const a = await fresh();
      const wrongVerifier = await exchange(a.code, pkce().verifier);
      expect([wrongVerifier.statusCode, wrongVerifier.json<{ error: string }>().error]).toEqual([400, 'invalid_grant']);
      expect(wrongVerifier.json<{ error_description: string }>().error_description).toContain('code_verifier');

      const b = await fresh();
      const wrongRedirect = await exchange(b.code, b.verifier, { redirect_uri: 'http://127.0.0.1:8123/cb' });
      expect(wrongRedirect.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('redirect_uri') });

      const c = await fresh();
      const wrongSecret = await exchange(c.code, c.verifier, {}, { id: app.clientId, secret: `${app.clientSecret}x` });
      expect(wrongSecret.statusCode).toBe(401);
      expect(wrongSecret.json<{ error: string }>().error).toBe('invalid_client');
      expect(wrongSecret.headers['www-authenticate']).toBe('Basic realm="tidings"');
      // the code survived the failed client authentication and still works once
      const first = await exchange(c.code, c.verifier);
      expect(first.statusCode).toBe(200);
      const issued = first.json<Tokens>();
      const replay = await exchange(c.code, c.verifier);
      expect(replay.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('already used') });
      // the replay revoked what the first exchange issued
      expect((await apiAs(issued.access_token)).statusCode).toBe(401);
      const refresh = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: issued.refresh_token }, basic);
      expect(refresh.json<{ error: string }>().error).toBe('invalid_grant');

      const d = await fresh();
      clock.advance(10 * 60_000 + 1);
      const late = await exchange(d.code, d.verifier);
      expect(late.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('expired') });

      // another client cannot use this client's code
      const e = await fresh();
      const other = await registerApp(owner, { name: 'Other', redirectUris: [REDIRECT] });
      const stolen = await exchange(e.code, e.verifier, {}, { id: other.clientId, secret: other.clientSecret! });
      expect(stolen.json<{ error: string }>().error).toBe('invalid_grant');
    });

    it('a replayed refresh token revokes the whole family', async () => {
      const first = await grant();
      const rotated = (await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic)).json<Tokens>();
      const replay = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic);
      expect(replay.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('already used') });
      expect((await apiAs(rotated.access_token)).statusCode).toBe(401);
      const next = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rotated.refresh_token }, basic);
      expect(next.json<{ error: string }>().error).toBe('invalid_grant');
    });

    it('names what is missing or unsupported', async () => {
      expect((await oauthPost(t.app, '/oauth/token', {}, basic)).json()).toEqual({ error: 'invalid_request', error_description: 'grant_type is required' });
      expect((await oauthPost(t.app, '/oauth/token', { grant_type: 'password' }, basic)).json<{ error: string }>().error).toBe('unsupported_grant_type');
      expect((await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code' })).json()).toMatchObject({ error: 'invalid_client' });
      expect((await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', code: 'x' }, basic)).json<{ error_description: string }>().error_description).toContain('code_verifier');
      const json = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: '{"grant_type": ', headers: { 'content-type': 'application/json' } });
      expect(json.statusCode).toBe(400);
      expect(json.json<{ error: string }>().error).toBe('invalid_request');
    });
  });

  describe('security', () => {
    it('consent needs the CSRF token, and the form must be the request shown (state or redirect tampering is refused)', async () => {
      const { challenge } = pkce();
      const q = { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'orig' };
      await owner.get(`/oauth/authorize?${new URLSearchParams(q).toString()}`);
      const hidden = owner.hiddenFields('/oauth/authorize');
      const noCsrf = await owner.post('/oauth/authorize', { ...hidden, _csrf: '', decision: 'approve', organizationId: orgId });
      expect(noCsrf.statusCode).toBe(403);
      const tampered = await owner.post('/oauth/authorize', { ...hidden, state: 'forged', decision: 'approve', organizationId: orgId });
      expect(tampered.statusCode).toBe(403);
      expect(tampered.body).toContain('changed after the page was shown');
      await owner.get(`/oauth/authorize?${new URLSearchParams(q).toString()}`);
      const otherRedirect = await owner.post('/oauth/authorize', { ...owner.hiddenFields('/oauth/authorize'), redirect_uri: 'http://127.0.0.1:8123/cb', decision: 'approve', organizationId: orgId });
      expect(otherRedirect.statusCode).toBe(403);
      const codes = await t.deps.database.sql.executeSql(`SELECT count(*)::int AS n FROM oauth_codes WHERE redirect_uri = 'http://127.0.0.1:8123/cb'`, []);
      expect(codes.rows[0]!.n).toBe(0);
    });

    it('a signed-out person is sent to sign in and back to the same request', async () => {
      const { challenge } = pkce();
      const url = `/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&code_challenge=${challenge}&code_challenge_method=S256`;
      const anon = new Browser(t.app);
      const res = await anon.get(url);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/account/login?next=${encodeURIComponent(url)}`);
    });

    it('members cannot give apps access; a member removed from the organisation takes their tokens with them', async () => {
      // an admin approves, then is removed
      await owner.get('/account/organization');
      const inv = await owner.post('/account/organization/invitations', { email: '', role: 'admin' });
      const adminB = await signUp(t.app, { email: 'admin@example.test', invite: shownSecret(inv.body).split('/').at(-1)! });
      const adminTokens = await grant(adminB, orgId);
      expect((await apiAs(adminTokens.access_token)).statusCode).toBe(200);
      await owner.get('/account/organization');
      const inv2 = await owner.post('/account/organization/invitations', { email: '', role: 'member' });
      const member = await signUp(t.app, { email: 'member@example.test', invite: shownSecret(inv2.body).split('/').at(-1)! });
      const { challenge } = pkce();
      const q = { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' };
      const page = await member.get(`/oauth/authorize?${new URLSearchParams(q).toString()}`);
      expect(page.body).toContain('Only owners and admins can give an app access');
      const forced = await member.post('/oauth/authorize', { ...member.hiddenFields('/oauth/authorize'), decision: 'approve', organizationId: orgId });
      expect(forced.statusCode).toBe(403);

      const adminId = (await t.deps.repositories.accounts.findUserByEmail('admin@example.test'))!.id;
      await owner.get('/account/organization');
      expect((await owner.post(`/account/organization/members/${adminId}/remove`, {}, { csrf: owner.csrf() })).statusCode).toBe(303);
      expect((await apiAs(adminTokens.access_token)).statusCode).toBe(401);
      const refreshed = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: adminTokens.refresh_token }, basic);
      expect(refreshed.json<{ error: string }>().error).toBe('invalid_grant');
    });

    it('deleting an app revokes its tokens; revocation (RFC 7009) of an access token or a refresh token', async () => {
      const tokens = await grant();
      const res = await oauthPost(t.app, '/oauth/revoke', { token: tokens.access_token, token_type_hint: 'access_token' }, basic);
      expect(res.statusCode).toBe(200);
      expect((await apiAs(tokens.access_token)).statusCode).toBe(401);
      // unknown tokens answer the same
      expect((await oauthPost(t.app, '/oauth/revoke', { token: 'pos_unknown' }, basic)).statusCode).toBe(200);
      const more = await grant();
      await oauthPost(t.app, '/oauth/revoke', { token: more.refresh_token }, basic);
      expect((await apiAs(more.access_token)).statusCode).toBe(401);
      // another client cannot revoke this client's token
      const other = await registerApp(owner, { name: 'Third', redirectUris: [REDIRECT] });
      const live = await grant();
      const foreign = await oauthPost(t.app, '/oauth/revoke', { token: live.access_token }, { id: other.clientId, secret: other.clientSecret! });
      expect(foreign.json<{ error: string }>().error).toBe('unauthorized_client');
      expect((await apiAs(live.access_token)).statusCode).toBe(200);

      const apps = await owner.get('/account/apps');
      // the delete form of the row that shows this client id
      const appId = /action="\/account\/apps\/([0-9a-f-]{36})\/delete"/.exec(apps.body.slice(apps.body.indexOf(`<code>${app.clientId}</code>`)))![1]!;
      expect((await owner.post(`/account/apps/${appId}/delete`, {}, { csrf: owner.csrf() })).statusCode).toBe(303);
      expect((await apiAs(live.access_token)).statusCode).toBe(401);
      expect((await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: live.refresh_token }, basic)).json<{ error: string }>().error).toBe('invalid_client');
    });
  });
});

describe('OAuth settings', () => {
  it('dynamic registration can be switched off; access tokens can be given a lifetime', async () => {
    const clock = manualClock();
    const t = await buildTestApp({ clock, env: { OAUTH_DYNAMIC_REGISTRATION: 'false', OAUTH_ACCESS_TOKEN_TTL: '1h' } });
    try {
      const res = await t.app.inject({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: ['https://x.example/cb'] } });
      expect(res.statusCode).toBe(404);
      const meta = (await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json<Record<string, unknown>>();
      expect(meta.registration_endpoint).toBeUndefined();

      const owner = await signUp(t.app, { email: 'o@example.test' });
      const app = await registerApp(owner);
      const { verifier, challenge } = pkce();
      const back = await consent(owner, { client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' });
      const tokens = (await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }, { id: app.clientId, secret: app.clientSecret! })).json<Tokens>();
      expect(tokens.expires_in).toBe(3600);
      expect((await call(t.app, tokens.access_token, { method: 'GET', url: '/public/v1/groups' })).statusCode).toBe(200);
      clock.advance(3_600_001);
      expect((await call(t.app, tokens.access_token, { method: 'GET', url: '/public/v1/groups' })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
