import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runAdminCommand } from '../../admin/admin.commands.js';
import { sendAdminCommand } from '../../admin/admin-socket.js';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { startService, type ServiceProcess } from '../../../test/e2e/processes.js';
import { TEST_SECRET } from '../../../test/helpers.js';
import { openTestDatabase, testDbKind, withAdminClient, type TestDatabase } from '../../../test/test-db.js';
import { CHUNK_GRANULE, type YoutubeSimulator } from './youtube.simulator.js';
import { APP, MAIN_CHANNEL, paddedMp4, platformOriginsEnv, sha, youtubeSimulator } from './youtube.testkit.js';

/**
 * The YouTube upload survives a crash: `tidings serve` runs as a child process against the
 * simulator (in this process), is killed with SIGKILL once Google has taken the first chunks of
 * the video — the session is open, the upload part way — and is restarted. It must finish the
 * same upload session from the offset Google kept (a status query, then the remaining chunks:
 * no byte range sent twice, nothing from zero), make one video with the file's exact bytes, and
 * post the first comment once. The verdict comes from the simulator's records.
 *
 * The simulator keeps at most 256 KiB of each PUT and answers every request after a delay, so the
 * upload takes several requests and the kill lands between or during them (a PUT in flight at the
 * kill is still taken by Google, as a real server would keep what it received).
 */

const PUBLIC_URL = 'https://tidings.example';
const LATENCY_MS = 250;
const VIDEO_SIZE = 6 * CHUNK_GRANULE + 777;

interface ItemView {
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}
interface PostView extends ItemView {
  thread: ItemView[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** The service's HTTP API with the organisation's key. */
function api(service: () => ServiceProcess, key: string) {
  return async <T>(method: string, path: string, body?: unknown, form?: FormData): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${service().url}${path}`, {
      method,
      headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
}

/** PUTs of chunks with bytes (status queries excluded) that reached the simulator. */
const chunkPuts = (sim: YoutubeSimulator) => sim.log.filter((r) => r.method === 'PUT' && /^bytes \d+-\d+\//.test(String(r.headers['content-range'] ?? '')));

/**
 * An organisation and its API key, without a CLI process (each costs seconds of start-up): through
 * the running service's admin socket in embedded mode, on the database directly with PostgreSQL.
 */
async function createOrg(env: Record<string, string>): Promise<string> {
  const cmd = { command: 'org.create' as const, name: 'Crash' };
  if (env.DATABASE_URL) {
    const deps = await createDeps(loadConfig(env), { withoutJobs: true });
    try {
      return ((await runAdminCommand(deps.services, cmd)) as { apiKey: string }).apiKey;
    } finally {
      await deps.close();
    }
  }
  const reply = await sendAdminCommand(env.DATA_DIR!, cmd);
  if (!reply?.ok) throw new Error(`org.create through the admin socket failed: ${JSON.stringify(reply)}`);
  return (reply.result as { apiKey: string }).apiKey;
}

async function crashRound(sim: YoutubeSimulator, env: Record<string, string>) {
  const t0 = Date.now();
  const marks: string[] = [];
  const mark = (what: string) => marks.push(`${what} ${Date.now() - t0} ms`);
  let service = await startService([], env);
  mark('started');
  const call = api(() => service, await createOrg(env));
  try {
    // Connect through Google's consent.
    const begun = await call<{ url: string }>('GET', '/public/v1/social/youtube');
    const approved = await fetch(begun.body.url, { redirect: 'manual' });
    const back = new URL(approved.headers.get('location')!);
    const page = await fetch(`${service.url}${back.pathname}${back.search}`);
    expect(page.status, await page.text()).toBe(200);
    const channel = (await call<{ id: string; identifier: string }[]>('GET', '/public/v1/integrations')).body.find((i) => i.identifier === 'youtube')!;

    const bytes = await paddedMp4(VIDEO_SIZE, 7);
    const form = new FormData();
    form.set('file', new Blob([bytes], { type: 'application/octet-stream' }), 'crash.mp4');
    const media = await call<{ id: string; path: string }>('POST', '/public/v1/upload', undefined, form);
    expect(media.status).toBe(201);

    sim.setLatency(LATENCY_MS);
    const created = await call<{ postId: string }[]>('POST', '/public/v1/posts', {
      type: 'now',
      shortLink: false,
      tags: [],
      posts: [
        {
          integration: { id: channel.id },
          settings: { __type: 'youtube', title: 'Crash test video', type: 'unlisted' },
          value: [{ content: '<p>Survives a crash</p>', image: [{ id: media.body.id, path: media.body.path }] }, { content: '<p>First!</p>' }],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const postId = created.body[0]!.postId;

    // Kill once Google has taken two chunks (the session open, the upload part way).
    await waitUntil(() => chunkPuts(sim).length >= 2, 30_000, 'two chunks at the simulator');
    mark('kill');
    await service.stop('SIGKILL');
    const atKill = { puts: chunkPuts(sim).length, videos: sim.videos.length };
    await sleep(LATENCY_MS + 100);
    service = await startService([], env);
    mark('restarted');

    const post = await waitUntil(
      async () => {
        const r = await call<PostView>('GET', `/public/v1/posts/${postId}`).catch(() => undefined);
        const p = r?.status === 200 ? r.body : undefined;
        return p && p.state !== 'QUEUE' && p.thread.every((i) => i.state !== 'QUEUE') ? p : undefined;
      },
      60_000,
      'the post to be final after the restart',
    );
    mark('final');
    console.info(`[youtube-crash] ${testDbKind()}: ${marks.join(', ')} (${chunkPuts(sim).length} chunk PUTs, ${atKill.puts} before the kill)`);
    // A late duplicate (a stale job) would show up now.
    await sleep(1500);
    return { post, bytes, atKill, output: service.output() };
  } finally {
    await service.stop('SIGKILL');
  }
}

function expectResumed(sim: YoutubeSimulator, r: Awaited<ReturnType<typeof crashRound>>) {
  const { post, bytes, atKill } = r;
  expect(atKill.videos, 'the kill came before the upload completed').toBe(0);
  expect({ state: post.state, error: post.error }, r.output.slice(-3000)).toEqual({ state: 'PUBLISHED', error: null });
  expect(sim.videos).toHaveLength(1);
  const video = sim.videos[0]!;
  expect(video).toMatchObject({ id: post.releaseId, channelId: MAIN_CHANNEL.id, sha256: sha(bytes), size: bytes.length, title: 'Crash test video' });
  expect(post.releaseURL).toBe(`https://www.youtube.com/watch?v=${video.id}`);
  // One session, resumed: its chunks contiguous from zero, no range sent twice, and a status query after the restart.
  expect(sim.sessions.size).toBe(1);
  const session = [...sim.sessions.values()][0]!;
  expect(session.chunks.map((c) => c.first)).toEqual(Array.from({ length: session.chunks.length }, (_, i) => i * CHUNK_GRANULE));
  expect(session.chunks.reduce((n, c) => n + c.kept, 0)).toBe(bytes.length);
  expect(session.chunks.length).toBeGreaterThan(atKill.puts);
  expect(session.statusQueries).toBeGreaterThanOrEqual(1);
  // The first comment, once.
  expect(sim.comments.map((c) => [c.videoId, c.text])).toEqual([[video.id, 'First!']]);
  expect(post.thread[0]).toMatchObject({ state: 'PUBLISHED', releaseId: sim.comments[0]!.id });
}

function baseEnv(sim: YoutubeSimulator, dataDir: string): Record<string, string> {
  return {
    PLATFORM_ORIGINS: platformOriginsEnv(sim),
    PUBLIC_URL,
    YOUTUBE_CLIENT_ID: APP.clientId,
    YOUTUBE_CLIENT_SECRET: APP.clientSecret,
    DATA_DIR: dataDir,
    API_RATE_LIMIT: '100000',
    PUBLISH_ATTEMPT_TIMEOUT_SECONDS: '60',
    PLATFORM_TIMEOUT_SECONDS: '30',
    WORKER_HEARTBEAT_SECONDS: '1',
  };
}

describe('youtube upload: SIGKILL mid-upload and restart (real processes)', () => {
  let sim: YoutubeSimulator;
  let db: TestDatabase | undefined;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    sim = await youtubeSimulator({ keepAtMostBytes: CHUNK_GRANULE, processingPolls: 1, processingTimeLeftMs: 200 });
    sim.apps.get(APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/youtube/callback`];
    dataDir = mkdtempSync(join(tmpdir(), 'tidings-youtube-crash-'));
    env = baseEnv(sim, dataDir);
    if (testDbKind() === 'postgres') {
      db = await openTestDatabase(inject('testDb'));
      await db.database.close();
      Object.assign(env, { DATABASE_URL: db.url!, CREDENTIALS_SECRET: TEST_SECRET });
    }
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    if (db?.url) {
      const name = new URL(db.url).pathname.slice(1);
      await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('resumes the same upload session from the offset Google kept and publishes once', async () => {
    const r = await crashRound(sim, env);
    expectResumed(sim, r);
  }, 120_000);
});
