import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import { callbackUrl, platformApi, PUBLIC_URL, type PostItemInput } from '../../../test/platform-api-kit.js';
import { CHUNK_GRANULE, type YoutubeSimulator } from './youtube.simulator.js';
import { APP, BRAND_CHANNEL, MAIN_CHANNEL, paddedMp4, platformOriginsEnv, sha, youtubeSimulator } from './youtube.testkit.js';

/**
 * YouTube end to end through the HTTP API of a real app (worker running) against the simulator:
 * connect (`GET /social/youtube` → Google's consent → the callback), the channels tool and the
 * channel switch, a video uploaded with `POST /upload` and posted with `POST /posts` — sent to
 * Google in several resumable-upload requests, processed over several polls, with its thumbnail
 * and a first comment — then analytics, and a video whose processing fails.
 */

const api = platformApi('youtube');
let sim: YoutubeSimulator;
let channelId: string;

beforeAll(async () => {
  // Google keeps at most 256 KiB of each request here: the video goes up in several PUTs.
  sim = await youtubeSimulator({ processingPolls: 2, processingTimeLeftMs: 3000, keepAtMostBytes: CHUNK_GRANULE });
  sim.apps.get(APP.clientId)!.redirectUris = [callbackUrl('youtube')];
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsEnv(sim), YOUTUBE_CLIENT_ID: APP.clientId, YOUTUBE_CLIENT_SECRET: APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

/** Makes the post (201) and waits until it and its thread are final: its id and the post. */
async function postAndSettle(items: PostItemInput[], settings: Record<string, unknown>) {
  const postId = api.postIdOf(await api.createPost(channelId, settings, items));
  return { postId, post: await api.settle(postId, { thread: true }) };
}

describe('youtube through the HTTP API', () => {
  it('connects through Google consent: the first channel of the grant, with offline access', async () => {
    const { url, channel: yt } = await api.connectThroughOAuth();
    expect({ access: url.searchParams.get('access_type'), prompt: url.searchParams.get('prompt'), pkce: url.searchParams.get('code_challenge_method') }).toEqual({ access: 'offline', prompt: 'consent', pkce: 'S256' });
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('youtube'));
    expect(yt).toMatchObject({ name: MAIN_CHANNEL.title, profile: MAIN_CHANNEL.customUrl });
    channelId = yt.id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(MAIN_CHANNEL.id);
    expect(row.tokenExpiresAt!.getTime() - api.clock.now()).toBeGreaterThan(3500_000);
    expect(await api.openCredentials(channelId)).toMatchObject({ channelId: MAIN_CHANNEL.id, refreshToken: expect.stringMatching(/^1\/\/0/) });
  });

  it('lists the channels of the grant and switches between them (PUT /integrations/{id}/account)', async () => {
    const tool = await api.call({ method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'channels' } });
    expect(tool.statusCode, tool.body).toBe(200);
    expect(tool.json<{ output: { id: string; current: boolean }[] }>().output.map((c) => [c.id, c.current])).toEqual([
      [MAIN_CHANNEL.id, true],
      [BRAND_CHANNEL.id, false],
    ]);
    const switched = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: BRAND_CHANNEL.id } });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ id: channelId, name: BRAND_CHANNEL.title, profile: BRAND_CHANNEL.customUrl, identifier: 'youtube' });
    const body = expectError(await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: 'UCcharlesChannel00000003' } }), 400, 'VALIDATION_FAILED');
    expect(body.fields![0]!.path).toBe('id');
    // Back to the channel the grant writes as (the one picked on Google's consent screen).
    const back = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: MAIN_CHANNEL.id } });
    expect(back.json()).toMatchObject({ name: MAIN_CHANNEL.title });
    expect((await api.channelRow(channelId)).internalId).toBe(MAIN_CHANNEL.id);
  });

  it('publishes an uploaded video in resumable chunks, processed over several polls, with its thumbnail and first comment', async () => {
    const videoBytes = await paddedMp4(3 * CHUNK_GRANULE + 4321, 1);
    const video = await uploadMedia(api.t, api.org, videoBytes, 'launch.mp4');
    expect(video).toMatchObject({ type: 'video', mimeType: 'video/mp4', size: videoBytes.length });
    const thumbBytes = await sharp({ create: { width: 64, height: 36, channels: 3, background: { r: 200, g: 30, b: 30 } } }).jpeg().toBuffer();
    const thumb = await uploadMedia(api.t, api.org, thumbBytes, 'thumb.jpg');
    const { postId, post } = await postAndSettle(
      [
        { content: '<p>Our launch, in <strong>two</strong> minutes.</p>', image: [{ id: video.id, path: video.path }] },
        { content: '<p>Questions welcome below!</p>' },
      ],
      {
        __type: 'youtube',
        title: 'Launch video',
        type: 'public',
        selfDeclaredMadeForKids: 'no',
        categoryId: '28',
        tags: [
          { value: 'launch', label: 'launch' },
          { value: 'open source', label: 'open source' },
        ],
        thumbnail: { id: thumb.id, path: thumb.path },
      },
    );
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const v = sim.videos.find((x) => x.id === post.releaseId)!;
    expect(v).toBeDefined();
    expect(post.releaseURL).toBe(`https://www.youtube.com/watch?v=${v.id}`);
    expect(v).toMatchObject({
      channelId: MAIN_CHANNEL.id,
      title: 'Launch video',
      description: 'Our launch, in two minutes.',
      tags: ['launch', 'open source'],
      categoryId: '28',
      privacyStatus: 'public',
      selfDeclaredMadeForKids: false,
      sha256: sha(videoBytes),
      size: videoBytes.length,
      mimeType: 'video/mp4',
      uploadStatus: 'processed',
      thumbnail: { sha256: sha(thumbBytes), size: thumbBytes.length, mimeType: 'image/jpeg' },
      thumbnailSets: 1,
    });
    // Several PUTs, contiguous from zero, never a range twice; the processing took several polls.
    const session = [...sim.sessions.values()].find((s) => s.videoId === v.id)!;
    expect(session.chunks.map((c) => c.first)).toEqual([0, 1, 2, 3].map((i) => i * CHUNK_GRANULE));
    expect(session.chunks.reduce((n, c) => n + c.kept, 0)).toBe(videoBytes.length);
    // The simulator answers `uploaded` to the first 2 status reads (processingPolls): processed means
    // the publisher polled at least that often. (The test loop's own count of clock advances is not
    // a measure of it: a poll that is already due runs without one.)
    expect(v.pollsLeft).toBe(0);
    expect(sim.videos.filter((x) => x.sha256 === sha(videoBytes))).toHaveLength(1);
    // The first comment, from the thread item.
    const [comment] = post.thread;
    expect({ state: comment!.state, error: comment!.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.comments.filter((c) => c.videoId === v.id)).toEqual([expect.objectContaining({ id: comment!.releaseId, text: 'Questions welcome below!', channelId: MAIN_CHANNEL.id })]);
    expect(comment!.releaseURL).toBe(`https://www.youtube.com/watch?v=${v.id}&lc=${comment!.releaseId}`);

    // Figures: the channel's days, the video's counts.
    const today = new Date(api.clock.now()).toISOString().slice(0, 10);
    sim.setDailyFigures(MAIN_CHANNEL.id, [{ day: today, views: 42, likes: 5 }]);
    const views = (await api.figures(channelId)).find((s) => s.label === 'Views')!;
    expect(views.data).toHaveLength(7);
    expect(views.data.at(-1)).toEqual({ date: today, total: 42 });
    v.statistics.viewCount = 321;
    expect((await api.figures(`post/${postId}`)).find((s) => s.label === 'Views')!.data[0]!.total).toBe(321);
  });

  it("fails the post with YouTube's reason when processing fails, after the upload", async () => {
    sim.setNextProcessing({ failureReason: 'invalidFile' });
    const bytes = await paddedMp4(CHUNK_GRANULE + 10, 2);
    const video = await uploadMedia(api.t, api.org, bytes, 'broken.mp4');
    const { post } = await postAndSettle([{ content: '<p>This one breaks</p>', image: [{ id: video.id, path: video.path }] }], { __type: 'youtube', title: 'Broken video', type: 'unlisted' });
    expect(post.state).toBe('ERROR');
    expect(post.error).toBe('YouTube (Ada Makes Things) refused the post: YouTube could not process the video: invalidFile (the file is not a video YouTube can read)');
    expect(sim.videos.filter((x) => x.sha256 === sha(bytes))).toHaveLength(1);
  });

  it('refuses a post YouTube would refuse, naming the field', async () => {
    const res = await api.call({
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [{ integration: { id: channelId }, settings: { __type: 'youtube', title: 'a <b> title', type: 'public', publishAt: '2030-01-01T00:00:00Z' }, value: [{ content: '<p>no video</p>' }] }],
      },
    });
    const body = expectError(res, 400, 'VALIDATION_FAILED');
    expect(body.fields!.map((f) => f.path).sort()).toEqual(['posts.0.settings.title', 'posts.0.settings.type', 'posts.0.value.0.image'].sort());
  });
});
