import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/tidings.js', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the `tidings` command to completion. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `tidings serve` on a free port and waits until it listens (or, for a worker, runs). */
export function startService(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', ...args], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      const worker = /Tidings worker running/.test(out);
      if (listening || worker) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.on('data', (x: Buffer) => (out += x.toString()));
        resolve({
          child,
          url: listening?.[1] ?? '',
          output: () => out,
          async stop(signal = 'SIGTERM') {
            if (child.exitCode !== null) return child.exitCode;
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was ready:\n${out}`));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A `waitUntil(fn, timeoutMs, what, everyMs?)` that calls `fn` every `everyMs` (by default
 * `defaultEveryMs`) until it answers something truthy, and answers that; after `timeoutMs` it throws
 * naming `what`. Each test file picks the default pace its processes can bear.
 */
export function pollerEvery(defaultEveryMs: number) {
  return async function waitUntil<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, what: string, everyMs = defaultEveryMs): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(everyMs);
    }
  };
}
