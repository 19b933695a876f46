import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Media fixtures shared by the test kits of platforms that pull media from a public URL (DEV, Hashnode). */

/** A tiny web server standing for the service's public media URLs (what DEV pulls covers from). */
export async function startMediaHost(files: Map<string, Buffer>): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = files.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, hits, close: () => new Promise((r) => server.close(() => r())) };
}

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Bytes that start as a PNG does (DEV's pipeline only needs to recognise a picture), different for each `n`. */
export function PNG(n: number): Buffer {
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(`picture number ${n}`)]);
}
