import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { call, expectError, useTestApp } from '../../test/helpers.js';

describe('errors (API.md §3)', () => {
  const { t, orgs: { acme: org } } = useTestApp(
    {
      env: { JSON_BODY_LIMIT_BYTES: '2048' },
      extraRoutes: async (app) => {
        app.get('/test/boom', async () => {
          throw new Error('SELECT * FROM secrets WHERE password = 1 at db.ts:12');
        });
        app.post(
          '/test/nested',
          { schema: { body: z.object({ posts: z.array(z.object({ settings: z.object({ title: z.string() }) })).min(1) }) } },
          async () => ({ ok: true }),
        );
      },
    },
    'Acme',
  );

  it('unknown route → 404 in the error shape, with the request id of the header', async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/nope' });
    const body = expectError(res, 404, 'ROUTE_NOT_FOUND');
    expect(body.message).toBe('Route GET /public/v1/nope not found');
    expect(res.headers['x-request-id']).toMatch(/^req-[0-9a-f]{12}$/);
  });

  it('a body with a __proto__ key → 400, never reaching a handler', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/groups', payload: '{"name":"x","__proto__":{"admin":true}}', headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'MALFORMED_JSON');
  });

  it('malformed JSON → 400', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/groups', payload: '{"name":', headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'MALFORMED_JSON');
  });

  it('an empty body sent as application/json is no body (the Postiz CLI deletes that way)', async () => {
    const created = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'to delete' } });
    const id = created.json<{ id: string }>().id;
    const res = await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/groups/${id}`, payload: '', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(200);
    const post = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/groups', payload: '', headers: { 'content-type': 'application/json' } });
    expectError(post, 400, 'VALIDATION_FAILED');
  });

  it('wrong content type → 415', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/groups', payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('body too large → 413', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'x'.repeat(5000) } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('validation → 400 naming each offending path', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/test/nested',
      payload: { posts: [{ settings: { title: 'ok' } }, { settings: {} }, { settings: { title: 3 } }] },
    });
    const body = expectError(res, 400, 'VALIDATION_FAILED');
    expect(body.fields!.map((f) => f.path)).toEqual(['posts.1.settings.title', 'posts.2.settings.title']);
    expect(body.message).toContain('posts.1.settings.title: ');
    const root = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/test/nested', payload: [] }), 400, 'VALIDATION_FAILED');
    expect(root.fields![0]!.path).toBe('body');
  });

  it('unexpected failure → 500 without details', async () => {
    const body = expectError(await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/test/boom' }), 500, 'INTERNAL');
    expect(body.message).toBe('Internal server error');
  });

  describe('property: the validators never answer 500', () => {
    const anyJson = fc.jsonValue({ maxDepth: 3 });

    it('POST /groups with any JSON body → 201 or a 400 naming fields', async () => {
      await fc.assert(
        fc.asyncProperty(anyJson, async (payload) => {
          const res = await call(t.app, org.apiKey, {
            method: 'POST',
            url: '/public/v1/groups',
            payload: JSON.stringify(payload),
            headers: { 'content-type': 'application/json' },
          });
          if (res.statusCode === 201) return;
          // `__proto__`/`constructor.prototype` keys are refused by the JSON parser itself (prototype poisoning).
          if (res.json<{ code: string }>().code === 'MALFORMED_JSON') {
            expect(JSON.stringify(payload)).toMatch(/__proto__|constructor/);
            return;
          }
          const body = expectError(res, 400, 'VALIDATION_FAILED');
          expect(body.fields!.length).toBeGreaterThan(0);
        }),
        { numRuns: 60 },
      );
    });

    it('query strings of the read routes → 200 or 400, never 500', async () => {
      const key = fc.constantFrom('page', 'customer', 'group', 'x', '__proto__', 'constructor', 'page[]');
      const value = fc.oneof(fc.string(), fc.integer().map(String), fc.constant('-1'), fc.constant('1e309'), fc.constant('NaN'));
      const route = fc.constantFrom('/public/v1/notifications', '/public/v1/integrations', '/public/v1/groups', '/public/v1/is-connected');
      await fc.assert(
        fc.asyncProperty(route, fc.array(fc.tuple(key, value), { maxLength: 4 }), async (path, pairs) => {
          const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
          const res = await call(t.app, org.apiKey, { method: 'GET', url: `${path}?${qs}` });
          expect([200, 400], `${path}?${qs} → ${res.statusCode} ${res.body}`).toContain(res.statusCode);
          if (res.statusCode === 400) expectError(res, 400, 'VALIDATION_FAILED');
        }),
        { numRuns: 80 },
      );
    });

    it('ids in paths → 404, never 500', async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.string({ minLength: 1 }), fc.uuid()), async (id) => {
          const res = await call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/groups/${encodeURIComponent(id)}`, payload: { name: 'x' } });
          expect([404], `${id} → ${res.body}`).toContain(res.statusCode);
        }),
        { numRuns: 60 },
      );
    });
  });
});
