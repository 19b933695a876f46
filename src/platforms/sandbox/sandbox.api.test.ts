import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { picture, platformApi } from '../../../test/platform-api-kit.js';
import { freePort } from '../../../test/wire.js';
import { PLATFORM_IDENTIFIERS, type PlatformIdentifier } from '../platform.js';
import { createPlatformRegistry } from '../registry.js';
import { SANDBOX_KITS } from './kits.js';

/**
 * Every platform's sandbox through the HTTP API (issue 28): a sandbox channel of each identifier
 * is connected, publishes a post with media (where the platform takes media) and a thread item
 * (where it takes threads) with its real adapter against its simulator inside Tidings, and is read
 * back PUBLISHED with the simulated URL, its sandbox analytics and its feed. Every request a
 * sandbox channel sent went in-process (the origins seen), and the live client sent none.
 */
const api = platformApi('x');
const origins = new Set<string>();
const adapters = createPlatformRegistry({ apps: {} });
let liveRequests: ReturnType<typeof vi.spyOn>;
let image: { id: string; path: string };
let video: { id: string; path: string };

beforeAll(async () => {
  // Simulators that download media by URL (as Instagram does) reach the service on its port.
  const port = await freePort();
  await api.start({ env: { PUBLIC_URL: 'https://tidings.example', PORT: String(port) }, app: { onSandboxRequest: (o) => void origins.add(o) } });
  await api.t.app.listen({ port, host: '127.0.0.1' });
  liveRequests = vi.spyOn(api.t.deps.platformHttp, 'request');
  image = await api.upload(await picture(7, { format: 'jpeg', width: 1080, height: 1080 }), 'square.jpg');
  video = await api.upload(await readFile(new URL('../../../test/fixtures/media/h264-aac-faststart.mp4', import.meta.url)), 'clip.mp4');
}, 120_000);

afterAll(() => api.close());

describe('a sandbox channel of every platform', () => {
  it.each(PLATFORM_IDENTIFIERS.map((id) => [id]))('%s: connects, publishes with media and a thread item, reads back PUBLISHED with analytics and its feed', async (identifier: PlatformIdentifier) => {
    const load = SANDBOX_KITS[identifier];
    expect(load, `platforms/${identifier}/sandbox.ts`).toBeDefined();
    const kit = await load!();
    origins.clear();
    const m = adapters[identifier].metadata;
    const connected = await api.call({ method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier } });
    expect(connected.statusCode, connected.body).toBe(201);
    const channel = connected.json<{ id: string; sandbox: boolean }>();
    expect(channel.sandbox).toBe(true);

    const takes = kit.example?.media ?? 'image';
    const size = kit.example?.imageSize;
    const picked = size ? await api.upload(await picture(8, { format: 'jpeg', ...size }), 'sized.jpg') : image;
    const media = m.media.maxItems === 0 || takes === 'none' ? [] : [takes === 'video' ? video : picked];
    const items = [{ content: `<p>Hello from the ${m.displayName} sandbox #tidings</p>`, image: media }];
    if (m.thread.supported) items.push({ content: '<p>and a reply in the thread</p>', image: [] });
    const settingsRes = await api.createPost(channel.id, kit.example?.settings ?? {}, items);
    const post = await api.settle(api.postIdOf(settingsRes), { thread: true, timeoutMs: 40_000 });
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(post.releaseURL, 'the simulated permalink').toMatch(/^https?:\/\//);
    if (m.thread.supported) expect(post.thread.map((i) => i.state)).toEqual(['PUBLISHED']);

    const figures = await api.call({ method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(figures.statusCode, figures.body).toBe(200);

    const feed = await api.call({ method: 'GET', url: `/public/v1/sandbox/channels/${channel.id}/feed` });
    expect(feed.statusCode, feed.body).toBe(200);
    const feedItems = feed.json<{ items: { id: string; media: unknown[]; post?: { id: string } }[] }>().items;
    const first = feedItems.find((i) => i.post?.id === post.id);
    expect(first, `the feed item of ${post.releaseId}: ${feed.body.slice(0, 400)}`).toBeDefined();
    expect(first!.media).toHaveLength(media.length);
    if (m.thread.supported) expect(feedItems.length).toBeGreaterThanOrEqual(2);

    // Every request went in-process, to the platform's own origins.
    expect(origins.size, 'requests went through the sandbox client').toBeGreaterThan(0);
    for (const o of origins) expect(kit.origins, `${o} is one of the platform's own origins`).toContain(o);
    expect(liveRequests).not.toHaveBeenCalled();
  });
});
