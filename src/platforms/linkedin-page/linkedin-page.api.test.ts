import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import { linkedinPostUrl } from './client.js';
import type { LinkedinSimulator } from './linkedin-page.simulator.js';
import { ADA, linkedinAppEnv, linkedinSimulator } from './linkedin-page.testkit.js';

/**
 * LinkedIn Pages end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/linkedin-page` (the first page the member administers), the `pages` tool and
 * `PUT /integrations/{id}/account`; a page post with a picture and a comment as the page published
 * by the worker; a page the member lost the role for refusing the post with LinkedIn's words;
 * the page's daily figures and a post's. The simulator's records are the verdict.
 */

const api = platformApi('linkedin-page');
let sim: LinkedinSimulator;
let channelId: string;
const DAY = 86_400_000;
const memberUrn = `urn:li:person:${ADA.sub}`;

beforeAll(async () => {
  sim = await linkedinSimulator();
  await api.start({ env: linkedinAppEnv(sim, 'LINKEDIN_PAGE', PUBLIC_URL) });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('linkedin-page through the API', () => {
  it('connects the first page the member administers; the pages tool lists them; the channel switches page', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('linkedin-page'));
    expect(url.searchParams.get('scope')).toBe('openid profile w_organization_social r_organization_social rw_organization_admin');
    // Ada administers 2002 and 3003, not 1001.
    expect(channel).toMatchObject({ name: 'Difference Works', profile: 'difference-works', refreshNeeded: false });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe('2002');

    const pages = await api.toolOutput<{ id: string; current: boolean }[]>(channelId, 'pages');
    expect(pages.map((p) => [p.id, p.current])).toEqual([
      ['2002', true],
      ['3003', false],
    ]);
    const switched = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: '3003' } });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ id: channelId, name: 'Notes Ltd', profile: 'notes-ltd' });
    const refused = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: '1001' } });
    expect(refused.statusCode).toBe(400);
    const back = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: '2002' } });
    expect(back.json()).toMatchObject({ name: 'Difference Works' });
    expect(await api.openCredentials(channelId)).toMatchObject({ memberUrn, authorUrn: 'urn:li:organization:2002', organizationId: '2002' });
  });

  it('publishes a page post with a picture (byte for byte) and its thread item as the page’s comment', async () => {
    const png = await picture(11);
    const media = await api.upload(png, 'works.png');
    const post = await api.publish(channelId, {}, [{ content: '<p>The difference engine is running</p>', image: [{ id: media.id, path: media.path }] }, { content: '<p>Come and see it</p>' }], {
      thread: true,
    });
    const made = sim.posts.find((p) => p.urn === post.releaseId)!;
    expect(made).toMatchObject({ author: 'urn:li:organization:2002', text: 'The difference engine is running', mediaSha256: [sha(png)] });
    expect(post.releaseURL).toBe(linkedinPostUrl(made.urn));
    const comment = sim.comments.find((c) => c.urn === post.thread[0]!.releaseId)!;
    expect(comment).toMatchObject({ object: made.urn, actor: 'urn:li:organization:2002', impersonator: memberUrn, text: 'Come and see it' });
  });

  it('reports the page’s daily figures and a post’s lifetime statistics', async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const date = (daysAgo: number) => new Date(today - daysAgo * DAY).toISOString().slice(0, 10);
    sim.setDailyStatistics('2002', [
      { date: date(2), organicFollowerGain: 2, paidFollowerGain: 1, impressionCount: 120 },
      { date: date(1), organicFollowerGain: 5, impressionCount: 250, shareCount: 1 },
    ]);
    const series = await api.figures(channelId);
    const by = Object.fromEntries(series.map((s) => [s.label, s.data]));
    expect(series.map((s) => s.label)).toEqual(['New followers', 'Impressions', 'Unique impressions', 'Clicks', 'Likes', 'Comments', 'Shares']);
    expect(by['New followers']!.map((d) => Number(d.total)).slice(-2)).toEqual([3, 5]);
    expect(by['Impressions']!.map((d) => Number(d.total)).slice(-2)).toEqual([120, 250]);

    const post = await api.publish(channelId, {}, [{ content: '<p>Measured</p>' }]);
    sim.setPostStatistics(post.releaseId!, { impressionCount: 42, likeCount: 5, clickCount: 2 });
    const figures = await api.figures(`post/${post.id}`);
    expect(Object.fromEntries(figures.map((s) => [s.label, Number(s.data[0]!.total)]))).toEqual({ Impressions: 42, 'Unique impressions': 0, Clicks: 2, Likes: 5, Comments: 0, Shares: 0 });
  });

  it('a page the member no longer administers refuses the post with LinkedIn’s words', async () => {
    sim.organizations.get('2002')!.admins = ['Bb7_other'];
    const before = sim.posts.length;
    const post = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>no longer mine</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/Not enough permissions/);
    expect(sim.posts.length).toBe(before);
  });
});
