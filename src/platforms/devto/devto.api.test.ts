import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { DevtoSimulator } from './devto.simulator.js';
import { DEV_KEY, DEV_ORG, DEV_USER, devtoSimulator, platformOriginsFor, startPullingApp } from './devto.testkit.js';

/**
 * DEV end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/devto`, verified against the simulator; a wrong key is a 400 naming `apiKey`
 * with nothing stored), the tools, then an article made through `POST /posts` whose cover is an
 * upload the simulator pulls from the app's own public `/media/…` URL (the app listens on
 * loopback, mapped from PUBLIC_URL), and the article's figures as post analytics. The
 * simulator's records are the verdict: one article, with the cover's bytes (sha256).
 */

const api = platformApi('devto');
let sim: DevtoSimulator;
let channelId: string;

beforeAll(async () => {
  // DEV pulls the cover from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  sim = await startPullingApp(api, (mediaOrigins) => devtoSimulator({ mediaOrigins }), platformOriginsFor);
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('devto through the API', () => {
  it('a wrong API key answers 400 naming apiKey and stores no channel', async () => {
    expect((await api.expectConnectRefused({ apiKey: 'wrong-key' })).map((f) => f.path)).toEqual(['apiKey']);
  });

  it('connects with the API key, verified against DEV, stored sealed', async () => {
    const res = await api.connectForm({ apiKey: DEV_KEY });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'devto', name: DEV_USER.name, profile: DEV_USER.username });
    expect(res.body).not.toContain(DEV_KEY);
    channelId = res.json<{ id: string }>().id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(String(DEV_USER.id));
    expect(row.credentials).not.toContain(DEV_KEY);
    expect(await api.openCredentials(channelId)).toEqual({ apiKey: DEV_KEY });
  });

  it('the tools list DEV’s tags and the account’s organizations', async () => {
    sim.addArticle({ userId: DEV_USER.id, title: 'Earlier, under the org', organizationId: DEV_ORG.id, publishedAt: '2025-01-01T00:00:00.000Z' });
    expect(await api.toolOutput(channelId, 'organizations')).toEqual([{ id: String(DEV_ORG.id), name: DEV_ORG.name, username: DEV_ORG.username }]);
    expect(await api.toolOutput<{ value: number; label: string }[]>(channelId, 'tags')).toContainEqual({ value: 555, label: 'node' });
  });

  it('refuses a tag DEV would refuse, naming the field, before anything is sent', async () => {
    const res = await api.createPost(channelId, { title: 'Bad tag', tags: [{ value: 1, label: 'web-dev' }] }, [{ content: '<p>x</p>' }]);
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['posts.0.settings.tags.0']);
  });

  it('publishes an article with its cover pulled from the app’s public media URL, byte for byte, then reads its figures', async () => {
    const coverBytes = await picture(1, { width: 48, height: 32 });
    const cover = await api.upload(coverBytes, 'cover.png');
    expect(cover.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const before = sim.articles.length;
    const post = await api.publish(
      channelId,
      {
        title: 'Scheduling posts with Node',
        main_image: { id: cover.id, path: cover.path },
        canonical: 'https://blog.example.com/scheduling',
        series: 'Tidings',
        organization: String(DEV_ORG.id),
        tags: [{ value: 555, label: 'node' }, { value: 1234, label: 'typescript' }],
      },
      [{ content: '<p>Queues <strong>and</strong> clocks.</p>' }],
    );
    expect(sim.articles.length - before).toBe(1);
    const article = sim.articles.find((a) => String(a.id) === post.releaseId)!;
    expect(post.releaseURL).toBe(article.url);
    expect(article).toMatchObject({
      title: 'Scheduling posts with Node',
      bodyMarkdown: 'Queues **and** clocks.',
      tags: ['node', 'typescript'],
      canonicalUrl: 'https://blog.example.com/scheduling',
      series: 'Tidings',
      organizationId: DEV_ORG.id,
    });
    expect(article.cover).toEqual({ url: cover.path, sha256: sha(coverBytes), size: coverBytes.length, contentType: 'image/png' });

    sim.setFigures(article.id, { pageViews: 140, reactions: 9, comments: 2 });
    const series = await api.figures(`post/${post.id}`);
    expect(series.map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Views', 140],
      ['Reactions', 9],
      ['Comments', 2],
    ]);
  });
});
