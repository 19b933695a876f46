/* global fetch, setTimeout */
// The README's first screen, followed as a new user would (issue 25): a fresh clone of this
// repository, the first command run exactly as written, then what README's "First steps" promise
// checked at the address the command's comment gives.
//   node scripts/readme-check.js            follow the first screen (used by .ci/run)
//   node scripts/readme-check.js --print N  print the first screen's command N (1 start, 2 test)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './build-state.js';

/** The first screen: the README's first sh block, each line a command and what its comment says. */
export function firstScreen(readme) {
  const block = /```sh\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no ```sh block');
  return block[1]
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const hash = l.indexOf('#');
      return { command: (hash >= 0 ? l.slice(0, hash) : l).trim(), comment: hash >= 0 ? l.slice(hash + 1).trim() : '' };
    });
}

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const screen = firstScreen(readme);

if (process.argv[2] === '--print') {
  const line = screen[Number(process.argv[3]) - 1];
  if (!line) throw new Error(`the README's first screen has no command ${process.argv[3]}`);
  process.stdout.write(`${line.command}\n`);
  process.exit(0);
}

const log = (m) => process.stdout.write(`readme: ${m}\n`);
const fail = (m) => {
  process.stderr.write(`readme: FAILED: ${m}\n`);
  process.exitCode = 1;
};

const [start] = screen;
const promised = /https?:\/\/[^\s)]+/.exec(start.comment)?.[0];
if (!promised) throw new Error(`the first command's comment names no address: ${start.comment}`);
const address = new URL(promised);

function portIsFree(port, host) {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'tidings-readme-'));
const env = { ...process.env };
for (const k of ['PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'PUBLIC_URL', 'REDIS_URL', 'CREDENTIALS_SECRET', 'NODE_OPTIONS']) delete env[k];
let origin = address.origin;
if (!(await portIsFree(Number(address.port), address.hostname))) {
  // someone else's service holds the README's port here: same steps on another port
  const other = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  log(`port ${address.port} is taken on this machine: running with PORT=${other}`);
  env.PORT = String(other);
  origin = `${address.protocol}//${address.hostname}:${other}`;
}

let service;
let output = '';
try {
  const cloned = spawnSync('git', ['clone', '-q', root, dir], { stdio: 'inherit' });
  if (cloned.status !== 0) throw new Error('git clone failed');
  log(`fresh clone in ${dir}; running \`${start.command}\``);
  const began = Date.now();
  service = spawn('bash', ['-c', start.command], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout.on('data', (d) => (output += d));
  service.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => service.once('exit', (code) => resolve(code)));

  // the service says where it listens; wait for that, at most 10 minutes (install and build)
  const ready = await Promise.race([
    (async () => {
      while (Date.now() - began < 600_000) {
        if (output.includes(origin)) {
          const ok = await fetch(`${origin}/healthz`).then((r) => r.ok, () => false);
          if (ok) return true;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      return false;
    })(),
    exited.then((code) => {
      throw new Error(`\`${start.command}\` exited (${code}) before the service answered`);
    }),
  ]);
  if (!ready) throw new Error(`nothing printed ${origin} and answered /healthz within 10 minutes`);
  log(`listening at ${origin} after ${((Date.now() - began) / 1000).toFixed(1)} s (install, build, start)`);

  // the app at the address, for a browser and for curl alike
  for (const accept of [undefined, 'text/html']) {
    const res = await fetch(`${origin}/`, accept ? { headers: { accept } } : {});
    const body = await res.text();
    if (res.status !== 200 || !res.headers.get('content-type')?.includes('text/html') || !body.includes('id="root"')) {
      fail(`GET / (Accept: ${accept ?? 'none'}) answered ${res.status} ${res.headers.get('content-type')}, not the app`);
    }
  }
  // "a new deployment asks you to create its first account"
  const login = await fetch(`${origin}/account/login`, { redirect: 'manual', headers: { accept: 'text/html' } });
  if (login.status !== 303 || login.headers.get('location') !== '/account/signup') fail(`a fresh deployment's sign-in answered ${login.status} ${login.headers.get('location')}, not the first account's sign-up`);
  const signup = await (await fetch(`${origin}/account/signup`, { headers: { accept: 'text/html' } })).text();
  if (!signup.includes('first account')) fail('the sign-up page does not say it makes the first account');

  // First steps: `npx tidings org create --name Acme --json` in the same folder, then the key
  const org = spawnSync('npx', ['tidings', 'org', 'create', '--name', 'Acme', '--json'], { cwd: dir, env, encoding: 'utf8' });
  if (org.status !== 0) throw new Error(`npx tidings org create failed: ${org.stderr}`);
  const { apiKey } = JSON.parse(org.stdout);
  if (!/^tdk_/.test(apiKey ?? '')) fail(`org create printed no tdk_ key: ${org.stdout}`);
  const list = await fetch(`${origin}/public/v1/integrations`, { headers: { authorization: apiKey } });
  const channels = await list.json();
  if (list.status !== 200 || !Array.isArray(channels) || channels.length !== 0) fail(`GET /public/v1/integrations answered ${list.status} ${JSON.stringify(channels)}, not []`);
  const docs = await fetch(`${origin}/public/v1/openapi.json`);
  if (docs.status !== 200 || (await docs.json()).openapi !== '3.1.0') fail('the OpenAPI document is not served at /public/v1/openapi.json');
  if (!process.exitCode) log('the first screen and First steps work as written');
} catch (e) {
  fail(e.message);
} finally {
  if (service?.pid) {
    try {
      process.kill(-service.pid, 'SIGTERM');
    } catch {
      /* gone already */
    }
    await new Promise((r) => setTimeout(r, 2000));
    try {
      process.kill(-service.pid, 'SIGKILL');
    } catch {
      /* stopped */
    }
  }
  if (process.exitCode) process.stderr.write(`--- the service's output ---\n${output.slice(-4000)}\n`);
  rmSync(dir, { recursive: true, force: true });
}
