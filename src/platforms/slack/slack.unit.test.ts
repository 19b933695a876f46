import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SLACK_APP as APP } from '../../../test/oauth-apps.js';
import { connectViaOAuth, runPlatformContract } from '../../../test/platform-contract.js';
import { PlatformError, type PublishItem } from '../platform.js';
import { slackError } from './errors.js';
import { createSlackAdapter, slackArchiveUrl } from './index.js';
import { htmlToMrkdwn } from './mrkdwn.js';
import type { SlackSimulator } from './slack.simulator.js';
import { GENERAL, HIDDEN, lookupIn, OLD, originsFor, RANDOM, rewriteFor, SECRET, slackSimulator, TEAM, withSlack } from './slack.testkit.js';

const adapter = createSlackAdapter({ app: APP });

runPlatformContract({
  name: 'slack',
  adapter,
  errorsIn200: true,
  async setup() {
    const sim = await slackSimulator(APP);
    return {
      origins: originsFor(sim),
      injectKind: (k) => sim.injectKind(k),
      connect: (ctx) => connectViaOAuth(adapter, ctx, rewriteFor(sim)),
      lookup: lookupIn(sim),
      close: () => sim.close(),
    };
  },
});

describe('slack specifics', () => {
  const withSim = <T>(fn: Parameters<typeof withSlack<T>>[2]) => withSlack(APP, adapter, fn);
  const text = (content: string, media: PublishItem['media'] = []): PublishItem => ({ content, media });
  const published = async (p: Promise<unknown>) => {
    const r = (await p) as { status: string; id: string; url: string };
    expect(r.status).toBe('published');
    return r;
  };
  const failure = async (p: Promise<unknown>) => {
    const e = await p.catch((err: unknown) => err);
    expect(e).toBeInstanceOf(PlatformError);
    return e as PlatformError;
  };
  const calls = (sim: SlackSimulator, from = 0) => sim.log.slice(from).map((r) => `${r.method} ${r.path.split('?')[0]}`);

  it('installs with OAuth v2 bot scopes and names the workspace as the account', async () => {
    await withSim(async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri: 'https://tidings.example/cb' }, ctx);
      const url = new URL(begun.url);
      expect(`${url.origin}${url.pathname}`).toBe('https://slack.com/oauth/v2/authorize');
      expect(url.searchParams.get('scope')?.split(',')).toEqual(expect.arrayContaining(['chat:write', 'channels:read', 'files:write', 'team:read']));
      expect(url.searchParams.has('code_challenge')).toBe(false);

      const account = await connectViaOAuth(adapter, ctx, rewriteFor(sim));
      expect(account).toEqual({
        internalId: TEAM,
        name: 'Acme Corp',
        profile: 'acme',
        picture: 'https://avatars.slack-edge.com/acme_132.png',
        credentials: { accessToken: expect.stringMatching(/^xoxb-/), teamId: TEAM, teamDomain: 'acme', botUserId: 'U0BOT1' },
        expiresAt: null,
      });
      const token = sim.log.find((r) => r.path === '/api/oauth.v2.access')!;
      expect(token.body).toMatchObject({ client_id: APP.clientId, client_secret: APP.clientSecret, code: expect.any(String) });
    });
  });

  it('is unsupported without an app, and refuses a reused code with Slack’s error', async () => {
    await withSim(async (sim, ctx) => {
      const e = await failure(createSlackAdapter({}).beginConnect!({ state: 's', redirectUri: 'https://x/cb' }, ctx));
      expect({ kind: e.kind, message: e.message }).toEqual({ kind: 'unsupported', message: 'Slack is not configured' });
      const begun = await adapter.beginConnect!({ state: 's2', redirectUri: 'https://x/cb' }, ctx);
      const code = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
      await adapter.completeConnect!({ code, redirectUri: 'https://x/cb' }, ctx);
      const again = await failure(adapter.completeConnect!({ code, redirectUri: 'https://x/cb' }, ctx));
      expect(again.kind).toBe('rejected');
      expect(again.message).toMatch(/invalid_code/);
    });
  });

  it('posts to the chosen channel, or joins and posts to the general channel without one', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      const chosen = await published(adapter.publish({ item: text('<p>to random</p>'), settings: { channel: RANDOM }, idempotencyKey: 'a' }, ctx));
      expect(sim.messages.find((m) => m.ts === chosen.id)?.channel).toBe(RANDOM);
      expect(chosen.url).toBe(`https://acme.slack.com/archives/${RANDOM}/p${chosen.id.replace('.', '')}`);

      let from = sim.log.length;
      const fallback = await published(adapter.publish({ item: text('<p>to general</p>'), settings: {}, idempotencyKey: 'b' }, ctx));
      expect(sim.messages.find((m) => m.ts === fallback.id)?.channel).toBe(GENERAL);
      // Not a member yet: the first post is refused (nothing posted), the bot joins, the post goes again.
      expect(calls(sim, from)).toEqual(['GET /api/conversations.list', 'POST /api/chat.postMessage', 'POST /api/conversations.join', 'POST /api/chat.postMessage', 'GET /api/chat.getPermalink']);
      expect(sim.messages.filter((m) => m.channel === GENERAL)).toHaveLength(1);
      from = sim.log.length;
      await published(adapter.publish({ item: text('<p>again</p>'), settings: {}, idempotencyKey: 'c' }, ctx));
      expect(calls(sim, from)).not.toContain('POST /api/conversations.join');
      for (const r of sim.log.filter((x) => x.path.startsWith('/api/') && !x.path.startsWith('/api/oauth'))) expect(r.headers.authorization).toMatch(/^Bearer xoxb-/);
    });
  });

  it('says plainly when a channel cannot be posted to', async () => {
    await withSim(async (_sim, _ctx, connected) => {
      const ctx = await connected();
      const hidden = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: HIDDEN }, idempotencyKey: 'h' }, ctx));
      expect({ kind: hidden.kind, message: hidden.message }).toEqual({ kind: 'rejected', message: 'channel_not_found: the channel does not exist or the app cannot see it' });
      const archived = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: OLD }, idempotencyKey: 'o' }, ctx));
      expect({ kind: archived.kind, code: archived.details.platformCode, status: archived.details.status }).toEqual({ kind: 'rejected', code: 'is_archived', status: 200 });
      await published(adapter.publish({ item: text('<p>private but invited</p>'), settings: { channel: SECRET }, idempotencyKey: 's' }, ctx));
    });
  });

  it('sends mrkdwn converted from the stored HTML, escaping & < >', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      const html = '<p>Hi <strong>bold </strong><em>it</em> &amp; 1 &lt; 2 <a href="https://ex.com/?a=1&amp;b=2">link</a></p><p>next</p>';
      const r = await published(adapter.publish({ item: text(html), settings: { channel: RANDOM }, idempotencyKey: 'm' }, ctx));
      expect(sim.messages.find((m) => m.ts === r.id)?.text).toBe('Hi *bold* _it_ &amp; 1 &lt; 2 <https://ex.com/?a=1&amp;b=2|link>\nnext');
    });
  });

  it('converts the usual HTML to mrkdwn', () => {
    expect(htmlToMrkdwn('<p>a</p><p></p><p>b<br>c</p>')).toBe('a\n\nb\nc');
    expect(htmlToMrkdwn('<p><s>gone</s> <code>x</code> <u>under</u></p>')).toBe('~gone~ `x` under');
    expect(htmlToMrkdwn('<h1>Title</h1><ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>')).toBe('*Title*\n• one\n• two\n1. first');
    expect(htmlToMrkdwn('<blockquote><p>q</p></blockquote><p>a</p>')).toBe('> q\na');
    expect(htmlToMrkdwn('<a href="https://x.dev">https://x.dev</a> <a href="https://y.dev/a|b">y</a> <a href="javascript:x()">js</a>')).toBe('<https://x.dev> <https://y.dev/a%7Cb|y> js');
    expect(htmlToMrkdwn('<p>&quot;hi&quot; &#8212; 3 &gt; 2 &amp;amp;</p>')).toBe('"hi" — 3 &gt; 2 &amp;amp;');
    expect(htmlToMrkdwn('<pre><code>if (a &lt; b) {}</code></pre>')).toBe('```\nif (a &lt; b) {}\n```');
  });

  it('replies in the thread of the first message, with text and with files', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      const settings = { channel: RANDOM };
      const root = await published(adapter.publish({ item: text('<p>root</p>'), settings, idempotencyKey: 'r' }, ctx));
      const one = await published(adapter.publish({ item: text('<p>one</p>'), settings, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 'r1' }, ctx));
      const image = { id: 'img', path: 'a/b/photo.jpg', type: 'image' as const, mimeType: 'image/jpeg', size: 9 };
      const two = await published(adapter.publish({ item: text('<p>two</p>', [image]), settings, replyTo: { id: one.id, rootId: root.id }, idempotencyKey: 'r2' }, ctx));
      for (const r of [one, two]) {
        expect(sim.messages.find((m) => m.ts === r.id)?.threadTs).toBe(root.id);
        expect(r.url).toBe(`https://acme.slack.com/archives/${RANDOM}/p${r.id.replace('.', '')}?thread_ts=${root.id}&cid=${RANDOM}`);
      }
      expect(sim.messages.find((m) => m.ts === two.id)).toMatchObject({ text: 'two', files: [{ filename: 'photo.jpg', sha256: createHash('sha256').update('bytes of img').digest('hex') }] });
    });
  });

  it('uploads several files into one message, with alt text and exact lengths', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      const media: PublishItem['media'] = [
        { id: 'm1', path: 'https://media.example/cat.png', type: 'image', mimeType: 'image/png', size: 1, alt: 'a cat' },
        { id: 'm2', path: 'https://media.example/v', type: 'video', mimeType: 'video/mp4', size: 1 },
      ];
      const from = sim.log.length;
      const r = await published(adapter.publish({ item: text('', media), settings: { channel: RANDOM }, idempotencyKey: 'f' }, ctx));
      expect(calls(sim, from)).toEqual([
        'POST /api/files.getUploadURLExternal',
        expect.stringMatching(/^POST \/upload\/v1\//),
        'POST /api/files.getUploadURLExternal',
        expect.stringMatching(/^POST \/upload\/v1\//),
        'POST /api/files.completeUploadExternal',
        'GET /api/chat.getPermalink',
      ]);
      const first = sim.log.slice(from).find((x) => x.path === '/api/files.getUploadURLExternal')!;
      expect(first.body).toEqual({ filename: 'cat.png', length: String('bytes of m1'.length), alt_txt: 'a cat' });
      expect(sim.messages.find((m) => m.ts === r.id)?.files.map((f) => f.filename)).toEqual(['cat.png', 'm2.mp4']);
    });
  });

  it('finds the message of late-shared files through files.info', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      sim.sharesDelayed = true;
      const image = { id: 'img', path: 'p.png', type: 'image' as const, mimeType: 'image/png', size: 1 };
      const r = await published(adapter.publish({ item: text('<p>late</p>', [image]), settings: { channel: RANDOM }, idempotencyKey: 'l' }, ctx));
      expect(sim.messages.find((m) => m.ts === r.id)?.text).toBe('late');
      expect(calls(sim)).toContain('GET /api/files.info');
    });
  });

  it('builds the URL itself when chat.getPermalink fails after posting', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      sim.inject({ path: /chat\.getPermalink/, status: 200, body: { ok: false, error: 'internal_error' } });
      const r = await published(adapter.publish({ item: text('<p>x</p>'), settings: { channel: RANDOM }, idempotencyKey: 'p' }, ctx));
      expect(r.url).toBe(slackArchiveUrl({ teamDomain: 'acme', teamId: TEAM }, RANDOM, r.id));
    });
  });

  it('needs a reconnect when the install lacks a scope, or was revoked', async () => {
    await withSim(async (sim, ctx) => {
      // An install made before files:write was asked for.
      const begun = new URL(rewriteFor(sim)((await adapter.beginConnect!({ state: 'o', redirectUri: 'https://x/cb' }, ctx)).url));
      begun.searchParams.set('scope', begun.searchParams.get('scope')!.replace(',files:write', ''));
      const code = new URL((await fetch(begun, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
      const old = { ...ctx, credentials: (await adapter.completeConnect!({ code, redirectUri: 'https://x/cb' }, ctx)).credentials };
      const image = { id: 'img', path: 'p.png', type: 'image' as const, mimeType: 'image/png', size: 1 };
      const e = await failure(adapter.publish({ item: text('<p>x</p>', [image]), settings: { channel: RANDOM }, idempotencyKey: 'o' }, old));
      expect({ kind: e.kind, code: e.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'missing_scope' });
      expect(e.message).toMatch(/files:write/);
      sim.revokeTokens();
      const r = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: RANDOM }, idempotencyKey: 'v' }, old));
      expect({ kind: r.kind, code: r.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'token_revoked' });
    });
  });

  it('classifies Slack answers, reading errors inside HTTP 200', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      sim.injectKind('rate_limited');
      const e = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: RANDOM }, idempotencyKey: 'z' }, ctx));
      expect({ kind: e.kind, wait: e.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 30 });
    });
    const ok200 = (body: unknown, status = 200, headers: Record<string, string> = {}) => slackError({ status, headers, body });
    expect(ok200({ ok: true, ts: '1.2' })).toBeUndefined();
    expect(ok200({ ok: false, error: 'account_inactive' })?.kind).toBe('reconnect_required');
    expect(ok200({ ok: false, error: 'missing_scope', needed: 'chat:write' })?.message).toBe('missing_scope: the app lacks a permission (chat:write); reconnect Slack to grant it');
    expect(ok200({ ok: false, error: 'not_in_channel' })).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/^not_in_channel: .*invite/) });
    expect(ok200({ ok: false, error: 'some_new_error' })).toMatchObject({ kind: 'rejected', message: 'some_new_error' });
    expect(ok200({ ok: false, error: 'internal_error' })?.kind).toBe('transient');
    expect(ok200({ ok: false, error: 'ratelimited' }, 429, { 'retry-after': '7' })?.details.retryAfterSeconds).toBe(7);
    expect(ok200('upstream connect error', 502)?.kind).toBe('transient');
    expect(ok200('<html>', 200)?.kind).toBe('transient');
  });

  it('lists public and joined private channels, across pages, without archived ones', async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      expect(await adapter.runTool!('channels', {}, ctx)).toEqual([
        { id: GENERAL, name: 'general' },
        { id: RANDOM, name: 'random' },
        { id: SECRET, name: 'secret' },
      ]);
      for (let i = 0; i < 450; i++) sim.channels.set(`C1${i}`, { id: `C1${i}`, teamId: TEAM, name: `zz-${String(i).padStart(3, '0')}`, isGeneral: false, isPrivate: false, isArchived: false, botMember: false });
      const from = sim.log.length;
      const all = (await adapter.runTool!('channels', {}, ctx)) as { id: string }[];
      expect(all).toHaveLength(453);
      expect(calls(sim, from).filter((c) => c === 'GET /api/conversations.list')).toHaveLength(3);
      expect(sim.log[from]!.path).toMatch(/types=public_channel%2Cprivate_channel&exclude_archived=true&limit=200/);
    });
  });

  it("finds the bot's recent top-level messages in the general channel", async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      const since = new Date(Date.now() - 5000);
      const mine = await published(adapter.publish({ item: text('<p>mine</p>'), settings: {}, idempotencyKey: 'q' }, ctx));
      await published(adapter.publish({ item: text('<p>reply</p>'), settings: {}, replyTo: { id: mine.id, rootId: mine.id }, idempotencyKey: 'q2' }, ctx));
      sim.addMessage(GENERAL, 'from a human');
      expect(await adapter.findRecent!({ since, limit: 10 }, ctx)).toEqual([{ id: mine.id, url: mine.url, content: 'mine', createdAt: expect.any(String) }]);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, ctx)).toEqual([]);
    });
  });

  it("with the post's settings, looks in its chosen channel: top-level messages and thread replies", async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      const since = new Date(Date.now() - 5000);
      const settings = { channel: RANDOM };
      const root = await published(adapter.publish({ item: text('<p>in random</p>'), settings, idempotencyKey: 'c1' }, ctx));
      const reply = await published(adapter.publish({ item: text('<p>and a reply</p>'), settings, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 'c2' }, ctx));
      // Not in #general, where a post without settings goes.
      expect(await adapter.findRecent!({ since, limit: 10 }, ctx)).toEqual([]);
      expect((await adapter.findRecent!({ since, limit: 10, settings }, ctx)).map((p) => [p.id, p.url])).toEqual([[root.id, root.url]]);
      const from = sim.log.length;
      expect((await adapter.findRecent!({ since, limit: 10, settings, replyTo: { id: root.id, rootId: root.id } }, ctx)).map((p) => p.id)).toEqual([reply.id]);
      // Only the post's channel is asked.
      expect(sim.log.slice(from).filter((r) => r.path.startsWith('/api/conversations.replies')).map((r) => new URL(r.path, sim.origin).searchParams.get('channel'))).toEqual([RANDOM]);
    });
  });

  it("finds the bot's own replies in a thread, looking through its channels and across pages", async () => {
    await withSim(async (sim, _ctx, connected) => {
      const ctx = await connected();
      const since = new Date(Date.now() - 5000);
      const settings = { channel: SECRET };
      const root = await published(adapter.publish({ item: text('<p>root</p>'), settings, idempotencyKey: 't' }, ctx));
      const one = await published(adapter.publish({ item: text('<p>Second &amp; more</p>'), settings, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 't1' }, ctx));
      // Someone else answers with the same words, then enough others that the next reply is on a later page.
      sim.addReply(SECRET, root.id, 'Second &amp; more');
      for (let i = 0; i < 250; i++) sim.addReply(SECRET, root.id, `chatter ${i}`);
      const two = await published(adapter.publish({ item: text('<p>Third</p>'), settings, replyTo: { id: one.id, rootId: root.id }, idempotencyKey: 't2' }, ctx));

      const from = sim.log.length;
      const found = await adapter.findRecent!({ since, limit: 50, replyTo: { id: two.id, rootId: root.id } }, ctx);
      expect(found).toEqual([
        { id: two.id, url: two.url, content: 'Third', createdAt: expect.any(String) },
        { id: one.id, url: one.url, content: 'Second &amp; more', createdAt: expect.any(String) },
      ]);
      // The post's channel is not known: #random (a member channel without the thread) is asked first.
      const replies = sim.log.slice(from).filter((r) => r.path.startsWith('/api/conversations.replies')).map((r) => Object.fromEntries(new URL(r.path, sim.origin).searchParams));
      expect(replies).toEqual([
        { channel: RANDOM, ts: root.id, oldest: (since.getTime() / 1000).toFixed(6), limit: '200' },
        { channel: SECRET, ts: root.id, oldest: (since.getTime() / 1000).toFixed(6), limit: '200' },
        { channel: SECRET, ts: root.id, oldest: (since.getTime() / 1000).toFixed(6), limit: '200', cursor: expect.any(String) },
      ]);
      expect((await adapter.findRecent!({ since, limit: 1, replyTo: { id: two.id, rootId: root.id } }, ctx)).map((p) => p.id)).toEqual([two.id]);
      // Credentials without the bot's user id: auth.test names it.
      const anonymous = { ...ctx, credentials: { ...ctx.credentials, botUserId: null } };
      const before = sim.log.length;
      expect((await adapter.findRecent!({ since, limit: 50, replyTo: { id: two.id, rootId: root.id } }, anonymous)).map((p) => p.id)).toEqual([two.id, one.id]);
      expect(calls(sim, before)[0]).toBe('GET /api/auth.test');
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 50, replyTo: { id: two.id, rootId: root.id } }, ctx)).toEqual([]);
      // A root no channel has: nothing can have been posted to it.
      expect(await adapter.findRecent!({ since, limit: 50, replyTo: { id: '1.000001', rootId: '1.000001' } }, ctx)).toEqual([]);
      // An install made before groups:history was asked for cannot read the private channel's thread: it says so.
      const begun = new URL(rewriteFor(sim)((await adapter.beginConnect!({ state: 'o', redirectUri: 'https://x/cb' }, ctx)).url));
      begun.searchParams.set('scope', begun.searchParams.get('scope')!.replace(',groups:history', ''));
      const code = new URL((await fetch(begun, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
      const old = { ...ctx, credentials: (await adapter.completeConnect!({ code, redirectUri: 'https://x/cb' }, ctx)).credentials };
      const e = await failure(adapter.findRecent!({ since, limit: 50, replyTo: { id: two.id, rootId: root.id } }, old));
      expect({ kind: e.kind, code: e.details.platformCode }).toEqual({ kind: 'unsupported', code: 'missing_scope' });
    });
  });

  it('validates length and empty messages', () => {
    const item = (content: string) => ({ content, media: [] });
    expect(adapter.validate({ settings: {}, items: [item('<p>ok</p>'), item('x'.repeat(40_001)), item('')] })).toEqual([
      { path: 'value.1.content', code: 'too_long', message: expect.stringContaining('40001') },
      { path: 'value.2.content', code: 'empty', message: expect.any(String) },
    ]);
  });
});
