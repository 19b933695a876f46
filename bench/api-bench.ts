/**
 * Benchmark of the API foundation, run by hand (never in CI):
 *   npm run build && node --import tsx bench/api-bench.ts [embedded|postgres|both]
 *
 * For each mode it seeds an organisation with 5 channels, then starts the built service
 * (`node dist/main.js serve`) as a child process and measures:
 *   - time to ready: spawn → /readyz 200, on a fresh data folder and again on the existing one;
 *   - idle RSS of the service (VmRSS from /proc after 5 s idle);
 *   - autocannon: authenticated GET /public/v1/integrations, 50 connections, 10 s, with the
 *     rate limit raised (API_RATE_LIMIT=1e9 in a 60 s window);
 *   - RSS after the load.
 * PostgreSQL mode creates its own database on BENCH_ADMIN_URL, and also runs the bare baseline
 * (`bare-api.ts`: a plain Fastify server doing the same work per request) on that database with
 * the same autocannon settings, right after the service's run, then prints its line and the
 * ratios (Tidings ÷ bare: throughput, and p99 latency).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createDatabase, dropDatabase, ROOT, rssMb, SECRET, seedOrganization, startService as startOn, stop, waitReady } from './lib.js';

const PORT = 3917;
const BARE_PORT = 3918;
const CONNECTIONS = 50;
const DURATION_S = 10;

let bareChild: ChildProcess | undefined;
process.on('exit', () => bareChild?.kill('SIGKILL'));

/** The bare baseline (bare-api.ts) as a child process on BARE_PORT; ready = /readyz 200. */
async function startBare(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-api.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(BARE_PORT) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  bareChild = child;
  await waitReady(child, BARE_PORT);
  return child;
}

/** autocannon on GET /public/v1/integrations of `port` with `apiKey`: 50 connections, 10 s. */
async function load(port: number, apiKey: string) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/public/v1/integrations`,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { authorization: apiKey },
  });
  return {
    reqPerSec: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p97_5: result.latency.p97_5, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** The body both servers answer (the baseline must do the same work: same channels, same JSON). */
async function body(port: number, apiKey: string) {
  const res = await fetch(`http://127.0.0.1:${port}/public/v1/integrations`, { headers: { authorization: apiKey } });
  if (res.status !== 200) throw new Error(`:${port} answered ${res.status}`);
  return (await res.json()) as { id: string }[];
}

function startService(env: Record<string, string>) {
  return startOn(env, PORT);
}

async function run(mode: 'embedded' | 'postgres') {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-bench-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, API_RATE_LIMIT: '1000000000', API_RATE_WINDOW_SECONDS: '60' };
  let dbName: string | undefined;
  if (mode === 'postgres') {
    dbName = `tidings_bench_${process.pid}`;
    Object.assign(env, { DATABASE_URL: await createDatabase(dbName), CREDENTIALS_SECRET: SECRET });
  }
  // First start on an empty folder/database (initdb + migrations), then the measured restart.
  const first = await startService(env);
  await stop(first.child);
  const apiKey = await seedOrganization(env);
  // The baseline gets an organisation of its own (the same 5 channels): its rate-limit log and
  // counter row are not the ones the service's run just filled.
  const bareKey = mode === 'postgres' ? await seedOrganization(env) : undefined;
  const { child, readyMs } = await startService(env);
  await new Promise((r) => setTimeout(r, 5000));
  const idleRss = rssMb(child.pid!);

  let bare: ChildProcess | undefined;
  try {
    if (bareKey) {
      bare = await startBare(env);
      const [ours, theirs] = [await body(PORT, apiKey), await body(BARE_PORT, bareKey)];
      if (ours.length !== 5 || theirs.length !== 5) throw new Error(`expected 5 channels from both, got ${ours.length} and ${theirs.length}`);
      const shape = (list: Record<string, unknown>[]) => JSON.stringify(list.map((c) => Object.keys(c).sort()));
      if (shape(ours) !== shape(theirs)) throw new Error(`the baseline's body differs from the service's:\n${JSON.stringify(ours[0])}\n${JSON.stringify(theirs[0])}`);
    }
    const result = await load(PORT, apiKey);
    const afterRss = rssMb(child.pid!);
    await stop(child);
    const tidings = { mode, firstStartReadyMs: first.readyMs, readyMs, idleRssMb: idleRss, ...result, rssAfterLoadMb: afterRss };
    if (!bare || !bareKey) return [tidings];
    const baseline = { mode: `${mode}-bare-fastify`, ...(await load(BARE_PORT, bareKey)), rssAfterLoadMb: rssMb(bare.pid!) };
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    return [
      tidings,
      baseline,
      {
        compare: `${mode}: Tidings ÷ bare Fastify`,
        throughput: ratio(tidings.reqPerSec, baseline.reqPerSec),
        p99: ratio(tidings.latencyMs.p99, baseline.latencyMs.p99),
        aim: 'throughput ≥ 0.9, p99 ≤ 1.2',
      },
    ];
  } finally {
    await stop(child);
    if (bare) await stop(bare);
    rmSync(dataDir, { recursive: true, force: true });
    if (dbName) await dropDatabase(dbName);
  }
}

const which = process.argv[2] ?? 'both';
const modes = which === 'both' ? (['embedded', 'postgres'] as const) : [which as 'embedded' | 'postgres'];
for (const mode of modes) for (const line of await run(mode)) console.log(JSON.stringify(line));
