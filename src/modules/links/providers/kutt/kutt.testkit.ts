import type { ShortenerKit } from '../shortener.contract.js';
import { kuttShortener } from './kutt.shortener.js';
import { startKuttSimulator } from './kutt.simulator.js';

/**
 * Kutt for the shortener contract: a self-hosted instance at https://kutt.example.org (the
 * organisation's `apiUrl`, untrusted; PLATFORM_ORIGINS sends it to the simulator), links on the
 * instance's own domain.
 */
export const KUTT_TEST_INSTANCE = 'https://kutt.example.org';

export const kuttKit: ShortenerKit = {
  shortener: kuttShortener,
  async start(opts = {}) {
    const sim = await startKuttSimulator({ apiKeys: ['kutt_good_key'], defaultDomain: 'kutt.example.org', domains: ['k.example.com'], rateLimit: opts.rateLimit ?? 1000 });
    const settings = { apiKey: 'kutt_good_key', domain: null, apiUrl: KUTT_TEST_INSTANCE };
    return {
      sim,
      origins: new Map([[KUTT_TEST_INSTANCE, sim.origin]]),
      settings,
      wrongKey: { ...settings, apiKey: 'kutt_revoked_key' },
      wrongDomain: { ...settings, domain: 'not-ours.example.net' },
      shortHost: 'kutt.example.org',
    };
  },
};
