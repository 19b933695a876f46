import { readFile } from 'node:fs/promises';
import { FormData as UndiciFormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../factories.js';
import { buildTestApp, type TestApp, type TestOrg } from '../helpers.js';
import { listen } from '../wire.js';

/**
 * The Postiz n8n node (`postiz-n8n` 0.2.17), as it calls the API: every request below is built the
 * way that node builds it from its form fields (facts from its published source: empty strings for
 * the optional `id` and `group`, `settings: {}` when no setting is added, images as `{ id, path }`,
 * the API key alone in `Authorization`, `<host>/public/v1` as the base URL, a JSON body `{}` on
 * GET and DELETE). Over real HTTP, as n8n sends it.
 */

interface NodeForm {
  type: 'draft' | 'schedule' | 'now';
  date: string;
  posts: {
    integrationId: string;
    group?: string;
    settings?: { key: string; value: unknown }[];
    items: { content: string; id?: string; images?: { id: string; path: string }[] }[];
  }[];
}

/** The Create Post body exactly as the node assembles it from its form. */
function createPostBody(form: NodeForm) {
  return {
    type: form.type,
    shortLink: false,
    date: form.date,
    tags: [],
    posts: form.posts.map((p) => ({
      integration: { id: p.integrationId },
      value: p.items.map((item) => ({ content: item.content, id: item.id || '', image: (item.images ?? []).map((img) => ({ id: img.id, path: img.path })) })),
      group: p.group || '',
      settings: Object.fromEntries((p.settings ?? []).map((s) => [s.key, s.value])),
    })),
  };
}

describe('the Postiz n8n node against Tidings', () => {
  let t: TestApp;
  let org: TestOrg;
  let origin: string;
  let sky: string;
  let x: string;

  beforeAll(async () => {
    t = await buildTestApp();
    org = await t.createOrg('n8n');
    ({ origin } = await listen(t.app));
    sky = (await createChannel(t, org, 'bluesky', { name: 'Sky' })).id;
    x = (await createChannel(t, org, 'x', { name: 'X' })).id;
  });
  afterAll(async () => t.close());

  /** `postizApiRequest`: base `<host>/public/v1`, JSON body (default `{}`), key in Authorization. */
  async function nodeRequest(host: string, method: string, resource: string, body: unknown = {}, query: Record<string, string> = {}) {
    const url = new URL(`${host}/public/v1${resource}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const isForm = body instanceof UndiciFormData;
    // (undici's request, as n8n's HTTP client does, sends the `{}` body on GET too)
    const res = await request(url, {
      method: method as 'GET',
      headers: { authorization: org.apiKey, ...(isForm ? {} : { 'content-type': 'application/json' }) },
      body: isForm ? body : JSON.stringify(body),
    });
    return { status: res.statusCode, body: await res.body.json() };
  }

  for (const [label, base] of [
    ['the cloud host form (https://<host>)', () => origin],
    ['a self-hosted Postiz host form (https://<host>/api)', () => `${origin}/api`],
  ] as const) {
    describe(label, () => {
      it('credential test (GET /is-connected) and Get Channels', async () => {
        expect(await nodeRequest(base(), 'GET', '/is-connected')).toEqual({ status: 200, body: { connected: true } });
        const channels = await nodeRequest(base(), 'GET', '/integrations');
        expect(channels.status).toBe(200);
        expect((channels.body as { id: string }[]).map((c) => c.id).sort()).toEqual([sky, x].sort());
      });

      it('Upload File, then Create Post with the upload, a two-item thread, empty id and group: created as new posts', async () => {
        const png = await readFile(new URL('../fixtures/media/photo-48x64.png', import.meta.url));
        const form = new UndiciFormData();
        form.append('file', new Blob([png], { type: 'image/png' }), 'photo.png');
        const uploaded = await nodeRequest(base(), 'POST', '/upload', form);
        expect(uploaded.status).toBe(201);
        const media = uploaded.body as { id: string; path: string };

        const created = await nodeRequest(
          base(),
          'POST',
          '/posts',
          createPostBody({
            type: 'schedule',
            date: '2031-03-01T09:30:00.000Z',
            posts: [
              { integrationId: sky, items: [{ content: 'Hello from n8n', images: [media] }, { content: 'and a reply' }] },
              { integrationId: x, settings: [{ key: 'who_can_reply_post', value: 'everyone' }], items: [{ content: 'Hello X from n8n' }] },
            ],
          }),
        );
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const results = created.body as { postId: string; integration: string; group: string }[];
        expect(results.map((r) => r.integration)).toEqual([sky, x]);
        expect(new Set(results.map((r) => r.group)).size).toBe(1);

        const listed = await nodeRequest(base(), 'GET', '/posts', {}, { startDate: '2031-03-01T00:00:00.000Z', endDate: '2031-03-02T00:00:00.000Z' });
        expect(listed.status).toBe(200);
        const posts = (listed.body as { posts: { id: string; state: string; content: string; image: { id: string }[]; thread: { content: string }[] }[] }).posts;
        const onSky = posts.find((p) => p.id === results[0]!.postId)!;
        expect(onSky).toMatchObject({ state: 'QUEUE', content: 'Hello from n8n', image: [{ id: media.id }], thread: [{ content: 'and a reply' }] });

        // Delete Post (a JSON `{}` body on DELETE, as the node sends it).
        const deleted = await nodeRequest(base(), 'DELETE', `/posts/${results[1]!.postId}`);
        expect(deleted.status).toBe(200);
      });

      it('Create Post as a draft, and "now" with the date field left empty', async () => {
        const draft = await nodeRequest(base(), 'POST', '/posts', createPostBody({ type: 'draft', date: '2031-04-01T10:00:00', posts: [{ integrationId: sky, items: [{ content: 'draft' }] }] }));
        expect(draft.status, JSON.stringify(draft.body)).toBe(201);
        const now = await nodeRequest(base(), 'POST', '/posts', createPostBody({ type: 'now', date: '', posts: [{ integrationId: sky, items: [{ content: 'right away' }] }] }));
        expect(now.status, JSON.stringify(now.body)).toBe(201);
      });
    });
  }

  it('an id the node fills in still edits that post; an unknown one is still refused', async () => {
    const first = await nodeRequest(origin, 'POST', '/posts', createPostBody({ type: 'draft', date: '2031-05-01T10:00:00Z', posts: [{ integrationId: sky, items: [{ content: 'v1' }] }] }));
    const { postId, group } = (first.body as { postId: string; group: string }[])[0]!;
    const edited = await nodeRequest(origin, 'POST', '/posts', createPostBody({ type: 'draft', date: '2031-05-01T10:00:00Z', posts: [{ integrationId: sky, group, items: [{ content: 'v2', id: postId }] }] }));
    expect(edited.status).toBe(201);
    expect((edited.body as { postId: string }[])[0]!.postId).toBe(postId);
    const unknown = await nodeRequest(origin, 'POST', '/posts', createPostBody({ type: 'draft', date: '2031-05-01T10:00:00Z', posts: [{ integrationId: sky, items: [{ content: 'v3', id: '00000000-0000-4000-8000-000000000000' }] }] }));
    expect(unknown.status).toBe(400);
  });
});
