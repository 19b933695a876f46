import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, startService, type ServiceProcess } from '../../../test/e2e/processes.js';
import { TEST_SECRET } from '../../../test/helpers.js';
import { openTestDatabase, testDbKind, withAdminClient, type TestDatabase } from '../../../test/test-db.js';
import type { PinterestSimulator } from './pinterest.simulator.js';
import { PINTEREST_APP, pinterestSimulator, platformOriginsFor, PNG, RECIPES } from './pinterest.testkit.js';

/**
 * A video pin survives a crash of the service in the middle of its asynchronous flow (real
 * processes, SIGKILL): the video is registered, uploaded and processed, and the service dies just
 * after its pin creation reached Pinterest, before the answer came back. Restarted, the service
 * checks the same publish token again: it finds the pin on the board instead of creating a second
 * one, and the post ends PUBLISHED with that pin. The simulator's records are the verdict.
 */

const PUBLIC_URL = 'https://tidings.example';
const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

interface PostView {
  id: string;
  state: string;
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}

/** The service's processes in one database mode: where the API is, what publishes. */
interface Deployment {
  apiUrl(): string;
  killPublisher(): Promise<void>;
  restartPublisher(): Promise<void>;
  output(): string;
}

async function api<T>(d: Deployment, key: string, method: string, path: string, body?: unknown, status = 200): Promise<T> {
  const isForm = body instanceof FormData;
  const res = await fetch(`${d.apiUrl()}${path}`, {
    method,
    headers: { authorization: key, ...(body === undefined || isForm ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function uploadFile(d: Deployment, key: string, bytes: Buffer, name: string, type: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const item = await api<{ id: string; path: string }>(d, key, 'POST', '/public/v1/upload', form, 201);
  return { id: item.id, path: item.path };
}

async function connect(d: Deployment, key: string): Promise<string> {
  const { url } = await api<{ url: string }>(d, key, 'GET', '/public/v1/social/pinterest');
  const approved = await fetch(url, { redirect: 'manual' });
  const back = new URL(approved.headers.get('location')!);
  const page = await fetch(`${d.apiUrl()}${back.pathname}${back.search}`);
  if (page.status !== 200) throw new Error(`pinterest callback → ${page.status}: ${await page.text()}`);
  const list = await api<{ id: string; identifier: string }[]>(d, key, 'GET', '/public/v1/integrations');
  return list.find((i) => i.identifier === 'pinterest')!.id;
}

/** The crash scenario, the same in both database modes. */
async function videoPinSurvivesCrash(d: Deployment, key: string, sim: PinterestSimulator) {
  const channel = await connect(d, key);
  const video = await uploadFile(d, key, await readFile(VIDEO_FIXTURE), 'clip.mp4', 'video/mp4');
  const cover = await uploadFile(d, key, PNG(77), 'cover.png', 'image/png');

  // Pinterest takes its time to answer the pin creation: the service dies while it waits.
  sim.delayPinCreation(1500);
  const [created] = await api<{ postId: string }[]>(
    d,
    key,
    'POST',
    '/public/v1/posts',
    {
      type: 'now',
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: channel }, settings: { __type: 'pinterest', board: RECIPES, title: 'Crash soup' }, value: [{ content: 'Survives a crash', image: [video, cover] }] }],
    },
    201,
  );
  const isCreate = (l: { method: string; path: string }) => l.method === 'POST' && l.path === '/v5/pins';
  await until(() => sim.log.some(isCreate), 'the pin creation to reach Pinterest');
  const killedAt = Date.now();
  await d.killPublisher();
  // Pinterest finishes the creation the dead process asked for.
  await until(() => sim.pins.length === 1, 'Pinterest to create the pin');
  sim.delayPinCreation(0);

  await d.restartPublisher();
  const post = await until(
    async () => {
      const p = await api<PostView>(d, key, 'GET', `/public/v1/posts/${created!.postId}`);
      return p.state === 'PUBLISHED' || p.state === 'ERROR' ? p : undefined;
    },
    'the post to settle after the restart',
  ).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\n${d.output().slice(-4000)}`);
  });

  const pin = sim.pins[0]!;
  expect({ state: post.state, error: post.error, releaseId: post.releaseId, releaseURL: post.releaseURL }).toEqual({
    state: 'PUBLISHED',
    error: null,
    releaseId: pin.id,
    releaseURL: `https://www.pinterest.com/pin/${pin.id}/`,
  });
  // One pin, one creation request, one registered and uploaded video: nothing was done twice.
  expect(sim.pins).toHaveLength(1);
  expect(sim.log.filter(isCreate)).toHaveLength(1);
  expect(sim.media.size).toBe(1);
  expect([...sim.media.values()][0]!.uploads).toBe(1);
  // The restarted service looked on the board before it could create anything.
  expect(sim.log.some((l) => l.at > killedAt && l.path.startsWith(`/v5/boards/${RECIPES}/pins`))).toBe(true);
  expect(pin).toMatchObject({ description: 'Survives a crash', title: 'Crash soup', sourceType: 'video_id' });
}

function baseEnv(sim: PinterestSimulator): Record<string, string> {
  return {
    PLATFORM_ORIGINS: platformOriginsFor(sim),
    PUBLIC_URL,
    PINTEREST_CLIENT_ID: PINTEREST_APP.clientId,
    PINTEREST_CLIENT_SECRET: PINTEREST_APP.clientSecret,
    API_RATE_LIMIT: '100000',
    WORKER_HEARTBEAT_SECONDS: '1',
  };
}

async function simulator() {
  // Processing done by the first status read after the upload: the flow reaches the pin quickly.
  const sim = await pinterestSimulator({ videoPollsUntilReady: 0 });
  sim.apps.get(PINTEREST_APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/pinterest/callback`];
  return sim;
}

async function createOrg(env: Record<string, string>) {
  const r = await runCli(['org', 'create', '--name', 'Crash', '--json'], env);
  if (r.code !== 0) throw new Error(`org create failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { apiKey: string }).apiKey;
}

describe.runIf(testDbKind() === 'pglite')('pinterest video pin: SIGKILL of `tidings serve` during the pin creation (embedded)', () => {
  let sim: PinterestSimulator;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  let key: string;
  const d: Deployment = {
    apiUrl: () => service!.url,
    async killPublisher() {
      await service?.stop('SIGKILL');
    },
    async restartPublisher() {
      service = await startService([], env);
    },
    output: () => service?.output() ?? '',
  };

  beforeAll(async () => {
    sim = await simulator();
    env = { ...baseEnv(sim), DATA_DIR: mkdtempSync(join(tmpdir(), 'tidings-pinterest-crash-')) };
    key = await createOrg(env);
    service = await startService([], env);
  }, 60_000);
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await sim?.close();
  });

  it('the restarted service finds the pin the dead one asked for, and publishes nothing twice', async () => {
    await videoPinSurvivesCrash(d, key, sim);
  }, 60_000);
});

describe.runIf(testDbKind() === 'postgres')('pinterest video pin: SIGKILL of the worker during the pin creation (PostgreSQL)', () => {
  let db: TestDatabase;
  let sim: PinterestSimulator;
  let env: Record<string, string>;
  let apiProcess: ServiceProcess | undefined;
  let worker: ServiceProcess | undefined;
  let key: string;
  const d: Deployment = {
    apiUrl: () => apiProcess!.url,
    async killPublisher() {
      await worker?.stop('SIGKILL');
      worker = undefined;
      // A worker is taken for dead once its heartbeat is 15 s old: age it rather than wait.
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        await c.query(`UPDATE worker_heartbeats SET beat_at = beat_at - interval '1 hour' WHERE role <> 'api'`);
      } finally {
        await c.end();
      }
    },
    async restartPublisher() {
      worker = await startService(['--role', 'worker'], env);
    },
    output: () => `--- worker\n${worker?.output().slice(-3000) ?? '(not running)'}\n--- api\n${apiProcess?.output().slice(-1000) ?? ''}`,
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('testDb'));
    await db.database.close();
    sim = await simulator();
    env = { ...baseEnv(sim), DATABASE_URL: db.url!, CREDENTIALS_SECRET: TEST_SECRET, DATA_DIR: mkdtempSync(join(tmpdir(), 'tidings-pinterest-crash-pg-')) };
    key = await createOrg(env);
    // The API first: it creates the job queue (see test/e2e/publisher-crash.test.ts).
    apiProcess = await startService(['--role', 'api'], env);
    worker = await startService(['--role', 'worker'], env);
  }, 60_000);
  afterAll(async () => {
    await worker?.stop('SIGKILL');
    await apiProcess?.stop('SIGKILL');
    await sim?.close();
    if (db?.url) {
      const name = new URL(db.url).pathname.slice(1);
      await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });

  it('the restarted worker finds the pin the dead one asked for, and publishes nothing twice', async () => {
    await videoPinSurvivesCrash(d, key, sim);
  }, 60_000);
});
