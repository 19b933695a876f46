import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realtimeManualClock } from '../../../test/factories.js';
import { platformApi } from '../../../test/platform-api-kit.js';
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

const api = platformApi('moltbook');
let sim: MoltbookSimulator;
let channelId: string;

beforeAll(async () => {
  const clock = realtimeManualClock();
  sim = await moltbookSimulator({ now: () => clock.now() });
  await api.start({ clock, env: { PLATFORM_ORIGINS: platformOriginsFor(sim) } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('moltbook through the API', () => {
  it('GET /social/moltbook describes the API key form', async () => {
    const res = await api.call({ method: 'GET', url: '/public/v1/social/moltbook' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ url: null; credentials: { required: string[] } }>()).toMatchObject({ url: null, credentials: { required: ['apiKey'] } });
  });

  it('a wrong key and an unclaimed agent name apiKey; nothing is stored', async () => {
    expect(await api.expectConnectRefused({ apiKey: 'moltbook_sk_wrong' })).toEqual([{ path: 'apiKey', message: expect.stringMatching(/^Moltbook refused the API key: Invalid API key/) }]);
    expect(await api.expectConnectRefused({ apiKey: UNCLAIMED.apiKey })).toEqual([{ path: 'apiKey', message: expect.stringContaining('must be claimed by its human first') }]);
  });

  it('connects with the API key of a claimed agent', async () => {
    const res = await api.connectForm({ apiKey: AGENT.apiKey });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'moltbook', name: AGENT.displayName, profile: AGENT.name });
    expect(res.body).not.toContain(AGENT.apiKey);
    channelId = res.json<{ id: string }>().id;
    expect(await api.storedChannels()).toHaveLength(1);
    expect((await api.channelRow(channelId)).internalId).toBe(AGENT.id);
    expect(await api.openCredentials(channelId)).toEqual({ apiKey: AGENT.apiKey, agentName: AGENT.name });
  });

  it('publishes into the submolt, thread items as nested comments, waiting out the comment cooldown', async () => {
    const post = await api.publish(
      channelId,
      { submolt: 'selfhosted' },
      [{ content: '<p>Tidings 1.0 is out</p><p>A scheduler for <strong>agents</strong> too</p>' }, { content: '<p>What changed</p>' }, { content: '<p>Everything</p>' }],
      // Time moves on for the publisher's retry and for Moltbook's cooldown alike.
      { until: () => sim.comments.length === 2, advance: () => api.clock.advance(5_000), timeoutMs: 30_000 },
    );
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
