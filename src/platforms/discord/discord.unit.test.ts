import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectViaOAuth, runPlatformContract } from '../../../test/platform-contract.js';
import { PlatformError, type PublishItem } from '../platform.js';
import { discordError } from './errors.js';
import { createDiscordAdapter, DISCORD_BOT_PERMISSIONS, threadName } from './index.js';
import { htmlToDiscordMarkdown } from './markdown.js';
import { APP, BOT_TOKEN, discordSimulator, GENERAL, GUILD, LOCKED, lookupIn, NEWS, originsFor, rewriteFor, withDiscord } from './discord.testkit.js';

const adapter = createDiscordAdapter({ app: APP, botToken: BOT_TOKEN });

runPlatformContract({
  name: 'discord',
  adapter,
  errorsIn200: false,
  async setup() {
    const sim = await discordSimulator();
    return {
      origins: originsFor(sim),
      injectKind: (k) => sim.injectKind(k),
      connect: (ctx) => connectViaOAuth(adapter, ctx, rewriteFor(sim)),
      lookup: lookupIn(sim),
      close: () => sim.close(),
    };
  },
});

describe('discord specifics', () => {
  const withSim = withDiscord;
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

  it('installs the bot with the bot scope and permissions, and names the guild as the account', async () => {
    await withSim(async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri: 'http://localhost:3000/cb' }, ctx);
      const url = new URL(begun.url);
      expect(`${url.origin}${url.pathname}`).toBe('https://discord.com/oauth2/authorize');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: APP.clientId, scope: 'bot identify guilds', permissions: DISCORD_BOT_PERMISSIONS, response_type: 'code', integration_type: '0' });
      expect(url.searchParams.has('code_challenge')).toBe(false);

      const account = await connectViaOAuth(adapter, ctx, rewriteFor(sim));
      expect(account).toEqual({
        internalId: GUILD,
        name: 'Acme Guild',
        profile: null,
        picture: `https://cdn.discordapp.com/icons/${GUILD}/a1b2c3d4.png`,
        credentials: { guildId: GUILD },
        expiresAt: null,
      });
      // Client credentials went in the form body, not in a Basic header.
      const token = sim.log.find((r) => r.path === '/api/oauth2/token')!;
      expect(token.body).toMatchObject({ client_id: APP.clientId, client_secret: APP.clientSecret, grant_type: 'authorization_code' });
      expect(token.headers.authorization).toBeUndefined();
    });
  });

  it('asks for exactly the permissions it uses', () => {
    // View Channel, Send Messages, Embed Links, Attach Files, Read History, Create Public Threads, Send in Threads
    expect(BigInt(DISCORD_BOT_PERMISSIONS)).toBe(1024n + 2048n + 16384n + 32768n + 65536n + 34359738368n + 274877906944n);
  });

  it('is unsupported without an app or a bot token, and refuses a reused code', async () => {
    await withSim(async (sim, ctx) => {
      for (const a of [createDiscordAdapter({}), createDiscordAdapter({ app: APP })]) {
        const e = await failure(a.beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, ctx));
        expect(e.kind).toBe('unsupported');
        expect(e.message).toMatch(/not configured/);
      }
      const begun = await adapter.beginConnect!({ state: 's2', redirectUri: 'http://localhost/cb' }, ctx);
      const res = await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' });
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      await adapter.completeConnect!({ code, redirectUri: 'http://localhost/cb' }, ctx);
      const again = await failure(adapter.completeConnect!({ code, redirectUri: 'http://localhost/cb' }, ctx));
      expect(again.kind).toBe('rejected');
      expect(again.message).toMatch(/Invalid "code"/);
    });
  });

  it('refuses to connect when the bot token belongs to another application', async () => {
    await withSim(async (sim, ctx) => {
      const wrongBot = createDiscordAdapter({ app: APP, botToken: 'someone-elses-bot' });
      const e = await failure(connectViaOAuth(wrongBot, ctx, rewriteFor(sim)));
      expect(e.kind).toBe('rejected');
      expect(e.message).toMatch(/bot token must belong to the OAuth application/);
    });
  });

  it('posts to the chosen channel, and to the system channel without one', async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const chosen = await published(adapter.publish({ item: text('<p>news</p>'), settings: { channel: NEWS }, idempotencyKey: 'a' }, ctx));
      expect(sim.messages.find((m) => m.id === chosen.id)?.channelId).toBe(NEWS);
      expect(chosen.url).toBe(`https://discord.com/channels/${GUILD}/${NEWS}/${chosen.id}`);
      // Only the publish without a channel reads the guild (for its system channel).
      const seen = sim.log.length;
      const fallback = await published(adapter.publish({ item: text('<p>general</p>'), settings: {}, idempotencyKey: 'b' }, ctx));
      expect(sim.messages.find((m) => m.id === fallback.id)?.channelId).toBe(GENERAL);
      expect(sim.log.slice(seen).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v10/guilds/${GUILD}`, `POST /api/v10/channels/${GENERAL}/messages`]);
      for (const r of sim.log.filter((x) => x.path.startsWith('/api/v10/'))) expect(r.headers.authorization).toBe(`Bot ${BOT_TOKEN}`);

      sim.guilds.get(GUILD)!.systemChannelId = null;
      const none = await failure(adapter.publish({ item: text('<p>where?</p>'), settings: {}, idempotencyKey: 'c' }, ctx));
      expect(none.kind).toBe('rejected');
      expect(none.message).toMatch(/no system channel/);
    });
  });

  it('sends Markdown converted from the stored HTML', async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const html = '<p>Hello <strong>bold </strong><em>it</em> &amp; <a href="https://ex.com/a?b=1&amp;c=2">link</a></p><p></p><p>next</p>';
      const r = await published(adapter.publish({ item: text(html), settings: { channel: GENERAL }, idempotencyKey: 'm' }, ctx));
      expect(sim.messages.find((m) => m.id === r.id)?.content).toBe('Hello **bold** *it* & [link](https://ex.com/a?b=1&c=2)\n\nnext');
    });
  });

  it('converts the usual HTML to Discord Markdown', () => {
    expect(htmlToDiscordMarkdown('<p>a</p><p>b<br>c</p>')).toBe('a\nb\nc');
    expect(htmlToDiscordMarkdown('<p><u>u</u> <s>s</s> <code>x*y</code></p>')).toBe('__u__ ~~s~~ `x*y`');
    expect(htmlToDiscordMarkdown('<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>')).toBe('- one\n- two\n1. first\n2. second');
    expect(htmlToDiscordMarkdown('<blockquote><p>quoted</p><p>more</p></blockquote><p>after</p>')).toBe('> quoted\n> more\nafter');
    expect(htmlToDiscordMarkdown('<h2>Title</h2><pre><code>let a = 1 &lt; 2;\n</code></pre>')).toBe('## Title\n```\nlet a = 1 < 2;\n```');
    expect(htmlToDiscordMarkdown('<a href="https://x.dev">https://x.dev</a> <a href="javascript:alert(1)">bad</a> <a href="https://y.dev/(a)">[y]</a>')).toBe(
      'https://x.dev bad [\\[y\\]](https://y.dev/(a%29)',
    );
    expect(htmlToDiscordMarkdown('<p>caf&#233; &#x1F600; &amp;lt;</p>')).toBe('café 😀 &lt;');
  });

  it('starts a thread from the first message on the first reply, then posts into it', async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const settings = { channel: GENERAL };
      const root = await published(adapter.publish({ item: text('<p><strong>Launch</strong> day</p>'), settings, idempotencyKey: 'r' }, ctx));
      const one = await published(adapter.publish({ item: text('<p>one</p>'), settings, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 'r1' }, ctx));
      const two = await published(adapter.publish({ item: text('<p>two</p>'), settings, replyTo: { id: one.id, rootId: root.id }, idempotencyKey: 'r2' }, ctx));

      const thread = sim.channels.get(root.id)!;
      expect(thread).toMatchObject({ type: 11, parentId: GENERAL, name: 'Launch day', starterMessageId: root.id });
      expect(sim.log.filter((r) => r.method === 'POST' && r.path.endsWith('/threads'))).toHaveLength(1);
      for (const reply of [one, two]) {
        const m = sim.messages.find((x) => x.id === reply.id)!;
        expect(m).toMatchObject({ channelId: root.id, replyTo: root.id });
        expect(reply.url).toBe(`https://discord.com/channels/${GUILD}/${root.id}/${reply.id}`);
      }
    });
  });

  it('uses the thread another publish created in the meantime (160004)', async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const root = await published(adapter.publish({ item: text('<p>root</p>'), settings: { channel: GENERAL }, idempotencyKey: 'r' }, ctx));
      await published(adapter.publish({ item: text('<p>first</p>'), settings: { channel: GENERAL }, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 'r1' }, ctx));
      // The existence check misses the thread (as if it was created just after it).
      sim.inject({ path: new RegExp(`^/api/v10/channels/${root.id}$`), status: 404, body: { message: 'Unknown Channel', code: 10003 } });
      const late = await published(adapter.publish({ item: text('<p>late</p>'), settings: { channel: GENERAL }, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 'r2' }, ctx));
      expect(sim.messages.find((m) => m.id === late.id)).toMatchObject({ channelId: root.id, replyTo: root.id });
    });
  });

  it('uploads several files with their alt text in one multipart message', async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const media: PublishItem['media'] = [
        { id: 'm1', path: 'uploads/2026/cat.png', type: 'image', mimeType: 'image/png', size: 10, alt: 'a cat' },
        { id: 'm2', path: 'https://media.example/v', type: 'video', mimeType: 'video/mp4', size: 10 },
      ];
      const r = await published(adapter.publish({ item: text('<p>files</p>', media), settings: { channel: GENERAL }, idempotencyKey: 'f' }, ctx));
      const m = sim.messages.find((x) => x.id === r.id)!;
      const sha = (s: string) => createHash('sha256').update(s).digest('hex');
      expect(m.attachments.map((a) => ({ filename: a.filename, sha256: a.sha256, description: a.description }))).toEqual([
        { filename: 'cat.png', sha256: sha('bytes of m1'), description: 'a cat' },
        { filename: 'm2.mp4', sha256: sha('bytes of m2'), description: undefined },
      ]);
      expect(m.content).toBe('files');
    });
  });

  it('classifies Discord errors: lost permissions, unknown channel, too long, reset bot token', async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const perms = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: LOCKED }, idempotencyKey: 'p' }, ctx));
      expect({ kind: perms.kind, code: perms.details.platformCode }).toEqual({ kind: 'reconnect_required', code: '50013' });
      const unknown = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: '999' }, idempotencyKey: 'u' }, ctx));
      expect(unknown.kind).toBe('rejected');
      expect(unknown.message).toMatch(/^Unknown Channel/);
      const long = await failure(adapter.publish({ item: text(`<p>${'x'.repeat(2001)}</p>`), settings: { channel: GENERAL }, idempotencyKey: 'l' }, ctx));
      expect(long.kind).toBe('rejected');
      expect(long.message).toBe('Invalid Form Body (content: Must be 2000 or fewer in length.)');
      sim.revokeTokens();
      const revoked = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: GENERAL }, idempotencyKey: 'v' }, ctx));
      expect({ kind: revoked.kind, status: revoked.details.status }).toEqual({ kind: 'reconnect_required', status: 401 });
    });
  });

  it('waits as long as a 429 says: retry_after (rounded up), else X-RateLimit-Reset-After, else Retry-After', async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      sim.injectKind('rate_limited');
      const e = await failure(adapter.publish({ item: text('<p>x</p>'), settings: { channel: GENERAL }, idempotencyKey: 'z' }, ctx));
      expect({ kind: e.kind, wait: e.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 3 });
    });
    const res = (body: unknown, headers: Record<string, string> = {}) => ({ status: 429, headers, body });
    expect(discordError(res({ message: 'You are being rate limited.', retry_after: 0.2, global: true }))?.details.retryAfterSeconds).toBe(1);
    expect(discordError(res({ message: 'slow' }, { 'x-ratelimit-reset-after': '4.2', 'retry-after': '9' }))?.details.retryAfterSeconds).toBe(5);
    expect(discordError(res({ message: 'slow' }, { 'retry-after': '9' }))?.details.retryAfterSeconds).toBe(9);
    expect(discordError({ status: 403, headers: {}, body: { message: 'Missing Access', code: 50001 } })?.kind).toBe('reconnect_required');
    expect(discordError({ status: 403, headers: {}, body: { message: 'Cannot execute action on a DM channel', code: 50003 } })?.kind).toBe('rejected');
    expect(discordError({ status: 503, headers: {}, body: 'upstream connect error' })?.kind).toBe('transient');
    expect(discordError({ status: 200, headers: {}, body: { id: '1' } })).toBeUndefined();
  });

  it('lists the text and announcement channels in order', async () => {
    await withSim(async (_sim, _ctx, as) => {
      const ctx = await as(adapter);
      expect(await adapter.runTool!('channels', {}, ctx)).toEqual([
        { id: NEWS, name: 'announcements' },
        { id: GENERAL, name: 'general' },
        { id: LOCKED, name: 'staff' },
      ]);
      expect((await failure(adapter.runTool!('flairs', {}, ctx))).kind).toBe('unsupported');
    });
  });

  it("with the post's settings, finds the bot's recent messages in the chosen channel", async () => {
    await withSim(async (_sim, _ctx, as) => {
      const ctx = await as(adapter);
      const before = new Date(Date.now() - 1000);
      const mine = await published(adapter.publish({ item: text('<p>news</p>'), settings: { channel: NEWS }, idempotencyKey: 'n' }, ctx));
      expect(await adapter.findRecent!({ since: before, limit: 10 }, ctx)).toEqual([]);
      expect(await adapter.findRecent!({ since: before, limit: 10, settings: { channel: NEWS } }, ctx)).toEqual([{ id: mine.id, url: mine.url, content: 'news', createdAt: expect.any(String) }]);
    });
  });

  it("finds the bot's recent messages in the system channel", async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const before = new Date(Date.now() - 1000);
      sim.addMessage(GENERAL, 'from a human');
      const mine = await published(adapter.publish({ item: text('<p>mine</p>'), settings: {}, idempotencyKey: 'q' }, ctx));
      const recent = await adapter.findRecent!({ since: before, limit: 10 }, ctx);
      expect(recent).toEqual([{ id: mine.id, url: mine.url, content: 'mine', createdAt: expect.any(String) }]);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, ctx)).toEqual([]);
    });
  });

  it("finds the bot's own replies in the thread of the first message, across pages", async () => {
    await withSim(async (sim, _ctx, as) => {
      const ctx = await as(adapter);
      const since = new Date(Date.now() - 5000);
      const settings = { channel: GENERAL };
      const root = await published(adapter.publish({ item: text('<p>root</p>'), settings, idempotencyKey: 't' }, ctx));
      // No thread yet (Unknown Channel): no reply can have been posted.
      expect(await adapter.findRecent!({ since, limit: 50, replyTo: { id: root.id, rootId: root.id } }, ctx)).toEqual([]);
      const one = await published(adapter.publish({ item: text('<p>Second <strong>one</strong></p>'), settings, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 't1' }, ctx));
      // Someone else answers with the same words, then enough others that the first reply is a page back.
      sim.addMessage(root.id, 'Second **one**');
      for (let i = 0; i < 120; i++) sim.addMessage(root.id, `chatter ${i}`);
      const two = await published(adapter.publish({ item: text('<p>Third</p>'), settings, replyTo: { id: one.id, rootId: root.id }, idempotencyKey: 't2' }, ctx));

      const from = sim.log.length;
      const found = await adapter.findRecent!({ since, limit: 50, replyTo: { id: two.id, rootId: root.id } }, ctx);
      expect(found).toEqual([
        { id: two.id, url: two.url, content: 'Third', createdAt: expect.any(String) },
        { id: one.id, url: one.url, content: 'Second **one**', createdAt: expect.any(String) },
      ]);
      const calls = sim.log.slice(from).map((r) => `${r.method} ${r.path}`);
      expect(calls).toEqual([
        'GET /api/v10/users/@me',
        `GET /api/v10/channels/${root.id}/messages?limit=100`,
        expect.stringMatching(new RegExp(`^GET /api/v10/channels/${root.id}/messages\\?limit=100&before=\\d+$`)),
      ]);
      expect((await adapter.findRecent!({ since, limit: 1, replyTo: { id: two.id, rootId: root.id } }, ctx)).map((p) => p.id)).toEqual([two.id]);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 50, replyTo: { id: two.id, rootId: root.id } }, ctx)).toEqual([]);
    });
  });

  it('validates the converted length and empty messages', () => {
    const item = (content: string) => ({ content, media: [] });
    expect(adapter.validate({ settings: {}, items: [item('<p>ok</p>'), item(`<p>${'a'.repeat(2001)}</p>`), item('<p></p>')] })).toEqual([
      { path: 'value.1.content', code: 'too_long', message: expect.stringContaining('2001') },
      { path: 'value.2.content', code: 'empty', message: expect.any(String) },
    ]);
    expect(threadName('## **Big** news\nmore')).toBe('Big news');
    expect(threadName('')).toBe('Thread');
    expect(threadName('x'.repeat(150))).toHaveLength(100);
  });
});
