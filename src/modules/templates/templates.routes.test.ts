import { describe, expect, it } from 'vitest';
import { createChannel, createMedia } from '../../../test/factories.js';
import { call, expectError, expectIsolated, useTestApp } from '../../../test/helpers.js';

interface Template {
  id: string;
  name: string;
  description: string;
  body: { posts: { integration?: { id: string }; value: { content: string; image?: { id: string; path: string }[] }[] }[] };
  placeholders: string[];
}
interface Signature {
  id: string;
  name: string;
  content: string;
  autoAdd: boolean;
  integrationIds: string[];
}

describe('templates and signatures', () => {
  const { t, orgs: { acme, beta } } = useTestApp({}, 'Acme', 'Beta');

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, key = acme.apiKey) =>
    call(t.app, key, { method, url: `/public/v1${url}`, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function created<T>(url: string, body: unknown, key = acme.apiKey) {
    const res = await api('POST', url, body, key);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<T>();
  }

  it('saves, lists, changes and deletes templates; names are unique case-insensitively; placeholders are listed; channels and media are checked', async () => {
    const x = await createChannel(t, acme, 'x', { name: 'X' });
    const picture = await createMedia(t, acme);
    const foreign = await createChannel(t, beta, 'x');
    const body = { posts: [{ integration: { id: x.id }, value: [{ content: 'Hello {{name}}, see {{link}}', image: [{ id: picture.id, path: picture.path }] }, { content: 'More for {{name}}' }] }] };
    const tpl = await created<Template>('/templates', { name: 'Launch', description: 'for launches', body });
    expect(tpl).toMatchObject({ name: 'Launch', description: 'for launches', placeholders: ['name', 'link'] });
    expect(tpl.body.posts[0]!.value[0]!.image).toEqual([{ id: picture.id, path: picture.path }]);

    expectError(await api('POST', '/templates', { name: 'launch', body }), 409, 'CONFLICT').fields!.forEach((f) => expect(f.path).toBe('name'));
    const badChannel = expectError(await api('POST', '/templates', { name: 'Other', body: { posts: [{ integration: { id: foreign.id }, value: [{ content: 'x' }] }] } }), 400, 'VALIDATION_FAILED');
    expect(badChannel.fields).toEqual([{ path: 'body.posts.0.integration.id', message: expect.any(String) }]);
    const otherMedia = await createMedia(t, beta);
    const badMedia = expectError(await api('POST', '/templates', { name: 'Other', body: { posts: [{ value: [{ content: 'x', image: [{ id: otherMedia.id, path: otherMedia.path }] }] }] } }), 400, 'VALIDATION_FAILED');
    expect(badMedia.fields!.map((f) => f.path)).toEqual(['body.posts.0.value.0.image.0']);

    const second = await created<Template>('/templates', { name: 'Weekly', body: { posts: [{ value: [{ content: 'No placeholders' }] }] } });
    expect(second.placeholders).toEqual([]);
    expectError(await api('PUT', `/templates/${second.id}`, { name: 'LAUNCH' }), 409, 'CONFLICT');
    const renamed = await api('PUT', `/templates/${second.id}`, { name: 'Weekly news', body: { posts: [{ value: [{ content: 'Week {{n}}' }] }] } });
    expect(renamed.json<Template>()).toMatchObject({ name: 'Weekly news', placeholders: ['n'] });
    expect((await api('GET', '/templates')).json<Template[]>().map((x) => x.name)).toEqual(['Launch', 'Weekly news']);
    expect((await api('GET', `/templates/${tpl.id}`)).json<Template>().name).toBe('Launch');

    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/templates/${tpl.id}` }, acme, beta);
    await expectIsolated(t.app, { method: 'POST', url: `/public/v1/templates/${tpl.id}/render`, payload: { values: { name: 'a', link: 'b' } } }, acme, beta);
    expect((await api('GET', '/templates', undefined, beta.apiKey)).json<Template[]>()).toEqual([]);
    await expectIsolated(t.app, { method: 'DELETE', url: `/public/v1/templates/${second.id}` }, acme, beta);
    expectError(await api('GET', `/templates/${second.id}`), 404, 'NOT_FOUND');
  });

  it('renders a template for chosen channels with the values and auto-add signatures, and POST /posts creates the post', async () => {
    const org = await t.createOrg('Render');
    const x = await createChannel(t, org, 'x', { name: 'X', defaultSettings: { who_can_reply_post: 'everyone' } });
    const mastodon = await createChannel(t, org, 'mastodon', { name: 'Mastodon', instanceUrl: 'https://mastodon.example' });
    const sig = await created<Signature>('/signatures', { name: 'Team', content: '— the team', autoAdd: true, integrationIds: [x.id] }, org.apiKey);
    const tpl = await created<Template>('/templates', { name: 'Promo', body: { type: 'schedule', posts: [{ value: [{ content: 'Sale on {{item}}!' }, { content: 'Ends {{day}}' }] }] } }, org.apiKey);

    const missing = expectError(await api('POST', `/templates/${tpl.id}/render`, { values: { item: 'shoes' }, integrations: [x.id] }, org.apiKey), 400, 'VALIDATION_FAILED');
    expect(missing.fields).toEqual([{ path: 'values.day', message: expect.any(String) }]);
    expectError(await api('POST', `/templates/${tpl.id}/render`, { values: { item: 'a', day: 'b' } }, org.apiKey), 400, 'VALIDATION_FAILED');

    const res = await api('POST', `/templates/${tpl.id}/render`, { values: { item: 'shoes', day: 'Friday' }, integrations: [x.id, mastodon.id], date: '2030-01-02T10:00:00Z' }, org.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    const rendered = res.json<{ posts: { integration: { id: string }; value: { content: string }[] }[] }>();
    expect(rendered.posts.map((p) => [p.integration.id, p.value.map((v) => v.content)])).toEqual([
      [x.id, ['Sale on shoes!\n\n— the team', 'Ends Friday']],
      [mastodon.id, ['Sale on shoes!', 'Ends Friday']],
    ]);

    const post = await api('POST', '/posts', rendered, org.apiKey);
    expect(post.statusCode, post.body).toBe(201);
    const ids = post.json<{ postId: string; integration: string }[]>();
    const onX = await api('GET', `/posts/${ids.find((p) => p.integration === x.id)!.postId}`, undefined, org.apiKey);
    expect(onX.json<{ content: string; state: string; thread: { content: string }[] }>()).toMatchObject({ content: 'Sale on shoes!\n\n— the team', state: 'QUEUE', thread: [{ content: 'Ends Friday' }] });

    // On demand: appended once, never doubled.
    const applied = await api('POST', `/signatures/${sig.id}/apply`, { content: 'Hi', integrationId: mastodon.id }, org.apiKey);
    expect(applied.json()).toEqual({ content: 'Hi\n\n— the team' });
    expect((await api('POST', `/signatures/${sig.id}/apply`, { content: 'Hi\n\n— the team' }, org.apiKey)).json()).toEqual({ content: 'Hi\n\n— the team' });
    expect(expectError(await api('POST', `/signatures/${sig.id}/apply`, { content: 'Hi', integrationId: 'nope' }, org.apiKey), 400, 'VALIDATION_FAILED').fields![0]!.path).toBe('integrationId');
  });

  it('keeps at most one auto-add signature per channel, checks names and channels, and isolates organisations', async () => {
    const org = await t.createOrg('Signatures');
    const a = await createChannel(t, org, 'x');
    const b = await createChannel(t, org, 'bluesky');
    const onA = await created<Signature>('/signatures', { name: 'A', content: 'sig A', autoAdd: true, integrationIds: [a.id] }, org.apiKey);
    await created<Signature>('/signatures', { name: 'B', content: 'sig B', autoAdd: true, integrationIds: [b.id] }, org.apiKey);
    await created<Signature>('/signatures', { name: 'Manual', content: 'by hand', integrationIds: [] }, org.apiKey);

    const overlapping = expectError(await api('POST', '/signatures', { name: 'All', content: 'sig all', autoAdd: true }, org.apiKey), 409, 'CONFLICT');
    expect(overlapping.fields!.map((f) => f.path)).toEqual(['integrationIds']);
    expectError(await api('POST', '/signatures', { name: 'a', content: 'again' }, org.apiKey), 409, 'CONFLICT');
    expect(expectError(await api('POST', '/signatures', { name: 'C', content: 'c', integrationIds: ['x'] }, org.apiKey), 400, 'VALIDATION_FAILED').fields![0]!.path).toBe('integrationIds.0');
    const manual = (await api('GET', '/signatures', undefined, org.apiKey)).json<Signature[]>().find((s) => s.name === 'Manual')!;
    expect(expectError(await api('PUT', `/signatures/${manual.id}`, { autoAdd: true, integrationIds: [b.id] }, org.apiKey), 409, 'CONFLICT').fields![0]!.path).toBe('integrationIds');

    const changed = await api('PUT', `/signatures/${onA.id}`, { content: 'new A', integrationIds: [a.id, a.id] }, org.apiKey);
    expect(changed.json<Signature>()).toMatchObject({ content: 'new A', integrationIds: [a.id] });
    await expectIsolated(t.app, { method: 'PUT', url: `/public/v1/signatures/${onA.id}`, payload: { content: 'x' } }, org, beta);
    await expectIsolated(t.app, { method: 'POST', url: `/public/v1/signatures/${onA.id}/apply`, payload: { content: 'x' } }, org, beta);
    await expectIsolated(t.app, { method: 'DELETE', url: `/public/v1/signatures/${onA.id}` }, org, beta);
    // With A gone, an auto-add signature for A's channel is accepted.
    await created<Signature>('/signatures', { name: 'A2', content: 'sig A2', autoAdd: true, integrationIds: [a.id] }, org.apiKey);
    expect((await api('GET', '/signatures', undefined, org.apiKey)).json<Signature[]>().map((s) => s.name)).toEqual(['A2', 'B', 'Manual']);
  });
});
