import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers.js';

describe('OpenAPI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  it('serves an OpenAPI 3.1 document of the public routes, generated from their schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ openapi: string; paths: Record<string, Record<string, { parameters?: { name: string }[]; responses: Record<string, unknown> }>>; components: { securitySchemes: unknown } }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/analytics/post/{postId}',
      '/analytics/{integrationId}',
      '/find-slot/{id}',
      '/groups',
      '/groups/{id}',
      '/integration-settings/{id}',
      '/integration-trigger/{id}',
      '/integrations',
      '/integrations/{id}',
      '/integrations/{id}/account',
      '/is-connected',
      '/media',
      '/media/{id}',
      '/notifications',
      '/posts',
      '/posts/group/{group}',
      '/posts/{id}',
      '/posts/{id}/missing',
      '/posts/{id}/release-id',
      '/posts/{id}/settings',
      '/posts/{id}/status',
      '/social/{identifier}',
      '/upload',
      '/upload-from-url',
    ]);
    expect(doc.paths['/posts']!.post!.parameters!.map((p) => p.name)).toContain('idempotency-key');
    expect(doc.paths['/integrations']!.get!.parameters!.map((p) => p.name).sort()).toEqual(['customer', 'group']);
    expect(Object.keys(doc.paths['/integrations']!.get!.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    expect(doc.components.securitySchemes).toEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } });
  });

  it('serves the interactive page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
