import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../../../test/test-db.js';
import { sha } from '../common/meta-api.testkit.js';
import { reelThroughACrash, startCrashWorld, type CrashWorld } from '../common/meta-crash.testkit.js';

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
    const uploads = () => w.sim.log.filter((l) => l.method === 'POST' && l.path.startsWith('/video-upload/'));
    const { post, bytes } = await reelThroughACrash(w, {
      channel,
      settings: { __type: 'facebook', post_type: 'reel' },
      latencyMs: 600,
      // PGlite: the bytes are on their way, the service dies before Facebook answers.
      inFlight: { check: () => uploads().length === 1, timeoutMs: 20_000, what: 'the upload to arrive', everyMs: 5 },
      // PostgreSQL: started and uploaded, finished: the post waits for processing.
      started: { check: () => w.sim.finishCalls.length === 1, timeoutMs: 20_000, what: 'the finish' },
      between: 'the post to wait between steps',
      whileDown: () => expect(w.sim.videos.size).toBe(1),
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
