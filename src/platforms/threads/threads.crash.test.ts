import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, startService, type ServiceProcess } from '../../../test/e2e/processes.js';
import { TEST_SECRET } from '../../../test/helpers.js';
import { multipart } from '../../../test/media.js';
import { openTestDatabase, testDbKind, withAdminClient } from '../../../test/test-db.js';
import { startThreadsSimulator, THREADS_GRAPH_ORIGIN, THREADS_WWW_ORIGIN, type ThreadsSimulator } from './threads.simulator.js';
import { ADA, THREADS_APP } from './threads.testkit.js';

/**
 * Crash test of Threads' asynchronous publishing with real processes: `tidings serve` runs as a
 * child process against the Threads simulator in this process, publishes a video post (with a
 * reply) and a carousel containing a video, both processed over a poll, and is killed with
 * SIGKILL while its `threads_publish` request is at Threads: Threads publishes the container, the
 * answer goes to a dead process. Restarted, the service must finish both posts without publishing
 * anything twice — the container found PUBLISHED is recognised among the account's posts. The
 * verdict comes from the simulator's records.
 */

const PUBLIC_URL = 'https://tidings.example';
const CALLBACK = `${PUBLIC_URL}/integrations/social/threads/callback`;
const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/media');
/** How long Threads holds a publish before acting on it: the kill lands inside. */
const HOLD_MS = 1500;

interface ItemView {
  id: string;
  state: string;
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}
interface PostView extends ItemView {
  thread: ItemView[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The service under test, killed and restarted. */
class Service {
  private proc: ServiceProcess | undefined;
  constructor(
    private readonly env: Record<string, string>,
    private readonly mediaOrigins: Record<string, string>,
  ) {}

  get url() {
    return this.proc!.url;
  }

  async start() {
    this.proc = await startService([], this.env);
    // Threads fetches media from PUBLIC_URL: it now lives at this process's address.
    this.mediaOrigins[PUBLIC_URL] = this.proc.url;
  }

  async kill() {
    await this.proc?.stop('SIGKILL');
  }

  output() {
    return this.proc?.output().slice(-4000) ?? '';
  }

  async call<T>(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
    const json = body !== undefined && !Buffer.isBuffer(body);
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: key, ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : json ? JSON.stringify(body) : (body),
    });
    const text = await res.text();
    return { status: res.status, body: (text && /^[[{]/.test(text) ? JSON.parse(text) : text) as T };
  }
}

async function scenario(service: Service, sim: ThreadsSimulator, key: string) {
  // Connect through the API, the authorisation page and the callback.
  const begun = await service.call<{ url: string }>(key, 'GET', '/public/v1/social/threads');
  expect(begun.status).toBe(200);
  const approved = await fetch(begun.body.url, { redirect: 'manual' });
  const back = new URL(approved.headers.get('location')!);
  const page = await fetch(`${service.url}${back.pathname}${back.search}`);
  expect(page.status, await page.text()).toBe(200);
  const channels = await service.call<{ id: string; identifier: string }[]>(key, 'GET', '/public/v1/integrations');
  const channel = channels.body.find((c) => c.identifier === 'threads')!.id;

  const upload = async (file: string) => {
    const data = await readFile(join(FIXTURES, file));
    const body = multipart([{ field: 'file', filename: file, type: 'application/octet-stream', data }]);
    const res = await service.call<{ id: string; path: string }>(key, 'POST', '/public/v1/upload', body.payload, body.headers);
    expect(res.status).toBe(201);
    return { id: res.body.id, path: res.body.path, sha256: sha(data) };
  };
  const video = await upload('h264-aac-faststart.mp4');
  const png = await upload('photo-48x64.png');
  const jpeg = await upload('photo-64x48.jpg');
  const create = async (value: { content: string; image: { id: string; path: string }[] }[]) => {
    const res = await service.call<{ postId: string }[]>(key, 'POST', '/public/v1/posts', { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel }, settings: {}, value }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body[0]!.postId;
  };
  const ref = (m: { id: string; path: string }) => ({ id: m.id, path: m.path });

  const started = Date.now();
  sim.holdPublishes(HOLD_MS);
  const videoPost = await create([
    { content: 'crash video', image: [ref(video)] },
    { content: 'crash video reply', image: [] },
  ]);
  const carouselPost = await create([{ content: 'crash carousel', image: [ref(png), ref(video), ref(jpeg)] }]);

  // Kill as the first publish reaches Threads (its containers were made and polled before).
  const held = await until(() => sim.log.find((l) => l.method === 'POST' && l.path.endsWith('/threads_publish')), 30_000, 'a threads_publish request');
  await service.kill();
  const killedAt = Date.now();
  const heldContainer = sim.containers.get((held.body as { creation_id: string }).creation_id)!;
  // Threads goes on and publishes it; the answer has nobody to go to.
  await until(() => heldContainer.status === 'PUBLISHED' || undefined, 5000, 'the held publish to complete');
  sim.holdPublishes(0);
  await service.start();
  const restartedAt = Date.now();

  const settled = async (id: string) => {
    const r = await service.call<PostView>(key, 'GET', `/public/v1/posts/${id}`).catch(() => undefined);
    if (!r || r.status !== 200) return undefined;
    return [r.body, ...r.body.thread].every((i) => i.state === 'PUBLISHED' || i.state === 'ERROR') ? r.body : undefined;
  };
  let v: PostView, c: PostView;
  try {
    v = await until(() => settled(videoPost), 60_000, 'the video post to settle', 250);
    c = await until(() => settled(carouselPost), 60_000, 'the carousel post to settle', 250);
  } catch (e) {
    throw new Error(`${(e as Error).message}\nservice output:\n${service.output()}`, { cause: e });
  }

  console.info(
    `[threads-crash] ${testDbKind()}: killed ${killedAt - started} ms after the posts were made, restarted in ${restartedAt - killedAt} ms, settled ${Date.now() - restartedAt} ms later`,
  );

  // Each content exactly once on Threads, and nothing published twice.
  const byText = (text: string) => sim.posts.filter((p) => p.text === text);
  for (const text of ['crash video', 'crash video reply', 'crash carousel']) expect(byText(text), text).toHaveLength(1);
  expect(sim.posts).toHaveLength(3);
  for (const container of sim.containers.values()) expect(container.publishCalls, `publishes of container ${container.id}`).toBeLessThanOrEqual(1);

  const [videoRecord] = byText('crash video');
  const [replyRecord] = byText('crash video reply');
  const [carouselRecord] = byText('crash carousel');
  for (const [item, record] of [
    [v, videoRecord],
    [v.thread[0]!, replyRecord],
    [c, carouselRecord],
  ] as const) {
    expect({ state: item.state, error: item.error, releaseId: item.releaseId, releaseURL: item.releaseURL }).toEqual({
      state: 'PUBLISHED',
      error: null,
      releaseId: record!.id,
      releaseURL: record!.permalink,
    });
  }
  expect(replyRecord!.replyTo).toBe(videoRecord!.id);
  expect(videoRecord!.media.map((m) => m.sha256)).toEqual([video.sha256]);
  expect(carouselRecord!.media.map((m) => m.sha256)).toEqual([png.sha256, video.sha256, jpeg.sha256]);
  // The publish answered to the dead process was recognised, not repeated.
  expect(heldContainer.publishCalls).toBe(1);
  expect([videoRecord!.id, carouselRecord!.id]).toContain(heldContainer.publishedId);
}

function baseEnv(sim: ThreadsSimulator): Record<string, string> {
  return {
    PLATFORM_ORIGINS: `${THREADS_WWW_ORIGIN}=${sim.origin},${THREADS_GRAPH_ORIGIN}=${sim.origin}`,
    PUBLIC_URL,
    THREADS_CLIENT_ID: THREADS_APP.clientId,
    THREADS_CLIENT_SECRET: THREADS_APP.clientSecret,
    API_RATE_LIMIT: '100000',
    PLATFORM_TIMEOUT_SECONDS: '30',
    WORKER_HEARTBEAT_SECONDS: '1',
  };
}

async function createOrg(env: Record<string, string>) {
  const r = await runCli(['org', 'create', '--name', 'Crash', '--json'], env);
  if (r.code !== 0) throw new Error(`org create failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { apiKey: string }).apiKey;
}

async function simulator(mediaOrigins: Record<string, string>) {
  // One status read answers IN_PROGRESS: the video goes through a pending check before it is published.
  const sim = await startThreadsSimulator({ mediaOrigins, polls: { VIDEO: 1 } });
  sim.addApp({ ...THREADS_APP, redirectUris: [CALLBACK] });
  sim.addUser(ADA);
  return sim;
}

describe.runIf(testDbKind() === 'pglite')('threads crash: embedded mode, SIGKILL of `tidings serve` during threads_publish', () => {
  const mediaOrigins: Record<string, string> = {};
  let sim: ThreadsSimulator;
  let service: Service;
  let key: string;

  beforeAll(async () => {
    sim = await simulator(mediaOrigins);
    const env = { ...baseEnv(sim), DATA_DIR: mkdtempSync(join(tmpdir(), 'tidings-threads-crash-')) };
    key = await createOrg(env);
    service = new Service(env, mediaOrigins);
    await service.start();
  }, 120_000);
  afterAll(async () => {
    await service?.kill();
    await sim?.close();
  });

  it('restarted, it finishes the video and the carousel without publishing anything twice', async () => {
    await scenario(service, sim, key);
  }, 120_000);
});

describe.runIf(testDbKind() === 'postgres')('threads crash: PostgreSQL mode, SIGKILL of `tidings serve` during threads_publish', () => {
  const mediaOrigins: Record<string, string> = {};
  let sim: ThreadsSimulator;
  let service: Service;
  let key: string;
  let dbUrl: string | undefined;

  beforeAll(async () => {
    const db = await openTestDatabase(inject('testDb'));
    await db.database.close();
    dbUrl = db.url;
    sim = await simulator(mediaOrigins);
    const env = { ...baseEnv(sim), DATABASE_URL: db.url!, CREDENTIALS_SECRET: TEST_SECRET, DATA_DIR: mkdtempSync(join(tmpdir(), 'tidings-threads-crash-pg-')) };
    key = await createOrg(env);
    service = new Service(env, mediaOrigins);
    await service.start();
  }, 120_000);
  afterAll(async () => {
    await service?.kill();
    await sim?.close();
    if (dbUrl) {
      const name = new URL(dbUrl).pathname.slice(1);
      await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });

  it('restarted, it finishes the video and the carousel without publishing anything twice', async () => {
    await scenario(service, sim, key);
  }, 120_000);
});
