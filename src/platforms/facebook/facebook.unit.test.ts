import { describe, expect, it } from 'vitest';
import { connectViaOAuth, runPlatformContract } from '../../../test/platform-contract.js';
import type { MetaSimulator } from '../common/meta.simulator.js';
import { ADA, BAKERY, BLOG, FACEBOOK_SCOPES, FB_APP, LABS, metaSimulator, originsFor, post, published, rewriteFor, withMeta, type TestCtx } from '../common/meta.testkit.js';
import type { PlatformError } from '../platform.js';
import { createFacebookAdapter } from './index.js';

const adapter = createFacebookAdapter({ app: FB_APP });

runPlatformContract({
  name: 'facebook',
  adapter,
  errorsIn200: false,
  async setup() {
    const sim = await metaSimulator();
    return {
      origins: originsFor(sim),
      injectKind: (k) => sim.injectKind(k),
      connect: (ctx) => connectViaOAuth(adapter, ctx, rewriteFor(sim)),
      lookup: (id) => sim.lookup(id),
      close: () => sim.close(),
    };
  },
});

const connect = (sim: MetaSimulator, ctx: TestCtx, a = adapter) => connectViaOAuth(a, ctx, rewriteFor(sim));
const fail = (p: Promise<unknown>) => p.then(() => expect.fail('expected a PlatformError'), (e: unknown) => e as PlatformError);

describe('facebook connect and pages', () => {
  it('exchanges the code for a long-lived user token and connects the first Page with its Page token', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: BAKERY.id, name: BAKERY.name, profile: BAKERY.username, picture: BAKERY.picture, expiresAt: null });
      const c = account.credentials;
      expect(c).toMatchObject({ pageId: BAKERY.id, pageName: BAKERY.name, userId: ADA.id });
      // The stored Page token is one the simulator issued as a non-expiring Page token, from a long-lived user token.
      expect(sim.tokens.get(c.pageToken as string)).toMatchObject({ kind: 'fb-page', pageId: BAKERY.id, expiresAt: null, longLived: true });
      expect(sim.tokens.get(c.userToken as string)).toMatchObject({ kind: 'fb-user', longLived: true });
      expect(Date.parse(c.userTokenExpiresAt as string) - Date.now()).toBeGreaterThan(59 * 86_400_000);
      const dialog = sim.log.find((r) => r.path.startsWith('/v23.0/dialog/oauth'))!;
      const q = new URL(dialog.path, 'http://x').searchParams;
      expect(q.get('scope')).toBe(FACEBOOK_SCOPES.join(','));
      expect(q.get('client_id')).toBe(FB_APP.clientId);
      const exchanges = sim.log.filter((r) => r.path.startsWith('/v23.0/oauth/access_token'));
      expect(exchanges.map((r) => new URL(r.path, 'http://x').searchParams.get('grant_type'))).toEqual([null, 'fb_exchange_token']);
    });
  });

  it('a code is single use and bound to its redirect URI', async () => {
    await withMeta({}, async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri: 'https://tidings.example/cb' }, ctx);
      const back = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!);
      const code = back.searchParams.get('code')!;
      const wrong = await fail(adapter.completeConnect!({ code, redirectUri: 'https://tidings.example/other' }, ctx));
      expect(wrong.kind).toBe('rejected');
      expect(wrong.message).toMatch(/redirect_uri is identical/);
      await adapter.completeConnect!({ code, redirectUri: 'https://tidings.example/cb' }, ctx);
      const again = await fail(adapter.completeConnect!({ code, redirectUri: 'https://tidings.example/cb' }, ctx));
      expect({ kind: again.kind, message: again.message }).toEqual({ kind: 'rejected', message: 'Facebook refused the authorisation: This authorization code has been used.' });
    });
  });

  it('refuses a login that did not grant every permission, naming them', async () => {
    await withMeta({}, async (sim, ctx) => {
      sim.users.get(ADA.id)!.declines = ['pages_manage_posts', 'read_insights'];
      const err = await fail(connect(sim, ctx));
      expect(err.kind).toBe('rejected');
      expect(err.message).toContain('(pages_manage_posts, read_insights)');
    });
  });

  it('refuses a user who manages no Page', async () => {
    await withMeta({}, async (sim, ctx) => {
      sim.addUser({ id: '10000000000000009', name: 'Nobody' });
      sim.approveAs('10000000000000009');
      const err = await fail(connect(sim, ctx));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'Nobody manages no Facebook Page they can publish on' });
    });
  });

  it('says Facebook is not configured without an app', async () => {
    const err = await fail(createFacebookAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx));
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'Facebook Page is not configured' });
  });

  it('the pages tool lists the Pages; selectAccount switches to another with its own Page token', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      expect(await adapter.runTool!('pages', {}, c)).toEqual([
        { id: BAKERY.id, name: BAKERY.name, username: BAKERY.username, picture: BAKERY.picture, current: true },
        { id: LABS.id, name: LABS.name, username: LABS.username, picture: expect.any(String), current: false },
        { id: BLOG.id, name: BLOG.name, username: null, picture: expect.any(String), current: false },
      ]);
      const switched = await adapter.selectAccount!(LABS.id, c);
      expect(switched).toMatchObject({ internalId: LABS.id, name: LABS.name, profile: LABS.username });
      expect(sim.tokens.get(switched.credentials.pageToken as string)).toMatchObject({ kind: 'fb-page', pageId: LABS.id });
      const r = published(await post(adapter, ctx, switched, '<p>From the labs</p>'));
      expect(sim.feed.find((f) => f.id === r.id)).toMatchObject({ pageId: LABS.id, message: 'From the labs' });
      const foreign = await fail(adapter.selectAccount!('103000000000003', c));
      expect(foreign.kind).toBe('rejected');
      expect((await fail(adapter.runTool!('boards', {}, c))).kind).toBe('unsupported');
    });
  });

  it('an expired user token only stops listing Pages: publishing with the Page token goes on', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.tokens.get(account.credentials.userToken as string)!.expiresAt = Date.now() - 1000;
      const err = await fail(adapter.runTool!('pages', {}, { ...ctx, credentials: account.credentials }));
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/reconnect the channel to choose another one/);
      published(await post(adapter, ctx, account, '<p>still posting</p>'));
    });
  });
});

describe('facebook text and link posts', () => {
  it('posts text with the link and the permalink Facebook gives', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await post(adapter, ctx, account, '<p>Fresh <strong>bread</strong> today</p><p>Come early</p>', { settings: { url: 'https://acme.example/bread' } }));
      expect(r.id).toMatch(new RegExp(`^${BAKERY.id}_\\d+$`));
      const stored = sim.feed.find((f) => f.id === r.id)!;
      expect(stored).toMatchObject({ message: 'Fresh bread today\nCome early', link: 'https://acme.example/bread', kind: 'status' });
      expect(r.url).toBe(stored.permalink);
      const call = sim.log.find((l) => l.method === 'POST' && l.path.startsWith(`/v23.0/${BAKERY.id}/feed`))!;
      expect(call.headers.authorization).toBe(`Bearer ${account.credentials.pageToken as string}`);
      expect(call.path).toContain('fields=id%2Cpermalink_url');
    });
  });

  it('sends a background preset only with short text, and validate says where it cannot go', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await post(adapter, ctx, account, '<p>Good morning!</p>', { settings: { text_format_preset_id: '106018623298955' } }));
      expect(sim.feed.find((f) => f.id === r.id)!.presetId).toBe('106018623298955');
    });
    const img = { type: 'image' as const, mimeType: 'image/png', size: 10 };
    const check = (settings: Record<string, unknown>, content = 'hi', media: (typeof img)[] = []) =>
      adapter.validate({ settings, items: [{ content, media }] }).map((i) => `${i.path} ${i.code}`);
    expect(check({ text_format_preset_id: '1' })).toEqual([]);
    expect(check({ text_format_preset_id: '1' }, 'x'.repeat(131))).toEqual(['settings.text_format_preset_id preset_too_long']);
    expect(check({ text_format_preset_id: '1', url: 'https://a.example' })).toEqual(['settings.text_format_preset_id preset_text_only']);
    expect(check({ text_format_preset_id: '1' }, 'hi', [img])).toEqual(['settings.text_format_preset_id preset_text_only']);
  });

  it('comments thread items on the first post as the Page, text only', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const root = published(await post(adapter, ctx, account, '<p>root</p>'));
      const reply = published(await post(adapter, ctx, account, '<p>first comment</p>', { replyTo: { id: root.id, rootId: root.id } }));
      const second = published(await post(adapter, ctx, account, '<p>second comment</p>', { replyTo: { id: reply.id, rootId: root.id } }));
      expect(sim.comments.map((c) => [c.id, c.parentId, c.from, c.message])).toEqual([
        [reply.id, root.id, BAKERY.id, 'first comment'],
        [second.id, root.id, BAKERY.id, 'second comment'],
      ]);
      expect(reply.url).toBe(`https://www.facebook.com/${root.id}?comment_id=${reply.id.split('_').pop()}`);
    });
  });

  it('refuses a repeated status with Facebook’s words', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      published(await post(adapter, ctx, account, '<p>same words</p>'));
      const err = await fail(post(adapter, ctx, account, '<p>same words</p>'));
      expect({ kind: err.kind, code: err.details.platformCode, message: err.message }).toEqual({
        kind: 'rejected',
        code: '506',
        message: 'Duplicate Post: This status update is identical to the last one you posted. Try posting something different, or delete your previous update.',
      });
    });
  });

  it('finds the Page’s recent posts newest first', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const since = new Date(Date.now() - 1000);
      const a = published(await post(adapter, ctx, account, '<p>one</p>'));
      const b = published(await post(adapter, ctx, account, '<p>two</p>'));
      sim.feed.find((f) => f.id === a.id)!.createdAt -= 500;
      const recent = await adapter.findRecent!({ since, limit: 10 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [b.id, 'two', b.url],
        [a.id, 'one', a.url],
      ]);
    });
  });
});
