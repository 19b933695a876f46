import { readFile } from 'node:fs/promises';
import createClient from 'openapi-fetch';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../factories.js';
import { buildTestApp, type TestApp, type TestOrg } from '../helpers.js';
import { listen } from '../wire.js';
import type { paths } from '../../web/src/api/schema.js';

/**
 * A client generated from the service's own OpenAPI document (openapi-typescript types, the
 * openapi-fetch runtime), as an integrator would build one. The types are committed
 * (`web/src/api/schema.d.ts`, which the web app uses too) and this file is type-checked against them, so a change to the API that
 * breaks generated clients breaks the build; `npm run api:types` regenerates them.
 */

describe('a client generated from GET /public/v1/openapi.json', () => {
  let t: TestApp;
  let org: TestOrg;
  let origin: string;
  let channelId: string;

  beforeAll(async () => {
    t = await buildTestApp();
    org = await t.createOrg('Generated');
    ({ origin } = await listen(t.app));
    channelId = (await createChannel(t, org, 'bluesky', { name: 'Sky' })).id;
  });
  afterAll(async () => t.close());

  it('the committed types are the ones generated from the served document (else: npm run api:types)', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json<Parameters<typeof openapiTS>[0]>();
    const generated = COMMENT_HEADER + astToString(await openapiTS(doc));
    // The web app's API types are these very types: it breaks at build time when the API changes.
    await expect(generated).toMatchFileSnapshot('../../web/src/api/schema.d.ts');
  });

  it('uploads a file and creates a post with it, then reads it back, all typed', async () => {
    const client = createClient<paths>({ baseUrl: `${origin}/public/v1`, headers: { Authorization: org.apiKey } });
    const png = await readFile(new URL('../fixtures/media/photo-48x64.png', import.meta.url));

    const uploaded = await client.POST('/upload', {
      body: { file: 'photo.png' },
      // multipart bodies are built by the caller, as openapi-fetch documents
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', new Blob([png], { type: 'image/png' }), 'photo.png');
        return form;
      },
    });
    expect(uploaded.response.status).toBe(201);
    const media = uploaded.data!;
    expect(media).toMatchObject({ type: 'image', mimeType: 'image/png', width: 48, height: 64 });

    const created = await client.POST('/posts', {
      body: {
        type: 'schedule',
        date: '2031-06-01T09:00:00Z',
        shortLink: false,
        tags: [],
        posts: [{ integration: { id: channelId }, value: [{ content: 'Typed from the document', image: [{ id: media.id, path: media.path }] }] }],
      },
    });
    expect(created.response.status).toBe(201);
    const [result] = created.data!;
    expect(result!.integration).toBe(channelId);

    const read = await client.GET('/posts/{id}', { params: { path: { id: result!.postId } } });
    expect(read.data).toMatchObject({ state: 'QUEUE', content: 'Typed from the document', image: [{ id: media.id }], integration: { providerIdentifier: 'bluesky' } });

    // Errors come back typed as the one error body.
    const missing = await client.GET('/posts/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ statusCode: 404, code: 'NOT_FOUND', requestId: missing.response.headers.get('x-request-id') });
  });
});
