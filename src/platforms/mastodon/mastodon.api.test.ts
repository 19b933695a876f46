import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { platformApi, PUBLIC_URL } from '../../../test/platform-api-kit.js';
import { startMastodonSimulator, type MastodonSimulator } from './mastodon.simulator.js';

/**
 * Mastodon's post settings end to end through the HTTP API of a real app with its worker: the
 * channel connected by OAuth on the simulated instance, then posts made through `POST /posts`
 * with a visibility and a content warning. The simulator's statuses are the verdict: what
 * reached Mastodon's `POST /api/v1/statuses`.
 */

const INSTANCE = 'https://mastodon.example';
const api = platformApi('mastodon');
let sim: MastodonSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await startMastodonSimulator({ publicUrl: INSTANCE });
  sim.addAccount({ username: 'alice', display_name: 'Alice Example' });
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: `${INSTANCE}=${sim.origin}` } });
  const begun = await api.call({ method: 'GET', url: `/public/v1/social/mastodon?instanceUrl=${encodeURIComponent(INSTANCE)}` });
  expect(begun.statusCode, begun.body).toBe(200);
  const page = await api.callback(await api.authorise(new URL(begun.json<{ url: string }>().url)));
  expect(page.statusCode, page.body).toBe(200);
  channelId = (await api.connectedChannel()).id;
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('mastodon through the API: visibility and content warning', () => {
  it('the channel settings describe visibility (default public) and the content warning', async () => {
    const res = await api.call({ method: 'GET', url: `/public/v1/integration-settings/${channelId}` });
    expect(res.statusCode, res.body).toBe(200);
    const settings = res.json<{ output: { settings: { properties: Record<string, { enum?: string[]; default?: string; maxLength?: number }> } } }>().output.settings;
    expect(settings.properties.visibility).toMatchObject({ enum: ['public', 'unlisted', 'private', 'direct'], default: 'public' });
    expect(settings.properties.spoiler_text).toMatchObject({ maxLength: 500 });
  });

  it('a post with visibility unlisted and a content warning reaches Mastodon with them, on the thread reply too', async () => {
    const post = await api.publish(channelId, { visibility: 'unlisted', spoiler_text: 'Spoilers for the finale' }, [{ content: '<p>The butler did it.</p>' }, { content: '<p>And the gardener helped.</p>' }], {
      thread: true,
    });
    const [first, reply] = sim.statuses;
    expect(first).toMatchObject({ id: post.releaseId, text: 'The butler did it.', visibility: 'unlisted', spoilerText: 'Spoilers for the finale', sensitive: true, inReplyToId: null });
    expect(reply).toMatchObject({ text: 'And the gardener helped.', visibility: 'unlisted', spoilerText: 'Spoilers for the finale', inReplyToId: first!.id });
  });

  it('without settings a post is public with no content warning', async () => {
    const before = sim.statuses.length;
    await api.publish(channelId, {}, [{ content: '<p>Hello, fediverse</p>' }]);
    expect(sim.statuses.slice(before)).toEqual([expect.objectContaining({ text: 'Hello, fediverse', visibility: 'public', spoilerText: '', sensitive: false })]);
  });

  it('an unknown visibility or an over-long warning is refused when the post is made, naming the setting', async () => {
    const before = sim.statuses.length;
    const bad = expectError(await api.createPost(channelId, { visibility: 'friends' }, [{ content: '<p>x</p>' }]), 400, 'VALIDATION_FAILED');
    expect(bad.fields?.map((f) => f.path)).toContain('posts.0.settings.visibility');
    // the warning counts towards Mastodon's 500 characters, as Mastodon counts it
    const long = expectError(await api.createPost(channelId, { spoiler_text: 'w'.repeat(300) }, [{ content: `<p>${'t'.repeat(250)}</p>` }]), 400, 'VALIDATION_FAILED');
    expect(long.fields?.map((f) => f.path)).toContain('posts.0.value.0.content');
    expect(sim.statuses.length).toBe(before);
  });

  it('the simulator refuses an invalid visibility with 422, as Mastodon does', async () => {
    const access = [...sim.tokens.keys()][0]!;
    const res = await fetch(`${sim.origin}/api/v1/statuses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'x', visibility: 'friends' }),
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: 'Validation failed: Visibility is not included in the list' });
  });
});
