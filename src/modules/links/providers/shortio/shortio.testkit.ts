import type { ShortenerKit } from '../shortener.contract.js';
import { shortioShortener } from './shortio.shortener.js';
import { SHORTIO_API_ORIGIN, SHORTIO_STATISTICS_ORIGIN, startShortioSimulator } from './shortio.simulator.js';

/** Short.io for the shortener contract: an account with the domain short.example.com; both API hosts map to the simulator. */
export const shortioKit: ShortenerKit = {
  shortener: shortioShortener,
  async start(opts = {}) {
    // a minute's window, so a slow machine cannot slip past the limit into the next second
    const sim = await startShortioSimulator({ apiKeys: ['sk_good_key'], domains: ['short.example.com'], rateLimit: opts.rateLimit ?? 1000, rateWindowMs: 60_000 });
    const settings = { apiKey: 'sk_good_key', domain: 'short.example.com', apiUrl: null };
    return {
      sim,
      origins: new Map([
        [SHORTIO_API_ORIGIN, sim.origin],
        [SHORTIO_STATISTICS_ORIGIN, sim.origin],
      ]),
      settings,
      wrongKey: { ...settings, apiKey: 'sk_revoked_key' },
      wrongDomain: { ...settings, domain: 'not-ours.example.net' },
      shortHost: 'short.example.com',
    };
  },
};
