import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import type { MoltbookSimulator } from './moltbook.simulator.js';
import { AGENT, moltbookSimulator, platformOriginsFor, UNCLAIMED } from './moltbook.testkit.js';

/**
 * Moltbook end to end through the HTTP API of a real app with its worker: the credentials form
 * (a wrong key and an unclaimed agent answer 400 naming `apiKey`, nothing stored), then a post
 * with two thread items published by the worker into the chosen submolt, the items nested as
 * comments. The simulator keeps Moltbook's real cooldowns on the app's clock: the second comment
 * comes within 20 seconds of the first, is refused 429 with `retry_after_seconds`, and goes out
 * once when the publisher retries after that wait. The simulator's records are the verdict.
 */

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: MoltbookSimulator;
let channelId: string;

beforeAll(async () => {
  clock = realtimeManualClock();
  sim = await moltbookSimulator({ now: () => clock.now() });
  t = await buildTestApp({ clock, startWorker: true, env: { PLATFORM_ORIGINS: platformOriginsFor(sim) } });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
});

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}

const rows = () => t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id));

describe('moltbook through the API', () => {
  it('GET /social/moltbook describes the API key form', async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/moltbook' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ url: null; credentials: { required: string[] } }>()).toMatchObject({ url: null, credentials: { required: ['apiKey'] } });
  });

  it('a wrong key and an unclaimed agent name apiKey; nothing is stored', async () => {
    const wrong = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/moltbook', payload: { apiKey: 'moltbook_sk_wrong' } }), 400, 'VALIDATION_FAILED');
    expect(wrong.fields).toEqual([{ path: 'apiKey', message: expect.stringMatching(/^Moltbook refused the API key: Invalid API key/) }]);
    const fresh = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/moltbook', payload: { apiKey: UNCLAIMED.apiKey } }), 400, 'VALIDATION_FAILED');
    expect(fresh.fields).toEqual([{ path: 'apiKey', message: expect.stringContaining('must be claimed by its human first') }]);
    expect(await rows()).toHaveLength(0);
  });

  it('connects with the API key of a claimed agent', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/moltbook', payload: { apiKey: AGENT.apiKey } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'moltbook', name: AGENT.displayName, profile: AGENT.name });
    expect(res.body).not.toContain(AGENT.apiKey);
    channelId = res.json<{ id: string }>().id;
    const [row] = await rows();
    expect(row!.internalId).toBe(AGENT.id);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toEqual({ apiKey: AGENT.apiKey, agentName: AGENT.name });
  });

  it('publishes into the submolt, thread items as nested comments, waiting out the comment cooldown', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [
          {
            integration: { id: channelId },
            settings: { __type: 'moltbook', submolt: 'selfhosted' },
            value: [
              { content: '<p>Tidings 1.0 is out</p><p>A scheduler for <strong>agents</strong> too</p>', image: [] },
              { content: '<p>What changed</p>', image: [] },
              { content: '<p>Everything</p>', image: [] },
            ],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ postId: string }[]>()[0]!.postId;
    let last: PostView | undefined;
    const post = await waitFor(
      async () => {
        const r = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
        last = r.json<PostView>();
        // Time moves on for the publisher's retry and for Moltbook's cooldown alike.
        clock.advance(5_000);
        await releaseDueJobs(t, clock);
        return last.state === 'ERROR' || (last.state === 'PUBLISHED' && sim.comments.length === 2) ? last : undefined;
      },
      30_000,
      `post ${id} and its comments (last seen ${JSON.stringify(last)})`,
    );
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.posts).toHaveLength(1);
    const [p] = sim.posts;
    expect(p).toMatchObject({ agent: AGENT.name, submolt: 'selfhosted', title: 'Tidings 1.0 is out', content: 'Tidings 1.0 is out\nA scheduler for agents too', url: null });
    expect(post.releaseId).toBe(p!.id);
    expect(post.releaseURL).toBe(`https://www.moltbook.com/post/${p!.id}`);
    const [c1, c2] = sim.comments;
    expect(sim.comments.map((c) => [c.postId, c.parentId, c.content])).toEqual([
      [p!.id, null, 'What changed'],
      [p!.id, c1!.id, 'Everything'],
    ]);
    expect(Date.parse(c2!.createdAt) - Date.parse(c1!.createdAt)).toBeGreaterThanOrEqual(20_000);
    const commentCalls = sim.log.filter((r) => r.method === 'POST' && r.path.endsWith('/comments'));
    expect(commentCalls).toHaveLength(3);
    expect(commentCalls.every((r) => r.headers.authorization === `Bearer ${AGENT.apiKey}`)).toBe(true);
  });
});
