import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../lib/safe-address.js';
import { createRemoteFetcher, fileNameOf, RemoteFetchError } from './remote-fetch.js';

async function collect(body: AsyncIterable<Buffer>) {
  const parts: Buffer[] = [];
  for await (const b of body) parts.push(b);
  return Buffer.concat(parts).toString();
}

describe('fileNameOf', () => {
  it('is the decoded last path segment, or null', () => {
    expect(fileNameOf(new URL('https://cdn.example.com/a/b/photo.jpg?x=1#y'))).toBe('photo.jpg');
    expect(fileNameOf(new URL('https://cdn.example.com/a/my%20file%C3%A9'))).toBe('my fileé');
    expect(fileNameOf(new URL('https://cdn.example.com/a/bad%E0%A4%A'))).toBe('bad%E0%A4%A');
    expect(fileNameOf(new URL('https://cdn.example.com/'))).toBeNull();
    expect(fileNameOf(new URL('https://cdn.example.com/dir/'))).toBeNull();
    expect(fileNameOf(new URL(`https://cdn.example.com/${'x'.repeat(300)}`))).toHaveLength(255);
  });
});

describe('createRemoteFetcher', () => {
  // Two servers on the same port: 127.0.0.2 plays a public host, 127.0.0.1 a private one.
  let pub: Server;
  let priv: Server;
  let port = 0;
  const hits: string[] = [];
  const listen = (server: Server, host: string, p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, host, () => resolve());
    });

  beforeAll(async () => {
    pub = createServer((req, res) => {
      hits.push(`public ${req.url}`);
      res.end('from public');
    });
    priv = createServer((req, res) => {
      hits.push(`private ${req.url}`);
      res.end('from private');
    });
    await listen(pub, '127.0.0.2', 0);
    port = (pub.address() as AddressInfo).port;
    await listen(priv, '127.0.0.1', port);
  });
  afterAll(async () => {
    await Promise.all([pub, priv].map((s) => new Promise((r) => s.close(r))));
  });

  const policy = (a: string) => a === '127.0.0.2' || isPublicAddress(a);

  it('connects to the address it checked: a name that rebinds to a private address after the check cannot reach it', async () => {
    let calls = 0;
    // first answer public, every later one private (a rebinding DNS server)
    const lookup = () => Promise.resolve([{ address: calls++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }]);
    const fetcher = createRemoteFetcher({ allowPrivateTargets: false, timeoutMs: 5000, lookup, isAllowedAddress: policy });
    hits.length = 0;
    const file = await fetcher.open(`http://rebind.test:${port}/one`, { maxBytes: 1000 });
    expect(await collect(file.body)).toBe('from public');
    expect(calls).toBe(1);
    await fetcher.close();

    // the next connection gets the private answer and is refused before it is made
    const again = createRemoteFetcher({ allowPrivateTargets: false, timeoutMs: 5000, lookup, isAllowedAddress: policy });
    const err = await again.open(`http://rebind.test:${port}/two`, { maxBytes: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteFetchError);
    expect((err as RemoteFetchError).kind).toBe('blocked');
    expect(hits).toEqual(['public /one']);
    await again.close();
  });

  it('ALLOW_PRIVATE_TARGETS lifts the address check only', async () => {
    const fetcher = createRemoteFetcher({ allowPrivateTargets: true, timeoutMs: 5000 });
    hits.length = 0;
    const file = await fetcher.open(`http://127.0.0.1:${port}/open`, { maxBytes: 1000 });
    expect(await collect(file.body)).toBe('from private');
    for (const url of ['ftp://127.0.0.1/x', 'file:///etc/passwd', `http://u:p@127.0.0.1:${port}/x`]) {
      const err = (await fetcher.open(url, { maxBytes: 1000 }).catch((e: unknown) => e)) as RemoteFetchError;
      expect(err.kind, url).toBe('invalid_url');
    }
    const tooBig = (await fetcher.open(`http://127.0.0.1:${port}/big`, { maxBytes: 3 }).catch((e: unknown) => e)) as RemoteFetchError;
    expect(tooBig.kind).toBe('too_large');
    expect(hits).toEqual(['private /open', 'private /big']);
    await fetcher.close();
  });

  it('a cancelled caller signal stops the fetch as "aborted"', async () => {
    const fetcher = createRemoteFetcher({ allowPrivateTargets: true, timeoutMs: 5000 });
    const controller = new AbortController();
    controller.abort();
    const err = (await fetcher.open(`http://127.0.0.1:${port}/x`, { maxBytes: 1000, signal: controller.signal }).catch((e: unknown) => e)) as RemoteFetchError;
    expect(err.kind).toBe('aborted');
    await fetcher.close();
  });
});
