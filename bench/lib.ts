/**
 * Helpers shared by the benchmarks (api-bench.ts, publish-bench.ts): the built service as child
 * processes, throwaway PostgreSQL databases, RSS and percentiles.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz';
export const MAIN = join(ROOT, 'dist/main.js');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m![1]) / 1024);
}

const live = new Set<ChildProcess>();
// A bench that dies must not leave services behind (a stray worker would reconnect to the next
// run's database of the same name and take its jobs).
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/**
 * Spawns `node dist/main.js <args>` with `env` added to this process's environment.
 * BENCH_NODE_ARGS adds node options to the service processes (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export function spawnService(args: string[], env: Record<string, string>): ChildProcess {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  live.add(child);
  child.on('exit', () => live.delete(child));
  return child;
}

/** Resolves when GET /readyz on `port` answers 200; rejects when `child` exits first. */
export async function waitReady(child: ChildProcess, port: number, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode})`);
    if (Date.now() > until) throw new Error(`service not ready on :${port} after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** `serve` (role `all` unless args say otherwise) listening on `port`; ready = /readyz 200. */
export async function startService(env: Record<string, string>, port: number, args: string[] = ['serve']): Promise<{ child: ChildProcess; readyMs: number }> {
  const started = performance.now();
  const child = spawnService(args, { ...env, PORT: String(port) });
  try {
    await waitReady(child, port);
  } catch (e) {
    await stop(child);
    throw e;
  }
  return { child, readyMs: Math.round(performance.now() - started) };
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await done;
}

/** Runs a CLI command of the built service to completion and returns its stdout. */
export async function runCli(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`tidings ${args.join(' ')} exited ${code}`);
  return out;
}

/** A fresh database `name` on the server of ADMIN_URL (dropped first); returns its URL. */
export async function createDatabase(name: string): Promise<string> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function dropDatabase(name: string) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
}

/** Nearest-rank percentile of `sorted` (ascending). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const k = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[k]!;
}

/** CPU seconds (user + system) a process used so far, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return 0;
  }
}

/** Pids of the PostgreSQL server's processes on this machine (to account for its CPU). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(d));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Busy and total jiffies of the whole machine (all cores), from /proc/stat. */
export function machineJiffies(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = line.reduce((a, b) => a + b, 0);
  const idle = line[3]! + (line[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU use between two points: per named process (% of one core) and the machine (% of all cores). */
export function cpuMeter(procs: Record<string, () => number[]>) {
  const read = () => ({
    at: performance.now(),
    machine: machineJiffies(),
    procs: Object.fromEntries(Object.entries(procs).map(([k, pids]) => [k, pids().reduce((s, p) => s + cpuSeconds(p), 0)])),
    self: process.cpuUsage(),
  });
  const start = read();
  return () => {
    const end = read();
    const secs = (end.at - start.at) / 1000;
    const out: Record<string, number> = {};
    for (const k of Object.keys(procs)) out[k] = Math.round(((end.procs[k]! - start.procs[k]!) / secs) * 100);
    out.bench = Math.round(((end.self.user + end.self.system - start.self.user - start.self.system) / 1e6 / secs) * 100);
    out.machine = Math.round(((end.machine.busy - start.machine.busy) / (end.machine.total - start.machine.total)) * 100);
    return out;
  };
}

/** An organisation 'Bench' with 5 channels (x, bluesky, linkedin, mastodon, telegram) on the service's database: its API key. */
export async function seedOrganization(env: Record<string, string>): Promise<string> {
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
