import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../core/events/events.js';
import { PLATFORM_IDENTIFIERS } from '../platforms/platform.js';
import { useTestApp } from '../../test/helpers.js';

interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema: unknown }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: unknown };
}

describe('OpenAPI', () => {
  const { t } = useTestApp();

  it('serves an OpenAPI 3.1 document of the public routes, generated from their schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ openapi: string; paths: Record<string, Record<string, { parameters?: { name: string }[]; responses: Record<string, unknown> }>>; components: { securitySchemes: unknown } }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/activity',
      '/ai/alt-text',
      '/ai/draft',
      '/ai/hashtags',
      '/ai/rewrite',
      '/ai/settings',
      '/ai/thread',
      '/ai/translate',
      '/analytics/overview',
      '/analytics/overview.csv',
      '/analytics/post/{postId}',
      '/analytics/{integrationId}',
      '/api-keys',
      '/api-keys/{id}',
      '/api-keys/{id}/approval',
      '/approval-rules',
      '/approval-rules/{id}',
      '/approvals',
      '/approvals/check',
      '/approved-apps',
      '/approved-apps/{id}',
      '/comments/{id}',
      '/evergreen',
      '/evergreen/{id}',
      '/evergreen/{id}/channels/{integrationId}/resume',
      '/evergreen/{id}/fill',
      '/evergreen/{id}/items',
      '/evergreen/{id}/items/{itemId}',
      '/evergreen/{id}/plan',
      '/exports/posts',
      '/feeds',
      '/feeds/{id}',
      '/feeds/{id}/items',
      '/feeds/{id}/poll',
      '/find-slot/{id}',
      '/generate-video',
      '/groups',
      '/groups/{id}',
      '/imports',
      '/imports/{id}',
      '/integration-settings/{id}',
      '/integration-trigger/{id}',
      '/integrations',
      '/integrations/{id}',
      '/integrations/{id}/account',
      '/invitations',
      '/invitations/{id}',
      '/is-connected',
      '/me',
      '/me/organization',
      '/media',
      '/media/{id}',
      '/media/{id}/uses',
      '/members',
      '/members/{userId}',
      '/notifications',
      '/onboarding',
      '/platforms',
      '/posts',
      '/posts/group/{group}',
      '/posts/group/{group}/approve',
      '/posts/group/{group}/comments',
      '/posts/group/{group}/date',
      '/posts/group/{group}/request-changes',
      '/posts/group/{group}/submit',
      '/posts/{id}',
      '/posts/{id}/date',
      '/posts/{id}/links',
      '/posts/{id}/missing',
      '/posts/{id}/release-id',
      '/posts/{id}/settings',
      '/posts/{id}/status',
      '/preview-links',
      '/preview-links/{id}',
      '/sandbox/channels',
      '/sandbox/channels/{id}/faults',
      '/sandbox/channels/{id}/feed',
      '/series',
      '/series/{id}',
      '/short-links/settings',
      '/signatures',
      '/signatures/{id}',
      '/signatures/{id}/apply',
      '/social/{identifier}',
      '/templates',
      '/templates/{id}',
      '/templates/{id}/render',
      '/upload',
      '/upload-from-url',
      '/video/credits',
      '/video/function',
      '/video/jobs',
      '/video/jobs/{id}',
      '/video/providers',
      '/webhooks',
      '/webhooks/{id}',
      '/webhooks/{id}/deliveries',
      '/webhooks/{id}/deliveries/{deliveryId}/resend',
      '/webhooks/{id}/rotate-secret',
      '/webhooks/{id}/test',
    ]);
    expect(doc.paths['/posts']!.post!.parameters!.map((p) => p.name)).toContain('idempotency-key');
    expect(doc.paths['/integrations']!.get!.parameters!.map((p) => p.name).sort()).toEqual(['customer', 'group']);
    expect(Object.keys(doc.paths['/integrations']!.get!.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    expect(doc.components.securitySchemes).toEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } });
  });

  const document = async () => (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json<Document>();
  const operations = (doc: Document) =>
    Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, path, method, op })));

  it('validates as OpenAPI 3.1, and every schema in it compiles as JSON Schema 2020-12', async () => {
    const doc = await document();
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
    const schemas = operations(doc).flatMap(({ id, op }) => [
      ...(op.parameters ?? []).map((p) => [`${id} ${p.name}`, p.schema] as const),
      ...Object.entries(op.requestBody?.content ?? {}).map(([type, c]) => [`${id} body ${type}`, c.schema] as const),
      ...Object.entries(op.responses).flatMap(([status, r]) => Object.values(r.content ?? {}).map((c) => [`${id} ${status}`, c.schema] as const)),
    ]);
    for (const [where, schema] of schemas) expect(() => ajv.compile(schema as object), where).not.toThrow();
  });

  it('lists every status each operation can answer, each error with the one error body', async () => {
    const doc = await document();
    for (const { id, path, method, op } of operations(doc)) {
      const statuses = Object.keys(op.responses);
      const expected = ['400', '401', '429', '500', '503'];
      if (path.includes('{')) expected.push('404', '414');
      if (method !== 'get') expected.push('413', '415');
      expect(statuses, id).toEqual(expect.arrayContaining(expected));
      // One success each, but POST /generate-video: the media item (201) or, when the video is still being made, the job (202).
      if (id === 'POST /generate-video') expect(statuses.filter((s) => s.startsWith('2'))).toEqual(['201', '202']);
      // POST /imports: the dry-run report (200), the created import (201) or the background import to poll (202).
      else if (id === 'POST /imports') expect(statuses.filter((s) => s.startsWith('2'))).toEqual(['200', '201', '202']);
      else expect(statuses.filter((s) => s.startsWith('2')), id).toHaveLength(1);
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(op.responses[status]!.content!['application/json']!.schema, `${id} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        expect(op.responses[status]!.description, `${id} ${status}`).toMatch(/`code` is /);
      }
    }
    // statuses particular to some routes
    expect(Object.keys(doc.paths['/posts']!.post!.responses)).toEqual(expect.arrayContaining(['201', '403', '409']));
    expect(Object.keys(doc.paths['/media/{id}']!.delete!.responses)).toContain('409');
    expect(Object.keys(doc.paths['/social/{identifier}']!.get!.responses)).toEqual(expect.arrayContaining(['403', '501', '502']));
    expect(Object.keys(doc.paths['/integration-trigger/{id}']!.post!.responses)).toEqual(expect.arrayContaining(['409', '422', '501', '502']));
    expect(doc.paths['/upload']!.post!.responses['413']!.description).toMatch(/PAYLOAD_TOO_LARGE/);
  });

  it('documents request bodies clients need: the multipart upload, and POST /posts with date required', async () => {
    const doc = await document();
    const upload = doc.paths['/upload']!.post!.requestBody!;
    expect(upload.required).toBe(true);
    expect(upload.content['multipart/form-data']!.schema).toMatchObject({ type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } });
    const createPosts = doc.paths['/posts']!.post!.requestBody!.content['application/json']!.schema;
    expect(createPosts.required).toEqual(['date', 'posts']);
    expect((createPosts.properties as Record<string, unknown>).date).toMatchObject({ type: 'string', format: 'date-time' });
    const list = doc.paths['/posts']!.get!.parameters!;
    for (const name of ['startDate', 'endDate']) expect(list.find((p) => p.name === name)).toMatchObject({ required: true, schema: { type: 'string', format: 'date-time' } });
    const identifier = doc.paths['/social/{identifier}']!.get!.parameters!.find((p) => p.name === 'identifier')!.schema as { $ref: string };
    const ref = identifier.$ref.split('/').at(-1)!;
    expect([...(doc.components.schemas[ref]!.enum as string[])].sort()).toEqual([...PLATFORM_IDENTIFIERS].sort());
    expect(doc.components.schemas.Integration!.properties).toMatchObject({ identifier: { $ref: '#/components/schemas/PlatformIdentifier' } });
  });

  it('documents the headers answers carry: the rate limit on each, Retry-After with 429 and 503, Idempotent-Replayed on POST /posts', async () => {
    const doc = await document();
    const rateLimit = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
    for (const { id, op } of operations(doc)) {
      const responses = op.responses as Record<string, { headers?: Record<string, { schema: unknown }> }>;
      for (const [status, r] of Object.entries(responses)) {
        const names = Object.keys(r.headers ?? {});
        if (status === '401' || status === '414') expect(names, `${id} ${status}`).not.toContain('RateLimit-Limit');
        else expect(names, `${id} ${status}`).toEqual(expect.arrayContaining(rateLimit));
        if (status === '429' || status === '503') expect(names, `${id} ${status}`).toContain('Retry-After');
      }
    }
    const created = (doc.paths['/posts']!.post!.responses as Record<string, { headers?: Record<string, unknown> }>)['201']!;
    expect(Object.keys(created.headers!)).toContain('Idempotent-Replayed');
    // What is documented is what a real answer carries.
    const org = await t.createOrg('Headers');
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/integrations', headers: { authorization: org.apiKey } });
    expect(res.statusCode).toBe(200);
    for (const name of rateLimit) expect(res.headers[name.toLowerCase()], name).toMatch(/^\d+$/);
  });

  it('lists every webhook event type in `webhooks`, with the envelope and its payload schema', async () => {
    const doc = (await document()) as unknown as { webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: Record<string, unknown> }> }; responses: Record<string, unknown> } }> };
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const validates = (type: string, body: unknown) => ajv.validate(doc.webhooks[type]!.post.requestBody.content['application/json']!.schema, body);
    for (const type of EVENT_TYPES) {
      const schema = doc.webhooks[type]!.post.requestBody.content['application/json']!.schema as { required: string[]; properties: Record<string, { const?: string; type?: string; required?: string[] }> };
      expect(schema.required, type).toEqual(['id', 'type', 'timestamp', 'data']);
      expect(schema.properties.type!.const, type).toBe(type);
      expect(schema.properties.data!.type, type).toBe('object');
      expect(schema.properties.data!.required!.length, type).toBeGreaterThan(0);
      expect(Object.keys(doc.webhooks[type]!.post.responses), type).toEqual(['200']);
      // The type is bound to its payload: an envelope of another type does not validate.
      expect(validates(type, { id: 'e', type: 'not.a.type', timestamp: '2026-01-01T00:00:00.000Z', data: {} }), type).toBe(false);
    }
    const envelope = { id: 'e1', timestamp: '2026-11-21T12:00:00.000Z' };
    const post = { postId: 'p', rootPostId: 'p', group: 'g', position: 0, integration: { id: 'c', identifier: 'bluesky', name: 'Sky' } };
    expect(validates('post.published', { ...envelope, type: 'post.published', data: { ...post, releaseId: 'r', releaseURL: null, publishedAt: envelope.timestamp } })).toBe(true);
    expect(validates('post.published', { ...envelope, type: 'post.published', data: { ...post, releaseURL: null, publishedAt: envelope.timestamp } })).toBe(false);
    expect(validates('post.failed', { ...envelope, type: 'post.failed', data: { ...post, integration: { id: 'c' }, error: 'x', failedAt: envelope.timestamp } })).toBe(true);
    expect(validates('integration.disconnected', { ...envelope, type: 'integration.disconnected', data: { integration: { id: 'c', identifier: 'x', name: 'X' }, disconnectedAt: envelope.timestamp } })).toBe(true);
    expect(validates('webhook.test', { ...envelope, type: 'webhook.test', data: { webhook: { id: 'w', name: 'W' }, message: 'This is a test event from Tidings' } })).toBe(true);
    expect(validates('webhook.disabled', { ...envelope, type: 'webhook.disabled', data: { webhook: { id: 'w', name: 'W' }, reason: 'gone' } })).toBe(false);
  });

  it('serves the interactive page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/public/v1/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
