/**
 * Helpers shared by the benchmarks (api-bench.ts, publish-bench.ts): the built service as child
 * processes, throwaway PostgreSQL databases, RSS and percentiles.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz';
export const MAIN = join(ROOT, 'dist/main.js');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m![1]) / 1024);
}

/** Spawns `node dist/main.js <args>` with `env` added to this process's environment. */
export function spawnService(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
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
  await waitReady(child, port);
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
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
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
