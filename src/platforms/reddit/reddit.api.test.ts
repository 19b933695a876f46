import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDDIT_APP } from '../../../test/oauth-apps.js';
import { callbackUrl, platformApi, PUBLIC_URL } from '../../../test/platform-api-kit.js';
import type { RedditSimulator } from './reddit.simulator.js';
import { entry, platformOriginsFor, redditSimulator, USER } from './reddit.testkit.js';

/**
 * Reddit end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/reddit` → the simulator's authorisation page (a permanent grant) → the callback,
 * then a post made through `POST /posts` with two subreddits in its settings (its own title each,
 * a flair where the subreddit requires one) and a thread item, which the worker publishes as two
 * submissions and a comment under the first. The simulator's submissions and comments are the
 * verdict; a submission Reddit refuses (its errors come under HTTP 200) ends ERROR with its words.
 */

const api = platformApi('reddit');
let sim: RedditSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await redditSimulator(REDDIT_APP, callbackUrl('reddit'));
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), REDDIT_CLIENT_ID: REDDIT_APP.clientId, REDDIT_CLIENT_SECRET: REDDIT_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('reddit through the API', () => {
  it('connects through the authorisation page (a permanent grant) and the callback, tokens stored sealed', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.searchParams.get('duration')).toBe('permanent');
    expect(channel).toMatchObject({ identifier: 'reddit', name: USER.name, profile: `u/${USER.name}`, refreshNeeded: false });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(USER.id);
    expect(await api.openCredentials(channelId)).toEqual({ userId: USER.id, username: USER.name, accessToken: expect.any(String), refreshToken: expect.any(String) });
  });

  it('publishes one submission per subreddit with its title and flair, the thread item as a comment; a refused submission ends ERROR with Reddit’s words', async () => {
    const settings = { subreddit: [entry({}), entry({ subreddit: 'r/node', title: 'Node show-off', is_flair_required: true, flair: { id: 'f-show', name: 'Show-off' } })] };
    const post = await api.publish(channelId, settings, [{ content: '<p>A <strong>typed</strong> scheduler</p>' }, { content: '<p>Sources in the comments</p>' }], { thread: true });
    expect(sim.state.submissions.map((s) => ({ sr: s.sr, title: s.title, kind: s.kind, text: s.text, flair: s.flairText ?? null, author: s.authorId }))).toEqual([
      { sr: 'typescript', title: 'Typed schedulers', kind: 'self', text: 'A **typed** scheduler', flair: null, author: USER.id },
      { sr: 'node', title: 'Node show-off', kind: 'self', text: 'A **typed** scheduler', flair: 'Show-off', author: USER.id },
    ]);
    const first = sim.state.submissions[0]!;
    expect({ id: post.releaseId, url: post.releaseURL }).toEqual({ id: first.name, url: `https://www.reddit.com/r/typescript/comments/${first.id}/typed_schedulers/` });
    expect(sim.state.comments.map((c) => ({ parent: c.parent, text: c.text }))).toEqual([{ parent: first.name, text: 'Sources in the comments' }]);
    expect(post.thread.map((i) => [i.state, i.releaseId])).toEqual([['PUBLISHED', sim.state.comments[0]!.name]]);

    sim.injectKind('rejected');
    const refused = await api.settle(api.postIdOf(await api.createPost(channelId, { subreddit: [entry({})] }, [{ content: '<p>refused</p>' }])));
    expect({ state: refused.state, error: refused.error }).toEqual({ state: 'ERROR', error: expect.stringContaining("you aren't allowed to post there.") });
    expect(sim.state.submissions).toHaveLength(2);
  });
});
