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
 * PostgreSQL mode uses BENCH_DATABASE_URL (default: a new database on the local server).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createDatabase, dropDatabase, rssMb, SECRET, seedOrganization, startService as startOn, stop } from './lib.js';

const PORT = 3917;

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
  const { child, readyMs } = await startService(env);
  await new Promise((r) => setTimeout(r, 5000));
  const idleRss = rssMb(child.pid!);

  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}/public/v1/integrations`,
    connections: 50,
    duration: 10,
    headers: { authorization: apiKey },
  });
  const afterRss = rssMb(child.pid!);
  await stop(child);
  rmSync(dataDir, { recursive: true, force: true });
  if (dbName) await dropDatabase(dbName);
  return {
    mode,
    firstStartReadyMs: first.readyMs,
    readyMs,
    idleRssMb: idleRss,
    reqPerSec: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p97_5: result.latency.p97_5, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    rssAfterLoadMb: afterRss,
  };
}

const which = process.argv[2] ?? 'both';
const modes = which === 'both' ? (['embedded', 'postgres'] as const) : [which as 'embedded' | 'postgres'];
for (const mode of modes) console.log(JSON.stringify(await run(mode)));
