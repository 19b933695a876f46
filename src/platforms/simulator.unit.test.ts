import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { currentSimulatorMode, mediaFetch, withSimulatorMode } from './simulator.js';

let server: Server;
let origin: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.end(`bytes of ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
});

describe('the simulator mode', () => {
  it('is listen unless a sandbox starts the simulator in-process', async () => {
    expect(currentSimulatorMode()).toBe('listen');
    expect(await withSimulatorMode('in-process', () => Promise.resolve(currentSimulatorMode()))).toBe('in-process');
    expect(currentSimulatorMode()).toBe('listen');
  });
});

describe('mediaFetch', () => {
  it('fetches a mapped origin where it is really served, in either mode (record or Map)', async () => {
    const res = await mediaFetch('in-process', { 'https://tidings.example': origin }, 'https://tidings.example/media/a.png?v=2');
    expect(await res.text()).toBe('bytes of /media/a.png?v=2');
    const viaMap = await mediaFetch('listen', new Map([['https://tidings.example', origin]]), 'https://tidings.example/b.png');
    expect(await viaMap.text()).toBe('bytes of /b.png');
    expect(seen).toEqual(['/media/a.png?v=2', '/b.png']);
  });

  it('in the in-process sandbox, refuses an unmapped URL without requesting it', async () => {
    const url = `${origin}/outside.png`;
    await expect(mediaFetch('in-process', { 'https://tidings.example': 'http://127.0.0.1:1' }, url)).rejects.toThrow(
      `the sandbox only downloads media from this service: ${origin} is not this service`,
    );
    await expect(mediaFetch('in-process', undefined, url)).rejects.toThrow('is not this service');
    await expect(mediaFetch('in-process', new Map(), url)).rejects.toThrow('is not this service');
    expect(seen).toEqual([]);
  });

  it('in listen mode (tests), fetches an unmapped URL as given', async () => {
    const res = await mediaFetch('listen', { 'https://tidings.example': 'http://127.0.0.1:1' }, `${origin}/as-given.png`, { headers: { connection: 'close' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('bytes of /as-given.png');
    expect(seen).toEqual(['/as-given.png']);
  });
});
