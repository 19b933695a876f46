import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformHttp, type PlatformHttpClient } from '../../../../platforms/http.js';
import { expectShortenerError } from '../shortener.contract.js';
import { KUTT_PUBLIC_URL, kuttShortener } from './kutt.shortener.js';
import { startKuttSimulator, type KuttSimulator } from './kutt.simulator.js';

// What is Kutt's own; the cases every provider shares are in providers.contract.unit.test.ts.
describe('Kutt shortener', () => {
  let sim: KuttSimulator;
  let http: PlatformHttpClient;
  const INSTANCE = 'https://links.example.org';
  const settings = { apiKey: 'kutt_key', domain: null, apiUrl: INSTANCE };

  beforeAll(async () => {
    sim = await startKuttSimulator({ apiKeys: ['kutt_key'], defaultDomain: 'links.example.org', domains: ['k.example.com'] });
    http = createPlatformHttp({
      origins: new Map([
        [INSTANCE, sim.origin],
        [KUTT_PUBLIC_URL, sim.origin],
      ]),
      allowPrivateTargets: false,
      timeoutMs: 5000,
    });
  });
  afterAll(async () => {
    await http.close();
    await sim.close();
  });

  it('sends the key in X-API-KEY and the URL as target to /api/v2/links', async () => {
    const link = await kuttShortener.shorten(http, settings, 'https://example.com/x');
    const req = sim.log.findLast((r) => r.method === 'POST')!;
    expect(req.path).toBe('/api/v2/links');
    expect(req.headers['x-api-key']).toBe('kutt_key');
    expect(req.body).toEqual({ target: 'https://example.com/x' });
    expect(link.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new URL(link.shortUrl).hostname).toBe('links.example.org');
  });

  it("defaults to the project's instance kutt.to (never kutt.it, no longer theirs)", async () => {
    expect(KUTT_PUBLIC_URL).toBe('https://kutt.to');
    await kuttShortener.verify(http, { ...settings, apiUrl: null });
    expect(sim.log.at(-1)!.path).toBe('/api/v2/users');
  });

  it('takes an apiUrl with or without the /api/v2 path, and a custom domain of the account', async () => {
    const link = await kuttShortener.shorten(http, { ...settings, apiUrl: `${INSTANCE}/api/v2/`, domain: 'k.example.com' }, 'https://example.com/custom');
    expect(sim.log.at(-1)!.path).toBe('/api/v2/links');
    expect(new URL(link.shortUrl).hostname).toBe('k.example.com');
    await expect(kuttShortener.verify(http, { ...settings, domain: 'k.example.com' })).resolves.toBeUndefined();
    await expect(kuttShortener.verify(http, { ...settings, domain: 'links.example.org' })).resolves.toBeUndefined();
    const err = await expectShortenerError(kuttShortener.shorten(http, { ...settings, domain: 'other.example.net' }, 'https://example.com/'), 'rejected');
    expect(err.message).toContain("You can't use this domain.");
  });

  it("treats Kutt's 500 'Link could not be found.' as a deleted link, but any other 500 as unavailable", async () => {
    const kept = await kuttShortener.shorten(http, settings, 'https://example.com/kept');
    await sim.visit(kept.shortUrl);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await kuttShortener.clicks(http, settings, [kept.id, unknown, 'not-a-uuid'])).toEqual(new Map([[kept.id, 1]]));
    sim.injectKind('server_error', /\/stats$/);
    await expectShortenerError(kuttShortener.clicks(http, settings, [kept.id]), 'unavailable');
  });

  it('reads the shapes some Kutt v3 releases answer: link as { link, url }, visit_count formatted ("1,234")', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    sim.inject({ path: /\/api\/v2\/links$/, status: 201, body: { id, address: 'abc', target: 'https://example.com/', link: { link: 'links.example.org/abc', url: 'https://links.example.org/abc' }, visit_count: '0' } });
    expect(await kuttShortener.shorten(http, settings, 'https://example.com/')).toEqual({ id, shortUrl: 'https://links.example.org/abc' });
    sim.inject({ path: /\/stats$/, status: 200, body: { id, visit_count: '1,234', link: { link: 'links.example.org/abc', url: 'https://links.example.org/abc' } } });
    expect(await kuttShortener.clicks(http, settings, [id])).toEqual(new Map([[id, 1234]]));
    sim.inject({ path: /\/stats$/, status: 200, body: { id, visit_count: '12,34' } });
    await expectShortenerError(kuttShortener.clicks(http, settings, [id]), 'unavailable');
  });

  it('keeps a user-supplied apiUrl behind the SSRF guard: a private address is refused and nothing is sent', async () => {
    const before = sim.log.length;
    for (const apiUrl of ['http://127.0.0.1:3000', 'http://10.0.0.8', 'http://[::1]:8080']) {
      const err = await expectShortenerError(kuttShortener.verify(http, { ...settings, apiUrl }), 'rejected');
      expect(err.message).toMatch(/^Kutt: /);
      expect(err.field).toBe('apiUrl');
    }
    await expectShortenerError(kuttShortener.verify(http, { ...settings, apiUrl: 'https://user:pw@kutt.example.net' }), 'rejected');
    await expectShortenerError(kuttShortener.verify(http, { ...settings, apiUrl: 'kutt.example.net' }), 'rejected');
    expect(sim.log.length).toBe(before);
  });
});
