import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../../../test/test-db.js';
import { VIDEO_FIXTURE, sha } from '../common/meta-api.testkit.js';
import { startCrashWorld, until, type CrashPostView, type CrashWorld } from '../common/meta-crash.testkit.js';

/**
 * An Instagram reel: a container Instagram pulls from the service and processes, then
 * `media_publish`. The service (a real `tidings serve` process) is killed with SIGKILL after
 * Instagram made the container and restarted: no second container, one `media_publish`, the post
 * PUBLISHED with the media's id and permalink. Embedded PGlite: killed while `media_publish` is in
 * flight — Instagram publishes, the service never hears, and after the restart the container is
 * found PUBLISHED and its media looked up instead of publishing again. PostgreSQL: killed while
 * the container is processing and the post waits between checks (an in-flight kill there waits
 * out the dead worker's lease, which the publisher's own crash test covers).
 */

const mode = testDbKind();
let w: CrashWorld;
let channel: string;

beforeAll(async () => {
  w = await startCrashWorld({ videoPolls: 2 });
  channel = await w.connect('instagram');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

describe(`instagram container, service killed mid-flow (${mode})`, () => {
  it('restarted, it recognises what Instagram did and publishes once', async () => {
    const bytes = await readFile(VIDEO_FIXTURE);
    const clip = await w.upload(bytes, 'reel.mp4', 'video/mp4');
    if (mode === 'pglite') w.sim.setLatency(400);
    const [created] = await w.api<{ postId: string }[]>(
      'POST',
      '/public/v1/posts',
      { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel }, settings: { __type: 'instagram', post_type: 'post' }, value: [{ content: 'Crash reel', image: [{ id: clip.id, path: clip.path }] }] }] },
      201,
    );
    const postId = created!.postId;
    if (mode === 'pglite') {
      await until(() => w.sim.mediaPublishCalls.length === 1, 25_000, 'media_publish to arrive', 5);
    } else {
      await until(() => w.sim.containers.size === 1, 20_000, 'the container');
      await until(async () => {
        const p = await w.api<CrashPostView>('GET', `/public/v1/posts/${postId}`);
        return p.nextAttemptAt !== null && Date.parse(p.nextAttemptAt) > Date.now() + 500;
      }, 10_000, 'the post to wait between checks');
    }
    await w.kill();
    w.sim.setLatency(0);
    await w.start();
    const post = await until(
      async () => {
        const p = await w.api<CrashPostView>('GET', `/public/v1/posts/${postId}`);
        return p.state === 'PUBLISHED' || p.state === 'ERROR' ? p : undefined;
      },
      25_000,
      'the reel to be published',
      100,
    ).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}\n${w.output().slice(-4000)}`, { cause: e });
    });
    expect(w.sim.igMedia).toHaveLength(1);
    const media = w.sim.igMedia[0]!;
    expect({ state: post.state, error: post.error, releaseId: post.releaseId, releaseURL: post.releaseURL }).toEqual({
      state: 'PUBLISHED',
      error: null,
      releaseId: media.id,
      releaseURL: `https://www.instagram.com/reel/${media.shortcode}/`,
    });
    expect({ caption: media.caption, sha: media.mediaSha256 }).toEqual({ caption: 'Crash reel', sha: [sha(bytes)] });
    expect(w.sim.containers.size).toBe(1);
    expect(w.sim.mediaPublishCalls).toEqual([media.containerId]);
    // In flight at the kill: after the restart the container was found PUBLISHED and its media looked up.
    if (mode === 'pglite') expect(w.sim.log.some((l) => l.method === 'GET' && l.path.startsWith(`/v23.0/${media.igUserId}/media?`))).toBe(true);
  }, 60_000);
});
