import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { HashnodeSimulator } from './hashnode.simulator.js';
import { BLOG, HN_TOKEN, HN_USER, hashnodeSimulator, JS_TAG, NEWS, PG_TAG, platformOriginsFor, startPullingApp } from './hashnode.testkit.js';

/**
 * Hashnode end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/hashnode`, verified with the `me` query; a wrong token is a 400 naming `token`
 * with nothing stored), the tools, then a post made through `POST /posts` into the chosen
 * publication, whose cover is an upload the simulator pulls from the app's own public `/media/…`
 * URL (the app listens on loopback, mapped from PUBLIC_URL), and the post's figures as post
 * analytics. The simulator's records are the verdict: one post, with the cover's bytes (sha256).
 */

const api = platformApi('hashnode');
let sim: HashnodeSimulator;
let channelId: string;

beforeAll(async () => {
  // Hashnode pulls the cover from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  sim = await startPullingApp(api, (mediaOrigins) => hashnodeSimulator({ mediaOrigins }), platformOriginsFor);
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('hashnode through the API', () => {
  it('a wrong token answers 400 naming token and stores no channel', async () => {
    expect((await api.expectConnectRefused({ token: 'wrong-token' })).map((f) => f.path)).toEqual(['token']);
  });

  it('connects with the personal access token, verified with the me query, stored sealed', async () => {
    const res = await api.connectForm({ token: HN_TOKEN });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'hashnode', name: HN_USER.name, profile: HN_USER.username });
    expect(res.body).not.toContain(HN_TOKEN);
    channelId = res.json<{ id: string }>().id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(HN_USER.id);
    expect(row.credentials).not.toContain(HN_TOKEN);
    expect(await api.openCredentials(channelId)).toEqual({ token: HN_TOKEN });
  });

  it('the tools list the account’s publications and the tags used on them', async () => {
    sim.addPost({ authorId: HN_USER.id, publicationId: NEWS.id, title: 'An earlier post', tagIds: [JS_TAG.id], publishedAt: '2025-01-01T00:00:00.000Z' });
    expect(await api.toolOutput(channelId, 'publications')).toEqual([{ id: BLOG.id, name: BLOG.title, url: BLOG.url }, { id: NEWS.id, name: NEWS.title, url: NEWS.url }]);
    expect(await api.toolOutput(channelId, 'tagsList')).toEqual([{ value: 'javascript', label: 'JavaScript' }]);
  });

  it('refuses a post without a publication or tags, naming the fields, before anything is sent', async () => {
    const res = await api.createPost(channelId, { title: 'Missing things' }, [{ content: '<p>x</p>' }]);
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path).sort()).toEqual(['posts.0.settings.publication', 'posts.0.settings.tags']);
    expect(sim.operations.filter((o) => o.type === 'mutation')).toHaveLength(0);
  });

  it('publishes into the chosen publication with its cover pulled from the app’s public media URL, byte for byte, then reads its figures', async () => {
    const coverBytes = await picture(2, { width: 48, height: 32 });
    const cover = await api.upload(coverBytes, 'cover.png');
    expect(cover.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const before = sim.posts.length;
    const post = await api.publish(
      channelId,
      {
        title: 'Queues on PostgreSQL',
        subtitle: 'pg-boss in practice',
        main_image: { id: cover.id, path: cover.path },
        canonical: 'https://blog.example.com/queues',
        publication: BLOG.id,
        tags: [{ value: 'postgresql', label: 'PostgreSQL' }, { value: JS_TAG.id, label: 'JavaScript' }],
      },
      [{ content: '<p>Queues <strong>and</strong> clocks.</p>' }],
    );
    expect(sim.posts.length - before).toBe(1);
    const made = sim.posts.find((p) => p.id === post.releaseId)!;
    expect(post.releaseURL).toBe('https://acme.hashnode.dev/queues-on-postgresql');
    expect(made).toMatchObject({
      publicationId: BLOG.id,
      title: 'Queues on PostgreSQL',
      subtitle: 'pg-boss in practice',
      markdown: 'Queues **and** clocks.',
      tagIds: [PG_TAG.id, JS_TAG.id],
      canonicalUrl: 'https://blog.example.com/queues',
    });
    expect(made.cover).toEqual({ url: cover.path, sha256: sha(coverBytes), size: coverBytes.length, contentType: 'image/png' });

    sim.setFigures(made.id, { views: 88, reactionCount: 6, responseCount: 1 });
    const series = await api.figures(`post/${post.id}`);
    expect(series.map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Views', 88],
      ['Reactions', 6],
      ['Responses', 1],
    ]);
  });
});
