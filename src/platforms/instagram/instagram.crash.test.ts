import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../../../test/test-db.js';
import { sha } from '../common/meta-api.testkit.js';
import { reelThroughACrash, startCrashWorld, type CrashWorld } from '../common/meta-crash.testkit.js';

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
    const { post, bytes } = await reelThroughACrash(w, {
      channel,
      settings: { __type: 'instagram', post_type: 'post' },
      latencyMs: 400,
      inFlight: { check: () => w.sim.mediaPublishCalls.length === 1, timeoutMs: 25_000, what: 'media_publish to arrive', everyMs: 5 },
      started: { check: () => w.sim.containers.size === 1, timeoutMs: 20_000, what: 'the container' },
      between: 'the post to wait between checks',
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
