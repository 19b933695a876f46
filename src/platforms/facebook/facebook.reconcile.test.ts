import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseDueJobs, waitFor } from '../../../test/factories.js';
import { connectThroughApi, createPost, getPost, settle, startMetaApiWorld, type Listed, type MetaApiWorld } from '../common/meta-api.testkit.js';
import { BAKERY } from './facebook.testkit.js';

/**
 * A thread item's comment whose request left but whose answer never came (the attempt timed out
 * after 1 s while Facebook took 2.5 s): the publisher must find the comment among the replies to
 * the post — a Page's post listing never shows comments — and record it, never comment twice.
 */

const SLOW_MS = 2500;
let w: MetaApiWorld;
let channel: Listed;

beforeAll(async () => {
  w = await startMetaApiWorld({}, { PUBLISH_ATTEMPT_TIMEOUT_SECONDS: '1', PUBLISH_RETRY_BASE_SECONDS: '30' });
  channel = await connectThroughApi(w, 'facebook');
});

afterAll(async () => {
  await w?.close();
});

describe('facebook: an interrupted thread item is reconciled among the comments', () => {
  it('the comment the timed-out request made is found and recorded; it is sent once', async () => {
    const id = await createPost(w, channel.id, [{ content: '<p>Fresh rye</p>' }, { content: '<p>Out of the oven at 7</p>', delay: 5 }], { __type: 'facebook' });
    const commentPosts = () => w.sim.log.filter((l) => l.method === 'POST' && /\/comments$/.test(l.path));

    // The post goes out; the comment waits its five minutes.
    const root = await waitFor(async () => {
      const p = await getPost(w, id);
      return p.state === 'PUBLISHED' && p.nextAttemptAt ? p : undefined;
    }, 15_000, 'the post to be published');

    // Facebook turns slow: the comment request arrives, the attempt gives up after 1 s, and Facebook makes the comment later.
    w.sim.setLatency(SLOW_MS);
    try {
      // The post's nextAttemptAt is its next item's; Facebook's clock moves with ours.
      const jump = Date.parse(root.nextAttemptAt!) - w.clock.now() + 1000;
      w.clock.advance(jump);
      w.sim.advance(jump);
      await releaseDueJobs(w.t, w.clock);
      await waitFor(async () => commentPosts().length === 1, 15_000, 'the comment request to reach Facebook');
    } finally {
      w.sim.setLatency(0);
    }
    const interrupted = await waitFor(async () => {
      const item = (await getPost(w, id)).thread[0]!;
      return item.state === 'QUEUE' && (item.error ?? '').includes('was interrupted') ? item : undefined;
    }, 15_000, 'the thread item to wait for the platform to be asked');
    expect(interrupted.error).toMatch(/^Attempt 1 was interrupted/);
    await waitFor(async () => w.sim.comments.some((c) => c.message === 'Out of the oven at 7'), 15_000, 'Facebook to make the comment');

    const { post } = await settle(w, id);
    const comments = w.sim.comments.filter((c) => c.parentId === post.releaseId);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ message: 'Out of the oven at 7', from: BAKERY.id });
    expect(post.thread[0]).toMatchObject({ state: 'PUBLISHED', error: null, releaseId: comments[0]!.id });
    expect(commentPosts()).toHaveLength(1);
    // It was looked for where comments are listed.
    expect(w.sim.log.some((l) => l.method === 'GET' && l.path.startsWith(`/v23.0/${post.releaseId}/comments`))).toBe(true);
  }, 60_000);
});
