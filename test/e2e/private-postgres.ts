import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';

/**
 * A PostgreSQL server of its own for tests that stop and restart the database: started from the
 * machine's binaries (`initdb`, `pg_ctl`) in a temporary folder, on a free loopback port, trust
 * authentication, so nothing else on the machine is disturbed. PostgreSQL refuses to run as root:
 * as root, every command runs as the `postgres` user (`runuser`) and the folder is handed to it.
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database: string): string;
  port: number;
  dir: string;
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m <mode>` (immediate: as if the server crashed) */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** The tail of the server's log. */
  log(): string;
  /** Stops the server (if it runs) and deletes its folder. */
  destroy(): Promise<void>;
}

/** The folder of `pg_ctl` and `initdb`: on PATH, else the newest /usr/lib/postgresql/<v>/bin; undefined if neither. */
export function findPostgresBin(): string | undefined {
  for (const d of (process.env.PATH ?? '').split(delimiter)) {
    if (d && existsSync(join(d, 'pg_ctl')) && existsSync(join(d, 'initdb'))) return d;
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], asPostgres: boolean, timeoutMs = 60_000): Promise<string> {
  const [file, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export async function startPrivatePostgres(binDir: string): Promise<PrivatePostgres> {
  const asPostgres = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'tidings-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (asPostgres) {
    const { uid, gid } = await run('id', ['-u', 'postgres'], false).then(async (u) => ({ uid: Number(u.trim()), gid: Number((await run('id', ['-g', 'postgres'], false)).trim()) }));
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  const bin = (name: string) => join(binDir, name);
  const user = 'postgres';
  let running = false;
  await run(bin('initdb'), ['-D', data, '-A', 'trust', '-U', user, '-E', 'UTF8', '--no-sync'], asPostgres);
  // fsync off: a test server, and `-m immediate` stops must not cost a checkpoint's worth of syncs.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const pgCtl = (args: string[]) => run(bin('pg_ctl'), ['-D', data, ...args], asPostgres);
  const server: PrivatePostgres = {
    port,
    dir,
    url: (database) => `postgres://${user}@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const c = new pg.Client({ connectionString: server.url('postgres') });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await c.end();
      }
      return server.url(name);
    },
    async start() {
      await pgCtl(['-o', options, '-l', logFile, '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      await pgCtl(['-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    log() {
      try {
        return readFileSync(logFile, 'utf8').slice(-4000);
      } catch {
        return '';
      }
    },
    async destroy() {
      try {
        if (running || existsSync(join(data, 'postmaster.pid'))) await server.stop('immediate');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await server.start();
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return server;
}
