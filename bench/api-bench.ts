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
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const PORT = 3917;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m![1]) / 1024);
}

async function seed(env: Record<string, string>): Promise<string> {
  const deps = await createDeps(loadConfig(env), { withoutJobs: true });
  try {
    const { organization, apiKey } = await deps.services.organizations.createOrganization('Bench');
    for (let i = 0; i < 5; i++) {
      await deps.repositories.integrations.insertIntegration({
        organizationId: organization.id,
        identifier: ['x', 'bluesky', 'linkedin', 'mastodon', 'telegram'][i]!,
        internalId: String(i),
        name: `Channel ${i}`,
        profile: `handle${i}`,
        credentials: deps.secretBox.seal(JSON.stringify({ accessToken: `t${i}` })),
      });
    }
    return apiKey;
  } finally {
    await deps.close();
  }
}

async function startService(env: Record<string, string>): Promise<{ child: ChildProcess; readyMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'dist/main.js'), 'serve'], {
    env: { ...process.env, ...env, PORT: String(PORT), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/readyz`);
      if (res.status === 200) return { child, readyMs: Math.round(performance.now() - started) };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error('service exited');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stop(child: ChildProcess) {
  const done = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await done;
}

async function run(mode: 'embedded' | 'postgres') {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-bench-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, API_RATE_LIMIT: '1000000000', API_RATE_WINDOW_SECONDS: '60' };
  let dbName: string | undefined;
  if (mode === 'postgres') {
    dbName = `tidings_bench_${process.pid}`;
    const c = new pg.Client({ connectionString: ADMIN_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName}`);
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    const u = new URL(ADMIN_URL);
    u.pathname = `/${dbName}`;
    Object.assign(env, { DATABASE_URL: u.toString(), CREDENTIALS_SECRET: SECRET });
  }
  // First start on an empty folder/database (initdb + migrations), then the measured restart.
  const first = await startService(env);
  await stop(first.child);
  const apiKey = await seed(env);
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
  if (dbName) {
    const c = new pg.Client({ connectionString: ADMIN_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
  }
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
