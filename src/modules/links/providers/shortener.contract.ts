import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformHttp, type PlatformHttpClient } from '../../../platforms/http.js';
import { ShortenerError, type Shortener, type ShortenerSettings } from './provider.js';
import { BROWSER_UA, type ShortenerSimulator } from './shortener.simulator.js';

/**
 * The cases every outside shortener passes against its simulator, unchanged (like Hono's
 * `common.case` tests): each provider's `<id>.testkit.ts` says how to start its simulator and
 * which settings are good, have a wrong key, or name a domain the account does not have.
 */
export interface ShortenerKitRun {
  sim: ShortenerSimulator;
  /** real API origins → the simulator (PLATFORM_ORIGINS) */
  origins: Map<string, string>;
  settings: ShortenerSettings;
  wrongKey: ShortenerSettings;
  wrongDomain: ShortenerSettings;
  /** the host short links are made on with `settings` */
  shortHost: string;
}

export interface ShortenerKit {
  shortener: Shortener;
  /** Starts the simulator; `rateLimit`: requests the key may make in the window (default: more than any case makes). */
  start(opts?: { rateLimit?: number }): Promise<ShortenerKitRun>;
}

const httpFor = (origins: Map<string, string>, timeoutMs = 5000) => createPlatformHttp({ origins, allowPrivateTargets: false, timeoutMs });

/** Awaits `p`, expecting a ShortenerError of `kind`; answers it for further checks. */
export async function expectShortenerError(p: Promise<unknown>, kind: ShortenerError['kind']): Promise<ShortenerError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'expected a ShortenerError').toBeInstanceOf(ShortenerError);
  expect((err as ShortenerError).kind, (err as Error).message).toBe(kind);
  return err as ShortenerError;
}

export function describeShortenerContract(kit: ShortenerKit) {
  const { shortener } = kit;
  describe(`${shortener.displayName} (${shortener.provider}) against its simulator`, () => {
    let run: ShortenerKitRun;
    let http: PlatformHttpClient;
    const clients: PlatformHttpClient[] = [];

    beforeAll(async () => {
      run = await kit.start();
      http = httpFor(run.origins);
      clients.push(http);
    });
    afterEach(() => run.sim.setLatency(0));
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await run.sim.close();
    });

    it('shortens a URL to a link on the configured domain that redirects to it, counting a person once and a crawler apart', async () => {
      const target = 'https://example.com/article?utm_source=x&utm_campaign=launch';
      const link = await shortener.shorten(http, run.settings, target);
      expect(link.id).not.toBe('');
      const short = new URL(link.shortUrl);
      expect(short.protocol).toBe('https:');
      expect(short.hostname).toBe(run.shortHost);
      expect(short.pathname).toMatch(/^\/[^/]+$/);
      expect(run.sim.links.find((l) => l.id === link.id)).toMatchObject({ target, shortUrl: link.shortUrl, clicks: 0 });

      // a browser following the short URL (a real request to the short domain's path)
      const res = await fetch(`${run.sim.origin}${short.pathname}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
      expect([301, 302]).toContain(res.status);
      expect(res.headers.get('location')).toBe(target);
      expect(run.sim.clicksOf(link.id)).toBe(1);

      // a platform's link-preview crawler is not a click
      const bot = await run.sim.visit(link.shortUrl, 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)');
      expect(bot.location).toBe(target);
      expect(run.sim.clicksOf(link.id)).toBe(1);
    });

    it('reads the clicks of several links, leaving out links the provider no longer has', async () => {
      const a = await shortener.shorten(http, run.settings, 'https://example.com/a');
      const b = await shortener.shorten(http, run.settings, 'https://example.com/b');
      const gone = await shortener.shorten(http, run.settings, 'https://example.com/gone');
      await run.sim.visit(a.shortUrl);
      await run.sim.visit(a.shortUrl);
      await run.sim.visit(a.shortUrl, 'Twitterbot/1.0');
      run.sim.deleteLink(gone.id);

      const counts = await shortener.clicks(http, run.settings, [a.id, b.id, gone.id, a.id]);
      expect([...counts.entries()].sort()).toEqual([
        [a.id, 2],
        [b.id, 0],
      ].sort());
      expect(await shortener.clicks(http, run.settings, [])).toEqual(new Map());
    });

    it('verifies good settings, and refuses a wrong key as auth and an unknown domain as rejected', async () => {
      await expect(shortener.verify(http, run.settings)).resolves.toBeUndefined();
      const auth = await expectShortenerError(shortener.verify(http, run.wrongKey), 'auth');
      expect(auth.message).toContain(shortener.displayName);
      expect(auth.field).toBe('apiKey');
      await expectShortenerError(shortener.shorten(http, run.wrongKey, 'https://example.com/'), 'auth');

      const domain = run.wrongDomain.domain!;
      const refused = await expectShortenerError(shortener.verify(http, run.wrongDomain), 'rejected');
      expect(refused.message).toContain(domain);
      expect(refused.field).toBe('domain');
      const before = run.sim.links.length;
      const notMade = await expectShortenerError(shortener.shorten(http, run.wrongDomain, 'https://example.com/'), 'rejected');
      expect(notMade.field).toBe('domain');
      expect(run.sim.links.length).toBe(before);
    });

    it('answers a server error, a malformed answer and a timeout as unavailable', async () => {
      run.sim.injectKind('server_error');
      const failed = await expectShortenerError(shortener.shorten(http, run.settings, 'https://example.com/'), 'unavailable');
      expect(failed.message).toMatch(/500/);

      run.sim.injectKind('malformed');
      await expectShortenerError(shortener.shorten(http, run.settings, 'https://example.com/'), 'unavailable');
      const real = await shortener.shorten(http, run.settings, 'https://example.com/real');
      run.sim.injectKind('malformed');
      await expectShortenerError(shortener.clicks(http, run.settings, [real.id]), 'unavailable');

      run.sim.inject({ status: 200, body: '<html><body>Maintenance</body></html>', headers: { 'content-type': 'text/html' } });
      await expectShortenerError(shortener.verify(http, run.settings), 'unavailable');

      const impatient = httpFor(run.origins, 150);
      clients.push(impatient);
      run.sim.setLatency(600);
      const slow = await expectShortenerError(shortener.shorten(impatient, run.settings, 'https://example.com/slow'), 'unavailable');
      expect(slow.message).toMatch(/did not answer in time/);
    });

    it('answers the rate limit as unavailable with the seconds to wait', async () => {
      const limited = await kit.start({ rateLimit: 2 });
      const client = httpFor(limited.origins);
      clients.push(client);
      try {
        let err: unknown;
        for (let i = 0; i < 5 && err === undefined; i++) {
          err = await shortener.shorten(client, limited.settings, `https://example.com/${i}`).then(
            () => undefined,
            (e: unknown) => e,
          );
        }
        expect(err).toBeInstanceOf(ShortenerError);
        expect((err as ShortenerError).kind).toBe('unavailable');
        expect((err as ShortenerError).retryAfter).toBeGreaterThan(0);
        expect(limited.sim.links.length).toBe(2);
      } finally {
        await limited.sim.close();
      }
    });
  });
}
