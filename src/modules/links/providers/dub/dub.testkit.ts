import type { ShortenerKit } from '../shortener.contract.js';
import { dubShortener } from './dub.shortener.js';
import { DUB_API_ORIGIN, startDubSimulator } from './dub.simulator.js';

/** Dub for the shortener contract: a workspace with the domain go.example.com. */
export const dubKit: ShortenerKit = {
  shortener: dubShortener,
  async start(opts = {}) {
    const sim = await startDubSimulator({ apiKeys: ['dub_good_key'], domains: ['go.example.com'], rateLimit: opts.rateLimit ?? 1000 });
    const settings = { apiKey: 'dub_good_key', domain: 'go.example.com', apiUrl: null };
    return {
      sim,
      origins: new Map([[DUB_API_ORIGIN, sim.origin]]),
      settings,
      wrongKey: { ...settings, apiKey: 'dub_revoked_key' },
      wrongDomain: { ...settings, domain: 'not-ours.example.net' },
      shortHost: 'go.example.com',
    };
  },
};
