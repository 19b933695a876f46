import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformHttp, type PlatformHttpClient } from '../../../../platforms/http.js';
import { expectShortenerError } from '../shortener.contract.js';
import { dubShortener } from './dub.shortener.js';
import { DUB_API_ORIGIN, DUB_DEFAULT_DOMAIN, startDubSimulator, type DubSimulator } from './dub.simulator.js';

// What is Dub's own; the cases every provider shares are in providers.contract.unit.test.ts.
describe('Dub shortener', () => {
  let sim: DubSimulator;
  let http: PlatformHttpClient;
  const settings = { apiKey: 'dub_key', domain: null, apiUrl: null };

  beforeAll(async () => {
    sim = await startDubSimulator({ apiKeys: ['dub_key'], domains: ['go.example.com'] });
    http = createPlatformHttp({ origins: new Map([[DUB_API_ORIGIN, sim.origin]]), allowPrivateTargets: false, timeoutMs: 5000 });
  });
  afterAll(async () => {
    await http.close();
    await sim.close();
  });

  it('sends the key as a Bearer token and the URL (and domain) as Dub names them', async () => {
    const link = await dubShortener.shorten(http, { ...settings, domain: 'go.example.com' }, 'https://example.com/x');
    const req = sim.log.findLast((r) => r.method === 'POST' && r.path === '/links')!;
    expect(req.headers.authorization).toBe('Bearer dub_key');
    expect(req.body).toEqual({ url: 'https://example.com/x', domain: 'go.example.com' });
    expect(link.id).toMatch(/^link_/);
  });

  it("without a domain makes the link on Dub's default domain, and sends no domain", async () => {
    const link = await dubShortener.shorten(http, settings, 'https://example.com/y');
    expect(new URL(link.shortUrl).hostname).toBe(DUB_DEFAULT_DOMAIN);
    expect(sim.log.findLast((r) => r.method === 'POST')!.body).toEqual({ url: 'https://example.com/y' });
  });

  it("verifies Dub's own default domain as usable though it is not the workspace's", async () => {
    await expect(dubShortener.verify(http, { ...settings, domain: 'dub.sh' })).resolves.toBeUndefined();
    expect(sim.log.slice(-2).map((r) => r.path)).toEqual(['/domains?search=dub.sh&pageSize=50', '/domains/default']);
  });

  it('reads clicks from the link (works on every plan), not from the Pro-only analytics', async () => {
    const link = await dubShortener.shorten(http, settings, 'https://example.com/z');
    await sim.visit(link.shortUrl);
    expect(await dubShortener.clicks(http, settings, [link.id])).toEqual(new Map([[link.id, 1]]));
    expect(sim.log.at(-1)!.path).toBe(`/links/info?linkId=${link.id}`);
    expect(sim.log.some((r) => r.path.startsWith('/analytics'))).toBe(false);
  });

  it('refuses a 403 for a missing scope as auth, and a 403 for a foreign domain as rejected', async () => {
    sim.inject({ status: 403, body: { error: { code: 'forbidden', message: 'The provided key does not have the required permissions for this endpoint.', doc_url: '' } } });
    await expectShortenerError(dubShortener.shorten(http, settings, 'https://example.com/'), 'auth');
    const err = await expectShortenerError(dubShortener.shorten(http, { ...settings, domain: 'acme.com' }, 'https://example.com/'), 'rejected');
    expect(err.message).toContain('Domain does not belong to workspace.');
  });

  it('refuses a destination Dub finds invalid as rejected, with its message', async () => {
    const err = await expectShortenerError(dubShortener.shorten(http, settings, 'not a url'), 'rejected');
    expect(err.message).toMatch(/422.*Invalid destination URL/);
  });

  it('reads the wait from X-RateLimit-Reset when a 429 has no Retry-After', async () => {
    const reset = Math.floor(Date.now() / 1000) + 42;
    sim.inject({ status: 429, headers: { 'x-ratelimit-reset': String(reset) }, body: { error: { code: 'rate_limit_exceeded', message: 'Too many requests.', doc_url: '' } } });
    const err = await expectShortenerError(dubShortener.shorten(http, settings, 'https://example.com/'), 'unavailable');
    expect(err.retryAfter).toBeGreaterThanOrEqual(41);
    expect(err.retryAfter).toBeLessThanOrEqual(42);
  });

  it('reaches a self-hosted Dub through apiUrl only past the SSRF guard', async () => {
    const before = sim.log.length;
    const err = await expectShortenerError(dubShortener.shorten(http, { ...settings, apiUrl: 'http://127.0.0.1:9/' }, 'https://example.com/'), 'rejected');
    expect(err.message).toMatch(/^Dub: /);
    await expectShortenerError(dubShortener.verify(http, { ...settings, apiUrl: 'ftp://dub.example.com' }), 'rejected');
    expect(sim.log.length).toBe(before);
  });
});
