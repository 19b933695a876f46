import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Browser } from '../../../test/browser.js';
import { createChannel, eventsOf } from '../../../test/factories.js';
import { call, expectError, manualClock, useTestApp, type TestOrg } from '../../../test/helpers.js';
import { runAsActor } from '../../core/actor.js';

interface Link {
  id: string;
  kind: 'group' | 'range';
  group: string | null;
  from: string | null;
  to: string | null;
  customerId: string | null;
  title: string;
  allowApproval: boolean;
  hasPassword: boolean;
  expiresAt: string;
  revokedAt: string | null;
  createdBy: string;
  createdAt: string;
  lastViewedAt: string | null;
  status: 'active' | 'expired' | 'revoked';
}
interface View {
  link: { title: string; expiresAt: string; allowApproval: boolean };
  organization: { name: string };
  groups: {
    group: string;
    publishDate: string;
    status: string;
    posts: { channel: { name: string; identifier: string; picture: string | null }; items: { content: string; image: unknown[]; delay: number }[]; settings: Record<string, unknown> }[];
  }[];
}

const HOUR = 3600_000;

describe('client preview links (issue 31)', () => {
  const clock = manualClock();
  const { t } = useTestApp({ clock, env: { SIGNUP: 'open', PUBLIC_URL: 'https://tidings.example.test' } });
  let owner: Browser;
  let mia: Browser;
  let acme: TestOrg;
  let beta: TestOrg;
  let customerA: string;
  let customerB: string;
  const channelIds: string[] = [];
  const postIds: string[] = [];
  /** groups: g1 (Telegram A + Bluesky A with a reply), g2 (Telegram A), g3 (Mastodon B), g4 (Telegram A, August), pending (Telegram A, awaiting approval), pending2 (Bluesky A) */
  const g: Record<'g1' | 'g2' | 'g3' | 'g4' | 'pending' | 'pending2' | 'beta', string> = { g1: '', g2: '', g3: '', g4: '', pending: '', pending2: '', beta: '' };

  const createGroup = async (org: TestOrg, date: string, posts: { id: string; items: string[] }[]) => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'draft', date, shortLink: false, tags: [], posts: posts.map((p) => ({ integration: { id: p.id }, value: p.items.map((content) => ({ content, image: [] })) })) },
    });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json<{ postId: string; group: string }[]>();
    postIds.push(...made.map((m) => m.postId));
    return made[0]!.group;
  };
  const create = (who: Browser | string, payload: unknown) =>
    typeof who === 'string' ? call(t.app, who, { method: 'POST', url: '/public/v1/preview-links', payload: payload as Record<string, unknown> }) : who.api('POST', '/public/v1/preview-links', payload);
  const created = async (who: Browser | string, payload: unknown) => {
    const res = await create(who, payload);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json<{ link: Link; url: string }>();
    return { ...body, token: body.url.split('/preview/')[1]! };
  };
  const open = (token: string, password?: string) => t.app.inject({ method: 'GET', url: `/preview-api/${token}`, headers: password === undefined ? {} : { 'x-preview-password': password } });
  const decide = (token: string, group: string, action: 'approve' | 'request-changes', payload: unknown, password?: string) =>
    t.app.inject({ method: 'POST', url: `/preview-api/${token}/groups/${encodeURIComponent(group)}/${action}`, payload: payload as Record<string, unknown>, headers: password === undefined ? {} : { 'x-preview-password': password } });
  const viewOf = (res: LightMyRequestResponse) => {
    expect(res.statusCode, res.body).toBe(200);
    return res.json<View>();
  };
  const links = async () => (await owner.api('GET', '/public/v1/preview-links')).json<{ links: Link[] }>().links;
  /** Submits a group for approval (as the API key: who asked is not the subject here). */
  const submit = (group: string) => runAsActor({ kind: 'api_key', id: null, name: 'script' }, () => t.deps.services.approvals.submit(acme.id, group, {}));

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'olga@example.test', name: 'Olga', organization: 'Acme' });
    const me = (await owner.api('GET', '/public/v1/me')).json<{ organization: { id: string } }>();
    const { link } = (await owner.api('POST', '/public/v1/invitations', { email: 'mia@example.test', role: 'member' })).json<{ link: string }>();
    mia = await signUp(t.app, { email: 'mia@example.test', name: 'Mia', invite: link.split('/').at(-1)! });
    const key = await t.deps.services.organizations.createApiKey(me.organization.id, 'script');
    acme = { id: me.organization.id, name: 'Acme', apiKey: key.apiKey };
    beta = await t.createOrg('Beta');
    customerA = (await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'Client A' } })).json<{ id: string }>().id;
    customerB = (await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'Client B' } })).json<{ id: string }>().id;
    const tg = await createChannel(t, acme, 'telegram', { name: 'TG A', customerId: customerA });
    const sky = await createChannel(t, acme, 'bluesky', { name: 'Sky A', customerId: customerA });
    const masto = await createChannel(t, acme, 'mastodon', { name: 'Masto B', customerId: customerB, instanceUrl: 'https://mastodon.example.test' });
    const betaTg = await createChannel(t, beta, 'telegram', { name: 'Beta TG' });
    channelIds.push(tg.id, sky.id, masto.id, betaTg.id);
    g.g1 = await createGroup(acme, '2031-07-01T09:00:00Z', [
      { id: tg.id, items: ['Launch day on Telegram'] },
      { id: sky.id, items: ['Launch day on Bluesky', 'More in the reply'] },
    ]);
    g.g2 = await createGroup(acme, '2031-07-03T09:00:00Z', [{ id: tg.id, items: ['Second post'] }]);
    g.g3 = await createGroup(acme, '2031-07-02T09:00:00Z', [{ id: masto.id, items: ['Client B news'] }]);
    g.g4 = await createGroup(acme, '2031-08-01T09:00:00Z', [{ id: tg.id, items: ['August post'] }]);
    g.pending = await createGroup(acme, '2031-07-05T09:00:00Z', [{ id: tg.id, items: ['Please approve me'] }]);
    g.pending2 = await createGroup(acme, '2031-07-06T09:00:00Z', [{ id: sky.id, items: ['Please review me'] }]);
    g.beta = await createGroup(beta, '2031-07-02T09:00:00Z', [{ id: betaTg.id, items: ['Beta secret plans'] }]);
    await submit(g.pending);
    await submit(g.pending2);
  });

  it('a group link shows exactly its group: each channel’s post with its thread, no ids', async () => {
    const { link, url, token } = await created(owner, { target: { kind: 'group', group: g.g1 }, title: 'Launch', expiresInHours: 48 });
    expect(url).toMatch(/^https:\/\/tidings\.example\.test\/preview\/tdp_[A-Za-z0-9_-]{43}$/);
    expect(link).toEqual({
      id: expect.any(String),
      kind: 'group',
      group: g.g1,
      from: null,
      to: null,
      customerId: null,
      title: 'Launch',
      allowApproval: false,
      hasPassword: false,
      expiresAt: new Date(clock.now() + 48 * HOUR).toISOString(),
      revokedAt: null,
      createdBy: 'Olga',
      createdAt: new Date(clock.now()).toISOString(),
      lastViewedAt: null,
      status: 'active',
    });
    const view = viewOf(await open(token));
    expect(view).toEqual({
      link: { title: 'Launch', expiresAt: link.expiresAt, allowApproval: false },
      organization: { name: 'Acme' },
      groups: [
        {
          group: g.g1,
          publishDate: '2031-07-01T09:00:00.000Z',
          status: 'draft',
          posts: [
            { channel: { name: 'Sky A', identifier: 'bluesky', picture: null }, items: [{ content: 'Launch day on Bluesky', image: [], delay: 0 }, { content: 'More in the reply', image: [], delay: 0 }], settings: expect.any(Object) },
            { channel: { name: 'TG A', identifier: 'telegram', picture: null }, items: [{ content: 'Launch day on Telegram', image: [], delay: 0 }], settings: expect.any(Object) },
          ],
        },
      ],
    });
    // It was opened: the list says when; the token is never in it.
    const listed = await links();
    expect(listed.find((l) => l.id === link.id)).toMatchObject({ lastViewedAt: new Date(clock.now()).toISOString() });
    expect(JSON.stringify(listed)).not.toContain(token);
    // The activity log names who shared it.
    const log = (await owner.api('GET', '/public/v1/activity?action=preview_link.created')).json<{ entries: { actor: { name: string }; target: { id: string; name: string } }[] }>().entries;
    expect(log).toEqual(expect.arrayContaining([expect.objectContaining({ actor: expect.objectContaining({ name: 'Olga' }), target: expect.objectContaining({ id: link.id, name: 'Launch' }) })]));
  });

  it('a range link shows the post groups in [from, to), of one client group when asked, never another organisation’s', async () => {
    const range = { kind: 'range', from: '2031-07-01T00:00:00Z', to: '2031-08-01T09:00:00Z' };
    const all = await created(acme.apiKey, { target: range });
    expect(all.link).toMatchObject({ kind: 'range', from: '2031-07-01T00:00:00.000Z', to: '2031-08-01T09:00:00.000Z', customerId: null, createdBy: 'script' });
    // [from, to): the August post at exactly `to` is out; Beta's post of 2 July is not Acme's.
    expect(viewOf(await open(all.token)).groups.map((x) => x.group)).toEqual([g.g1, g.g3, g.g2, g.pending, g.pending2]);

    const onlyA = await created(acme.apiKey, { target: { ...range, customerId: customerA } });
    const view = viewOf(await open(onlyA.token));
    expect(view.groups.map((x) => x.group)).toEqual([g.g1, g.g2, g.pending, g.pending2]);
    expect(view.groups.flatMap((x) => x.posts.map((p) => p.channel.name))).not.toContain('Masto B');
    expect(view.groups.find((x) => x.group === g.pending)!.status).toBe('pending_approval');
  });

  it('an altered, unknown, expired or revoked token is a 404, never a 403', async () => {
    const { link, token } = await created(owner, { target: { kind: 'group', group: g.g2 }, expiresInHours: 2 });
    expect((await open(token)).statusCode).toBe(200);
    const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const bad of [altered, token.slice(0, -1), 'tdp_nothing', token.replace('tdp_', 'tdk_'), 'x'.repeat(150)]) {
      expectError(await open(bad), 404, 'NOT_FOUND');
      expectError(await decide(bad, g.g2, 'approve', { name: 'Eve' }), 404, 'NOT_FOUND');
    }

    clock.advance(2 * HOUR);
    expectError(await open(token), 404, 'NOT_FOUND');
    expect((await links()).find((l) => l.id === link.id)!.status).toBe('expired');

    const other = await created(owner, { target: { kind: 'group', group: g.g2 } });
    expect((await open(other.token)).statusCode).toBe(200);
    // Another organisation cannot see or revoke it.
    expect((await call(t.app, beta.apiKey, { method: 'GET', url: '/public/v1/preview-links' })).json<{ links: Link[] }>().links).toEqual([]);
    expectError(await call(t.app, beta.apiKey, { method: 'DELETE', url: `/public/v1/preview-links/${other.link.id}` }), 404, 'NOT_FOUND');
    expect((await open(other.token)).statusCode).toBe(200);

    const revoked = await owner.api('DELETE', `/public/v1/preview-links/${other.link.id}`);
    expect(revoked.statusCode, revoked.body).toBe(204);
    expectError(await open(other.token), 404, 'NOT_FOUND');
    expect((await links()).find((l) => l.id === other.link.id)).toMatchObject({ status: 'revoked', revokedAt: new Date(clock.now()).toISOString() });
    expect((await owner.api('DELETE', `/public/v1/preview-links/${other.link.id}`)).statusCode).toBe(204);
    expectError(await owner.api('DELETE', '/public/v1/preview-links/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expectError(await owner.api('DELETE', '/public/v1/preview-links/nope'), 404, 'NOT_FOUND');
    const log = (await owner.api('GET', '/public/v1/activity?action=preview_link.revoked')).json<{ entries: { target: { id: string } }[] }>().entries;
    expect(log.filter((e) => e.target.id === other.link.id)).toHaveLength(1);
  });

  it('a password is asked (401) before anything is shown, and works percent-encoded; wrong ones are throttled per link', async () => {
    const { link, token } = await created(owner, { target: { kind: 'group', group: g.g2 }, password: 'crème brûlée 42' });
    expect(link.hasPassword).toBe(true);
    expect(expectError(await open(token), 401, 'PREVIEW_PASSWORD_REQUIRED').message).toContain('password');
    expectError(await open(token, 'creme brulee 42'), 401, 'PREVIEW_PASSWORD_REQUIRED');
    expect(viewOf(await open(token, encodeURIComponent('crème brûlée 42'))).groups.map((x) => x.group)).toEqual([g.g2]);
    // the stored hash is scrypt's, never the password
    const { rows } = await t.deps.database.sql.executeSql(`SELECT password_hash FROM preview_links WHERE id = $1`, [link.id]);
    expect((rows[0] as { password_hash: string }).password_hash).toMatch(/^scrypt\$/);

    const locked = await created(owner, { target: { kind: 'group', group: g.g2 }, password: 'correct horse' });
    for (let i = 0; i < 10; i++) expectError(await open(locked.token, `wrong ${i}`), 401, 'PREVIEW_PASSWORD_REQUIRED');
    const throttled = expectError(await open(locked.token, 'correct horse'), 429, 'LOGIN_THROTTLED');
    expect(throttled.message).toContain('minutes');
    // Other links are not locked; the lock lifts after the window.
    expect((await open(token, encodeURIComponent('crème brûlée 42'))).statusCode).toBe(200);
    clock.advance(15 * 60_000 + 1000);
    expect((await open(locked.token, 'correct horse')).statusCode).toBe(200);
  });

  it('only someone who may approve gives a link approval rights; anyone may share for a look; bad targets are 400s naming the field', async () => {
    const member = await created(mia, { target: { kind: 'group', group: g.g1 } });
    expect(member.link).toMatchObject({ createdBy: 'Mia', allowApproval: false });
    expectError(await create(mia, { target: { kind: 'group', group: g.g1 }, allowApproval: true }), 403, 'FORBIDDEN');
    expectError(await create(acme.apiKey, { target: { kind: 'group', group: g.g1 }, allowApproval: true }), 403, 'FORBIDDEN');
    const sandboxKey = (await t.deps.services.organizations.createApiKey(acme.id, 'sandbox', { sandbox: true })).apiKey;
    expectError(await create(sandboxKey, { target: { kind: 'group', group: g.g1 } }), 403, 'FORBIDDEN');
    expect((await created(owner, { target: { kind: 'group', group: g.g1 }, allowApproval: true })).link.allowApproval).toBe(true);

    const paths = async (payload: unknown) => expectError(await create(owner, payload), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path);
    expect(await paths({ target: { kind: 'group', group: g.beta } })).toEqual(['target.group']);
    expect(await paths({ target: { kind: 'group', group: 'no-such-group' } })).toEqual(['target.group']);
    expect(await paths({ target: { kind: 'range', from: '2031-07-02T00:00:00Z', to: '2031-07-01T00:00:00Z' } })).toEqual(['target.to']);
    expect(await paths({ target: { kind: 'range', from: '2031-01-01T00:00:00Z', to: '2032-06-01T00:00:00Z' } })).toEqual(['target.to']);
    expect(await paths({ target: { kind: 'range', from: '2031-07-01T00:00:00Z', to: '2031-07-02T00:00:00Z', customerId: '00000000-0000-4000-8000-000000000000' } })).toEqual(['target.customerId']);
    expect(await paths({ target: { kind: 'week' } })).toEqual(['target.kind']);
    expect(await paths({ target: { kind: 'group', group: g.g1 }, expiresInHours: 2161 })).toEqual(['expiresInHours']);
    expect(await paths({ target: { kind: 'group', group: g.g1 }, password: 'short' })).toEqual(['password']);
  });

  it('approves through the link by name: queued, recorded with that name, one webhook event; the link must allow it', async () => {
    const look = await created(owner, { target: { kind: 'group', group: g.pending } });
    expectError(await decide(look.token, g.pending, 'approve', { name: 'Clara' }), 403, 'FORBIDDEN');

    const { link, token } = await created(owner, { target: { kind: 'group', group: g.pending }, allowApproval: true, password: 'open sesame' });
    expect(viewOf(await open(token, 'open sesame')).link.allowApproval).toBe(true);
    expectError(await decide(token, g.pending, 'approve', { name: 'Clara' }), 401, 'PREVIEW_PASSWORD_REQUIRED');
    expect(expectError(await decide(token, g.pending, 'approve', { name: '  ' }, 'open sesame'), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['name']);
    // a group the link does not show
    expectError(await decide(token, g.g2, 'approve', { name: 'Clara' }, 'open sesame'), 404, 'NOT_FOUND');

    const before = (await eventsOf(t, acme.id)).filter((e) => e.type === 'post.approved').length;
    const res = await decide(token, g.pending, 'approve', { name: 'Clara', comment: 'Looks great' }, 'open sesame');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ group: g.pending, status: 'approved' });
    const { posts } = (await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/posts/group/${g.pending}` })).json<{ posts: { state: string }[] }>();
    expect(posts.map((p) => p.state)).toEqual(['QUEUE']);
    expect(viewOf(await open(token, 'open sesame')).groups[0]!.status).toBe('approved');
    expect((await eventsOf(t, acme.id)).filter((e) => e.type === 'post.approved').length - before).toBe(1);
    const log = (await owner.api('GET', '/public/v1/activity?action=post.approved')).json<{ entries: { actor: { kind: string; id: string | null; name: string } }[] }>().entries;
    expect(log.map((e) => e.actor)).toContainEqual({ kind: 'preview_link', id: link.id, name: 'Clara (preview link)' });
    // once decided, again is a conflict
    expectError(await decide(token, g.pending, 'approve', { name: 'Clara' }, 'open sesame'), 409, 'CONFLICT');
  });

  it('requests changes through a range link, the comment required and written into the thread', async () => {
    const { token } = await created(owner, { target: { kind: 'range', from: '2031-07-06T00:00:00Z', to: '2031-07-07T00:00:00Z', customerId: customerA }, allowApproval: true });
    expect(expectError(await decide(token, g.pending2, 'request-changes', { name: 'Clara' }), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['comment']);
    const res = await decide(token, g.pending2, 'request-changes', { name: 'Clara', comment: 'Shorter, please' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ group: g.pending2, status: 'changes_requested' });
    const thread = (await owner.api('GET', `/public/v1/posts/group/${g.pending2}/comments`)).json<{ comments: { author: { kind: string; name: string }; body: string }[] }>().comments;
    expect(thread).toContainEqual(expect.objectContaining({ author: expect.objectContaining({ kind: 'preview_link', name: 'Clara (preview link)' }), body: 'Shorter, please' }));
  });

  it('crawl: nothing the public side answers holds a post, channel or organisation id, an API key or a token hash', async () => {
    const tokens = [
      (await created(owner, { target: { kind: 'group', group: g.g1 }, allowApproval: true })).token,
      (await created(owner, { target: { kind: 'range', from: '2031-01-01T00:00:00Z', to: '2031-12-31T00:00:00Z' }, allowApproval: true })).token,
      (await created(owner, { target: { kind: 'range', from: '2031-07-01T00:00:00Z', to: '2031-08-01T00:00:00Z', customerId: customerB } })).token,
    ];
    const bodies: string[] = [];
    for (const token of tokens) {
      const res = await open(token);
      const view = viewOf(res);
      bodies.push(res.body, JSON.stringify(res.headers));
      for (const group of view.groups) {
        for (const action of ['approve', 'request-changes'] as const) {
          const r = await decide(token, group.group, action, { name: 'Crawler', comment: 'x' });
          bodies.push(r.body);
        }
      }
      bodies.push((await decide(token, g.beta, 'approve', { name: 'Crawler' })).body);
    }
    const { rows } = await t.deps.database.sql.executeSql(`SELECT token_hash FROM preview_links`, []);
    const forbidden = [...postIds, ...channelIds, acme.id, beta.id, acme.apiKey, beta.apiKey, customerA, customerB, ...(rows as { token_hash: string }[]).map((r) => r.token_hash)];
    expect(forbidden.length).toBeGreaterThan(15);
    const all = bodies.join('\n');
    expect(all).toContain('Launch day on Telegram');
    expect(forbidden.filter((s) => all.includes(s))).toEqual([]);
    // Beta's post is in no answer.
    expect(all).not.toContain('Beta secret plans');
  });
});
