import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type Simulator } from '../../../test/simulators/harness.js';

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

/** A static file host standing for a public media origin, for platforms that fetch a post's media from its public URL. */
export interface PublicMediaHost extends Simulator {
  files: Map<string, { data: Buffer; type: string }>;
  /** serves `data` at `<public origin>/<name>`; answers that public URL */
  put(name: string, data: Buffer, type: string): string;
}

/** Starts a `PublicMediaHost` whose files are named by URLs on `publicOrigin`. */
export async function startPublicMediaHost(publicOrigin: string): Promise<PublicMediaHost> {
  const files = new Map<string, { data: Buffer; type: string }>();
  const host = await startSimulator((app) => {
    app.get('/*', async (req, reply) => {
      const f = files.get(req.url.split('?')[0]!.slice(1));
      if (!f) return reply.status(404).send('Not Found');
      return reply.type(f.type).send(f.data);
    });
  });
  return Object.assign(host, {
    files,
    put(name: string, data: Buffer, type: string) {
      files.set(name, { data, type });
      return `${publicOrigin}/${name}`;
    },
  });
}

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Bytes that start as a PNG does (DEV's pipeline only needs to recognise a picture), different for each `n`. */
export function PNG(n: number): Buffer {
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(`picture number ${n}`)]);
}
