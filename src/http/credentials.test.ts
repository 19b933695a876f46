import { beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../test/browser.js';
import { call, useTestApp } from '../../test/helpers.js';

describe('API keys and pos_ tokens on every public route', () => {
  let apiKey: string;
  let token: string;
  let orgId: string;

  const { t } = useTestApp({ env: { API_RATE_LIMIT: '100000' } });

  beforeAll(async () => {
    const owner = await signUp(t.app, { email: 'owner@example.test', organization: 'Acme' });
    const user = await t.deps.repositories.accounts.findUserByEmail('owner@example.test');
    orgId = (await t.deps.repositories.accounts.listMemberships(user!.id))[0]!.organizationId;
    apiKey = (await t.deps.services.organizations.createApiKey(orgId, 'parity')).apiKey;
    // a pos_ token the way the Postiz CLI gets one
    const start = (await t.app.inject({ method: 'POST', url: '/device/code' })).json<{ device_code: string; user_code: string }>();
    await owner.get(`/device/verify?code=${start.user_code}`);
    await owner.post('/device/verify', { code: start.user_code, organizationId: orgId, decision: 'approve' });
    token = (await t.app.inject({ method: 'POST', url: '/device/token', payload: { device_code: start.device_code } })).json<{ access_token: string }>().access_token;
  });

  it('every operation of the OpenAPI document answers the same to both credentials of one organisation (never 401)', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
    const checked: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
        // unknown ids and absent bodies: the same refusal (or listing) for both, after authentication
        const url = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
        const send = (credential: string) =>
          call(t.app, credential, { method: method.toUpperCase() as 'GET', url, ...(method === 'get' || method === 'delete' ? {} : { payload: {} }) });
        const [withKey, withToken] = [await send(apiKey), await send(token)];
        expect(withKey.statusCode, `${method} ${path} with the key: ${withKey.body.slice(0, 200)}`).not.toBe(401);
        expect({ op: `${method} ${path}`, status: withToken.statusCode }).toEqual({ op: `${method} ${path}`, status: withKey.statusCode });
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it('both resolve to the organisation: what one makes, the other sees', async () => {
    const made = await call(t.app, token, { method: 'POST', url: '/public/v1/groups', payload: { name: 'By token' } });
    expect(made.statusCode).toBe(201);
    const listed = await call(t.app, apiKey, { method: 'GET', url: '/public/v1/groups' });
    expect(listed.json<{ name: string }[]>().map((g) => g.name)).toEqual(['By token']);
    const other = await t.createOrg('Other');
    expect((await call(t.app, other.apiKey, { method: 'GET', url: '/public/v1/groups' })).json()).toEqual([]);
    expect(orgId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
