import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import type { PlatformAdapter } from '../platform.js';
import { lemmyError, pictrsFile } from './errors.js';
import { createLemmyAdapter, lemmyInstance } from './index.js';
import type { LemmySimulator } from './lemmy.simulator.js';
import {
  ALICE,
  ANNOUNCE,
  BOB_2FA,
  community,
  image,
  INSTANCE,
  lemmySimulator,
  OPENSOURCE,
  originsFor,
  published,
  publishWith,
  SELFHOSTED,
  sha,
  withLemmy,
  type TestCtx,
} from './lemmy.testkit.js';

const adapter = createLemmyAdapter();

/**
 * The contract's posts, made into Lemmy posts: every post goes to a community with a title, so
 * the contract's first items get the Self-hosted community. Nothing else is changed (thread items
 * need no settings: they are comments under the post).
 */
const toCommunity: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { subreddit: [community(SELFHOSTED, 'A contract post')], ...input.settings } }, ctx),
};

function lookupIn(sim: LemmySimulator) {
  return (id: string) => {
    if (id.startsWith('comment:')) {
      const c = sim.comments.find((x) => `comment:${x.id}` === id);
      if (!c) return undefined;
      return { text: c.content, replyTo: c.parentId ? `comment:${c.parentId}` : String(c.postId), mediaSha256: sim.imagesIn(c.content) };
    }
    const p = sim.posts.find((x) => String(x.id) === id);
    return p ? { text: p.body ?? '', mediaSha256: sim.imagesIn(p.url, p.body) } : undefined;
  };
}

const credentials = { instanceUrl: INSTANCE, username: ALICE.name, password: ALICE.password };

// Lemmy itself answers errors with 4xx; the classifier reads `{ error }` first whatever the status.
runSimulatorContract({ name: 'lemmy', adapter: toCommunity, errorsIn200: true, start: () => lemmySimulator(), origins: originsFor, connect: credentials, lookup: lookupIn });

const connect = (ctx: TestCtx, input: Record<string, unknown> = credentials) => adapter.connectWithCredentials!(input, ctx);
// A 1×1 PNG.
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');

describe('lemmy: connecting', () => {
  it('logs in, reads the account from /site, and keeps the password sealed for the next login', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      expect(account).toMatchObject({ internalId: `${INSTANCE}/u/alice`, name: 'Alice Tidings', profile: 'alice@lemmy.example', picture: ALICE.avatar, expiresAt: null });
      expect(account.credentials).toMatchObject({ instanceUrl: INSTANCE, username: 'alice', password: ALICE.password, personId: 7, personName: 'alice', jwt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
      const login = sim.log.find((r) => r.path === '/api/v3/user/login')!;
      expect(login.body).toEqual({ username_or_email: 'alice', password: ALICE.password });
      const site = sim.log.find((r) => r.path === '/api/v3/site')!;
      expect(site.headers.authorization).toBe(`Bearer ${account.credentials.jwt as string}`);
      // The same account by email, typed without a scheme and with a path, is the same channel.
      const byEmail = await connect(ctx, { ...credentials, instanceUrl: `${INSTANCE}/c/selfhosted`, username: ALICE.email });
      expect(byEmail.internalId).toBe(account.internalId);
      expect(byEmail.credentials.personName).toBe('alice');
    });
  });

  it('names the refused field: password, the 2FA code, the instance', async () => {
    const down = await new Promise<{ origin: string; close: () => void }>((resolve) => {
      const server = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
      server.listen(0, '127.0.0.1', () => resolve({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }));
    });
    try {
      await withLemmy(
        async (sim, ctx) => {
          const wrong = await platformFailure(connect(ctx, { ...credentials, password: 'nope' }));
          expect({ kind: wrong.kind, field: wrong.details.field, message: wrong.message }).toEqual({ kind: 'rejected', field: 'password', message: 'Lemmy refused the login: wrong username or password' });
          const nobody = await platformFailure(connect(ctx, { ...credentials, username: 'mallory' }));
          expect(nobody.details.field).toBe('password');
          const noCode = await platformFailure(connect(ctx, { instanceUrl: INSTANCE, username: 'bob', password: BOB_2FA.password }));
          expect({ field: noCode.details.field, message: noCode.message }).toMatchObject({ field: 'totpToken', message: expect.stringContaining('two-factor') });
          const badCode = await platformFailure(connect(ctx, { instanceUrl: INSTANCE, username: 'bob', password: BOB_2FA.password, totpToken: '654321' }));
          expect(badCode.details.field).toBe('totpToken');
          const bob = await connect(ctx, { instanceUrl: INSTANCE, username: 'bob', password: BOB_2FA.password, totpToken: '123456' });
          expect(bob.internalId).toBe(`${INSTANCE}/u/bob`);
          expect(sim.log.filter((r) => r.path === '/api/v3/user/login').at(-1)!.body).toMatchObject({ totp_2fa_token: '123456' });
          const notLemmy = await platformFailure(connect(ctx, { ...credentials, instanceUrl: 'https://not-lemmy.example' }));
          expect({ kind: notLemmy.kind, field: notLemmy.details.field }).toEqual({ kind: 'rejected', field: 'instanceUrl' });
          expect(notLemmy.message).toMatch(/does not answer like a Lemmy instance/);
          const unreachable = await platformFailure(connect(ctx, { ...credentials, instanceUrl: 'https://down.example' }));
          expect({ kind: unreachable.kind, field: unreachable.details.field }).toEqual({ kind: 'rejected', field: 'instanceUrl' });
          expect(unreachable.message).toMatch(/could not be reached/);
          // A private address typed by the user is refused by the outgoing-request guard, on the field.
          const privateHost = await platformFailure(connect(ctx, { ...credentials, instanceUrl: 'http://127.0.0.1:9' }));
          expect(privateHost.details.field).toBe('instanceUrl');
        },
        [
          ['https://not-lemmy.example', down.origin],
          ['https://down.example', 'http://127.0.0.1:1'],
        ],
      );
    } finally {
      down.close();
    }
  });

  it('refuses an instance older than 0.19 (no Bearer sessions there)', async () => {
    const { startLemmySimulator } = await import('./lemmy.simulator.js');
    const old = await startLemmySimulator({ publicOrigin: 'https://old.example', version: '0.18.5' });
    old.addPerson(ALICE);
    const { createPlatformHttp } = await import('../http.js');
    const { testContext } = await import('../../../test/platform-contract.js');
    const http = createPlatformHttp({ origins: new Map([['https://old.example', old.origin]]), allowPrivateTargets: false, timeoutMs: 5000 });
    try {
      const err = await platformFailure(adapter.connectWithCredentials!({ ...credentials, instanceUrl: 'https://old.example' }, { ...testContext(http), openMedia: () => Promise.reject(new Error('none')) }));
      expect({ field: err.details.field, message: err.message }).toEqual({ field: 'instanceUrl', message: 'https://old.example runs Lemmy 0.18.5; Tidings needs Lemmy 0.19 or newer' });
    } finally {
      await http.close();
      await old.close();
    }
  });

  it('normalises typed instance addresses', () => {
    expect(lemmyInstance('lemmy.world')).toBe('https://lemmy.world');
    expect(lemmyInstance(' https://lemmy.world/c/selfhosted ')).toBe('https://lemmy.world');
    expect(() => lemmyInstance('ftp://lemmy.world')).toThrow(/Only http/);
  });
});

describe('lemmy: sessions', () => {
  it('an ended session: publish says auth_expired, refresh logs in again, publishing goes on', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      sim.expireAccessTokens();
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>after logout</p>'));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'auth_expired', code: 'not_logged_in' });
      expect(sim.posts).toHaveLength(0);
      const logins = sim.logins();
      const { credentials: next, expiresAt } = await adapter.refresh!(withCreds(ctx, account));
      expect(sim.logins()).toBe(logins + 1);
      expect(expiresAt).toBeNull();
      expect(next.jwt).not.toBe(account.credentials.jwt);
      expect(next).toMatchObject({ password: ALICE.password, personId: 7 });
      published(await publishWith(adapter, ctx, { credentials: next }, '<p>after login</p>'));
      expect(sim.posts.map((p) => p.body)).toEqual(['after login']);
    });
  });

  it('a changed password, or a 2FA account, needs the user: reconnect_required', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      sim.changePassword(ALICE.id, 'a new password');
      expect((await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>'))).kind).toBe('auth_expired');
      const err = await platformFailure(adapter.refresh!(withCreds(ctx, account)));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'incorrect_login' });
      const bob = await connect(ctx, { instanceUrl: INSTANCE, username: 'bob', password: BOB_2FA.password, totpToken: '123456' });
      const twoFactor = await platformFailure(adapter.refresh!(withCreds(ctx, bob)));
      expect(twoFactor.kind).toBe('reconnect_required');
      expect(twoFactor.message).toMatch(/two-factor/);
    });
  });

  it('a session ending between two communities is renewed on the spot, so the first is not posted twice', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      sim.expireSessionsAfterPosts(1);
      const r = published(await publishWith(adapter, ctx, account, '<p>both</p>', { settings: { subreddit: [community(SELFHOSTED), community(OPENSOURCE)] } }));
      expect(sim.posts.map((p) => p.communityId)).toEqual([SELFHOSTED.id, OPENSOURCE.id]);
      expect(r.id).toBe(sim.posts.map((p) => p.id).join(','));
    });
  });
});

describe('lemmy: publishing', () => {
  it('one post per community, in order: title, markdown body, link, nsfw; the picture embedded when there is a link', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      ctx.media.set('pic', new Blob([PNG], { type: 'image/png' }));
      const settings = { subreddit: [community(SELFHOSTED, '  Tidings 1.0  ', 'https://tidings.example/1.0'), community(OPENSOURCE, 'Tidings, a scheduler')], nsfw: true };
      const r = published(await publishWith(adapter, ctx, account, '<p>Now <strong>out</strong>, see <a href="https://tidings.example">the site</a></p><ul><li>one</li></ul>', { settings, media: [image('pic', 'The logo')] }));
      const [a, b] = sim.posts;
      expect(r).toEqual({ status: 'published', id: `${a!.id},${b!.id}`, url: `${INSTANCE}/post/${a!.id}` });
      // One upload, used by both posts.
      expect([...sim.images.values()].map((i) => i.sha256)).toEqual([sha(PNG)]);
      const file = [...sim.images.keys()][0]!;
      const picture = `${INSTANCE}/pictrs/image/${file}`;
      expect(a).toMatchObject({ communityId: SELFHOSTED.id, name: 'Tidings 1.0', url: 'https://tidings.example/1.0', nsfw: true, body: `![The logo](${picture})\n\nNow **out**, see [the site](https://tidings.example)\n\n-   one` });
      expect(b).toMatchObject({ communityId: OPENSOURCE.id, name: 'Tidings, a scheduler', url: picture, altText: 'The logo', nsfw: true, body: 'Now **out**, see [the site](https://tidings.example)\n\n-   one' });
      const upload = sim.log.find((l) => l.path === '/pictrs/image')!;
      expect(upload.headers.authorization).toBe(`Bearer ${account.credentials.jwt as string}`);
      expect(upload.headers['content-type']).toMatch(/^multipart\/form-data/);
    });
  });

  it('thread items are comments under each post, each nested under the one before', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      const settings = { subreddit: [community(SELFHOSTED), community(OPENSOURCE)] };
      const first = published(await publishWith(adapter, ctx, account, '<p>Root</p>', { settings }));
      const second = published(await publishWith(adapter, ctx, account, '<p>Second</p>', { settings, replyTo: { id: first.id, rootId: first.id } }));
      const third = published(await publishWith(adapter, ctx, account, '<p>Third</p>', { settings, replyTo: { id: second.id, rootId: first.id } }));
      const [p1, p2] = sim.posts;
      const [c1, c2, c3, c4] = sim.comments;
      expect(second).toEqual({ status: 'published', id: `comment:${c1!.id},${c2!.id}`, url: `${INSTANCE}/comment/${c1!.id}` });
      expect(third.id).toBe(`comment:${c3!.id},${c4!.id}`);
      expect([c1, c2, c3, c4].map((c) => ({ post: c!.postId, parent: c!.parentId, content: c!.content }))).toEqual([
        { post: p1!.id, parent: null, content: 'Second' },
        { post: p2!.id, parent: null, content: 'Second' },
        { post: p1!.id, parent: c1!.id, content: 'Third' },
        { post: p2!.id, parent: c2!.id, content: 'Third' },
      ]);
      expect(c3!.path).toBe(`0.${c1!.id}.${c3!.id}`);

      // Reconciliation names them as publish did.
      const since = new Date(Date.now() - 60_000);
      const ctxA = withCreds(ctx, account);
      expect((await adapter.findRecent!({ since, limit: 50, settings }, ctxA)).map((p) => p.id)).toEqual([first.id]);
      expect((await adapter.findRecent!({ since, limit: 50 }, ctxA)).map((p) => p.id).sort()).toEqual([String(p1!.id), String(p2!.id)].sort());
      expect((await adapter.findRecent!({ since, limit: 50, settings: { subreddit: [community(OPENSOURCE)] } }, ctxA)).map((p) => [p.id, p.url, p.content])).toEqual([[String(p2!.id), `${INSTANCE}/post/${p2!.id}`, 'Root']]);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 50, settings }, ctxA)).toEqual([]);
      const seconds = await adapter.findRecent!({ since, limit: 50, settings, replyTo: { id: first.id, rootId: first.id } }, ctxA);
      expect(seconds.map((c) => ({ id: c.id, content: c.content }))).toEqual([{ id: second.id, content: 'Second' }]);
      const thirds = await adapter.findRecent!({ since, limit: 50, settings, replyTo: { id: second.id, rootId: first.id } }, ctxA);
      expect(thirds.map((c) => c.id)).toEqual([third.id]);
      expect(sim.log.filter((l) => l.path.startsWith('/api/v3/user?')).at(-1)!.path).toMatch(/username=alice&sort=New/);
    });
  });

  it('a community that refuses after another took the post: rejected, naming both, never re-sent', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>announce</p>', { settings: { subreddit: [community(SELFHOSTED), community(ANNOUNCE)] } }));
      expect(err.kind).toBe('rejected');
      expect(err.message).toBe(
        `Published to ${INSTANCE}/post/${sim.posts[0]!.id}, but not to !announcements (13): Lemmy: only moderators may post in this community (only_mods_can_post_in_community). Not retried, so nothing is posted twice.`,
      );
      expect(sim.posts).toHaveLength(1);
      // A rate limit on the second community is not retried either (the first would be posted twice).
      sim.setRateLimit('post', 1);
      const limited = await platformFailure(publishWith(adapter, ctx, account, '<p>twice?</p>', { settings: { subreddit: [community(SELFHOSTED), community(OPENSOURCE)] } }));
      expect(limited.kind).toBe('rejected');
      expect(limited.message).toMatch(/too many posts/);
      // Refused on the first community: the plain error.
      sim.setRateLimit('post', 100);
      const unknown = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { settings: { subreddit: [community({ id: 999, name: 'nowhere' })] } }));
      expect({ kind: unknown.kind, code: unknown.details.platformCode }).toEqual({ kind: 'rejected', code: 'couldnt_find_community' });
      expect(sim.posts).toHaveLength(2);
    });
  });

  it('refuses a bad title before sending, and a file that is not a picture at the image host', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      const long = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { settings: { subreddit: [community(SELFHOSTED, 'x'.repeat(201))] } }));
      expect(long.message).toMatch(/3–200 characters \(this one has 201\)/);
      const none = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { settings: {} }));
      expect(none.message).toMatch(/settings\.subreddit/);
      expect(sim.log.filter((l) => l.method === 'POST' && l.path === '/api/v3/post')).toHaveLength(0);
      ctx.media.set('fake', new Blob([Buffer.from('not a picture at all')], { type: 'image/png' }));
      const fake = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { media: [image('fake')] }));
      expect({ kind: fake.kind, message: fake.message }).toEqual({ kind: 'rejected', message: "The instance's image host refused the picture: Unsupported media type" });
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('validate names Lemmy’s own rules by path', () => {
    const issues = adapter.validate({
      settings: { subreddit: [community(SELFHOSTED, 'two\nlines'), community(SELFHOSTED, 'ok title', 'ftp://x.example/'), { value: { subreddit: 'abc', id: 'abc', title: 'ab' } }] },
      items: [{ content: 'x', media: [] }],
    });
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['settings.subreddit.0.value.title', 'invalid_post_title'],
      ['settings.subreddit.1.value.id', 'duplicate_community'],
      ['settings.subreddit.1.value.url', 'invalid_url'],
      ['settings.subreddit.2.value.title', 'invalid_post_title'],
      ['settings.subreddit.2.value.id', 'invalid_community'],
    ]);
    expect(adapter.validate({ settings: { subreddit: [community(SELFHOSTED), community(OPENSOURCE)] }, items: [] })).toEqual([]);
  });
});

describe('lemmy: tools and figures', () => {
  it('subreddits searches communities (federated ones named name@host); an empty word lists the top ones', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      const found = await adapter.runTool!('subreddits', { word: 'lin' }, withCreds(ctx, account));
      expect(found).toEqual([{ id: '14', name: 'linux@lemmy.ml', title: 'Linux', subreddit: 'linux', nsfw: false, subscribers: 20000 }]);
      const search = sim.log.find((l) => l.path.startsWith('/api/v3/search'))!;
      expect(new URL(search.path, 'http://x').searchParams.get('type_')).toBe('Communities');
      const top = (await adapter.runTool!('subreddits', { word: '' }, withCreds(ctx, account))) as { id: string }[];
      expect(top.map((c) => c.id)).toEqual(['14', '12', '11', '13']);
    });
  });

  it('post figures: score, votes and comments, summed over the communities', async () => {
    await withLemmy(async (sim, ctx) => {
      const account = await connect(ctx);
      const r = published(await publishWith(adapter, ctx, account, '<p>count me</p>', { settings: { subreddit: [community(SELFHOSTED), community(OPENSOURCE)] } }));
      const [a, b] = sim.posts;
      sim.setCounts(a!.id, { score: 10, upvotes: 12, downvotes: 2, comments: 3 });
      sim.setCounts(b!.id, { score: 5, upvotes: 5, downvotes: 0, comments: 1 });
      const series = await adapter.postAnalytics!(r.id, 7, withCreds(ctx, account));
      expect(series.map((s) => [s.label, s.data[0]!.total])).toEqual([
        ['Score', 15],
        ['Upvotes', 17],
        ['Downvotes', 2],
        ['Comments', 4],
      ]);
    });
  });
});

describe('lemmy: error classification', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
  it('reads the error code before the status', () => {
    const kinds = (r: ReturnType<typeof res>, action: Parameters<typeof lemmyError>[1] = 'post') => {
      const e = lemmyError(r, action, 0);
      return e && { kind: e.kind, wait: e.details.retryAfterSeconds, code: e.details.platformCode };
    };
    expect(kinds(res(429, { error: 'rate_limit_error' }))).toEqual({ kind: 'rate_limited', wait: 600, code: 'rate_limit_error' });
    expect(kinds(res(429, { error: 'rate_limit_error' }), 'image')?.wait).toBe(3600);
    expect(kinds(res(429, { error: 'rate_limit_error' }, { 'retry-after': '42' }))?.wait).toBe(42);
    expect(kinds(res(400, { error: 'rate_limit_error' }))?.kind).toBe('rate_limited');
    expect(kinds(res(400, { error: 'not_logged_in' }))?.kind).toBe('auth_expired');
    expect(kinds(res(401, 'Unauthorized'))?.kind).toBe('auth_expired');
    expect(kinds(res(400, { error: 'site_ban' }))?.kind).toBe('reconnect_required');
    expect(kinds(res(401, { error: 'incorrect_login' }))?.kind).toBe('reconnect_required');
    expect(kinds(res(200, { error: 'invalid_post_title' }))?.kind).toBe('rejected');
    expect(kinds(res(404, { error: 'couldnt_find_post' }))?.kind).toBe('rejected');
    expect(kinds(res(502, '<html>Bad Gateway</html>'))?.kind).toBe('transient');
    expect(kinds(res(503, { error: 'unknown', message: 'database busy' }))?.kind).toBe('transient');
    expect(kinds(res(200, { post_view: {} }))).toBeUndefined();
    expect(lemmyError(res(400, { error: 'invalid_url' }), 'post')!.message).toBe('Lemmy: the link must be an http(s) URL (invalid_url)');
  });

  it('pict-rs answers: ok, its own refusal, Lemmy errors in front of it', () => {
    expect(pictrsFile(res(201, { msg: 'ok', files: [{ file: 'a.png', delete_token: 'd' }] }))).toBe('a.png');
    expect(() => pictrsFile(res(413, { msg: 'File too large', code: 'too-large' }))).toThrow(/refused the picture: File too large/);
    expect(() => pictrsFile(res(400, { error: 'not_logged_in' }))).toThrow(expect.objectContaining({ kind: 'auth_expired' }));
    expect(() => pictrsFile(res(429, { error: 'rate_limit_error' }))).toThrow(expect.objectContaining({ kind: 'rate_limited', details: expect.objectContaining({ retryAfterSeconds: 3600 }) }));
  });
});
