import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder } from '../media.js';
import { testDbKind } from '../test-db.js';
import { runCli, startService, type ServiceProcess } from './processes.js';

/**
 * A worker killed during an encode (issue 19), with real processes: `tidings serve` (embedded) is
 * sent SIGKILL while ffmpeg is encoding, then restarted. The job is taken back and encoded again
 * (one retry), no half-written media item or file is left, the credit is charged once; a job killed
 * on both attempts fails and its credit is refunded.
 */

interface Job {
  id: string;
  status: string;
  stage: string | null;
  progress: number;
  attempts: number;
  creditState: string;
  error: string | null;
  media: { id: string; duration: number; width: number; height: number } | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil<T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** ffmpeg processes whose command line names this folder. */
function encodersIn(dir: string): number {
  try {
    return execFileSync('pgrep', ['-f', `ffmpeg.*${dir}`]).toString().trim().split('\n').filter(Boolean).length;
  } catch {
    return 0; // pgrep exits 1 when nothing matches
  }
}

describe.runIf(testDbKind() === 'pglite')('video worker crash: SIGKILL of `tidings serve` during an encode (real processes)', () => {
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  let key: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-video-crash-'));

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${service!.url}/public/v1${path}`, {
      method,
      headers: { authorization: key, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) };
  };
  const job = async (id: string) => (await api('GET', `/video/jobs/${id}`)).json as Job;
  const start = async () => {
    service = await startService([], env);
  };
  const attemptDir = (id: string, attempt: number) => join(dataDir, 'tmp', 'video', 'jobs', `${id}-${attempt}`);
  /** Waits until attempt `attempt` of the job is encoding, then SIGKILLs the service (its ffmpeg lives on, orphaned). */
  const killDuringEncode = async (id: string, attempt: number) => {
    await waitUntil(async () => ((j) => (j.status === 'running' && j.attempts === attempt && j.stage === 'encoding' && j.progress >= 0.15 ? j : undefined))(await job(id)), 120_000, `attempt ${attempt} of ${id} to be encoding`);
    expect(encodersIn(attemptDir(id, attempt))).toBe(1);
    await service!.stop('SIGKILL');
    service = undefined;
  };
  /** Restarts the service; its recovery stops the orphaned encoder of the killed attempt and removes its folder. */
  const restartAfter = async (id: string, attempt: number) => {
    await start();
    await waitUntil(async () => (encodersIn(attemptDir(id, attempt)) === 0 ? true : undefined), 15_000, 'the orphaned ffmpeg to be stopped');
  };

  // 4 slides of 3 s, 1080×1920 with fades: long enough to be killed mid-encode.
  const params = { slides: [1, 2, 3, 4].map((n) => ({ text: `Slide ${n} of a video that is killed while it encodes`, caption: `caption ${n}`, duration: 3 })) };

  beforeAll(async () => {
    env = { DATA_DIR: dataDir, WORKER_HEARTBEAT_SECONDS: '1', API_RATE_LIMIT: '100000' };
    const r = await runCli(['org', 'create', '--name', 'Crash', '--json'], env);
    if (r.code !== 0) throw new Error(`org create failed: ${r.stderr}`);
    key = (JSON.parse(r.stdout) as { apiKey: string }).apiKey;
    await start();
  }, 120_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
  });

  let first: string;
  const async = { prefer: 'respond-async' };

  it('over real HTTP, a short video answers 201 with the media item once made (the request waits for it)', async () => {
    const made = await api('POST', '/generate-video', { type: 'slides', output: 'horizontal', customParams: { slides: [{ text: 'quick', duration: 1 }] } });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect(made.json).toMatchObject({ type: 'video', width: 1920, height: 1080, mimeType: 'video/mp4' });
    first = (made.json as { id: string }).id;
  }, 120_000);

  it('the killed encode is retried once and stored once; charged once', async () => {
    const made = await api('POST', '/generate-video', { type: 'slides', output: 'vertical', customParams: params }, async);
    expect(made.status, JSON.stringify(made.json)).toBe(202);
    const id = (made.json as Job).id;
    await killDuringEncode(id, 1);
    // Nothing of the interrupted attempt reached the library.
    expect(await filesUnder(join(dataDir, 'media'))).toHaveLength(1);

    await restartAfter(id, 1);
    const done = await waitUntil(async () => ((j) => (j.status === 'succeeded' || j.status === 'failed' ? j : undefined))(await job(id)), 180_000, 'the retried job');
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'succeeded', attempts: 2, creditState: 'spent', media: { width: 1080, height: 1920 } });
    expect(done.media!.duration).toBeCloseTo(12, 0);
    const library = (await api('GET', '/media')).json as { media: { id: string }[] };
    expect(library.media.map((m) => m.id).sort()).toEqual([first, done.media!.id].sort());
    expect(await filesUnder(join(dataDir, 'media'))).toHaveLength(2);
    expect((await api('GET', '/video/credits')).json).toMatchObject({ used: 2, reserved: 0 });
    // The scratch folders of both attempts are gone.
    expect(await filesUnder(join(dataDir, 'tmp', 'video', 'jobs'))).toEqual([]);
  }, 420_000);

  it('a job killed on both attempts fails and is refunded (retried only once)', async () => {
    const made = await api('POST', '/generate-video', { type: 'slides', output: 'vertical', customParams: params }, async);
    expect(made.status).toBe(202);
    const id = (made.json as Job).id;
    await killDuringEncode(id, 1);
    await restartAfter(id, 1);
    await killDuringEncode(id, 2);
    await restartAfter(id, 2);
    const failed = await waitUntil(async () => ((j) => (j.status === 'failed' ? j : undefined))(await job(id)), 60_000, 'the job to fail');
    expect(failed).toMatchObject({ attempts: 2, creditState: 'refunded', media: null, error: expect.stringMatching(/worker stopped during the generation \(2 attempts\)/) });
    expect((await api('GET', '/video/credits')).json).toMatchObject({ used: 2, reserved: 0 });
    expect(((await api('GET', '/media')).json as { media: unknown[] }).media).toHaveLength(2);
    expect(await filesUnder(join(dataDir, 'tmp', 'video', 'jobs'))).toEqual([]);
  }, 420_000);
});
