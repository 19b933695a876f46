/**
 * Soak run, by hand (never in CI): `npm run build && node --import tsx bench/soak-bench.ts`
 *
 * One API and two workers (`tidings serve --role api|worker`) on a PostgreSQL server of their own
 * (the machine's binaries in a temporary folder, as test/e2e/faults.test.ts starts it), against
 * the Telegram simulator in this process (50 ms latency), for SOAK_MINUTES (default 60) of mixed
 * traffic: every second SOAK_POSTS_PER_SEC posts (default 5) due 0–60 s later over 20 channels,
 * one GET /posts of the coming hour and one GET /integrations. Every SOAK_SAMPLE_SECONDS (60) it
 * samples each process's RSS, the server's open connections (pg_stat_activity) and the publish lag
 * (arrival at the simulator − due) of the posts that arrived since the last sample, and prints one
 * JSON line. At the end: the first and the last sample side by side, duplicates (a text the
 * simulator received twice) and posts still missing 90 s after the last one was due.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startTelegramSimulator } from '../src/platforms/telegram/telegram.simulator.js';
import { findPostgresBin, startPrivatePostgres } from '../test/e2e/private-postgres.js';
import { runCli, startService, type ServiceProcess } from '../test/e2e/processes.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 60);
const RATE = Number(process.env.SOAK_POSTS_PER_SEC ?? 5);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 60) * 1000;
const CHANNELS = 20;
const TOKEN = '515151:SoakBotSecretAAbbCCddEEffGGhhIIjjKK';
const BOT_ID = 515151;
const SECRET = 'soak-secret-0123456789abcdefghijklmnopqrstuvwxyz';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]! : null);
const rssMb = (pid: number) => {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
  } catch {
    return null;
  }
};

const bin = findPostgresBin();
if (!bin) throw new Error("the machine's PostgreSQL binaries (initdb, pg_ctl) were not found");
const server = await startPrivatePostgres(bin);
const sim = await startTelegramSimulator();
sim.addBot(TOKEN, { id: BOT_ID, username: 'soak_bot' });
for (let k = 0; k < CHANNELS; k++) sim.addChat({ id: -1003000000000 - k, title: `Soak ${k}`, admins: [BOT_ID] });
sim.setLatency(50);
const dataDir = mkdtempSync(join(tmpdir(), 'tidings-soak-'));
const env = {
  DATABASE_URL: await server.createDatabase('tidings'),
  CREDENTIALS_SECRET: SECRET,
  DATA_DIR: dataDir,
  PLATFORM_ORIGINS: `https://api.telegram.org=${sim.origin}`,
  ALLOW_PRIVATE_TARGETS: 'true',
  API_RATE_LIMIT: '1000000000',
  LOG_LEVEL: 'warn',
};
const procs: ServiceProcess[] = [];
try {
  if ((await runCli(['migrate'], env)).code !== 0) throw new Error('migrate failed');
  const org = await runCli(['org', 'create', '--name', 'Soak', '--json'], env);
  const apiKey = (JSON.parse(org.stdout) as { apiKey: string }).apiKey;
  // LOG_LEVEL info: startService waits for the start-up line.
  const api = await startService(['--role', 'api'], { ...env, LOG_LEVEL: 'info' });
  procs.push(api, await startService(['--role', 'worker'], { ...env, LOG_LEVEL: 'info' }), await startService(['--role', 'worker'], { ...env, LOG_LEVEL: 'info' }));
  const names = ['api', 'worker1', 'worker2'];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api.url}/public/v1${path}`, {
      method,
      headers: { authorization: apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : undefined) as unknown };
  };
  const channels: string[] = [];
  for (let k = 0; k < CHANNELS; k++) {
    const r = await call('POST', '/social/telegram', { botToken: TOKEN, chatId: String(-1003000000000 - k) });
    if (r.status !== 201) throw new Error(`connect ${k}: ${r.status} ${JSON.stringify(r.json)}`);
    channels.push((r.json as { id: string }).id);
  }

  const due = new Map<string, number>();
  let created = 0;
  let failedRequests = 0;
  let seen = 0;
  const samples: Record<string, unknown>[] = [];
  const admin = new pg.Client({ connectionString: server.url('postgres') });
  await admin.connect();
  const sample = async (minute: number) => {
    const lags: number[] = [];
    for (; seen < sim.log.length; seen++) {
      const e = sim.log[seen]!;
      const at = due.get((e.body as { text?: string } | undefined)?.text ?? '');
      if (e.path.endsWith('/sendMessage') && at !== undefined) lags.push(e.at - at);
    }
    lags.sort((a, b) => a - b);
    const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'tidings'`);
    const s = {
      minute,
      created,
      published: sim.messages.length,
      failedRequests,
      rssMb: Object.fromEntries(procs.map((p, i): [string, number | null] => [names[i]!, rssMb(p.child.pid!)])),
      dbConnections: rows[0]!.n,
      lagMs: { n: lags.length, p50: pct(lags, 50), p99: pct(lags, 99), max: lags.length ? lags[lags.length - 1] : null },
    };
    samples.push(s);
    console.log(JSON.stringify(s));
  };

  const started = Date.now();
  let nextSample = started + SAMPLE_MS;
  let i = 0;
  while (Date.now() - started < MINUTES * 60_000) {
    const tick = Date.now();
    await Promise.all(
      Array.from({ length: RATE }, async () => {
        const n = i++;
        const content = `soak ${n}: a post of mixed traffic, long enough to look like one`;
        const at = Date.now() + Math.floor(Math.random() * 60_000);
        const r = await call('POST', '/posts', {
          type: 'schedule',
          date: new Date(at).toISOString(),
          shortLink: false,
          tags: [],
          posts: [{ integration: { id: channels[n % CHANNELS]! }, value: [{ content, image: [] }] }],
        }).catch(() => ({ status: 0, json: undefined }));
        if (r.status === 201) {
          due.set(content, at);
          created++;
        } else failedRequests++;
      }),
    );
    const hour = new Date(Date.now()).toISOString();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await call('GET', `/posts?startDate=${encodeURIComponent(hour)}&endDate=${encodeURIComponent(later)}`).catch(() => failedRequests++);
    await call('GET', '/integrations').catch(() => failedRequests++);
    if (Date.now() >= nextSample) {
      await sample(Math.round((Date.now() - started) / 60_000));
      nextSample += SAMPLE_MS;
    }
    await sleep(Math.max(0, 1000 - (Date.now() - tick)));
  }
  // The last posts come due within 60 s; give them 90.
  await sleep(90_000);
  await sample(Math.round((Date.now() - started) / 60_000));
  const texts = sim.messages.map((m) => m.text ?? '');
  const received = new Set(texts);
  const missing = [...due.keys()].filter((t) => !received.has(t)).length;
  console.log(JSON.stringify({ summary: { minutes: MINUTES, postsPerSec: RATE, created, duplicates: texts.length - received.size, missing, first: samples[0], last: samples[samples.length - 1] } }));
  await admin.end();
} finally {
  for (const p of procs) await p.stop('SIGTERM');
  await sim.close();
  await server.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}
