import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { runCli, startService, type ServiceProcess } from '../../../test/e2e/processes.js';
import { TEST_SECRET } from '../../../test/helpers.js';
import { openTestDatabase, testDbKind, withAdminClient } from '../../../test/test-db.js';
import { VIDEO_FIXTURE } from './meta-api.testkit.js';
import type { MetaSimulator, MetaSimulatorOptions } from './meta.simulator.js';
import { FB_APP, IG_APP, IG_LOGIN_APP, metaSimulator, platformOriginsEnv } from './meta.testkit.js';

/**
 * Crash tests of the Meta platforms' asynchronous flows with real processes: `tidings serve`
 * (embedded PGlite, or one process on the test's PostgreSQL database) against the Meta simulator
 * in this process, killed with SIGKILL in the middle of a flow and started again. The verdict
 * comes from the simulator's own records.
 */

export const CRASH_PUBLIC_URL = 'https://tidings.example';

export interface CrashWorld {
  sim: MetaSimulator;
  /** the running service's base URL */
  url(): string;
  start(): Promise<void>;
  kill(): Promise<void>;
  api<T>(method: string, path: string, body?: unknown, status?: number): Promise<T>;
  /** connects a channel through the API and the simulator's approval; its id */
  connect(identifier: string): Promise<string>;
  upload(bytes: Buffer, filename: string, type: string): Promise<{ id: string; path: string }>;
  output(): string;
  close(): Promise<void>;
}

export async function startCrashWorld(simOpts: MetaSimulatorOptions = {}): Promise<CrashWorld> {
  const mediaOrigins: Record<string, string> = {};
  const sim = await metaSimulator({ ...simOpts, mediaOrigins });
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-meta-crash-'));
  let dbUrl: string | undefined;
  if (testDbKind() === 'postgres') {
    const db = await openTestDatabase(inject('testDb'));
    await db.database.close();
    dbUrl = db.url;
  }
  const env: Record<string, string> = {
    PLATFORM_ORIGINS: platformOriginsEnv(sim),
    PUBLIC_URL: CRASH_PUBLIC_URL,
    API_RATE_LIMIT: '100000',
    PLATFORM_TIMEOUT_SECONDS: '60',
    WORKER_HEARTBEAT_SECONDS: '1',
    DATA_DIR: dataDir,
    FACEBOOK_CLIENT_ID: FB_APP.clientId,
    FACEBOOK_CLIENT_SECRET: FB_APP.clientSecret,
    INSTAGRAM_CLIENT_ID: IG_APP.clientId,
    INSTAGRAM_CLIENT_SECRET: IG_APP.clientSecret,
    INSTAGRAM_STANDALONE_CLIENT_ID: IG_LOGIN_APP.clientId,
    INSTAGRAM_STANDALONE_CLIENT_SECRET: IG_LOGIN_APP.clientSecret,
    ...(dbUrl ? { DATABASE_URL: dbUrl, CREDENTIALS_SECRET: TEST_SECRET } : {}),
  };
  const org = await runCli(['org', 'create', '--name', 'Crash', '--json'], env);
  if (org.code !== 0) throw new Error(`org create failed: ${org.stderr}`);
  const key = (JSON.parse(org.stdout) as { apiKey: string }).apiKey;
  let service: ServiceProcess | undefined;
  let lastOutput = '';

  const world: CrashWorld = {
    sim,
    url: () => service!.url,
    async start() {
      service = await startService([], env);
      // Instagram pulls the media from the service, which listens on a new port each start.
      mediaOrigins[CRASH_PUBLIC_URL] = service.url;
    },
    async kill() {
      if (!service) return;
      lastOutput = service.output();
      await service.stop('SIGKILL');
      service = undefined;
    },
    async api<T>(method: string, path: string, body?: unknown, status = 200): Promise<T> {
      const res = await fetch(`${service!.url}${path}`, {
        method,
        headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status !== status) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async connect(identifier: string) {
      const { url } = await world.api<{ url: string }>('GET', `/public/v1/social/${identifier}`);
      const approved = await fetch(url, { redirect: 'manual' });
      const back = new URL(approved.headers.get('location')!);
      const page = await fetch(`${service!.url}${back.pathname}${back.search}`);
      if (page.status !== 200) throw new Error(`${identifier} callback → ${page.status}: ${await page.text()}`);
      const list = await world.api<{ id: string; identifier: string }[]>('GET', '/public/v1/integrations');
      return list.find((i) => i.identifier === identifier)!.id;
    },
    async upload(bytes: Buffer, filename: string, type: string) {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type }), filename);
      const res = await fetch(`${service!.url}/public/v1/upload`, { method: 'POST', headers: { authorization: key }, body: form });
      if (res.status !== 201) throw new Error(`upload → ${res.status}: ${await res.text()}`);
      return (await res.json()) as { id: string; path: string };
    },
    output: () => service?.output() ?? lastOutput,
    async close() {
      await world.kill();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
      if (dbUrl) {
        const name = new URL(dbUrl).pathname.slice(1);
        await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      }
    },
  };
  await world.start();
  return world;
}

/** Polls `fn` until it returns a value (real time: the service runs its own clock). */
export async function until<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, what: string, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface CrashPostView {
  state: string;
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  attemptState?: string | null;
  nextAttemptAt: string | null;
}

/** A wait of the crash flow: what must hold, how long to wait for it, and what it is called in a timeout. */
export interface CrashWait {
  check: () => boolean;
  timeoutMs: number;
  what: string;
  everyMs?: number;
}

/**
 * The flow both Meta crash tests share: a post of the video fixture named 'Crash reel' on
 * `channel` with `settings`; the service killed once `inFlight` holds (PGlite: the simulator is
 * slowed by `latencyMs`, so the request is still in flight) or, on PostgreSQL, once `started`
 * holds and the post waits between steps (`between` names that wait); `whileDown` runs while the
 * service is down; then restarted, the post once it ended (the service's output in a timeout).
 */
export async function reelThroughACrash(
  w: CrashWorld,
  opts: { channel: string; settings: Record<string, unknown>; latencyMs: number; inFlight: CrashWait; started: CrashWait; between: string; whileDown?: () => void },
): Promise<{ post: CrashPostView; bytes: Buffer }> {
  const mode = testDbKind();
  const bytes = await readFile(VIDEO_FIXTURE);
  const clip = await w.upload(bytes, 'reel.mp4', 'video/mp4');
  if (mode === 'pglite') w.sim.setLatency(opts.latencyMs);
  const [created] = await w.api<{ postId: string }[]>(
    'POST',
    '/public/v1/posts',
    { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: opts.channel }, settings: opts.settings, value: [{ content: 'Crash reel', image: [{ id: clip.id, path: clip.path }] }] }] },
    201,
  );
  const postId = created!.postId;
  if (mode === 'pglite') {
    await until(opts.inFlight.check, opts.inFlight.timeoutMs, opts.inFlight.what, opts.inFlight.everyMs);
  } else {
    await until(opts.started.check, opts.started.timeoutMs, opts.started.what, opts.started.everyMs);
    await until(async () => {
      const p = await w.api<CrashPostView>('GET', `/public/v1/posts/${postId}`);
      return p.nextAttemptAt !== null && Date.parse(p.nextAttemptAt) > Date.now() + 500;
    }, 10_000, opts.between);
  }
  await w.kill();
  opts.whileDown?.();
  w.sim.setLatency(0);
  await w.start();
  const post = await until(
    async () => {
      const p = await w.api<CrashPostView>('GET', `/public/v1/posts/${postId}`);
      return p.state === 'PUBLISHED' || p.state === 'ERROR' ? p : undefined;
    },
    25_000,
    'the reel to be published',
    100,
  ).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\n${w.output().slice(-4000)}`, { cause: e });
  });
  return { post, bytes };
}
