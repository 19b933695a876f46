import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { isPublicAddress, type Resolver } from '../../src/lib/safe-address.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { createClient, createTally, type Client, type Tally } from './client.js';
import { installOfflineGuard, type OfflineGuard } from './offline.js';

/**
 * What every fuzz file starts from: the offline guard, a fresh app on a fresh database listening
 * on a real loopback port, every platform origin pointed at a closed port, and a seed and run
 * count from the environment (`FUZZ_SEED`, `FUZZ_RUNS`; `npm run fuzz` sets them).
 */

export const FUZZ_SEED = Number.parseInt(process.env.FUZZ_SEED ?? '', 10) || 20_251_125;
/** Runs per operation (31 operations today): sized so the tier adds about a minute per database mode on 2 cores. */
export const FUZZ_RUNS = Number.parseInt(process.env.FUZZ_RUNS ?? '', 10) || 100;

/** Every platform API origin the adapters call (the reference hosts), all sent to the closed port. */
const PLATFORM_API_ORIGINS = [
  'https://api.telegram.org',
  'https://bsky.social',
  'https://video.bsky.app',
  'https://morel.us-east.host.bsky.network',
  'https://api.x.com',
  'https://x.com',
  'https://upload.twitter.com',
  'https://api.twitter.com',
  'https://discord.com',
  'https://cdn.discordapp.com',
  'https://api.linkedin.com',
  'https://www.linkedin.com',
  'https://oauth.reddit.com',
  'https://www.reddit.com',
  'https://slack.com',
  'https://mastodon.social',
  'https://dev.to',
];
export const MASTODON_INSTANCE = 'https://mastodon.social';

export interface FuzzEnvironment {
  t: TestApp;
  origin: string;
  client: Client;
  tally: Tally;
  guard: OfflineGuard;
  /** URLs an upload-from-url may be given: the tier's local file server and hosts it must refuse */
  uploadUrls: string[];
  close(): Promise<void>;
}

/** Names upload-from-url resolves: one "public" host on 127.0.0.2 (this tier's file server), one private. */
const lookup: Resolver = async (hostname) => {
  if (hostname === 'public.test') return [{ address: '127.0.0.2', family: 4 }];
  if (hostname === 'private.test') return [{ address: '10.0.0.5', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** A small file server on 127.0.0.2 standing for "the internet" of upload-from-url. */
async function startFileServer(png: Buffer): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    switch (req.url) {
      case '/photo.png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
        return;
      case '/redirect':
        res.writeHead(302, { location: '/photo.png' }).end();
        return;
      case '/to-private':
        res.writeHead(302, { location: 'http://private.test/x.png' }).end();
        return;
      case '/text':
        res.writeHead(200, { 'content-type': 'text/plain' }).end('not a picture');
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([png, Buffer.alloc(300 * 1024)]));
        return;
      case '/cut':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length + 100 });
        res.write(png, () => res.socket?.destroy());
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export async function startFuzzEnvironment(opts: { env?: Record<string, string>; png: Buffer }): Promise<FuzzEnvironment> {
  const guard = await installOfflineGuard({ resolvable: ['public.test', 'private.test'] });
  const dataDir = await mkdtemp(join(tmpdir(), 'tidings-fuzz-'));
  const files = await startFileServer(opts.png);
  const closed = `http://127.0.0.1:${guard.platformPort}`;
  const t = await buildTestApp({
    env: {
      DATA_DIR: dataDir,
      // The failed-auth throttle would end the fuzz after a few bad credentials (wire.fuzz tests it).
      AUTH_FAILURE_LIMIT: '1000000',
      MEDIA_MAX_IMAGE_BYTES: String(64 * 1024),
      MEDIA_MAX_VIDEO_BYTES: String(256 * 1024),
      MEDIA_MAX_AUDIO_BYTES: String(256 * 1024),
      // No worker runs here: generation requests answer 202 at once instead of waiting for one.
      VIDEO_REQUEST_WAIT_SECONDS: '0',
      MEDIA_FETCH_TIMEOUT_SECONDS: '5',
      PLATFORM_TIMEOUT_SECONDS: '5',
      PLATFORM_ORIGINS: PLATFORM_API_ORIGINS.map((o) => `${o}=${closed}`).join(','),
      ...opts.env,
    },
    remoteFetch: { lookup, isAllowedAddress: (address) => address === '127.0.0.2' || isPublicAddress(address) },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const tally = createTally();
  const client = createClient(origin, tally);
  const pub = `http://public.test:${files.port}`;
  return {
    t,
    origin,
    client,
    tally,
    guard,
    uploadUrls: [
      `${pub}/photo.png`,
      `${pub}/redirect`,
      `${pub}/to-private`,
      `${pub}/text`,
      `${pub}/big`,
      `${pub}/cut`,
      `${pub}/missing`,
      'http://private.test/x.png',
      'http://nowhere.invalid/x.png',
      `http://127.0.0.1:${port}/healthz`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/x.png',
      'ftp://public.test/x.png',
      'file:///etc/passwd',
      'not a url',
      'http://',
    ],
    async close() {
      await client.close();
      // A connection the server stopped reading (a refused upload's unread body) never notices its
      // client left, and would hold app.close() forever; wire.fuzz reports that, teardown must not wait.
      t.app.server.closeAllConnections();
      await t.close();
      await new Promise<void>((resolve) => files.server.close(() => resolve()));
      guard.restore();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Forces a full garbage collection (V8 allows exposing `gc` at run time) and returns heapUsed. */
export function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** The one-line tally the tier prints at the end. */
export function summaryLine(name: string, tally: Tally, extra = ''): string {
  const classes = Object.entries(tally.byClass)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `[fuzz] ${name} (${process.env.TEST_DB ?? 'pglite'}): ${tally.sent} requests sent (${classes}); seed ${FUZZ_SEED}, runs ${FUZZ_RUNS}${extra}`;
}
