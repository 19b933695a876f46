import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformHttp, type PlatformHttpClient } from '../../../../platforms/http.js';
import { expectShortenerError } from '../shortener.contract.js';
import { shortioShortener } from './shortio.shortener.js';
import { SHORTIO_API_ORIGIN, SHORTIO_STATISTICS_ORIGIN, startShortioSimulator, type ShortioSimulator } from './shortio.simulator.js';

// What is Short.io's own; the cases every provider shares are in providers.contract.unit.test.ts.
describe('Short.io shortener', () => {
  let sim: ShortioSimulator;
  let http: PlatformHttpClient;
  const settings = { apiKey: 'sk_key', domain: 'short.example.com', apiUrl: null };

  beforeAll(async () => {
    sim = await startShortioSimulator({ apiKeys: ['sk_key'], domains: ['short.example.com', 'links.example.org'] });
    http = createPlatformHttp({
      origins: new Map([
        [SHORTIO_API_ORIGIN, sim.origin],
        [SHORTIO_STATISTICS_ORIGIN, sim.origin],
      ]),
      allowPrivateTargets: false,
      timeoutMs: 5000,
    });
  });
  afterAll(async () => {
    await http.close();
    await sim.close();
  });

  it('sends the key as is (no Bearer) with the domain and originalURL', async () => {
    const link = await shortioShortener.shorten(http, settings, 'https://example.com/x');
    const req = sim.log.findLast((r) => r.method === 'POST')!;
    expect(req.path).toBe('/links');
    expect(req.headers.authorization).toBe('sk_key');
    expect(req.body).toEqual({ domain: 'short.example.com', originalURL: 'https://example.com/x' });
    expect(link.id).toMatch(/^lnk_/);
    expect(link.shortUrl).toMatch(/^https:\/\/short\.example\.com\//);
  });

  it('needs a domain: without one it refuses before asking Short.io', async () => {
    expect(shortioShortener.needsDomain).toBe(true);
    const before = sim.log.length;
    const err = await expectShortenerError(shortioShortener.shorten(http, { ...settings, domain: null }, 'https://example.com/'), 'rejected');
    expect(err.message).toMatch(/needs a short domain/);
    await expectShortenerError(shortioShortener.verify(http, { ...settings, domain: '  ' }), 'rejected');
    expect(sim.log.length).toBe(before);
  });

  it("verify names the domain and the account's domains when it is not among them", async () => {
    const err = await expectShortenerError(shortioShortener.verify(http, { ...settings, domain: 'other.example.net' }), 'rejected');
    expect(err.message).toBe("Short.io: other.example.net is not one of this account's domains (short.example.com, links.example.org)");
    await expect(shortioShortener.verify(http, { ...settings, domain: 'Links.Example.org' })).resolves.toBeUndefined();
  });

  it('counts people (humanClicks) from the statistics host, not the bots in totalClicks', async () => {
    const link = await shortioShortener.shorten(http, settings, 'https://example.com/stats');
    await sim.visit(link.shortUrl);
    await sim.visit(link.shortUrl, 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)');
    await sim.visit(link.shortUrl, 'TelegramBot (like TwitterBot)');
    expect(sim.links.find((l) => l.id === link.id)).toMatchObject({ clicks: 1, botClicks: 2 });
    expect(await shortioShortener.clicks(http, settings, [link.id])).toEqual(new Map([[link.id, 1]]));
    expect(sim.log.at(-1)!.path).toBe(`/statistics/link/${link.id}?period=total&tz=UTC`);
  });

  it('ignores apiUrl (Short.io is hosted only)', async () => {
    const link = await shortioShortener.shorten(http, { ...settings, apiUrl: 'http://127.0.0.1:9' }, 'https://example.com/hosted');
    expect(sim.links.some((l) => l.id === link.id)).toBe(true);
  });
});
