import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { OperationContext } from '../platform.js';
import { MEDIUM_API_ORIGIN, startMediumSimulator, type MediumSimulator, type MediumSimulatorOptions } from './medium.simulator.js';

/** Shared fixtures of the Medium tests: a writer with a token, two publications, a media host. */

export const MEDIUM_TOKEN = '181d415f34379af07b2c11d144dfbe35d';
export const WRITER = { id: '5303d74c64f66366f00cb9b2a94f3251bf5', username: 'acmewrites', name: 'Acme Writes', imageUrl: 'https://cdn-images-1.medium.com/fit/c/400/400/0*acme.png' };
/** a publication the writer edits */
export const DEVELOPERS = 'b45573563f5a';
/** a publication where the writer may only submit drafts */
export const ABOUT = 'b969ac62a46b';

export async function mediumSimulator(opts: MediumSimulatorOptions = {}) {
  const sim = await startMediumSimulator(opts);
  sim.addUser(WRITER, MEDIUM_TOKEN);
  sim.addUser({ id: '1c9c63b15b874d3e354340b7d7458d55e1d', username: 'someoneelse', name: 'Someone Else' }, 'ffffffffffffffffffffffffffffffff0');
  sim.addPublication({ id: DEVELOPERS, name: 'Developers', slug: 'developers', contributors: { [WRITER.id]: 'editor' } });
  sim.addPublication({ id: ABOUT, name: 'About Medium', slug: 'about', contributors: { [WRITER.id]: 'writer' } });
  sim.addPublication({ id: 'c0ffee000001', name: 'Not yours', slug: 'not-yours', contributors: {} });
  return sim;
}

export const originsFor = (sim: MediumSimulator) => new Map([[MEDIUM_API_ORIGIN, sim.origin]]);

/** `PLATFORM_ORIGINS` for a service talking to this simulator. */
export const platformOriginsFor = (sim: MediumSimulator) => `${MEDIUM_API_ORIGIN}=${sim.origin}`;

/** A tiny web server standing for the service's public media URLs (what Medium fetches). */
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

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Runs `fn` against a fresh simulator whose pictures are fetched from `files` under `https://tidings.example`. */
export async function withMedium<T>(files: Map<string, Buffer>, fn: (sim: MediumSimulator, ctx: TestCtx, host: { hits: string[] }) => Promise<T>): Promise<T> {
  const host = await startMediaHost(files);
  const sim = await mediumSimulator({ mediaOrigins: { 'https://tidings.example': host.origin } });
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia: () => Promise.reject(new Error('Medium pulls media by URL')) }, host);
  } finally {
    await http.close();
    await sim.close();
    await host.close();
  }
}
