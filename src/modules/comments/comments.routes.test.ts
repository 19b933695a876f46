import { beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Browser } from '../../../test/browser.js';
import { createChannel } from '../../../test/factories.js';
import { call, expectError, manualClock, useTestApp, type TestOrg } from '../../../test/helpers.js';

interface Comment {
  id: string;
  group: string;
  postId: string | null;
  author: { kind: string; id: string | null; name: string };
  body: string;
  mentions: { id: string; name: string }[];
  resolved: boolean;
  resolvedAt: string | null;
  resolvedBy: string | null;
  createdAt: string;
  updatedAt: string;
  edited: boolean;
}
interface Notes {
  notifications: { content: string; link: string | null }[];
}

describe('comments on posts (issue 31)', () => {
  const clock = manualClock();
  const { t } = useTestApp({ clock, env: { SIGNUP: 'open' } });
  let beta: TestOrg;
  let owner: Browser;
  let mia: Browser;
  let ownerId: string;
  let miaId: string;
  let acme: TestOrg;
  let group: string;
  let postIds: string[];

  const createGroup = async (org: TestOrg, channelIds: string[]) => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'draft', date: '2031-07-01T09:00:00Z', shortLink: false, tags: [], posts: channelIds.map((id) => ({ integration: { id }, value: [{ content: 'hello', image: [] }] })) },
    });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json<{ postId: string; group: string }[]>();
    return { group: made[0]!.group, ids: made.map((m) => m.postId) };
  };
  const threadUrl = (g: string) => `/public/v1/posts/group/${encodeURIComponent(g)}/comments`;
  /** Browser.api types the methods the older tests use; PATCH goes the same way */
  const patch = (b: Browser, url: string, payload: unknown) => (b.api.bind(b) as unknown as (m: 'PATCH', u: string, p: unknown) => ReturnType<Browser['api']>)('PATCH', url, payload);
  const notesOf = async (b: Browser) => (await b.api('GET', '/public/v1/notifications')).json<Notes>().notifications;

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'olga@example.test', name: 'Olga', organization: 'Acme' });
    const me = (await owner.api('GET', '/public/v1/me')).json<{ user: { id: string }; organization: { id: string } }>();
    ownerId = me.user.id;
    const { link } = (await owner.api('POST', '/public/v1/invitations', { email: 'mia@example.test', role: 'member' })).json<{ link: string }>();
    mia = await signUp(t.app, { email: 'mia@example.test', name: 'Mia', invite: link.split('/').at(-1)! });
    miaId = (await mia.api('GET', '/public/v1/me')).json<{ user: { id: string } }>().user.id;
    const key = await t.deps.services.organizations.createApiKey(me.organization.id, 'script');
    acme = { id: me.organization.id, name: 'Acme', apiKey: key.apiKey };
    const tg = await createChannel(t, acme, 'telegram', { name: 'TG' });
    const sky = await createChannel(t, acme, 'bluesky', { name: 'Sky' });
    ({ group, ids: postIds } = await createGroup(acme, [tg.id, sky.id]));
    beta = await t.createOrg('Beta');
  });

  it('writes a thread (oldest first), notifies each mentioned member once, and only them', async () => {
    const first = await owner.api('POST', threadUrl(group), { body: '  Can we shorten this, @Mia?  ', mentions: [miaId, miaId] });
    expect(first.statusCode, first.body).toBe(201);
    const c1 = first.json<Comment>();
    expect(c1).toEqual({
      id: expect.any(String),
      group,
      postId: null,
      author: { kind: 'user', id: ownerId, name: 'Olga' },
      body: 'Can we shorten this, @Mia?',
      mentions: [{ id: miaId, name: 'Mia' }],
      resolved: false,
      resolvedAt: null,
      resolvedBy: null,
      createdAt: new Date(clock.now()).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
      edited: false,
    });
    clock.advance(60_000);
    const second = await call(t.app, acme.apiKey, { method: 'POST', url: threadUrl(group), payload: { body: 'Bluesky only', postId: postIds[1] } });
    expect(second.json<Comment>()).toMatchObject({ postId: postIds[1], author: { kind: 'api_key', name: 'API key “script”' } });

    const list = (await mia.api('GET', threadUrl(group))).json<{ comments: Comment[] }>().comments;
    expect(list.map((c) => c.body)).toEqual(['Can we shorten this, @Mia?', 'Bluesky only']);
    expect((await owner.api('GET', `${threadUrl(group)}?postId=${postIds[1]}`)).json<{ comments: Comment[] }>().comments.map((c) => c.body)).toEqual(['Bluesky only']);

    // Mia sees her mention (once), linked to the post in the app; Olga and the API key do not.
    expect(await notesOf(mia)).toEqual([{ id: expect.any(String), content: 'Olga mentioned you in a comment: “Can we shorten this, @Mia?”', link: expect.stringMatching(/^\/posts\//), createdAt: expect.any(String) }]);
    expect(postIds.map((id) => `/posts/${id}`)).toContain((await notesOf(mia))[0]!.link);
    expect(await notesOf(owner)).toEqual([]);
    expect((await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/notifications' })).json<Notes>().notifications).toEqual([]);
    // An organisation-wide notification reaches everyone.
    await t.deps.services.notifications.notify(acme.id, 'for all');
    expect((await notesOf(owner)).map((n) => n.content)).toEqual(['for all']);
    expect((await notesOf(mia)).map((n) => n.content)).toEqual(['for all', 'Olga mentioned you in a comment: “Can we shorten this, @Mia?”']);
  });

  it('names a bad postId or mention, an empty or too long body', async () => {
    const other = await signUp(t.app, { email: 'zed@example.test', name: 'Zed', organization: 'Elsewhere' });
    const zedId = (await other.api('GET', '/public/v1/me')).json<{ user: { id: string } }>().user.id;
    const paths = async (payload: unknown) => expectError(await owner.api('POST', threadUrl(group), payload), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path);
    expect(await paths({ body: 'x', mentions: [miaId, zedId, 'nope'] })).toEqual(['mentions.1', 'mentions.2']);
    expect(await paths({ body: 'x', postId: '00000000-0000-4000-8000-000000000000' })).toEqual(['postId']);
    expect(await paths({ body: 'x', postId: 'abc' })).toEqual(['postId']);
    expect(await paths({ body: '   ' })).toEqual(['body']);
    expect(await paths({ body: 'x'.repeat(5001) })).toEqual(['body']);
  });

  it('only the author edits (new mentions notified, old ones not again); anyone resolves; author or admin deletes', async () => {
    const c = (await mia.api('POST', threadUrl(group), { body: 'Typo in line 2', mentions: [ownerId] })).json<Comment>();
    expect((await notesOf(owner)).filter((n) => n.content.includes('Typo'))).toHaveLength(1);

    expect(expectError(await patch(owner, `/public/v1/comments/${c.id}`, { body: 'hijacked' }), 403, 'FORBIDDEN').message).toContain('author');
    expectError(await call(t.app, acme.apiKey, { method: 'PATCH', url: `/public/v1/comments/${c.id}`, payload: { mentions: [] } }), 403, 'FORBIDDEN');

    clock.advance(60_000);
    const edited = (await patch(mia, `/public/v1/comments/${c.id}`, { body: 'Typo in line 3', mentions: [ownerId, miaId] })).json<Comment>();
    expect(edited).toMatchObject({ body: 'Typo in line 3', edited: true, mentions: [{ id: ownerId, name: 'Olga' }, { id: miaId, name: 'Mia' }] });
    // Olga was mentioned already; Mia mentioned herself: nobody is notified again.
    expect((await notesOf(owner)).filter((n) => n.content.includes('Typo'))).toHaveLength(1);
    expect((await notesOf(mia)).filter((n) => n.content.includes('Typo'))).toHaveLength(0);

    const resolved = (await patch(owner, `/public/v1/comments/${c.id}`, { resolved: true })).json<Comment>();
    expect(resolved).toMatchObject({ resolved: true, resolvedAt: new Date(clock.now()).toISOString(), resolvedBy: 'Olga', body: 'Typo in line 3' });
    const reopened = (await call(t.app, acme.apiKey, { method: 'PATCH', url: `/public/v1/comments/${c.id}`, payload: { resolved: false } })).json<Comment>();
    expect(reopened).toMatchObject({ resolved: false, resolvedAt: null, resolvedBy: null });

    // Mia (a member) may not delete Olga's comment; the key may not delete Mia's; Olga (owner) may.
    const olgas = (await owner.api('POST', threadUrl(group), { body: 'mine' })).json<Comment>();
    expectError(await mia.api('DELETE', `/public/v1/comments/${olgas.id}`), 403, 'FORBIDDEN');
    expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/comments/${c.id}` }), 403, 'FORBIDDEN');
    expect((await owner.api('DELETE', `/public/v1/comments/${c.id}`)).json()).toEqual({ id: c.id, deleted: true });
    expectError(await patch(owner, `/public/v1/comments/${c.id}`, { resolved: true }), 404, 'NOT_FOUND');
    expectError(await owner.api('DELETE', `/public/v1/comments/${c.id}`), 404, 'NOT_FOUND');
    expect((await owner.api('GET', threadUrl(group))).json<{ comments: Comment[] }>().comments.map((x) => x.id)).not.toContain(c.id);
  });

  it('unknown ids, other organisations and deleted posts are 404', async () => {
    const c = (await owner.api('POST', threadUrl(group), { body: 'private' })).json<Comment>();
    for (const url of ['/public/v1/comments/abc', '/public/v1/comments/00000000-0000-4000-8000-000000000000']) {
      expectError(await patch(owner, url, { resolved: true }), 404, 'NOT_FOUND');
    }
    expectError(await owner.api('GET', threadUrl('no-such-group')), 404, 'NOT_FOUND');
    expectError(await call(t.app, beta.apiKey, { method: 'GET', url: threadUrl(group) }), 404, 'NOT_FOUND');
    expectError(await call(t.app, beta.apiKey, { method: 'POST', url: threadUrl(group), payload: { body: 'x' } }), 404, 'NOT_FOUND');
    expectError(await call(t.app, beta.apiKey, { method: 'PATCH', url: `/public/v1/comments/${c.id}`, payload: { resolved: true } }), 404, 'NOT_FOUND');
    expectError(await call(t.app, beta.apiKey, { method: 'DELETE', url: `/public/v1/comments/${c.id}` }), 404, 'NOT_FOUND');

    const tg = await createChannel(t, acme, 'telegram', { name: 'TG2' });
    const doomed = await createGroup(acme, [tg.id]);
    const d = (await owner.api('POST', threadUrl(doomed.group), { body: 'soon gone' })).json<Comment>();
    expect((await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/posts/${doomed.ids[0]}` })).statusCode).toBe(200);
    expectError(await owner.api('GET', threadUrl(doomed.group)), 404, 'NOT_FOUND');
    expectError(await patch(owner, `/public/v1/comments/${d.id}`, { resolved: true }), 404, 'NOT_FOUND');
  });

  it('a sandbox key sees only the threads of sandbox channels', async () => {
    const sandboxKey = (await t.deps.services.organizations.createApiKey(acme.id, 'sandbox', { sandbox: true })).apiKey;
    const sb = await createChannel(t, acme, 'telegram', { name: 'Sandbox TG' });
    await t.deps.database.sql.executeSql('UPDATE integrations SET sandbox = true WHERE id = $1', [sb.id]);
    const sandboxGroup = await createGroup(acme, [sb.id]);
    const live = (await owner.api('POST', threadUrl(group), { body: 'live thread' })).json<Comment>();
    const asSandbox = (method: string, url: string, payload?: Record<string, unknown>) => call(t.app, sandboxKey, { method: method as 'GET', url, payload });

    expect((await asSandbox('POST', threadUrl(sandboxGroup.group), { body: 'test comment' })).statusCode).toBe(201);
    expect((await asSandbox('GET', threadUrl(sandboxGroup.group))).json<{ comments: Comment[] }>().comments.map((c) => c.body)).toEqual(['test comment']);
    expectError(await asSandbox('GET', threadUrl(group)), 404, 'NOT_FOUND');
    expectError(await asSandbox('POST', threadUrl(group), { body: 'x' }), 404, 'NOT_FOUND');
    expectError(await asSandbox('PATCH', `/public/v1/comments/${live.id}`, { resolved: true }), 404, 'NOT_FOUND');
    expectError(await asSandbox('DELETE', `/public/v1/comments/${live.id}`), 404, 'NOT_FOUND');
  });
});
