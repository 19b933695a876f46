import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers.js';
import { connectThroughApi, createPost, picture, settle, startMetaApiWorld, upload, VIDEO_FIXTURE, sha, type Listed, type MetaApiWorld } from '../common/meta-api.testkit.js';
import { BAKERY, LABS } from './facebook.testkit.js';

/**
 * Facebook Pages end to end through the HTTP API against the Meta simulator: connect (Facebook
 * Login, the first Page), the `pages` tool and `PUT /integrations/{id}/account`, a post with two
 * pictures and a comment, a reel processed over several checks, and the Page's insights.
 */

let w: MetaApiWorld;
let channel: Listed;

beforeAll(async () => {
  w = await startMetaApiWorld({ facebookVideoPolls: 2 });
  channel = await connectThroughApi(w, 'facebook');
});

afterAll(async () => {
  await w?.close();
});

describe('facebook through the API', () => {
  it('connects the first Page; the pages tool lists them; the channel switches Page keeping the grant', async () => {
    expect(channel).toMatchObject({ name: BAKERY.name, profile: BAKERY.username, picture: BAKERY.picture, refreshNeeded: false });
    const pages = await call(w.t.app, w.org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channel.id}`, payload: { methodName: 'pages' } });
    expect(pages.statusCode, pages.body).toBe(200);
    expect(pages.json<{ output: { id: string; current: boolean }[] }>().output.map((p) => [p.id, p.current])).toEqual([
      [BAKERY.id, true],
      [LABS.id, false],
      ['104000000000004', false],
    ]);
    const switched = await call(w.t.app, w.org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channel.id}/account`, payload: { id: LABS.id } });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ id: channel.id, name: LABS.name, profile: LABS.username });
    const refused = await call(w.t.app, w.org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channel.id}/account`, payload: { id: '103000000000003' } });
    expect(refused.statusCode).toBe(400);
    const back = await call(w.t.app, w.org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channel.id}/account`, payload: { id: BAKERY.id } });
    expect(back.json()).toMatchObject({ name: BAKERY.name });
  });

  it('publishes two pictures in one post, byte-exact, and the thread item as a comment', async () => {
    const [png, jpeg] = [await picture('png'), await picture('jpeg')];
    const media = [await upload(w, png, 'one.png'), await upload(w, jpeg, 'two.jpg')];
    const id = await createPost(w, channel.id, [{ content: '<p>Two loaves</p>', media }, { content: '<p>Baked at dawn</p>' }], { __type: 'facebook', url: 'https://acme.example/bread' });
    const { post } = await settle(w, id);
    expect([post.state, post.error, post.thread.map((i) => [i.state, i.error])]).toEqual(['PUBLISHED', null, [['PUBLISHED', null]]]);
    const stored = w.sim.feed.find((f) => f.id === post.releaseId)!;
    expect(stored).toMatchObject({ pageId: BAKERY.id, message: 'Two loaves\n\nhttps://acme.example/bread', mediaSha256: [sha(png), sha(jpeg)] });
    expect(post.releaseURL).toBe(stored.permalink);
    const comment = w.sim.comments.find((c) => c.id === post.thread[0]!.releaseId)!;
    expect(comment).toMatchObject({ parentId: post.releaseId, message: 'Baked at dawn', from: BAKERY.id });
  });

  it('publishes a reel: started, uploaded, finished once, processed over several checks', async () => {
    const bytes = await readFile(VIDEO_FIXTURE);
    const clip = await upload(w, bytes, 'reel.mp4');
    const finishesBefore = w.sim.finishCalls.length;
    const id = await createPost(w, channel.id, [{ content: '<p>Morning bake</p>', media: [clip] }], { __type: 'facebook', post_type: 'reel' });
    const { post } = await settle(w, id);
    expect([post.state, post.error]).toEqual(['PUBLISHED', null]);
    const video = w.sim.videos.get(post.releaseId!)!;
    expect({ flavor: video.flavor, sha: video.sha256, description: video.description, published: video.published }).toEqual({ flavor: 'reel', sha: sha(bytes), description: 'Morning bake', published: true });
    expect(post.releaseURL).toBe(`https://www.facebook.com/reel/${post.releaseId}`);
    expect(w.sim.finishCalls.slice(finishesBefore)).toEqual([post.releaseId]);
    // four checks, each reading what Facebook has: upload, finish, processing, live
    expect(w.sim.log.filter((l) => l.method === 'GET' && l.path.startsWith(`/v23.0/${post.releaseId}?fields=status`))).toHaveLength(4);
  });

  it('reports the Page’s insights through the analytics route', async () => {
    const day = (n: number) => new Date(Math.floor(w.clock.now() / 86_400_000) * 86_400_000 - n * 86_400_000).toISOString().slice(0, 10);
    w.sim.setPageInsights(BAKERY.id, [
      { date: day(2), page_total_media_view_unique: 40, page_media_view: 60, page_post_engagements: 3, page_daily_follows: 1 },
      { date: day(1), page_total_media_view_unique: 50, page_media_view: 90, page_post_engagements: 5, page_daily_follows: 2 },
    ]);
    const res = await call(w.t.app, w.org.apiKey, { method: 'GET', url: `/public/v1/analytics/${channel.id}?date=7` });
    expect(res.statusCode, res.body).toBe(200);
    const reach = res.json<{ label: string; data: { total: number | string; date: string }[] }[]>().find((s) => s.label === 'Reach')!;
    expect(reach.data.map((d) => [d.date, Number(d.total)])).toEqual([
      [day(2), 40],
      [day(1), 50],
    ]);
  });
});
