import { describe, expect, it } from 'vitest';
import { platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import type { OperationContext, PlatformAdapter, PlatformResponse } from '../platform.js';
import { moltbookError } from './errors.js';
import { createMoltbookAdapter, titleOf } from './index.js';
import type { MoltbookSimulator } from './moltbook.simulator.js';
import { AGENT, moltbookSimulator, originsFor, OTHER, published, UNCLAIMED, withMoltbook, type TestCtx } from './moltbook.testkit.js';

const adapter = createMoltbookAdapter();

/** The contract's first items go to the `general` submolt (thread items need no settings). */
const toSubmolt: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { submolt: 'general', ...input.settings } }, ctx),
};

// Moltbook takes text and link posts only (metadata: no media; validation refuses attachments
// before anything is sent), so the contract's media case cannot apply; the adapter's answer to a
// picture is tested below.
function lookupIn(sim: MoltbookSimulator) {
  return (id: string) => {
    const c = sim.comments.find((x) => x.id === id);
    if (c) return { text: c.content, replyTo: c.parentId ?? c.postId, mediaSha256: [] };
    const p = sim.posts.find((x) => x.id === id);
    return p ? { text: p.content ?? p.url ?? '', mediaSha256: [] } : undefined;
  };
}

// The contract posts several times in a row: the cooldowns are tested on their own below.
runSimulatorContract({ name: 'moltbook', adapter: toSubmolt, errorsIn200: true, start: () => moltbookSimulator({ postCooldownSeconds: 0, commentCooldownSeconds: 0 }), origins: originsFor, connect: { apiKey: AGENT.apiKey }, lookup: lookupIn });

const connect = (ctx: TestCtx, apiKey = AGENT.apiKey) => adapter.connectWithCredentials!({ apiKey }, ctx);
const post = (ctx: OperationContext, content: string, extra: { settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string } } = {}) =>
  adapter.publish({ item: { content, media: [] }, settings: extra.settings ?? { submolt: 'general' }, replyTo: extra.replyTo, idempotencyKey: content }, ctx);

describe('moltbook: connecting', () => {
  it('reads the agent with its key on www.moltbook.com, and keeps its name for the listings', async () => {
    await withMoltbook({}, async (sim, ctx) => {
      const account = await connect(ctx, `  ${AGENT.apiKey} `);
      expect(account).toEqual({
        internalId: AGENT.id,
        name: 'Tidings Bot',
        profile: 'TidingsBot',
        picture: AGENT.avatarUrl,
        credentials: { apiKey: AGENT.apiKey, agentName: 'TidingsBot' },
        expiresAt: null,
      });
      expect(sim.log.map((r) => r.path)).toEqual(['/api/v1/agents/me', '/api/v1/agents/status']);
      expect(sim.log.every((r) => r.headers.authorization === `Bearer ${AGENT.apiKey}`)).toBe(true);
    });
  });

  it('a wrong key names apiKey; an unclaimed agent is refused until its human claims it', async () => {
    await withMoltbook({}, async (sim, ctx) => {
      const wrong = await platformFailure(connect(ctx, 'moltbook_sk_nope'));
      expect({ kind: wrong.kind, field: wrong.details.field, message: wrong.message }).toEqual({
        kind: 'rejected',
        field: 'apiKey',
        message: 'Moltbook refused the API key: Invalid API key (Check your API key; register at POST /api/v1/agents/register)',
      });
      const fresh = await platformFailure(connect(ctx, UNCLAIMED.apiKey));
      expect({ kind: fresh.kind, field: fresh.details.field }).toEqual({ kind: 'rejected', field: 'apiKey' });
      expect(fresh.message).toMatch(/FreshMolt must be claimed by its human first \(status: pending_claim\)/);
      sim.claim(UNCLAIMED.name);
      expect((await connect(ctx, UNCLAIMED.apiKey)).internalId).toBe(UNCLAIMED.id);
    });
  });

  it('a server failure at connect time stays transient (not blamed on the key)', async () => {
    await withMoltbook({}, async (sim, ctx) => {
      sim.inject({ path: /agents\/me/, status: 503, body: { success: false, error: 'Service unavailable' } });
      expect((await platformFailure(connect(ctx))).kind).toBe('transient');
    });
  });
});

describe('moltbook: publishing', () => {
  it('a text post: submolt, the first line as title (cut at 100), the whole text as content', async () => {
    await withMoltbook({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const long = `${'word '.repeat(30)}end`;
      const r = published(await post(c, `<p>${long}</p><p>Second &amp; last paragraph</p>`, { settings: { submolt: 'selfhosted' } }));
      expect(r.url).toBe(`https://www.moltbook.com/post/${r.id}`);
      const p = sim.posts.find((x) => x.id === r.id)!;
      expect(p).toMatchObject({ submolt: 'selfhosted', content: `${long}\nSecond & last paragraph`, url: null });
      expect(p.title).toBe(titleOf(long));
      expect(p.title.length).toBeLessThanOrEqual(100);
      expect(p.title.endsWith('…')).toBe(true);
      expect(sim.log.find((x) => x.method === 'POST')!.body).toEqual({ submolt: 'selfhosted', title: p.title, content: p.content });
    });
  });

  it('a text that is a single URL becomes a link post', async () => {
    await withMoltbook({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const r = published(await post(c, '<p>https://tidings.example/release</p>'));
      expect(sim.posts.find((x) => x.id === r.id)).toMatchObject({ title: 'https://tidings.example/release', url: 'https://tidings.example/release', content: null });
    });
  });

  it('thread items nest as comments: the first on the post, the next under the previous comment', async () => {
    await withMoltbook({ commentCooldownSeconds: 0 }, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const root = published(await post(c, 'Root post'));
      const one = published(await post(c, 'One', { replyTo: { id: root.id, rootId: root.id } }));
      const two = published(await post(c, 'Two', { replyTo: { id: one.id, rootId: root.id } }));
      expect(sim.comments.map((x) => [x.postId, x.parentId, x.content])).toEqual([
        [root.id, null, 'One'],
        [root.id, one.id, 'Two'],
      ]);
      expect(two.url).toBe(`https://www.moltbook.com/post/${root.id}#comment-${two.id}`);
      // Reconciliation sees nested comments too, and only the agent's own.
      const otherCtx = withCreds(ctx, await connect(ctx, OTHER.apiKey));
      await post(otherCtx, 'Not mine', { replyTo: { id: root.id, rootId: root.id } });
      const found = await adapter.findRecent!({ since: new Date(0), limit: 10, replyTo: { id: one.id, rootId: root.id } }, c);
      expect(found.map((f) => f.content).sort()).toEqual(['One', 'Two']);
    });
  });

  it('findRecent lists the agent’s posts from its profile, in the post’s submolt, since the date', async () => {
    let t = Date.UTC(2026, 2, 1, 12);
    await withMoltbook({ now: () => t, postCooldownSeconds: 0 }, async (_sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const a = published(await post(c, 'Early general'));
      t += 60_000;
      const b = published(await post(c, 'Later selfhosted', { settings: { submolt: 'selfhosted' } }));
      t += 60_000;
      const d = published(await post(c, 'Latest general'));
      await post(withCreds(ctx, await connect(ctx, OTHER.apiKey)), 'Someone else');
      const all = await adapter.findRecent!({ since: new Date(0), limit: 10 }, c);
      expect(all.map((p) => p.id)).toEqual([d.id, b.id, a.id]);
      expect(all[0]).toMatchObject({ url: d.url, content: 'Latest general', createdAt: new Date(Date.UTC(2026, 2, 1, 12, 2)).toISOString() });
      const general = await adapter.findRecent!({ since: new Date(Date.UTC(2026, 2, 1, 12, 0, 30)), limit: 10, settings: { submolt: 'general' } }, c);
      expect(general.map((p) => p.id)).toEqual([d.id]);
    });
  });

  it('the 30-minute post cooldown and the 20-second comment cooldown are rate limits with Moltbook’s wait', async () => {
    let t = Date.UTC(2026, 2, 1, 12);
    await withMoltbook({ now: () => t }, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const root = published(await post(c, 'First'));
      t += 5 * 60_000;
      const again = await platformFailure(post(c, 'Too soon'));
      expect({ kind: again.kind, wait: again.details.retryAfterSeconds, message: again.message }).toEqual({ kind: 'rate_limited', wait: 25 * 60, message: 'You can only post once every 30 minutes (Wait 25 minutes)' });
      published(await post(c, 'Comment', { replyTo: { id: root.id, rootId: root.id } }));
      t += 5_000;
      const chatty = await platformFailure(post(c, 'Comment again', { replyTo: { id: root.id, rootId: root.id } }));
      expect({ kind: chatty.kind, wait: chatty.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 15 });
      t += 25 * 60_000;
      published(await post(c, 'Allowed now'));
      expect(sim.posts).toHaveLength(2);
    });
  });

  it('a verification challenge is refused with Moltbook’s words, never answered with a guess', async () => {
    await withMoltbook({ postCooldownSeconds: 0, commentCooldownSeconds: 0 }, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      sim.challengeNextWrite();
      const held = await platformFailure(post(c, 'Needs a check'));
      expect({ kind: held.kind, code: held.details.platformCode }).toEqual({ kind: 'rejected', code: 'verification_required' });
      expect(held.message).toMatch(/verification challenge \(moltbook_verify_\w+: "A lObStEr sWiMs/);
      expect(held.message).toMatch(/Moltbook said: "Post created! Complete verification to publish/);
      expect(sim.log.some((r) => r.path.includes('/verify'))).toBe(false);
      const root = published(await post(c, 'Plain post'));
      sim.challengeNextWrite();
      expect((await platformFailure(post(c, 'Held comment', { replyTo: { id: root.id, rootId: root.id } }))).message).toMatch(/held the comment/);
    });
  });

  it('refuses media, a missing submolt, an unknown submolt and an unknown post', async () => {
    await withMoltbook({}, async (_sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const media = await platformFailure(
        adapter.publish({ item: { content: 'pic', media: [{ id: 'm', path: 'https://x/1.png', type: 'image', mimeType: 'image/png', size: 1 }] }, settings: { submolt: 'general' }, idempotencyKey: 'm' }, c),
      );
      expect(media.kind).toBe('unsupported');
      expect((await platformFailure(post(c, 'x', { settings: {} }))).message).toMatch(/needs a submolt/);
      const unknown = await platformFailure(post(c, 'x', { settings: { submolt: 'nowhere' } }));
      expect({ kind: unknown.kind, message: unknown.message }).toEqual({ kind: 'rejected', message: 'Submolt not found (m/nowhere does not exist)' });
      const orphan = await platformFailure(post(c, 'x', { replyTo: { id: 'gone', rootId: 'gone' } }));
      expect({ kind: orphan.kind, message: orphan.message }).toEqual({ kind: 'rejected', message: 'Post not found' });
    });
  });

  it('a key revoked later asks for a reconnect', async () => {
    await withMoltbook({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      sim.revoke(AGENT.apiKey);
      const e = await platformFailure(post(c, 'after revoke'));
      expect({ kind: e.kind, field: e.details.field }).toEqual({ kind: 'reconnect_required', field: 'apiKey' });
    });
  });
});

describe('moltbook: error classification', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}): PlatformResponse => ({ status, body, headers });
  it('reads the body first, then the status', () => {
    expect(moltbookError(res(200, { success: true, post: { id: 'p' } }))).toBeUndefined();
    expect(moltbookError(res(200, { success: false, error: 'Nope' }))).toMatchObject({ kind: 'rejected', message: 'Nope' });
    expect(moltbookError(res(429, { success: false, error: 'Slow down', retry_after_minutes: 2 }))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 120 } });
    expect(moltbookError(res(429, { success: false, error: 'Slow', retry_after_seconds: 7.2 }))).toMatchObject({ details: { retryAfterSeconds: 8 } });
    expect(moltbookError(res(429, 'Too Many Requests', { 'retry-after': '30' }))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 30 } });
    expect(moltbookError(res(429, {}))).toMatchObject({ details: { retryAfterSeconds: 1800 } });
    expect(moltbookError(res(401, { success: false, error: 'Invalid API key' }))).toMatchObject({ kind: 'reconnect_required' });
    expect(moltbookError(res(502, '<html>Bad gateway</html>'))).toMatchObject({ kind: 'transient' });
    expect(moltbookError(res(403, { success: false, error: 'Agent is suspended', hint: 'Contact support' }))).toMatchObject({ kind: 'rejected', message: 'Agent is suspended (Contact support)' });
  });

  it('titles: first non-empty line, short ones kept whole', () => {
    expect(titleOf('\n  Hello there  \nmore')).toBe('Hello there');
    expect(titleOf('x'.repeat(150))).toBe(`${'x'.repeat(99)}…`);
  });
});
