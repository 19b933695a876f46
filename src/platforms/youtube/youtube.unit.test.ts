import { describe, expect, it } from 'vitest';
import { oauthConnector, runSimulatorContract } from '../common/unit.testkit.js';
import { createPkce } from '../common/oauth2.js';
import { PlatformError, type PlatformResponse, type PostDraft } from '../platform.js';
import { DEFAULT_RATE_LIMIT_SECONDS, secondsToPacificMidnight, youtubeError } from './errors.js';
import { createYoutubeAdapter, type YoutubeAdapterConfig } from './index.js';
import { CHUNK_GRANULE } from './youtube.simulator.js';
import {
  ADA,
  addVideo,
  APP,
  BRAND_CHANNEL,
  contractAdapter,
  drive,
  KiB,
  MAIN_CHANNEL,
  originsFor,
  pendingToken,
  post,
  published,
  rewriteFor,
  SETTINGS,
  sha,
  withYoutube,
  youtubeSimulator,
  type TestCtx,
} from './youtube.testkit.js';

const adapter = createYoutubeAdapter({ app: APP });
const connect = oauthConnector(adapter, rewriteFor);

runSimulatorContract({ name: 'youtube', adapter: contractAdapter(adapter), errorsIn200: false, start: () => youtubeSimulator({ processingPolls: 2 }), origins: originsFor, connect });

/** Small chunks, few per check: a video of a few hundred KiB takes several checks. */
const SMALL: YoutubeAdapterConfig = { app: APP, chunkBytes: CHUNK_GRANULE, maxChunksPerCheck: 2 };
/** A pending token read back (its upload part, for assertions). */
const tokenOf = (token: string) => JSON.parse(token) as { stage: string; upload: { session: string; offset: number; total: number } };
const res = (status: number, body: unknown, headers: Record<string, string> = {}): PlatformResponse => ({ status, headers, body });
const googleBody = (code: number, reason: string, message: string, domain = 'global') => ({ error: { code, message, errors: [{ message, domain, reason }], status: 'X' } });

describe('youtube connect', () => {
  it('asks Google for offline access with consent and PKCE, and connects the first channel of the grant', async () => {
    await withYoutube({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: MAIN_CHANNEL.id, name: MAIN_CHANNEL.title, profile: MAIN_CHANNEL.customUrl, picture: expect.stringContaining(MAIN_CHANNEL.id) });
      expect(account.credentials).toMatchObject({ channelId: MAIN_CHANNEL.id, uploadsPlaylistId: `UU${MAIN_CHANNEL.id.slice(2)}`, refreshToken: expect.stringMatching(/^1\/\/0/) });
      expect(account.expiresAt!.getTime() - Date.now()).toBeGreaterThan(3500_000);
      expect(account.expiresAt!.getTime() - Date.now()).toBeLessThan(3600_000);
      const q = new URL(sim.log.find((r) => r.path.startsWith('/o/oauth2/v2/auth'))!.path, 'http://x').searchParams;
      expect({ access: q.get('access_type'), prompt: q.get('prompt'), method: q.get('code_challenge_method'), type: q.get('response_type') }).toEqual({ access: 'offline', prompt: 'consent', method: 'S256', type: 'code' });
      expect(q.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.force-ssl', 'https://www.googleapis.com/auth/yt-analytics.readonly']));
      const token = sim.log.find((r) => r.path === '/token')!.body as Record<string, string>;
      expect(token).toMatchObject({ grant_type: 'authorization_code', client_id: APP.clientId, client_secret: APP.clientSecret, code_verifier: expect.any(String) });
    });
  });

  it('the simulator refuses a wrong PKCE verifier and a code used twice, as Google does', async () => {
    await withYoutube({}, async (sim, ctx) => {
      const pkce = createPkce();
      const redirectUri = 'http://localhost:3000/cb';
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri, codeChallenge: pkce.challenge }, ctx);
      const back = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!);
      const code = back.searchParams.get('code')!;
      const complete = (codeVerifier: string) => adapter.completeConnect!({ code, redirectUri, codeVerifier }, ctx).catch((e: unknown) => e as PlatformError);
      const bad = (await complete('not-the-verifier')) as PlatformError;
      expect({ kind: bad.kind, message: bad.message }).toEqual({ kind: 'rejected', message: 'The platform refused the authorisation: invalid_grant: Invalid code verifier.' });
      expect(await complete(pkce.verifier)).toMatchObject({ internalId: MAIN_CHANNEL.id });
      const again = (await complete(pkce.verifier)) as PlatformError;
      expect({ kind: again.kind, message: again.message }).toEqual({ kind: 'rejected', message: 'The platform refused the authorisation: invalid_grant: Bad Request' });
    });
  });

  it('says YouTube is not configured without an app, and refuses a Google account without a channel', async () => {
    const err = (await createYoutubeAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx).catch((e: unknown) => e)) as PlatformError;
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'YouTube is not configured on this server: set YOUTUBE_CLIENT_ID and YOUTUBE_CLIENT_SECRET' });
    await withYoutube({}, async (sim, ctx) => {
      sim.addUser({ sub: '100000000000000000009', name: 'No Channel', email: 'none@example.com' });
      sim.approveAs('100000000000000000009');
      const e = (await connect(sim, ctx).catch((x: unknown) => x)) as PlatformError;
      expect({ kind: e.kind, message: e.message }).toEqual({ kind: 'rejected', message: 'This Google account has no YouTube channel: create one on YouTube first, then connect again' });
    });
  });

  it('lists the channels of the grant (channels tool) and switches to another with selectAccount', async () => {
    await withYoutube({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const listed = (await adapter.runTool!('channels', {}, { ...ctx, credentials: account.credentials })) as { id: string; name: string; current: boolean }[];
      expect(listed.map((c) => [c.id, c.name, c.current])).toEqual([
        [MAIN_CHANNEL.id, MAIN_CHANNEL.title, true],
        [BRAND_CHANNEL.id, BRAND_CHANNEL.title, false],
      ]);
      const switched = await adapter.selectAccount!(BRAND_CHANNEL.id, { ...ctx, credentials: account.credentials });
      expect(switched).toMatchObject({ internalId: BRAND_CHANNEL.id, name: BRAND_CHANNEL.title, profile: BRAND_CHANNEL.customUrl });
      expect(switched.credentials).toMatchObject({ channelId: BRAND_CHANNEL.id, uploadsPlaylistId: `UU${BRAND_CHANNEL.id.slice(2)}`, accessToken: account.credentials.accessToken, refreshToken: account.credentials.refreshToken });
      const err = (await adapter.selectAccount!('UCcharlesChannel00000003', { ...ctx, credentials: account.credentials }).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'The connected Google account does not reach YouTube channel UCcharlesChannel00000003' });
    });
  });
});

describe('youtube refresh', () => {
  it('renews the one-hour token keeping the refresh token; a revoked grant is reconnect_required in Google\'s words', async () => {
    await withYoutube({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.expireAccessTokens();
      const { media } = addVideo(ctx, 'v1', 1000);
      const expired = (await post(adapter, ctx, account, '<p>x</p>', { media: [media] }).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: expired.kind, code: expired.details.platformCode }).toEqual({ kind: 'auth_expired', code: 'authError' });
      const refreshed = await adapter.refresh!({ ...ctx, credentials: account.credentials });
      expect(refreshed.credentials).toMatchObject({ refreshToken: account.credentials.refreshToken, channelId: MAIN_CHANNEL.id });
      expect(refreshed.credentials.accessToken).not.toBe(account.credentials.accessToken);
      expect(sim.log.filter((r) => r.path === '/token').at(-1)!.body).toMatchObject({ grant_type: 'refresh_token', refresh_token: account.credentials.refreshToken, client_secret: APP.clientSecret });
      expect((await post(adapter, ctx, { ...account, credentials: refreshed.credentials }, '<p>x</p>', { media: [media] })).status).toBe('pending');

      sim.revokeGrants(ADA.sub);
      const dead = (await adapter.refresh!({ ...ctx, credentials: refreshed.credentials }).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: dead.kind, message: dead.message }).toEqual({ kind: 'reconnect_required', message: 'invalid_grant: Token has been expired or revoked.' });
    });
  });
});

describe('youtube publishing', () => {
  it('maps the settings into the upload session: title, description, tags, category, privacy, made for kids, publishAt, notifySubscribers', async () => {
    await withYoutube({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media } = addVideo(ctx, 'v1', 3000);
      const publishAt = new Date(Date.now() + 86_400_000).toISOString();
      const settings = {
        __type: 'youtube',
        title: 'Launch day',
        type: 'private',
        selfDeclaredMadeForKids: 'no',
        tags: [
          { value: 'launch', label: 'launch' },
          { value: 'social media', label: 'social media' },
        ],
        categoryId: '28',
        publishAt,
        notifySubscribers: false,
      };
      const r = await post(adapter, ctx, account, '<p>We <strong>shipped</strong> it &amp; more.</p><p>Second line</p>', { media: [media], settings });
      expect(r).toMatchObject({ status: 'pending', pollAfterMs: 0 });
      const call = sim.log.find((l) => l.method === 'POST' && l.path.startsWith('/upload/youtube/v3/videos'))!;
      const q = new URL(call.path, 'http://x').searchParams;
      expect({ uploadType: q.get('uploadType'), part: q.get('part'), notify: q.get('notifySubscribers') }).toEqual({ uploadType: 'resumable', part: 'snippet,status', notify: 'false' });
      expect(call.headers).toMatchObject({ 'x-upload-content-length': '3000', 'x-upload-content-type': 'video/mp4', authorization: `Bearer ${account.credentials.accessToken as string}` });
      expect(call.body).toEqual({
        snippet: { title: 'Launch day', description: 'We shipped it & more.\nSecond line', tags: ['launch', 'social media'], categoryId: '28' },
        status: { privacyStatus: 'private', selfDeclaredMadeForKids: false, publishAt },
      });
      const done = published((await drive(adapter, ctx, account, r)).at(-1));
      const v = sim.videos.find((x) => x.id === done.id)!;
      expect(v).toMatchObject({ title: 'Launch day', privacyStatus: 'private', publishAt, categoryId: '28', tags: ['launch', 'social media'], notifySubscribers: false, selfDeclaredMadeForKids: false });
    });
  });

  it('returns the 11-character video id with its watch URL, or the Shorts URL when the setting says short', async () => {
    await withYoutube({ processingPolls: 0 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media, bytes } = addVideo(ctx, 'v1', 5000);
      const long = published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>long</p>', { media: [media] }))).at(-1));
      expect(long.id).toMatch(/^[\w-]{11}$/);
      expect(long.url).toBe(`https://www.youtube.com/watch?v=${long.id}`);
      expect(sim.lookup(long.id)).toEqual({ text: 'long', mediaSha256: [sha(bytes)] });
      const short = published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>short</p>', { media: [media], settings: { ...SETTINGS, short: true } }))).at(-1));
      expect(short.url).toBe(`https://www.youtube.com/shorts/${short.id}`);
    });
  });

  it('uploads in 256 KiB-multiple chunks over several checks, each asking Google first, then waits several polls for processing', async () => {
    await withYoutube({ processingPolls: 3, processingTimeLeftMs: 4200 }, async (sim, ctx) => {
      const a = createYoutubeAdapter(SMALL);
      const account = await connect(sim, ctx, a);
      const size = 5 * CHUNK_GRANULE + 1234;
      const { media, bytes } = addVideo(ctx, 'v1', size);
      const results = await drive(a, ctx, account, await post(a, ctx, account, '<p>chunks</p>', { media: [media] }));
      const done = published(results.at(-1));
      // publish + 3 upload checks (2 + 2 + 2 chunks) + processing: 3 polls still processing, then processed.
      expect(results.map((r) => (r.status === 'pending' ? r.pollAfterMs ?? 'backoff' : 'published'))).toEqual([0, 0, 0, 4200, 4200, 4200, 'published']);
      const s = [...sim.sessions.values()][0]!;
      expect(s.chunks).toEqual([0, 1, 2, 3, 4].map((i) => ({ first: i * CHUNK_GRANULE, last: (i + 1) * CHUNK_GRANULE - 1, kept: CHUNK_GRANULE })).concat([{ first: 5 * CHUNK_GRANULE, last: size - 1, kept: 1234 }]));
      expect(s.statusQueries).toBe(3);
      expect(sim.videos).toHaveLength(1);
      expect(sim.videos[0]).toMatchObject({ id: done.id, sha256: sha(bytes), size, uploadStatus: 'processed' });
    });
  });

  it('goes on from what Google kept when a chunk is interrupted (dropped connection, 503), never from zero', async () => {
    for (const mode of ['drop', '503'] as const) {
      await withYoutube({ processingPolls: 0 }, async (sim, ctx) => {
        const a = createYoutubeAdapter({ app: APP, chunkBytes: 4 * CHUNK_GRANULE });
        const account = await connect(sim, ctx, a);
        const size = 10 * CHUNK_GRANULE;
        const { media, bytes } = addVideo(ctx, 'v1', size);
        const r = await post(a, ctx, account, '<p>interrupted</p>', { media: [media] });
        sim.interruptNextChunk({ keep: CHUNK_GRANULE, mode });
        const results = await drive(a, ctx, account, r);
        published(results.at(-1));
        const s = [...sim.sessions.values()][0]!;
        // 4 chunks sent, 1 kept; resumed at 256 KiB after a status query.
        expect(s.chunks.map((c) => [c.first, c.kept])).toEqual([
          [0, CHUNK_GRANULE],
          [CHUNK_GRANULE, 4 * CHUNK_GRANULE],
          [5 * CHUNK_GRANULE, 4 * CHUNK_GRANULE],
          [9 * CHUNK_GRANULE, CHUNK_GRANULE],
        ]);
        expect(s.statusQueries, mode).toBe(2);
        expect(sim.videos.map((v) => v.sha256)).toEqual([sha(bytes)]);
      });
    }
  });

  it('keeps going when Google keeps fewer bytes than were sent (308 with a shorter Range)', async () => {
    await withYoutube({ processingPolls: 0, keepAtMostBytes: CHUNK_GRANULE + 5 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const size = 3 * CHUNK_GRANULE + 10;
      const { media, bytes } = addVideo(ctx, 'v1', size);
      const done = published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>partial</p>', { media: [media] }))).at(-1));
      const s = [...sim.sessions.values()][0]!;
      expect(s.chunks.map((c) => [c.first, c.last, c.kept])).toEqual([
        [0, size - 1, CHUNK_GRANULE],
        [CHUNK_GRANULE, size - 1, CHUNK_GRANULE],
        [2 * CHUNK_GRANULE, size - 1, CHUNK_GRANULE],
        [3 * CHUNK_GRANULE, size - 1, 10],
      ]);
      expect(sim.videos.find((v) => v.id === done.id)!.sha256).toBe(sha(bytes));
    });
  });

  it('a restart resumes from the stored token: a check that failed, or an answer that was lost, never repeats a finished step', async () => {
    await withYoutube({ processingPolls: 2 }, async (sim, ctx) => {
      const a = createYoutubeAdapter(SMALL);
      const account = await connect(sim, ctx, a);
      const size = 6 * CHUNK_GRANULE;
      const { media, bytes } = addVideo(ctx, 'v1', size);
      const c = { ...ctx, credentials: account.credentials };
      const t0 = pendingToken(await post(a, ctx, account, '<p>restart</p>', { media: [media] }));
      const t1 = pendingToken(await a.checkPublish!(t0, c));
      // A check fails on Google's side (the status query): the same token is simply checked again.
      sim.inject({ path: /upload_id=/, status: 503, body: { error: { code: 503, message: 'Backend Error', errors: [{ reason: 'backendError', domain: 'global', message: 'Backend Error' }] } } });
      const failed = (await a.checkPublish!(t1, c).catch((e: unknown) => e)) as PlatformError;
      expect(failed.kind).toBe('transient');
      const t2 = pendingToken(await a.checkPublish!(t1, c));
      // The answer of that check is lost (a crash before the token was stored): t1 is checked again by a fresh adapter.
      const restarted = createYoutubeAdapter(SMALL);
      const t3 = pendingToken(await restarted.checkPublish!(t1, c));
      expect(tokenOf(t2).upload.offset).toBe(4 * CHUNK_GRANULE);
      // Google had the first four chunks: only the last two went, and the upload completed.
      expect(JSON.parse(t3)).toMatchObject({ stage: 'uploaded', videoId: sim.videos[0]!.id });
      // The answer of that check is lost as well: t2 is checked again; the status query finds the video.
      const t4 = pendingToken(await restarted.checkPublish!(t2, c));
      expect(JSON.parse(t4)).toMatchObject({ stage: 'uploaded', videoId: sim.videos[0]!.id });
      const done = published(await restarted.checkPublish!(t4, c));
      const s = [...sim.sessions.values()];
      expect(s).toHaveLength(1);
      const firsts = s[0]!.chunks.map((ch) => ch.first);
      expect(firsts).toEqual([0, 1, 2, 3, 4, 5].map((i) => i * CHUNK_GRANULE));
      expect(sim.videos).toHaveLength(1);
      expect(sim.videos[0]).toMatchObject({ id: done.id, sha256: sha(bytes) });
    });
  });

  it('an expired session starts a new one from zero; a completed one whose answer was lost is found in the uploads, not uploaded again', async () => {
    await withYoutube({ processingPolls: 0 }, async (sim, ctx) => {
      const a = createYoutubeAdapter(SMALL);
      const account = await connect(sim, ctx, a);
      const { media, bytes } = addVideo(ctx, 'v1', 3 * CHUNK_GRANULE);
      const c = { ...ctx, credentials: account.credentials };
      const t1 = pendingToken(await a.checkPublish!(pendingToken(await post(a, ctx, account, '<p>expiry</p>', { media: [media] })), c));
      sim.expireUploadSessions();
      const t2 = pendingToken(await a.checkPublish!(t1, c));
      expect(tokenOf(t2).upload.session).not.toBe(tokenOf(t1).upload.session);
      const done = published((await drive(a, ctx, account, { status: 'pending', token: t2 })).at(-1));
      expect(sim.sessions.size).toBe(2);
      expect(sim.videos.map((v) => [v.id, v.sha256])).toEqual([[done.id, sha(bytes)]]);

      // The last check completed the upload but its answer was lost, and the session has expired since.
      const { media: m2 } = addVideo(ctx, 'v2', CHUNK_GRANULE);
      const u1 = pendingToken(await post(a, ctx, account, '<p>lost answer</p>', { media: [m2], settings: { ...SETTINGS, title: 'Lost answer' } }));
      const second = published((await drive(a, ctx, account, { status: 'pending', token: u1 })).at(-1));
      sim.expireUploadSessions();
      const again = published((await drive(a, ctx, account, { status: 'pending', token: u1 })).at(-1));
      expect(again.id).toBe(second.id);
      expect(sim.sessions.size).toBe(3);
      expect(sim.videos).toHaveLength(2);
    });
  });

  it("fails the post with YouTube's reason when processing fails or the video is rejected", async () => {
    await withYoutube({ processingPolls: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media } = addVideo(ctx, 'v1', 2000);
      sim.setNextProcessing({ failureReason: 'codec' }, { rejectionReason: 'duplicate' });
      const first = await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>bad codec</p>', { media: [media] })).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(PlatformError);
      expect({ kind: (first as PlatformError).kind, message: (first as PlatformError).message }).toEqual({
        kind: 'rejected',
        message: 'YouTube could not process the video: codec (the video uses a codec YouTube does not support)',
      });
      const second = (await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>dupe</p>', { media: [media] })).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: second.kind, message: second.message }).toEqual({ kind: 'rejected', message: 'YouTube rejected the video: duplicate (the video duplicates one already uploaded)' });
      // Each status read moved processing on: two processing reads, then the verdict.
      expect(sim.log.filter((l) => l.method === 'GET' && l.path.startsWith('/youtube/v3/videos?')).length).toBe(6);
    });
  });

  it('answers published once the processing wait is over, the video being at its URL already', async () => {
    let now = Date.now();
    await withYoutube({ processingPolls: 100, now: () => now }, async (sim, ctx) => {
      const a = createYoutubeAdapter({ app: APP, processingWaitMs: 60_000 });
      const account = await connect(sim, ctx, a);
      const { media } = addVideo(ctx, 'v1', 2000);
      const pending = await drive(a, ctx, account, await post(a, ctx, account, '<p>slow</p>', { media: [media] }), 2);
      expect(pending.at(-1)!.status).toBe('pending');
      now += 61_000;
      const done = published(await a.checkPublish!(pendingToken(pending.at(-1)!), { ...ctx, credentials: account.credentials }));
      expect(sim.videos.find((v) => v.id === done.id)!.uploadStatus).toBe('uploaded');
    });
  });

  it('sets the thumbnail once after the upload; a transient failure is retried with the same token without uploading again', async () => {
    await withYoutube({ processingPolls: 1 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media, bytes } = addVideo(ctx, 'v1', 2000);
      const thumb = Buffer.from('89504e470d0a1a0a-thumbnail-bytes');
      ctx.media.set('t1', new Blob([thumb], { type: 'image/png' }));
      const c = { ...ctx, credentials: account.credentials };
      const t0 = pendingToken(await post(adapter, ctx, account, '<p>thumb</p>', { media: [media], settings: { ...SETTINGS, thumbnail: { id: 't1', path: 'https://tidings.example/media/t1.png' } } }));
      sim.inject({ path: /^\/upload\/youtube\/v3\/thumbnails\/set/, status: 500, body: { error: { code: 500, message: 'Internal error encountered.', errors: [{ reason: 'backendError', message: 'x', domain: 'global' }] } } });
      const err = (await adapter.checkPublish!(t0, c).catch((e: unknown) => e)) as PlatformError;
      expect(err.kind).toBe('transient');
      const t1 = pendingToken(await adapter.checkPublish!(t0, c));
      expect(JSON.parse(t1)).toMatchObject({ stage: 'uploaded', thumbnailDone: true });
      // Reading the processing state fails once: the same token again, the thumbnail not set twice.
      sim.inject({ path: /^\/youtube\/v3\/videos\?/, status: 503, body: { error: { code: 503, message: 'Backend Error', errors: [{ reason: 'backendError', message: 'Backend Error', domain: 'global' }] } } });
      expect(((await adapter.checkPublish!(t1, c).catch((e: unknown) => e)) as PlatformError).kind).toBe('transient');
      published(await adapter.checkPublish!(t1, c));
      const v = sim.videos[0]!;
      expect(v).toMatchObject({ sha256: sha(bytes), thumbnail: { sha256: sha(thumb), size: thumb.length, mimeType: 'image/png' }, thumbnailSets: 1 });
      expect(sim.videos).toHaveLength(1);
      expect([...sim.sessions.values()][0]!.chunks).toHaveLength(1);
      const thumbCall = sim.log.filter((l) => l.path.startsWith('/upload/youtube/v3/thumbnails/set')).at(-1)!;
      expect(thumbCall.path).toBe(`/upload/youtube/v3/thumbnails/set?videoId=${v.id}&uploadType=media`);
    });
  });

  it('publishes the video with its own thumbnail when YouTube refuses the custom one (unverified channel)', async () => {
    await withYoutube({ processingPolls: 0 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.channels.get(MAIN_CHANNEL.id)!.verified = false;
      const { media } = addVideo(ctx, 'v1', 2000);
      ctx.media.set('t1', new Blob([Buffer.from('jpeg')], { type: 'image/jpeg' }));
      const done = published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>t</p>', { media: [media], settings: { ...SETTINGS, thumbnail: { id: 't1', path: 'https://x/t1.jpg' } } }))).at(-1));
      expect(sim.videos.find((v) => v.id === done.id)!.thumbnailSets).toBe(0);
    });
  });

  it('publishes thread items as comments on the video (commentThreads.insert)', async () => {
    await withYoutube({ processingPolls: 0 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media } = addVideo(ctx, 'v1', 2000);
      const video = published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>root</p>', { media: [media] }))).at(-1));
      const comment = published(await post(adapter, ctx, account, '<p>First <em>comment</em></p>', { replyTo: { id: video.id, rootId: video.id } }));
      expect(comment.id).toMatch(/^Ugz[\w-]+AaABAg$/);
      expect(comment.url).toBe(`https://www.youtube.com/watch?v=${video.id}&lc=${comment.id}`);
      expect(sim.comments).toEqual([expect.objectContaining({ id: comment.id, videoId: video.id, channelId: MAIN_CHANNEL.id, text: 'First comment' })]);
      const call = sim.log.find((l) => l.method === 'POST' && l.path.startsWith('/youtube/v3/commentThreads'))!;
      expect(call.path).toBe('/youtube/v3/commentThreads?part=snippet');
      expect(call.body).toEqual({ snippet: { videoId: video.id, topLevelComment: { snippet: { textOriginal: 'First comment' } } } });
      // A second thread item replies to the first comment: it too is a comment on the video.
      const next = published(await post(adapter, ctx, account, '<p>More</p>', { replyTo: { id: comment.id, rootId: video.id } }));
      expect(sim.lookup(next.id)).toEqual({ text: 'More', replyTo: video.id, mediaSha256: [] });
    });
  });
});

describe('youtube errors', () => {
  it('classifies Google error bodies', () => {
    const now = Date.UTC(2026, 0, 15, 20, 0, 0); // 12:00 in Los Angeles (PST)
    const quota = youtubeError(res(403, googleBody(403, 'quotaExceeded', 'The request cannot be completed because you have exceeded your quota.', 'youtube.quota')), now)!;
    expect({ kind: quota.kind, wait: quota.details.retryAfterSeconds, code: quota.details.platformCode }).toEqual({ kind: 'rate_limited', wait: 12 * 3600, code: 'quotaExceeded' });
    const rate = youtubeError(res(403, googleBody(403, 'rateLimitExceeded', 'Rate Limit Exceeded')), now)!;
    expect({ kind: rate.kind, wait: rate.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: DEFAULT_RATE_LIMIT_SECONDS });
    const user = youtubeError(res(429, googleBody(429, 'userRateLimitExceeded', 'User Rate Limit Exceeded'), { 'retry-after': '17' }), now)!;
    expect({ kind: user.kind, wait: user.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 17 });
    expect(youtubeError(res(401, googleBody(401, 'authError', 'Invalid Credentials')), now)!.kind).toBe('auth_expired');
    expect(youtubeError(res(503, googleBody(503, 'backendError', 'Backend Error')), now)!.kind).toBe('transient');
    expect(youtubeError(res(500, 'oops'), now)!.kind).toBe('transient');
    const limit = youtubeError(res(400, googleBody(400, 'uploadLimitExceeded', 'The user has exceeded the number of videos they may upload.', 'youtube.video')), now)!;
    expect({ kind: limit.kind, message: limit.message, code: limit.details.platformCode }).toEqual({ kind: 'rejected', message: 'The user has exceeded the number of videos they may upload.', code: 'uploadLimitExceeded' });
    expect(youtubeError(res(400, googleBody(400, 'invalidTitle', 'The request metadata specifies an invalid or empty video title.')), now)!.kind).toBe('rejected');
    expect(youtubeError(res(403, googleBody(403, 'forbidden', 'Forbidden')), now)!.kind).toBe('rejected');
    expect(youtubeError(res(403, googleBody(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.')), now)!.kind).toBe('reconnect_required');
    expect(youtubeError(res(200, { id: 'x' }), now)).toBeUndefined();
  });

  it('waits for the daily quota until midnight in Los Angeles, summer and winter', () => {
    expect(secondsToPacificMidnight(Date.UTC(2026, 0, 15, 8, 0, 0))).toBe(86_400); // 00:00 PST
    expect(secondsToPacificMidnight(Date.UTC(2026, 0, 15, 7, 0, 0))).toBe(3600); // 23:00 PST
    expect(secondsToPacificMidnight(Date.UTC(2026, 6, 15, 6, 30, 0))).toBe(1800); // 23:30 PDT
  });

  it('reads the real refusals of the simulator: quota, upload limit, category, missing scope', async () => {
    await withYoutube({ dailyUploadLimit: 1 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media } = addVideo(ctx, 'v1', 2000);
      const fail = async (settings: Record<string, unknown> = SETTINGS) => (await post(adapter, ctx, account, '<p>x</p>', { media: [media], settings }).catch((e: unknown) => e)) as PlatformError;
      const category = await fail({ ...SETTINGS, categoryId: '99' });
      expect({ kind: category.kind, code: category.details.platformCode }).toEqual({ kind: 'rejected', code: 'invalidCategoryId' });
      expect(category.message).toMatch(/^The snippet.categoryId property specifies an invalid category ID/);
      sim.setQuotaExceeded(true);
      const quota = await fail();
      expect({ kind: quota.kind, code: quota.details.platformCode }).toEqual({ kind: 'rate_limited', code: 'quotaExceeded' });
      expect(quota.details.retryAfterSeconds).toBeGreaterThan(0);
      expect(quota.message).toContain('exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>');
      sim.setQuotaExceeded(false);
      published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>one</p>', { media: [media] }))).at(-1));
      const limit = await fail();
      expect({ kind: limit.kind, message: limit.message }).toEqual({ kind: 'rejected', message: 'The user has exceeded the number of videos they may upload.' });
      const narrow = { ...account.credentials };
      sim.tokens.get(narrow.accessToken as string)!.scopes = ['https://www.googleapis.com/auth/youtube.readonly'];
      const scope = await fail();
      expect(scope.kind).toBe('reconnect_required');
    });
  });

  it('the simulator checks chunk ranges as Google does: contiguous, 256 KiB multiples but the last, the declared total', async () => {
    await withYoutube({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media } = addVideo(ctx, 'v1', 3 * CHUNK_GRANULE);
      const session = tokenOf(pendingToken(await post(adapter, ctx, account, '<p>x</p>', { media: [media] }))).upload.session;
      const put = (range: string, body: Buffer) =>
        fetch(rewriteFor(sim)(session), { method: 'PUT', headers: { authorization: `Bearer ${account.credentials.accessToken as string}`, 'content-type': 'video/mp4', 'content-range': range }, body });
      const notMultiple = await put(`bytes 0-99999/${3 * CHUNK_GRANULE}`, Buffer.alloc(100_000));
      expect(notMultiple.status).toBe(400);
      expect(JSON.stringify(await notMultiple.json())).toContain('not a multiple of 256 KiB');
      const gap = await put(`bytes ${CHUNK_GRANULE}-${2 * CHUNK_GRANULE - 1}/${3 * CHUNK_GRANULE}`, Buffer.alloc(CHUNK_GRANULE));
      expect(gap.status).toBe(400);
      const total = await put(`bytes 0-${CHUNK_GRANULE - 1}/${4 * CHUNK_GRANULE}`, Buffer.alloc(CHUNK_GRANULE));
      expect(total.status).toBe(400);
      const ok = await put(`bytes 0-${CHUNK_GRANULE - 1}/${3 * CHUNK_GRANULE}`, Buffer.alloc(CHUNK_GRANULE));
      expect({ status: ok.status, range: ok.headers.get('range'), location: ok.headers.get('location') }).toEqual({ status: 308, range: `bytes=0-${CHUNK_GRANULE - 1}`, location: null });
    });
  });
});

describe('youtube validate', () => {
  const draft = (settings: Record<string, unknown>, content: string, media: PostDraft['items'][number]['media'] = [{ type: 'video', mimeType: 'video/mp4', size: 10 }]): PostDraft => ({
    settings,
    items: [{ content, media }],
  });

  it('names the field YouTube would refuse', () => {
    expect(adapter.validate(draft({ title: 'Good title' }, '<p>fine</p>'))).toEqual([]);
    expect(adapter.validate(draft({ title: 'a <b> title' }, '<p>fine</p>')).map((i) => i.path)).toEqual(['settings.title']);
    expect(adapter.validate(draft({ title: 'ok' }, '<p>1 &lt; 2</p>')).map((i) => i.path)).toEqual(['value.0.content']);
    // Pictures and a missing video are the metadata's rules (image_unsupported, media_required), not repeated here.
    expect(adapter.validate(draft({ title: 'ok' }, '<p>pic</p>', [{ type: 'image', mimeType: 'image/png', size: 10 }]))).toEqual([]);
  });
});

describe('youtube reading back', () => {
  it('findRecent lists the channel uploads and its own comments, newest first, since the given time', async () => {
    await withYoutube({ processingPolls: 0 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media } = addVideo(ctx, 'v1', 2000);
      const before = new Date(Date.now() - 1000);
      const video = published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>A video description</p>', { media: [media] }))).at(-1));
      await new Promise((r) => setTimeout(r, 5));
      const comment = published(await post(adapter, ctx, account, '<p>first comment</p>', { replyTo: { id: video.id, rootId: video.id } }));
      sim.videos.push({ ...sim.videos[0]!, id: 'OLDvideo000', description: 'old', publishedAt: new Date(Date.now() - 86_400_000).toISOString() });
      const recent = await adapter.findRecent!({ since: before, limit: 10 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [comment.id, 'first comment', comment.url],
        [video.id, 'A video description', `https://www.youtube.com/watch?v=${video.id}`],
      ]);
    });
  });

  it('channel analytics are daily YouTube Analytics figures; post analytics the video statistics', async () => {
    const now = Date.UTC(2026, 2, 10, 15, 0, 0);
    await withYoutube({ processingPolls: 0, now: () => now }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.setDailyFigures(MAIN_CHANNEL.id, [
        { day: '2026-03-08', views: 10, likes: 2, subscribersGained: 1 },
        { day: '2026-03-09', views: 30, likes: 4, estimatedMinutesWatched: 55 },
        { day: '2026-03-01', views: 999 },
      ]);
      const series = await adapter.analytics!(4, { ...ctx, credentials: account.credentials });
      expect(series.map((s) => s.label)).toEqual(['Views', 'Minutes watched', 'Likes', 'Comments', 'Subscribers gained', 'Subscribers lost']);
      expect(series[0]).toEqual({
        label: 'Views',
        percentageChange: 200,
        data: [
          { date: '2026-03-07', total: 0 },
          { date: '2026-03-08', total: 10 },
          { date: '2026-03-09', total: 30 },
          { date: '2026-03-10', total: 0 },
        ],
      });
      const q = new URL(sim.log.find((l) => l.path.startsWith('/v2/reports'))!.path, 'http://x').searchParams;
      expect({ ids: q.get('ids'), start: q.get('startDate'), end: q.get('endDate'), dims: q.get('dimensions') }).toEqual({ ids: `channel==${MAIN_CHANNEL.id}`, start: '2026-03-07', end: '2026-03-10', dims: 'day' });

      const { media } = addVideo(ctx, 'v1', 2000);
      const video = published((await drive(adapter, ctx, account, await post(adapter, ctx, account, '<p>stats</p>', { media: [media] }))).at(-1));
      sim.videos[0]!.statistics = { viewCount: 120, likeCount: 7, favoriteCount: 0, commentCount: 3 };
      const stats = await adapter.postAnalytics!(video.id, 7, { ...ctx, credentials: account.credentials });
      expect(stats.map((s) => [s.label, s.data[0]!.total, s.data[0]!.date])).toEqual([
        ['Views', 120, '2026-03-10'],
        ['Likes', 7, '2026-03-10'],
        ['Comments', 3, '2026-03-10'],
        ['Favorites', 0, '2026-03-10'],
      ]);
      expect(await adapter.postAnalytics!('missing0000', 7, { ...ctx, credentials: account.credentials })).toEqual([]);
    });
  });
});

describe('youtube token', () => {
  it('holds what a restart needs and nothing that is not JSON', async () => {
    await withYoutube({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { media } = addVideo(ctx, 'v1', 2000);
      const token = JSON.parse(pendingToken(await post(adapter, ctx, account, '<p>desc</p>', { media: [media] })));
      expect(token).toMatchObject({
        v: 1,
        stage: 'upload',
        media: { id: 'v1', mimeType: 'video/mp4' },
        video: { snippet: { title: SETTINGS.title, description: 'desc' }, status: { privacyStatus: 'unlisted' } },
        upload: { session: expect.stringMatching(/^https:\/\/www\.googleapis\.com\/upload\/youtube\/v3\/videos\?uploadType=resumable&part=snippet,status&upload_id=/), offset: 0, total: 2000 },
      });
      const err = (await adapter.checkPublish!('{"v":9}', { ...ctx, credentials: account.credentials }).catch((e: unknown) => e)) as PlatformError;
      expect(err.kind).toBe('rejected');
      expect(KiB).toBe(1024);
    });
  });
});
