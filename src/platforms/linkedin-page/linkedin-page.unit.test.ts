import { describe, expect, it } from 'vitest';
import { oauthConnector, runSimulatorContract } from '../common/unit.testkit.js';
import { ADA, APP, image, linkedinSimulator, originsFor, PNG, post, published, rewriteFor, sha, withLinkedin } from './linkedin-page.testkit.js';
import type { PlatformError } from '../platform.js';
import { createLinkedinPageAdapter } from './index.js';

const adapter = createLinkedinPageAdapter({ app: APP });
const connect = oauthConnector(adapter, rewriteFor);

runSimulatorContract({ name: 'linkedin-page', adapter, errorsIn200: false, start: () => linkedinSimulator(), origins: originsFor, connect });

describe('linkedin-page specifics', () => {
  const DAY = 86_400_000;

  it('connects the first page the member administers, never one they do not', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      // Ada administers 2002 and 3003, not 1001.
      expect(account).toMatchObject({ internalId: '2002', name: 'Difference Works', profile: 'difference-works', picture: null });
      expect(account.credentials).toMatchObject({ memberUrn: `urn:li:person:${ADA.sub}`, authorUrn: 'urn:li:organization:2002', organizationId: '2002' });
      const authorize = sim.log.find((r) => r.path.startsWith('/oauth/v2/authorization'))!;
      expect(new URL(authorize.path, 'http://x').searchParams.get('scope')).toBe('openid profile w_organization_social r_organization_social rw_organization_admin');
      const acl = sim.log.find((r) => r.path.startsWith('/rest/organizationAcls'))!;
      expect(new URL(acl.path, 'http://x').searchParams.get('role')).toBe('ADMINISTRATOR');
    });
  });

  it('the pages tool lists every administered page and marks the connected one', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const pages = await adapter.runTool!('pages', {}, { ...ctx, credentials: account.credentials });
      expect(pages).toEqual([
        { id: '2002', urn: 'urn:li:organization:2002', name: 'Difference Works', vanityName: 'difference-works', current: true },
        { id: '3003', urn: 'urn:li:organization:3003', name: 'Notes Ltd', vanityName: 'notes-ltd', current: false },
      ]);
      expect(adapter.metadata.tools.map((t) => t.methodName)).toEqual(['pages']);
      const unknown = (await adapter.runTool!('boards', {}, { ...ctx, credentials: account.credentials }).catch((e: unknown) => e)) as PlatformError;
      expect(unknown.kind).toBe('unsupported');
    });
  });

  it('refuses a member who administers no page', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      sim.addMember({ sub: 'Zz_nobody', name: 'Nobody' });
      sim.approveAs('Zz_nobody');
      const err = (await connect(sim, ctx).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'Nobody administers no LinkedIn page: a page administrator must connect it' });
    });
  });

  it('posts and comments as the organisation, with page-owned media', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      ctx.media.set('p', new Blob([PNG(7)], { type: 'image/png' }));
      const root = published(await post(adapter, ctx, account, '<p>Page news (big)</p>', { media: [image('p')] }));
      expect(sim.posts[0]).toMatchObject({ urn: root.id, author: 'urn:li:organization:2002', text: 'Page news (big)', mediaSha256: [sha(PNG(7))] });
      expect(sim.assets.get(sim.posts[0]!.mediaUrns[0]!)!.owner).toBe('urn:li:organization:2002');
      const reply = published(await post(adapter, ctx, account, '<p>details</p>', { replyTo: { id: root.id, rootId: root.id } }));
      expect(sim.comments[0]).toMatchObject({ urn: reply.id, actor: 'urn:li:organization:2002', object: root.id });
    });
  });

  it('a member who lost the page role must reconnect', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.organizations.get('2002')!.admins = ['Bb7_other'];
      const err = (await post(adapter, ctx, account, '<p>still admin?</p>').catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, code: err.details.platformCode, status: err.details.status }).toEqual({ kind: 'reconnect_required', code: 'ACCESS_DENIED', status: 403 });
    });
  });

  it('reports daily follower gains and share statistics over complete UTC days', async () => {
    const now = Date.UTC(2026, 10, 21, 15, 30);
    await withLinkedin({ now: () => now }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.setDailyStatistics('2002', [
        { date: '2026-11-17', organicFollowerGain: 1, impressionCount: 100, clickCount: 3, likeCount: 2 },
        { date: '2026-11-18', organicFollowerGain: 2, paidFollowerGain: 1, impressionCount: 120 },
        { date: '2026-11-19', organicFollowerGain: 0, impressionCount: 150, commentCount: 4 },
        { date: '2026-11-20', organicFollowerGain: 5, impressionCount: 250, shareCount: 1 },
        // Today is not complete and not asked for.
        { date: '2026-11-21', organicFollowerGain: 50, impressionCount: 999 },
      ]);
      const series = await adapter.analytics!(4, { ...ctx, credentials: account.credentials });
      const by = Object.fromEntries(series.map((s) => [s.label, s]));
      expect(by['New followers']!.data).toEqual([
        { date: '2026-11-17', total: 1 },
        { date: '2026-11-18', total: 3 },
        { date: '2026-11-19', total: 0 },
        { date: '2026-11-20', total: 5 },
      ]);
      expect(by['Impressions']!.data.map((d) => d.total)).toEqual([100, 120, 150, 250]);
      // (150 + 250) against (100 + 120)
      expect(by['Impressions']!.percentageChange).toBe(81.82);
      expect(by['Comments']!.data.map((d) => d.total)).toEqual([0, 0, 4, 0]);
      const call = sim.log.find((l) => l.path.startsWith('/rest/organizationalEntityFollowerStatistics'))!;
      const end = Date.UTC(2026, 10, 21);
      expect(call.path).toContain(`timeIntervals=(timeRange:(start:${end - 4 * DAY},end:${end}),timeGranularityType:DAY)`);
      expect(call.path).toContain('organizationalEntity=urn%3Ali%3Aorganization%3A2002');
    });
  });

  it('reports a post’s lifetime share statistics', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const root = published(await post(adapter, ctx, account, '<p>measured</p>'));
      sim.setPostStatistics(root.id, { impressionCount: 42, likeCount: 5, clickCount: 2 });
      const series = await adapter.postAnalytics!(root.id, 7, { ...ctx, credentials: account.credentials });
      expect(Object.fromEntries(series.map((s) => [s.label, s.data[0]!.total]))).toEqual({ Impressions: 42, 'Unique impressions': 0, Clicks: 2, Likes: 5, Comments: 0, Shares: 0 });
    });
  });

  it('reconciling a thread item finds the page’s comments on its post, not the administrator’s own', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const root = published(await post(adapter, ctx, account, '<p>page thread</p>'));
      const replyTo = { id: root.id, rootId: root.id };
      const mine = published(await post(adapter, ctx, account, '<p>as the page</p>', { replyTo }));
      // Ada commenting as herself, with the same words: not the channel's comment.
      sim.addComment({ object: root.id, actor: `urn:li:person:${ADA.sub}`, text: 'as the page' });
      const found = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 50, replyTo }, c);
      expect(found.map((f) => [f.id, f.url, f.content])).toEqual([[mine.id, mine.url, 'as the page']]);
      const read = sim.log.find((l) => l.method === 'GET' && l.path.startsWith('/rest/socialActions/'))!;
      expect(read.path).toBe(`/rest/socialActions/${encodeURIComponent(root.id)}/comments?start=0&count=100`);

      // A member who lost the page role may no longer read its comments: reconciliation cannot look (not a lost grant).
      sim.organizations.get('2002')!.admins = ['Bb7_other'];
      const err = (await adapter.findRecent!({ since: new Date(0), limit: 50, replyTo }, c).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, code: err.details.platformCode, status: err.details.status }).toEqual({ kind: 'unsupported', code: 'ACCESS_DENIED', status: 403 });
    });
  });

  it('finds the page’s recent posts, not the member’s', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const mine = published(await post(adapter, ctx, account, '<p>page post</p>'));
      sim.posts.push({ ...sim.posts[0]!, urn: 'urn:li:share:1', author: `urn:li:person:${ADA.sub}`, commentary: 'personal' });
      const recent = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 5 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => r.id)).toEqual([mine.id]);
    });
  });
});
