import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, startService, type ServiceProcess } from '../../../test/e2e/processes.js';
import { TEST_SECRET } from '../../../test/helpers.js';
import { openTestDatabase, testDbKind, withAdminClient, type TestDatabase } from '../../../test/test-db.js';
import { CHUNK_BYTES } from './client.js';
import { TIKTOK_API_ORIGIN, TIKTOK_UPLOAD_ORIGIN, TIKTOK_WWW_ORIGIN, type TiktokSimulator } from './tiktok.simulator.js';
import { APP, DIRECT, paddedMp4, sha, tiktokSimulator } from './tiktok.testkit.js';

/**
 * TikTok's asynchronous flows survive a SIGKILL of the real service (`tidings serve`, one
 * process holding API and worker): a video killed while its second chunk is in flight (the
 * publish task and upload URL already in the stored token, the first chunk accepted), and a
 * photo post killed after TikTok accepted it and while it is being processed. After the restart
 * both end PUBLISHED once: the simulator's own records show one initialisation per post, one
 * TikTok post each, the video's bytes exact; the interrupted chunk is the only thing sent twice
 * (TikTok had taken it, so the second copy is refused and the status shows it complete).
 */

const PUBLIC_URL = 'https://tidings.example';
const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/media');
/** Every simulator answer waits this long around the kill, so the second chunk is still in flight. */
const LATENCY_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

interface PostView {
  state: string;
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}

function crashSuite(mode: 'embedded' | 'postgres') {
  let sim: TiktokSimulator;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  let db: TestDatabase | undefined;
  let key: string;

  const api = async <T>(method: string, path: string, body?: unknown, form?: FormData): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${service!.url}${path}`, {
      method,
      headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };

  async function start() {
    service = await startService([], env);
    // TikTok pulls pictures from PUBLIC_URL, which is wherever the service listens now.
    sim.mediaOrigins.set(PUBLIC_URL, service.url);
  }

  beforeAll(async () => {
    sim = await tiktokSimulator({ processingPolls: 0, rateLimits: { init: 100, creator_info: 100, status: 300 } });
    sim.apps.get(APP.clientKey)!.verifiedPrefixes = [`${PUBLIC_URL}/media/`];
    env = {
      PLATFORM_ORIGINS: [TIKTOK_WWW_ORIGIN, TIKTOK_API_ORIGIN, TIKTOK_UPLOAD_ORIGIN].map((o) => `${o}=${sim.origin}`).join(','),
      PUBLIC_URL,
      TIKTOK_CLIENT_ID: APP.clientKey,
      TIKTOK_CLIENT_SECRET: APP.clientSecret,
      API_RATE_LIMIT: '100000',
      WORKER_HEARTBEAT_SECONDS: '1',
      MEDIA_MAX_VIDEO_BYTES: String(64 * 1024 * 1024),
      DATA_DIR: mkdtempSync(join(tmpdir(), `tidings-tiktok-crash-${mode}-`)),
    };
    if (mode === 'postgres') {
      db = await openTestDatabase(inject('testDb'));
      await db.database.close();
      Object.assign(env, { DATABASE_URL: db.url!, CREDENTIALS_SECRET: TEST_SECRET });
    }
    const org = await runCli(['org', 'create', '--name', 'Crash', '--json'], env);
    if (org.code !== 0) throw new Error(`org create failed: ${org.stderr}`);
    key = (JSON.parse(org.stdout) as { apiKey: string }).apiKey;
    await start();
  }, 120_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await sim?.close();
    if (db?.url) {
      const name = new URL(db.url).pathname.slice(1);
      await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });

  it('SIGKILL mid-upload and mid-processing: after the restart each post is published once, the upload resumed', async () => {
    const t0 = Date.now();
    const marks: string[] = [];
    const mark = (what: string) => marks.push(`${what} +${Date.now() - t0} ms`);
    // Connect (TikTok's page approves at once; the callback goes to the service).
    const begun = await api<{ url: string }>('GET', '/public/v1/social/tiktok');
    const back = new URL((await fetch(begun.body.url, { redirect: 'manual' })).headers.get('location')!);
    expect((await fetch(`${service!.url}${back.pathname}${back.search}`)).status).toBe(200);
    const channel = (await api<{ id: string; identifier: string }[]>('GET', '/public/v1/integrations')).body.find((i) => i.identifier === 'tiktok')!.id;

    const uploadFile = async (bytes: Buffer, name: string, type: string) => {
      const form = new FormData();
      form.set('file', new Blob([bytes], { type }), name);
      const r = await api<{ id: string; path: string }>('POST', '/public/v1/upload', undefined, form);
      expect(r.status).toBe(201);
      return r.body;
    };
    const videoBytes = paddedMp4(await readFile(join(FIXTURES, 'h264-aac-faststart.mp4')), 2 * CHUNK_BYTES + 54_321);
    const video = await uploadFile(videoBytes, 'crash.mp4', 'video/mp4');
    const jpeg = await readFile(join(FIXTURES, 'photo-64x48.jpg'));
    const photo = await uploadFile(jpeg, 'crash.jpg', 'image/jpeg');
    const create = async (content: string, m: { id: string; path: string }) => {
      const r = await api<{ postId: string }[]>('POST', '/public/v1/posts', {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [{ integration: { id: channel }, settings: { __type: 'tiktok', ...DIRECT }, value: [{ content, image: [{ id: m.id, path: m.path }] }] }],
      });
      expect(r.status).toBe(201);
      return r.body[0]!.postId;
    };

    mark('uploaded');
    sim.setLatency(LATENCY_MS);
    const photoPost = await create(`crash photo ${mode}`, photo);
    const videoPost = await create(`crash video ${mode}`, video);
    // Kill once the second chunk has reached TikTok but its answer has not gone back.
    const secondChunk = `bytes ${CHUNK_BYTES}-`;
    await until(() => sim.log.some((l) => l.method === 'PUT' && String(l.headers['content-range']).startsWith(secondChunk)), 'the second chunk in flight');
    const photoTask = [...sim.tasks.values()].find((x) => x.kind === 'photo');
    expect(photoTask, 'TikTok accepted the photo post before the kill').toBeDefined();
    mark('kill');
    await service!.stop('SIGKILL');
    sim.setLatency(0);
    // TikTok finishes what it received (the whole second chunk); the service is down meanwhile.
    await until(() => sim.chunks.some((c) => c.first === CHUNK_BYTES && c.status === 201), 'TikTok to take the second chunk');
    await start();
    mark('restarted');

    const settled = async (id: string) => {
      const r = await api<PostView>('GET', `/public/v1/posts/${id}`).catch(() => undefined);
      return r && r.status === 200 && (r.body.state === 'PUBLISHED' || r.body.state === 'ERROR') ? r.body : undefined;
    };
    const [v, p] = await Promise.all([until(() => settled(videoPost), 'the video post to end', 60_000), until(() => settled(photoPost), 'the photo post to end', 60_000)]);

    mark('settled');
    console.info(`[tiktok-crash] ${mode}: ${marks.join(', ')}`);
    const videoTasks = [...sim.tasks.values()].filter((x) => x.kind === 'video');
    const photoTasks = [...sim.tasks.values()].filter((x) => x.kind === 'photo');
    expect({ videoInits: videoTasks.length, photoInits: photoTasks.length, posts: sim.posts.length }).toEqual({ videoInits: 1, photoInits: 1, posts: 2 });
    const madeVideo = sim.posts.find((x) => x.kind === 'video')!;
    const madePhoto = sim.posts.find((x) => x.kind === 'photo')!;
    expect(v).toMatchObject({ state: 'PUBLISHED', error: null, releaseId: madeVideo.id, releaseURL: `https://www.tiktok.com/@ada.codes/video/${madeVideo.id}` });
    expect(p).toMatchObject({ state: 'PUBLISHED', error: null, releaseId: madePhoto.id, releaseURL: `https://www.tiktok.com/@ada.codes/photo/${madePhoto.id}` });
    expect(madeVideo.mediaSha256).toEqual([sha(videoBytes)]);
    expect(madePhoto.mediaSha256).toEqual([sha(jpeg)]);
    // Chunk 1 once; chunk 2 taken (201) while the service was dead, sent again after the restart and
    // refused as already uploaded (400); nothing else.
    expect(sim.chunks.map((c) => `${c.first}:${c.status}`)).toEqual([`0:206`, `${CHUNK_BYTES}:201`, `${CHUNK_BYTES}:400`]);
  }, 120_000);
}

describe.runIf(testDbKind() === 'pglite')('tiktok crash: embedded mode, SIGKILL of `tidings serve` (real processes)', () => crashSuite('embedded'));
describe.runIf(testDbKind() === 'postgres')('tiktok crash: PostgreSQL mode, SIGKILL of `tidings serve` (real processes)', () => crashSuite('postgres'));
