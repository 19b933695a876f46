/**
 * Benchmark of the publisher and the post routes, run by hand (never in CI):
 *   npm run build && node --import tsx bench/publish-bench.ts [embedded|postgres|both]
 *
 * The Telegram simulator runs in this process with a 50 ms latency per request. The built service
 * runs as child processes: embedded = one `serve` (PGlite in a fresh DATA_DIR); postgres = one
 * `serve --role api` and two `serve --role worker` on a fresh database `tidings_bench`. An
 * organisation is created with the CLI and 100 Telegram channels are connected over HTTP. Then:
 *
 *   1. POST /public/v1/posts throughput: N posts (one per request, spread over the 100 channels,
 *      BENCH_POST_CONCURRENCY requests in flight) all scheduled for the same instant T.
 *   2. Publish lag: for each post, (arrival of its sendMessage at the simulator) − T; p50/p99/max
 *      and the drain time (last arrival − T). Duplicates (a content received twice) are counted,
 *      and the final states are read back with GET /posts.
 *   3. GET /public/v1/posts with 100,000 posts in the database (inserted with one SQL INSERT, spread
 *      over 52 weeks and the 100 channels): autocannon over a one-week and a one-day window, plus
 *      EXPLAIN ANALYZE of the list query.
 *
 * CPU use of each process (and of the whole machine) is sampled from /proc during creation and
 * during the drain; PostgreSQL mode also reports committed transactions per published post.
 *
 * Environment: BENCH_N (default "1000,10000"), BENCH_POST_CONCURRENCY (16), BENCH_SIM_LATENCY_MS
 * (50), BENCH_GET_CONNECTIONS (4), BENCH_ADMIN_URL (see lib.ts), BENCH_SKIP_GET=1,
 * BENCH_DEBUG=1 (every lag to /tmp/publish-bench-<tag>.json), BENCH_KEEP_DB=1 (keep `tidings_bench`
 * for inspection), BENCH_NODE_ARGS (node options of the service processes, e.g. `--cpu-prof`).
 * Other variables (DATABASE_POOL_SIZE, PUBLISH_CONCURRENCY…) pass through to the service.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { startTelegramSimulator, type TelegramSimulator } from '../src/platforms/telegram/telegram.simulator.js';
import { cpuMeter, createDatabase, dropDatabase, percentile, postgresPids, runCli, SECRET, sleep, spawnService, startService, stop, waitReady } from './lib.js';

type Mode = 'embedded' | 'postgres';

const PORT = 3918;
const BASE = `http://127.0.0.1:${PORT}/public/v1`;
const CHANNELS = 100;
const TOKEN = '777000:BenchBotSecretAAbbCCddEEffGGhhIIjj';
const BOT_ID = 777000;
const N_LIST = (process.env.BENCH_N ?? '1000,10000').split(',').map(Number);
const POST_CONCURRENCY = Number(process.env.BENCH_POST_CONCURRENCY ?? 16);
const SIM_LATENCY_MS = Number(process.env.BENCH_SIM_LATENCY_MS ?? 50);
const GET_CONNECTIONS = Number(process.env.BENCH_GET_CONNECTIONS ?? 4);
const SEEDED = 100_000;
const SEED_START = Date.parse('2031-03-03T00:00:00Z');
const WEEK = { startDate: '2031-03-10T00:00:00.000Z', endDate: '2031-03-16T23:59:59.999Z' };
const DAY = { startDate: '2031-03-12T00:00:00.000Z', endDate: '2031-03-12T23:59:59.999Z' };

interface Stack {
  env: Record<string, string>;
  children: ChildProcess[];
  stopAll(): Promise<void>;
  /** embedded: the single service process (restarted around direct database access) */
  restart?(): Promise<void>;
  cleanup(): Promise<void>;
}

const round = (n: number, d = 0) => Math.round(n * 10 ** d) / 10 ** d;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function api<T>(apiKey: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
}

/** Runs `fn(i)` for i in [0, n) with `concurrency` in flight. */
async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function startStack(mode: Mode, sim: TelegramSimulator): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-publish-bench-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    API_RATE_LIMIT: '1000000000',
    API_RATE_WINDOW_SECONDS: '60',
    PLATFORM_ORIGINS: `https://api.telegram.org=${sim.origin}`,
  };
  if (mode === 'embedded') {
    let { child } = await startService(env, PORT);
    const stack: Stack = {
      env,
      get children() {
        return [child];
      },
      stopAll: () => stop(child),
      async restart() {
        ({ child } = await startService(env, PORT));
      },
      async cleanup() {
        await stop(child);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
    return stack;
  }
  const dbName = 'tidings_bench';
  Object.assign(env, { DATABASE_URL: await createDatabase(dbName), CREDENTIALS_SECRET: SECRET });
  await runCli(['migrate'], env);
  // One worker at a time: on a fresh database the first process creates pg-boss's queue, and two
  // processes creating it at once can deadlock (jobs/job-engine.ts ensureQueue; seen in this bench).
  const c = new pg.Client({ connectionString: env.DATABASE_URL });
  await c.connect();
  const workers: ChildProcess[] = [];
  let apiChild: ChildProcess | undefined;
  try {
    for (const k of [1, 2]) {
      workers.push(spawnService(['serve', '--role', 'worker'], { ...env, PORT: '0' }));
      for (let i = 0; ; i++) {
        const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM worker_heartbeats WHERE role = 'worker' AND beat_at > now() - interval '10 seconds'`);
        if (rows[0]!.n >= k) break;
        if (i > 600 || workers.some((w) => w.exitCode !== null)) throw new Error('workers did not start');
        await sleep(100);
      }
    }
    apiChild = spawnService(['serve', '--role', 'api'], { ...env, PORT: String(PORT) });
    await waitReady(apiChild, PORT);
  } catch (e) {
    await Promise.all([...workers, ...(apiChild ? [apiChild] : [])].map(stop));
    throw e;
  } finally {
    await c.end();
  }
  const children: ChildProcess[] = [apiChild, ...workers];
  return {
    env,
    children,
    stopAll: async () => {
      await Promise.all(children.map(stop));
    },
    async cleanup() {
      await Promise.all(children.map(stop));
      if (process.env.BENCH_KEEP_DB !== '1') await dropDatabase(dbName);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function connectChannels(apiKey: string): Promise<string[]> {
  const ids: string[] = [];
  await pool(CHANNELS, 10, async (k) => {
    const r = await api<{ id: string }>(apiKey, 'POST', '/social/telegram', { botToken: TOKEN, chatId: String(-1001000000000 - k) });
    if (r.status !== 201) throw new Error(`connecting channel ${k}: ${r.status} ${JSON.stringify(r.json)}`);
    ids[k] = r.json.id;
  });
  return ids;
}

/** Creates `n` posts (one per request) tagged `tag`, all at `date`; returns the throughput. */
async function createPosts(apiKey: string, channels: string[], n: number, date: string, tag: string) {
  const latencies: number[] = [];
  const postIds: string[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  await pool(n, POST_CONCURRENCY, async (i) => {
    const t0 = performance.now();
    const r = await api<{ postId: string }[]>(apiKey, 'POST', '/posts', {
      type: 'schedule',
      date,
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: channels[i % channels.length] }, value: [{ content: `${tag}-${i} scheduled by the publish benchmark`, image: [] }] }],
    });
    latencies.push(performance.now() - t0);
    if (r.status !== 201) {
      failures++;
      firstFailure ??= `${r.status} ${JSON.stringify(r.json)}`;
    } else {
      postIds.push(r.json[0]!.postId);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const l = sorted(latencies);
  return {
    posts: n,
    seconds: round(seconds, 2),
    reqPerSec: round(n / seconds),
    postsPerSec: round(n / seconds),
    latencyMs: { p50: round(percentile(l, 50), 1), p99: round(percentile(l, 99), 1), max: round(l[l.length - 1]!, 1) },
    failures,
    firstFailure,
    postIds,
  };
}

/** sendMessage arrivals at the simulator for posts of `tag`: first arrival per post, and duplicates. */
function arrivals(sim: TelegramSimulator, tag: string) {
  const re = new RegExp(`${tag}-(\\d+) `);
  const first = new Map<number, number>();
  let total = 0;
  for (const e of sim.log) {
    if (!e.path.endsWith('/sendMessage')) continue;
    const text = (e.body as { text?: unknown } | undefined)?.text;
    const m = typeof text === 'string' ? re.exec(text) : null;
    if (!m) continue;
    total++;
    const i = Number(m[1]);
    if (!first.has(i)) first.set(i, e.at);
  }
  return { first, total, duplicates: total - first.size };
}

type Procs = Record<string, () => number[]>;

function procsOf(mode: Mode, stack: Stack): Procs {
  const pid = (k: number) => () => [stack.children[k]!.pid!];
  return mode === 'embedded' ? { service: pid(0) } : { api: pid(0), worker1: pid(1), worker2: pid(2), postgres: postgresPids };
}

async function lagRun(apiKey: string, channels: string[], sim: TelegramSimulator, n: number, ratePerSec: number, procs: Procs, databaseUrl?: string) {
  /** committed transactions of the bench database so far (PostgreSQL mode) */
  const xacts = async () => {
    if (!databaseUrl) return undefined;
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    const { rows } = await c.query<{ n: string }>(`SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()`);
    await c.end();
    return Number(rows[0]!.n);
  };
  const tag = `lag${n}x${Date.now().toString(36)}`;
  // T leaves room for the creation at 2/3 of the warm-up rate, plus 10 s.
  const leadMs = Math.ceil(((n / ratePerSec) * 1.5 + 10) * 1000);
  const T = Math.ceil((Date.now() + leadMs) / 1000) * 1000;
  const date = new Date(T).toISOString();
  const createCpu = cpuMeter(procs);
  const create = await createPosts(apiKey, channels, n, date, tag);
  const createCpuPct = createCpu();
  const marginMs = T - Date.now();
  if (marginMs < 0) console.error(`warning: creating the posts ended ${-marginMs} ms after T; the lag includes creation`);
  if (marginMs > 0) await sleep(marginMs);
  const drainCpu = cpuMeter(procs);
  const xact0 = await xacts();
  const timeoutMs = Math.max(180_000, n * 30);
  for (;;) {
    const a = arrivals(sim, tag);
    if (a.first.size >= n || Date.now() > T + timeoutMs) break;
    await sleep(100);
  }
  const drainCpuPct = drainCpu();
  const load = loadavg();
  await sleep(1000); // statistics reach pg_stat_database within a second
  const xact1 = await xacts();
  await sleep(3000); // late duplicates
  const a = arrivals(sim, tag);
  const lags = sorted([...a.first.values()].map((at) => at - T));
  if (process.env.BENCH_DEBUG === '1') {
    const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !a.first.has(i));
    writeFileSync(`/tmp/publish-bench-${tag}.json`, JSON.stringify({ T, lags, missing, arrivals: [...a.first.entries()] }));
  }
  const states: Record<string, number> = {};
  // One GET per post (GET /posts refuses a window of more than 5,000 posts, and all are due at T).
  await pool(create.postIds.length, POST_CONCURRENCY, async (i) => {
    const p = await api<{ state: string }>(apiKey, 'GET', `/posts/${create.postIds[i]}`);
    states[p.json.state] = (states[p.json.state] ?? 0) + 1;
  });
  return {
    n,
    create: { ...create, postIds: undefined, marginBeforeTMs: marginMs, cpuPct: createCpuPct },
    received: a.first.size,
    missing: n - a.first.size,
    duplicates: a.duplicates,
    lagMs: {
      first: lags[0],
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags[lags.length - 1],
    },
    drainMs: lags[lags.length - 1],
    publishRatePerSec: lags.length > 1 ? round(((lags.length - 1) / (lags[lags.length - 1]! - lags[0]!)) * 1000) : undefined,
    finalStates: states,
    drainCpuPct,
    loadavg: load,
    dbCommitsPerPost: xact0 === undefined || xact1 === undefined ? undefined : round((xact1 - xact0) / n, 1),
  };
}

type Query = (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/** Inserts SEEDED root posts over 52 weeks from SEED_START (about 1,900 a week, 275 a day), round-robin over the org's channels. */
async function seedPosts(q: Query, orgId: string) {
  const started = performance.now();
  await q(
    `INSERT INTO posts (organization_id, integration_id, "group", state, publish_date, content, release_id, release_url, published_at, creation_method)
     SELECT $1::uuid, c.id, 'seed-' || g, 'PUBLISHED', $2::timestamptz + g * (interval '364 days' / ${SEEDED}),
            'Seeded post ' || g || ': a calendar entry of typical length, with a sentence or two of text and a link https://example.com/p/' || g,
            'r' || g, 'https://t.me/bench/' || g, $2::timestamptz + g * (interval '364 days' / ${SEEDED}), 'API'
       FROM generate_series(0, ${SEEDED - 1}) g
       JOIN (SELECT id, (row_number() OVER (ORDER BY id)) - 1 AS k FROM integrations WHERE organization_id = $1::uuid) c ON c.k = g % ${CHANNELS}`,
    [orgId, new Date(SEED_START).toISOString()],
  );
  const insertMs = Math.round(performance.now() - started);
  await q('ANALYZE posts');
  await q('ANALYZE integrations');
  return insertMs;
}

/** EXPLAIN ANALYZE of the two queries of GET /posts (posts.repository.ts listRoots), as drizzle sends them. */
async function explainList(q: Query, orgId: string, w: { startDate: string; endDate: string }) {
  const roots = `SELECT p.*, i.id AS i_id, i.identifier, i.name, i.picture FROM posts p JOIN integrations i ON i.id = p.integration_id
    WHERE p.organization_id = $1 AND p.parent_post_id IS NULL AND p.deleted_at IS NULL AND p.publish_date >= $2 AND p.publish_date <= $3 AND i.deleted_at IS NULL
    ORDER BY p.publish_date, p.created_at, p.id LIMIT 10000`;
  const vals = [orgId, w.startDate, w.endDate];
  const lines = (rows: Record<string, unknown>[]) => rows.map((r) => String(Object.values(r)[0])).map((l) => (l.length > 240 ? `${l.slice(0, 240)}…` : l));
  const plan1 = lines((await q(`EXPLAIN (ANALYZE, BUFFERS) ${roots}`, vals)).rows);
  const ids = (await q(`SELECT p.id FROM (${roots}) p`, vals)).rows.map((r) => String(r.id));
  const items = `SELECT * FROM posts WHERE parent_post_id IN (${ids.map((_, k) => `$${k + 1}`).join(', ')}) AND deleted_at IS NULL ORDER BY position`;
  const plan2 = ids.length ? lines((await q(`EXPLAIN (ANALYZE, BUFFERS) ${items}`, ids)).rows) : [];
  return { roots: plan1, items: plan2, rootCount: ids.length };
}

async function autocannonGet(apiKey: string, path: string, connections: number) {
  const r = await autocannon({ url: `${BASE}${path}`, connections, duration: 10, timeout: 120, headers: { authorization: apiKey } });
  // Requests still in flight when autocannon stops keep the service busy: wait until it is idle.
  for (;;) {
    const s0 = performance.now();
    await fetch(`http://127.0.0.1:${PORT}/readyz`);
    if (performance.now() - s0 < 100) break;
    await sleep(500);
  }
  return {
    connections,
    reqPerSec: round(r.requests.average, 1),
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

async function getBench(apiKey: string, w: { startDate: string; endDate: string }) {
  const path = `/posts?startDate=${encodeURIComponent(w.startDate)}&endDate=${encodeURIComponent(w.endDate)}`;
  const t0 = performance.now();
  const res = await fetch(`${BASE}${path}`, { headers: { authorization: apiKey } });
  const body = await res.text();
  const singleMs = round(performance.now() - t0, 1);
  const count = (JSON.parse(body) as { posts: unknown[] }).posts.length;
  return {
    window: `${w.startDate} .. ${w.endDate}`,
    postsReturned: count,
    responseBytes: body.length,
    firstRequestMs: singleMs,
    sequential: await autocannonGet(apiKey, path, 1),
    ...(await autocannonGet(apiKey, path, GET_CONNECTIONS)),
    loadavg: loadavg(),
  };
}

async function run(mode: Mode) {
  const sim = await startTelegramSimulator();
  sim.addBot(TOKEN, { id: BOT_ID, username: 'bench_bot' });
  for (let k = 0; k < CHANNELS; k++) sim.addChat({ id: -1001000000000 - k, title: `Bench ${k}`, admins: [BOT_ID] });
  sim.setLatency(SIM_LATENCY_MS);
  const stack = await startStack(mode, sim);
  try {
    const created = JSON.parse(await runCli(['org', 'create', '--name', 'Bench', '--json'], stack.env)) as { organization: { id: string }; apiKey: string };
    const { apiKey } = created;
    const orgId = created.organization.id;
    const channels = await connectChannels(apiKey);

    // Warm-up (JIT, pools) and a first rate for choosing T: 200 posts far in the future.
    const warm = await createPosts(apiKey, channels, 200, '2035-01-01T00:00:00Z', 'warmup');
    const lag = [];
    for (const n of N_LIST) {
      const r = await lagRun(apiKey, channels, sim, n, lag.length ? lag[lag.length - 1]!.create.postsPerSec : warm.postsPerSec, procsOf(mode, stack), stack.env.DATABASE_URL);
      console.error(JSON.stringify({ mode, ...r }));
      lag.push(r);
    }

    let get: unknown;
    if (process.env.BENCH_SKIP_GET !== '1') {
      let insertMs: number;
      let plans: { week: Awaited<ReturnType<typeof explainList>>; day: Awaited<ReturnType<typeof explainList>> };
      if (mode === 'embedded') {
        // PGlite belongs to one process: stop the service, write to the folder, start it again.
        await stack.stopAll();
        const deps = await createDeps(loadConfig(stack.env), { withoutJobs: true });
        const q: Query = (t, v) => deps.database.sql.executeSql(t, v);
        try {
          insertMs = await seedPosts(q, orgId);
          plans = { week: await explainList(q, orgId, WEEK), day: await explainList(q, orgId, DAY) };
        } finally {
          await deps.close();
        }
        await stack.restart!();
      } else {
        const c = new pg.Client({ connectionString: stack.env.DATABASE_URL });
        await c.connect();
        const q: Query = (t, v) => c.query(t, v);
        try {
          insertMs = await seedPosts(q, orgId);
          plans = { week: await explainList(q, orgId, WEEK), day: await explainList(q, orgId, DAY) };
        } finally {
          await c.end();
        }
      }
      get = { seededPosts: SEEDED, insertMs, week: await getBench(apiKey, WEEK), day: await getBench(apiKey, DAY), plans };
    }
    return { mode, simLatencyMs: SIM_LATENCY_MS, postConcurrency: POST_CONCURRENCY, warmup: warm, lag, get };
  } finally {
    await stack.cleanup();
    await sim.close();
  }
}

function table(results: Awaited<ReturnType<typeof run>>[]) {
  const out: string[] = [];
  out.push('| mode | N | POST req/s (= posts/s) | POST p50 / p99 ms | lag first ms | lag p50 ms | lag p99 ms | lag max ms | drain ms | publish rate /s | received | duplicates | final states | CPU % during drain |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const l of r.lag) {
      out.push(
        `| ${r.mode} | ${l.n} | ${l.create.reqPerSec} | ${l.create.latencyMs.p50} / ${l.create.latencyMs.p99} | ${l.lagMs.first} | ${l.lagMs.p50} | ${l.lagMs.p99} | ${l.lagMs.max} | ${l.drainMs} | ${l.publishRatePerSec} | ${l.received}/${l.n} | ${l.duplicates} | ${JSON.stringify(l.finalStates)} | ${JSON.stringify(l.drainCpuPct)} |`,
      );
    }
  }
  out.push('');
  out.push(`| mode | window | posts returned | response bytes | 1 conn: req/s | p50 ms | p99 ms | ${GET_CONNECTIONS} conns: req/s | p50 ms | p99 ms | max ms |`);
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const g = r.get as { week: Awaited<ReturnType<typeof getBench>>; day: Awaited<ReturnType<typeof getBench>> } | undefined;
    if (!g) continue;
    for (const [name, w] of [['week', g.week], ['day', g.day]] as const) {
      const q = w.sequential;
      out.push(
        `| ${r.mode} | ${name} | ${w.postsReturned} | ${w.responseBytes} | ${q.reqPerSec} | ${q.latencyMs.p50} | ${q.latencyMs.p99} | ${w.reqPerSec} | ${w.latencyMs.p50} | ${w.latencyMs.p99} | ${w.latencyMs.max} |`,
      );
    }
  }
  return out.join('\n');
}

const which = process.argv[2] ?? 'both';
const modes: Mode[] = which === 'both' ? ['embedded', 'postgres'] : [which as Mode];
const results = [];
for (const mode of modes) {
  const r = await run(mode);
  console.log(JSON.stringify(r));
  results.push(r);
}
console.log(table(results));
