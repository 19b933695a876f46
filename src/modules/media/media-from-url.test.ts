import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { filesUnder, type MediaItem } from '../../../test/media.js';
import { isPublicAddress, systemResolver, type Resolver } from '../../lib/safe-address.js';

/**
 * POST /upload-from-url through the HTTP API, against real HTTP servers on loopback:
 * a "private" one on 127.0.0.1 and a "public" one on 127.0.0.2, which the injected address policy
 * (and only it) treats as public. Everything else keeps the real policy.
 */

interface TestServer {
  server: Server;
  origin: string;
  port: number;
  /** request paths, in arrival order */
  seen: string[];
  /** resolves when the socket that carried the request to `path` closes */
  closed(path: string): Promise<void>;
  close(): Promise<void>;
}

async function startServer(host: string, handler: (req: IncomingMessage, res: ServerResponse, self: TestServer) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const socketOf = new Map<string, Socket>();
  const self = { seen: [] as string[] } as unknown as TestServer;
  const server = createServer((req, res) => {
    self.seen.push(req.url ?? '');
    socketOf.set(req.url ?? '', req.socket);
    handler(req, res, self);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  Object.assign(self, {
    server,
    port,
    origin: `http://${host}:${port}`,
    closed: (path: string) => {
      const socket = socketOf.get(path);
      if (!socket) return Promise.reject(new Error(`no request to ${path}`));
      return socket.destroyed ? Promise.resolve() : new Promise<void>((r) => socket.once('close', () => r()));
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  });
  return self;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// The image cap is above the 4100 bytes the service reads to sniff the type, so a declared size
// over it can be refused before the bytes over it arrive.
const IMAGE_CAP = 5000;
const VIDEO_CAP = 20_000;
const CAPS = { MEDIA_MAX_IMAGE_BYTES: String(IMAGE_CAP), MEDIA_MAX_VIDEO_BYTES: String(VIDEO_CAP), MEDIA_MAX_AUDIO_BYTES: String(VIDEO_CAP) };

/** Names the tests resolve themselves; everything else goes to the system resolver. */
const lookup: Resolver = (hostname, family) => {
  const fixed: Record<string, string[]> = {
    'public.test': ['127.0.0.2'],
    'private.test': ['10.0.0.5'],
    'mixed.test': ['127.0.0.2', '192.168.1.20'],
    'metadata.test': ['169.254.169.254'],
  };
  const addresses = fixed[hostname];
  if (addresses) return Promise.resolve(addresses.map((address) => ({ address, family: 4 })));
  if (hostname.endsWith('.invalid')) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
  return systemResolver(hostname, family);
};
/** The real policy, except that 127.0.0.2 counts as public (the "internet" of these tests). */
const isAllowedAddress = (address: string) => address === '127.0.0.2' || isPublicAddress(address);

describe('POST /upload-from-url', () => {
  let png: Buffer;
  let dataDir: string;
  let guarded: TestApp;
  let open: TestApp;
  let slow: TestApp;
  let acme: TestOrg;
  let beta: TestOrg;
  let openOrg: TestOrg;
  let slowOrg: TestOrg;
  let priv: TestServer;
  let pub: TestServer;

  beforeAll(async () => {
    png = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    dataDir = await mkdtemp(join(tmpdir(), 'tidings-from-url-'));
    const remoteFetch = { lookup, isAllowedAddress };
    guarded = await buildTestApp({ env: { DATA_DIR: dataDir, ...CAPS }, remoteFetch });
    open = await buildTestApp({ env: { DATA_DIR: dataDir, ...CAPS, ALLOW_PRIVATE_TARGETS: 'true' } });
    slow = await buildTestApp({ env: { DATA_DIR: dataDir, ...CAPS, MEDIA_FETCH_TIMEOUT_SECONDS: '1' }, remoteFetch });
    acme = await guarded.createOrg('Acme');
    beta = await guarded.createOrg('Beta');
    openOrg = await open.createOrg('Open');
    slowOrg = await slow.createOrg('Slow');

    priv = await startServer('127.0.0.1', (req, res) => {
      const path = req.url ?? '';
      if (path === '/html-as-png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end('<!doctype html><html><body>not an image</body></html>');
      } else if (path.startsWith('/missing')) {
        res.writeHead(404).end('no');
      } else {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
      }
    });
    pub = await startServer('127.0.0.2', (req, res, self) => {
      const url = new URL(req.url ?? '/', self.origin);
      const hops = /^\/hop\/(\d+)$/.exec(url.pathname);
      switch (true) {
        case hops !== null: {
          const n = Number(hops[1]);
          res.writeHead(302, { location: n > 1 ? `/hop/${n - 1}` : '/files/photo.png' }).end();
          return;
        }
        case url.pathname === '/files/photo.png':
        case url.pathname === '/no-extension':
        case url.pathname === '/my%20photo%C3%A9.png':
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': png.length }).end(png);
          return;
        case url.pathname === '/to-private':
          res.writeHead(302, { location: `${priv.origin}/a.png` }).end();
          return;
        case url.pathname === '/to-private-name':
          res.writeHead(307, { location: `http://private.test:${priv.port}/a.png` }).end();
          return;
        case url.pathname === '/to-ftp':
          res.writeHead(301, { location: 'ftp://public.test/a.png' }).end();
          return;
        case url.pathname === '/missing':
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
          return;
        case url.pathname === '/declared-huge':
          // Declares more than the largest cap, then sends a little and keeps the connection open:
          // only a client that does not read the body answers before its time limit.
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': VIDEO_CAP + 1 });
          res.write(png);
          return;
        case url.pathname === '/declared-over-image-cap':
          // Under the largest cap, over the image cap: refused once the type is known, though the
          // bytes sent so far (enough to sniff, under the image cap) are within it.
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': IMAGE_CAP + 3000 });
          res.write(Buffer.concat([png, Buffer.alloc(4200)]));
          return;
        case url.pathname === '/chunked-big':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.write(png);
          for (let i = 0; i < 12; i++) res.write(Buffer.alloc(500));
          res.end();
          return;
        case url.pathname === '/cut-short':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length + 400 });
          res.write(png, () => res.socket?.destroy());
          return;
        case url.pathname === '/cut-chunked':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.write(png, () => res.socket?.destroy());
          return;
        case url.pathname === '/never-answers':
          return;
        case url.pathname === '/stalls-in-body':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.write(png);
          return;
        default:
          res.writeHead(500).end();
      }
    });
  });

  afterAll(async () => {
    await Promise.all([guarded?.close(), open?.close(), slow?.close()]);
    await Promise.all([priv?.close(), pub?.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  const fromUrl = (t: TestApp, org: TestOrg | undefined, url: unknown) =>
    call(t.app, org?.apiKey, { method: 'POST', url: '/public/v1/upload-from-url', payload: { url } });

  /** The org's library is empty and no file (or temp file) is in DATA_DIR/media. */
  async function expectNothingStored(t: TestApp, org: TestOrg) {
    const list = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/media' });
    expect(list.json<{ total: number }>().total).toBe(0);
    expect(await filesUnder(join(dataDir, 'media'))).toEqual(storedFiles);
  }
  /** Files the accepted cases stored (the refused ones must add nothing). */
  let storedFiles: string[] = [];
  const recordStored = async () => {
    storedFiles = await filesUnder(join(dataDir, 'media'));
  };

  /** Asserts a 400 naming `url` and returns its message. */
  function expectUrlError(res: Awaited<ReturnType<typeof fromUrl>>) {
    const body = expectError(res, 400, 'VALIDATION_FAILED');
    expect(body.fields?.map((f) => f.path), res.body).toEqual(['url']);
    return body.message;
  }

  describe('refused targets (400 naming `url`, nothing fetched, nothing stored)', () => {
    it('literal loopback, private, link-local (cloud metadata), IPv6 loopback and IPv4-mapped addresses', async () => {
      const cases = [
        `http://127.0.0.1:${priv.port}/a.png`,
        // would hang on connect if it were attempted: the literal is refused before any connection
        'http://10.0.0.1/a.png',
        'http://172.16.0.10/a.png',
        'http://192.168.1.1/a.png',
        'http://100.64.0.1/a.png',
        'http://198.18.0.1/a.png',
        'http://169.254.169.254/latest/meta-data',
        `http://[::1]:${priv.port}/a.png`,
        `http://[::ffff:127.0.0.1]:${priv.port}/a.png`,
        'http://[::ffff:a9fe:a9fe]/latest/meta-data',
        'http://[fd00::1]/a.png',
        'http://[fe80::1]/a.png',
        'http://0.0.0.0/a.png',
        'http://224.0.0.1/a.png',
        // legacy spellings that URL parsing turns into 127.0.0.1
        `http://2130706433:${priv.port}/a.png`,
        `http://0x7f.1:${priv.port}/a.png`,
      ];
      for (const url of cases) {
        expect(expectUrlError(await fromUrl(guarded, acme, url)), url).toMatch(/private or reserved address/);
      }
      expect(priv.seen).toEqual([]);
      await expectNothingStored(guarded, acme);
    });

    it('hostnames resolving to a private address (injected resolver, localhost, any one of several)', async () => {
      expect(expectUrlError(await fromUrl(guarded, acme, `http://private.test:${priv.port}/a.png`))).toBe(
        'url: private.test resolves to 10.0.0.5, a private or reserved address, which is not allowed',
      );
      expect(expectUrlError(await fromUrl(guarded, acme, 'http://metadata.test/latest/meta-data'))).toMatch(/metadata\.test resolves to 169\.254\.169\.254/);
      expect(expectUrlError(await fromUrl(guarded, acme, `http://localhost:${priv.port}/a.png`))).toMatch(/localhost resolves to .* private or reserved/);
      expect(expectUrlError(await fromUrl(guarded, acme, `http://mixed.test:${pub.port}/files/photo.png`))).toMatch(/mixed\.test resolves to 192\.168\.1\.20/);
      expect(priv.seen).toEqual([]);
      expect(pub.seen).toEqual([]);
      await expectNothingStored(guarded, acme);
    });

    it('a public URL redirecting to a private one: the private server gets no request', async () => {
      expect(expectUrlError(await fromUrl(guarded, acme, `http://public.test:${pub.port}/to-private`))).toMatch(/127\.0\.0\.1 is a private or reserved address/);
      expect(expectUrlError(await fromUrl(guarded, acme, `http://public.test:${pub.port}/to-private-name`))).toMatch(/private\.test resolves to 10\.0\.0\.5/);
      expect(expectUrlError(await fromUrl(guarded, acme, `http://public.test:${pub.port}/to-ftp`))).toMatch(/only http and https/);
      expect(pub.seen).toEqual(['/to-private', '/to-private-name', '/to-ftp']);
      expect(priv.seen).toEqual([]);
      await expectNothingStored(guarded, acme);
    });

    it('other schemes, credentials, and what is not a URL', async () => {
      expect(expectUrlError(await fromUrl(guarded, acme, 'ftp://public.test/a.png'))).toBe('url: only http and https URLs are allowed, not ftp');
      expect(expectUrlError(await fromUrl(guarded, acme, 'file:///etc/passwd'))).toBe('url: only http and https URLs are allowed, not file');
      expect(expectUrlError(await fromUrl(guarded, acme, 'data:image/png;base64,iVBORw0KGgo='))).toMatch(/only http and https/);
      expect(expectUrlError(await fromUrl(guarded, acme, `http://user:pw@public.test:${pub.port}/files/photo.png`))).toMatch(/credentials/);
      expect(expectUrlError(await fromUrl(guarded, acme, 'not a url'))).toBe('url: not a valid URL');
      expect(expectUrlError(await fromUrl(guarded, acme, ''))).toBeTruthy();
      expect(expectUrlError(await fromUrl(guarded, acme, 42))).toBeTruthy();
      const missing = expectError(await call(guarded.app, acme.apiKey, { method: 'POST', url: '/public/v1/upload-from-url', payload: {} }), 400, 'VALIDATION_FAILED');
      expect(missing.fields?.map((f) => f.path)).toEqual(['url']);
      expect(pub.seen).toEqual(['/to-private', '/to-private-name', '/to-ftp']);
      await expectNothingStored(guarded, acme);
    });

    it('6 redirects → too many redirects; a remote 404 → its status; DNS failure and refused connection → the reason', async () => {
      pub.seen.length = 0;
      expect(expectUrlError(await fromUrl(guarded, acme, `http://public.test:${pub.port}/hop/6`))).toBe('url: too many redirects (more than 5)');
      expect(pub.seen).toEqual(['/hop/6', '/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1']);
      expect(expectUrlError(await fromUrl(guarded, acme, `http://public.test:${pub.port}/missing`))).toBe(`url: public.test:${pub.port} answered 404 Not Found`);
      expect(expectUrlError(await fromUrl(guarded, acme, 'http://nowhere.invalid/a.png'))).toBe('url: nowhere.invalid could not be resolved');
      const closedPort = await startServer('127.0.0.2', () => undefined);
      const port = closedPort.port;
      await closedPort.close();
      expect(expectUrlError(await fromUrl(guarded, acme, `http://public.test:${port}/a.png`))).toBe(`url: public.test:${port} refused the connection`);
      await expectNothingStored(guarded, acme);
    });

    it('an HTML page served as image/png (the type is sniffed from the bytes)', async () => {
      const msg = expectUrlError(await fromUrl(open, openOrg, `${priv.origin}/html-as-png`));
      expect(msg).toMatch(/^url: unsupported file type/);
      const list = await call(open.app, openOrg.apiKey, { method: 'GET', url: '/public/v1/media' });
      expect(list.json<{ total: number }>().total).toBe(0);
    });

    it('401 without a key, and nothing is fetched', async () => {
      priv.seen.length = 0;
      expectError(await fromUrl(open, undefined, `${priv.origin}/a.png`), 401, 'AUTH_MISSING');
      expect(priv.seen).toEqual([]);
    });
  });

  describe('size and time', () => {
    it('Content-Length over the largest cap → 413 without reading the body, and the connection is dropped', async () => {
      const res = await fromUrl(guarded, acme, `http://public.test:${pub.port}/declared-huge`);
      const body = expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(body.message).toBe(`url: the file is ${VIDEO_CAP + 1} bytes, more than the largest allowed (${VIDEO_CAP})`);
      await pub.closed('/declared-huge');
      await expectNothingStored(guarded, acme);
    });

    it('Content-Length over the sniffed type’s cap → 413 as soon as the type is known', async () => {
      const body = expectError(await fromUrl(guarded, acme, `http://public.test:${pub.port}/declared-over-image-cap`), 413, 'PAYLOAD_TOO_LARGE');
      expect(body.message).toBe(`url: images may be at most ${IMAGE_CAP} bytes`);
      await pub.closed('/declared-over-image-cap');
      await expectNothingStored(guarded, acme);
    });

    it('no Content-Length (chunked) and over the cap → 413, nothing stored', async () => {
      const body = expectError(await fromUrl(guarded, acme, `http://public.test:${pub.port}/chunked-big`), 413, 'PAYLOAD_TOO_LARGE');
      expect(body.message).toBe(`url: images may be at most ${IMAGE_CAP} bytes`);
      await expectNothingStored(guarded, acme);
    });

    it('a body cut short (length mismatch, or a chunked body reset) → 400 "ended early", nothing stored', async () => {
      for (const path of ['/cut-short', '/cut-chunked']) {
        expect(expectUrlError(await fromUrl(guarded, acme, `http://public.test:${pub.port}${path}`)), path).toMatch(/^url: the download ended early/);
      }
      await expectNothingStored(guarded, acme);
    });

    it('a server that never answers, or stalls in the body → 400 after MEDIA_FETCH_TIMEOUT_SECONDS', async () => {
      expect(expectUrlError(await fromUrl(slow, slowOrg, `http://public.test:${pub.port}/never-answers`))).toBe('url: the download did not finish within 1 s');
      expect(expectUrlError(await fromUrl(slow, slowOrg, `http://public.test:${pub.port}/stalls-in-body`))).toBe('url: the download did not finish within 1 s');
      await expectNothingStored(slow, slowOrg);
    });

    it('the caller going away aborts the download and leaves nothing', async () => {
      const address = await guarded.app.listen({ port: 0, host: '127.0.0.1' });
      const req = httpRequest(`${address}/public/v1/upload-from-url`, {
        method: 'POST',
        headers: { authorization: beta.apiKey, 'content-type': 'application/json' },
      });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ url: `http://public.test:${pub.port}/stalls-in-body?abort` }));
      await vi.waitFor(() => expect(pub.seen).toContain('/stalls-in-body?abort'));
      req.destroy();
      await pub.closed('/stalls-in-body?abort');
      await vi.waitFor(async () => expect(await filesUnder(join(dataDir, 'media'))).toEqual(storedFiles));
      const list = await call(guarded.app, beta.apiKey, { method: 'GET', url: '/public/v1/media' });
      expect(list.json<{ total: number }>().total).toBe(0);
    });
  });

  describe('accepted', () => {
    it('a PNG from a loopback server with ALLOW_PRIVATE_TARGETS=true → 201; the stored bytes are the same', async () => {
      const res = await fromUrl(open, openOrg, `${priv.origin}/images/a.png?size=large`);
      expect(res.statusCode, res.body).toBe(201);
      const item = res.json<MediaItem>();
      expect(item).toMatchObject({ originalName: 'a.png', type: 'image', mimeType: 'image/png', size: png.length, width: 3, height: 2 });
      expect(item.path).toMatch(/\/media\/\d{4}\/\d{2}\/[0-9a-f]{32}\.png$/);
      const served = await open.app.inject({ method: 'GET', url: new URL(item.path).pathname });
      expect(served.statusCode).toBe(200);
      expect(sha(served.rawPayload)).toBe(sha(png));
      const list = await call(open.app, openOrg.apiKey, { method: 'GET', url: '/public/v1/media' });
      expect(list.json<{ media: MediaItem[] }>().media.map((m) => m.id)).toEqual([item.id]);
      await recordStored();
    });

    it('through a chain of 5 redirects on "public" addresses, with the real file name of the last hop', async () => {
      pub.seen.length = 0;
      const res = await fromUrl(guarded, beta, `http://public.test:${pub.port}/hop/5`);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<MediaItem>()).toMatchObject({ originalName: 'photo.png', mimeType: 'image/png', width: 3, height: 2 });
      expect(pub.seen).toEqual(['/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1', '/files/photo.png']);
      await recordStored();
    });

    it('no extension needed; the name is the decoded last path segment', async () => {
      const plain = await fromUrl(guarded, beta, `http://public.test:${pub.port}/no-extension`);
      expect(plain.statusCode, plain.body).toBe(201);
      expect(plain.json<MediaItem>()).toMatchObject({ originalName: 'no-extension', mimeType: 'image/png' });
      const encoded = await fromUrl(guarded, beta, `http://127.0.0.2:${pub.port}/my%20photo%C3%A9.png`);
      expect(encoded.statusCode, encoded.body).toBe(201);
      expect(encoded.json<MediaItem>().originalName).toBe('my photoé.png');
      await recordStored();
    });
  });
});
