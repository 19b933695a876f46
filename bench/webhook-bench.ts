/**
 * Benchmark of webhook delivery, run by hand (never in CI):
 *   npm run build && node --import tsx bench/webhook-bench.ts [embedded|postgres|both]
 *
 * A fast receiver (answers 204 at once, verifies nothing) listens on loopback in this process. The
 * built service runs as child processes: embedded = one `serve` on a fresh DATA_DIR; postgres =
 * one `serve --role api` and one `serve --role worker` on a fresh database `tidings_bench_webhooks`
 * (on BENCH_ADMIN_URL). An organisation is made with the CLI and 50 Telegram channels connected
 * (against the Telegram simulator in this process); events come from the post routes. One webhook
 * (`post.scheduled` only) points at the receiver (ALLOW_PRIVATE_TARGETS=true: it is on loopback).
 *
 * Then BENCH_N events (default 10,000) are made with POST /public/v1/posts: 50 posts a request (the most it takes),
 * 8 requests in flight (BENCH_POST_CONCURRENCY), or paced at BENCH_EVENTS_PER_SEC events a second, each post scheduled a year ahead (so nothing publishes), each emitting one
 * `post.scheduled` event in its transaction. Reported: creation rate, delivery lag per event
 * (arrival at the receiver − the event's `timestamp`) first/p50/p99/max, throughput (deliveries per
 * second from the first to the last arrival), duplicates (a `webhook-id` received twice) and
 * missing events.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTelegramSimulator } from '../src/platforms/telegram/telegram.simulator.js';
import { createDatabase, dropDatabase, percentile, runCli, SECRET, spawnService, startService, stop, waitReady } from './lib.js';

type Mode = 'embedded' | 'postgres';

const PORT = 3919;
const BASE = `http://127.0.0.1:${PORT}/public/v1`;
const N = Number(process.env.BENCH_N ?? 10_000);
const PER_REQUEST = 50;
const CONCURRENCY = Number(process.env.BENCH_POST_CONCURRENCY ?? 8);
/** a steady rate of events (posts) per second instead of as fast as the API takes them: lag while the delivery keeps up */
const RATE = process.env.BENCH_EVENTS_PER_SEC ? Number(process.env.BENCH_EVENTS_PER_SEC) : undefined;
const TOKEN = '777001:WebhookBenchBotSecretAAbbCCddEEffGG';
const BOT_ID = 777001;
const CHAT = -1001000000001;

interface Arrival {
  webhookId: string;
  eventTimestamp: number;
  at: number;
}

async function startReceiver() {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      arrivals.push({ webhookId: String(req.headers['webhook-id']), eventTimestamp: Date.parse(body.timestamp), at });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { arrivals, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => new Promise((r) => server.close(r)) };
}

async function api<T>(apiKey: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
}

async function startStack(mode: Mode, telegram: string): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-webhook-bench-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    API_RATE_LIMIT: '1000000000',
    API_RATE_WINDOW_SECONDS: '60',
    ALLOW_PRIVATE_TARGETS: 'true',
    PLATFORM_ORIGINS: `https://api.telegram.org=${telegram}`,
  };
  if (mode === 'embedded') {
    const { child } = await startService(env, PORT);
    return {
      env,
      async cleanup() {
        await stop(child);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const dbName = 'tidings_bench_webhooks';
  Object.assign(env, { DATABASE_URL: await createDatabase(dbName), CREDENTIALS_SECRET: SECRET });
  await runCli(['migrate'], env);
  const children: ChildProcess[] = [spawnService(['serve', '--role', 'worker'], { ...env, PORT: '0' })];
  const apiChild = spawnService(['serve', '--role', 'api'], { ...env, PORT: String(PORT) });
  children.push(apiChild);
  await waitReady(apiChild, PORT);
  return {
    env,
    async cleanup() {
      await Promise.all(children.map(stop));
      await dropDatabase(dbName);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function run(mode: Mode) {
  const receiver = await startReceiver();
  const sim = await startTelegramSimulator();
  sim.addBot(TOKEN, { id: BOT_ID, username: 'bench_bot' });
  for (let k = 0; k < PER_REQUEST; k++) sim.addChat({ id: CHAT - k, title: `Bench ${k}`, admins: [BOT_ID] });
  const stack = await startStack(mode, sim.origin);
  try {
    const created = JSON.parse(await runCli(['org', 'create', '--name', 'Webhook bench', '--json'], stack.env)) as { apiKey: string };
    const key = created.apiKey;
    // Telegram channels (the simulator in this process), one per post of a request (a request names each channel once); posts never publish.
    const channels: string[] = [];
    for (let k = 0; k < PER_REQUEST; k++) channels.push((await api<{ id: string }>(key, 'POST', '/social/telegram', { botToken: TOKEN, chatId: String(CHAT - k) })).json.id);
    const hook = await api<{ id: string }>(key, 'POST', '/webhooks', { name: 'bench', url: receiver.url, events: ['post.scheduled'] });
    if (hook.status !== 201) throw new Error(`POST /webhooks answered ${hook.status}: ${JSON.stringify(hook.json)}`);
    const date = new Date(Date.now() + 365 * 86_400_000).toISOString();
    const requests = Math.ceil(N / PER_REQUEST);
    const t0 = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests) {
          const i = next++;
          // paced: request i starts at t0 + i × (50 posts ÷ rate)
          if (RATE) await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i * PER_REQUEST * 1000) / RATE - Date.now())));
          const posts = Array.from({ length: Math.min(PER_REQUEST, N - i * PER_REQUEST) }, (_, k) => ({ integration: { id: channels[k]! }, value: [{ content: `bench ${i}-${k}`, image: [] }], settings: {} }));
          const r = await api(key, 'POST', '/posts', { type: 'schedule', date, shortLink: false, tags: [], posts });
          if (r.status !== 201) throw new Error(`POST /posts answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
        }
      }),
    );
    const createdMs = Date.now() - t0;
    const deadline = Date.now() + 300_000;
    while (receiver.arrivals.length < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const lags = receiver.arrivals.map((a) => a.at - a.eventTimestamp).sort((a, b) => a - b);
    const ids = new Set(receiver.arrivals.map((a) => a.webhookId));
    const first = Math.min(...receiver.arrivals.map((a) => a.at));
    const last = Math.max(...receiver.arrivals.map((a) => a.at));
    console.log(
      JSON.stringify({
        mode,
        events: N,
        createRatePerSec: Math.round((N / createdMs) * 1000),
        ...(RATE ? { pacedAt: RATE } : {}),
        received: receiver.arrivals.length,
        duplicates: receiver.arrivals.length - ids.size,
        missing: N - ids.size,
        lagMs: { first: lags[0], p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.at(-1) },
        deliveriesPerSec: Math.round((receiver.arrivals.length / Math.max(1, last - first)) * 1000),
        drainAfterLastCreateMs: last - (t0 + createdMs),
      }),
    );
  } finally {
    await stack.cleanup();
    await receiver.close();
    await sim.close();
  }
}

const which = process.argv[2] ?? 'both';
for (const mode of (which === 'both' ? ['embedded', 'postgres'] : [which]) as Mode[]) await run(mode);
