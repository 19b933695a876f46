import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../../../test/test-db.js';
import { VIDEO_FIXTURE, sha } from '../common/meta-api.testkit.js';
import { startCrashWorld, until, type CrashPostView, type CrashWorld } from '../common/meta-crash.testkit.js';

/**
 * A Facebook reel is started, uploaded, finished and processed over several steps. The service
 * (a real `tidings serve` process) is killed with SIGKILL after Facebook accepted the start and
 * restarted: the reel is published once, its bytes sent once, `finish` called once. Embedded
 * PGlite: killed while the upload is in flight (the simulator takes the bytes after the service
 * died). PostgreSQL: killed while the post waits between steps (an in-flight kill there waits
 * out the dead worker's lease, 15–30 s, which the publisher's own crash test covers).
 */

const mode = testDbKind();
let w: CrashWorld;
let channel: string;

beforeAll(async () => {
  w = await startCrashWorld({ facebookVideoPolls: 1 });
  channel = await w.connect('facebook');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

describe(`facebook reel, service killed mid-flow (${mode})`, () => {
  it('restarted, it goes on from what Facebook has and publishes the reel once', async () => {
    const bytes = await readFile(VIDEO_FIXTURE);
    const clip = await w.upload(bytes, 'reel.mp4', 'video/mp4');
    const uploads = () => w.sim.log.filter((l) => l.method === 'POST' && l.path.startsWith('/video-upload/'));
    if (mode === 'pglite') w.sim.setLatency(600);
    const [created] = await w.api<{ postId: string }[]>(
      'POST',
      '/public/v1/posts',
      { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel }, settings: { __type: 'facebook', post_type: 'reel' }, value: [{ content: 'Crash reel', image: [{ id: clip.id, path: clip.path }] }] }] },
      201,
    );
    const postId = created!.postId;
    if (mode === 'pglite') {
      // The bytes are on their way: the service dies before Facebook answers.
      await until(() => uploads().length === 1, 20_000, 'the upload to arrive', 5);
    } else {
      // Started and uploaded, finished: the post waits for processing.
      await until(() => w.sim.finishCalls.length === 1, 20_000, 'the finish');
      await until(async () => {
        const p = await w.api<CrashPostView>('GET', `/public/v1/posts/${postId}`);
        return p.nextAttemptAt !== null && Date.parse(p.nextAttemptAt) > Date.now() + 500;
      }, 10_000, 'the post to wait between steps');
    }
    await w.kill();
    expect(w.sim.videos.size).toBe(1);
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
    const [video] = [...w.sim.videos.values()];
    expect({ state: post.state, error: post.error, releaseId: post.releaseId, releaseURL: post.releaseURL }).toEqual({
      state: 'PUBLISHED',
      error: null,
      releaseId: video!.id,
      releaseURL: `https://www.facebook.com/reel/${video!.id}`,
    });
    expect({ published: video!.published, sha: video!.sha256, description: video!.description }).toEqual({ published: true, sha: sha(bytes), description: 'Crash reel' });
    // One start, the bytes sent once, one finish.
    expect(w.sim.log.filter((l) => l.method === 'POST' && /\/video_reels$/.test(l.path))).toHaveLength(2);
    expect(uploads()).toHaveLength(1);
    expect(w.sim.finishCalls).toEqual([video!.id]);
  }, 60_000);
});
