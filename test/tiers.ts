import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { CHROMIUM } from './web/chromium.js';

/**
 * Which test tiers this machine can run. `npm test` on a fresh machine (no PostgreSQL, no Redis,
 * no Chromium) runs the embedded tiers and says plainly what it left out and how to run it;
 * with TIDINGS_TEST_ALL=1 (CI sets it) a missing service is an error instead, so nothing is
 * skipped there unnoticed.
 */
export interface Tier {
  name: string;
  available: boolean;
  /** what is missing, in words */
  missing: string;
  /** how to get it */
  howTo: string;
}

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether something accepts TCP connections at the URL's host and port (within a second). */
export function answers(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function probeTiers(): Promise<{ postgres: Tier; redis: Tier; browser: Tier }> {
  const [pg, redis] = await Promise.all([answers(TEST_DATABASE_URL, 5432), answers(TEST_REDIS_URL, 6379)]);
  const pgHost = new URL(TEST_DATABASE_URL).host;
  const redisHost = new URL(TEST_REDIS_URL).host;
  return {
    postgres: {
      name: 'postgres (every database test again on a PostgreSQL server)',
      available: pg,
      missing: `no PostgreSQL answers at ${pgHost} (TEST_DATABASE_URL)`,
      howTo: 'start PostgreSQL with a database `test` that user postgres reaches without a password (or set TEST_DATABASE_URL)',
    },
    redis: {
      name: 'redis (the shared rate-limit store on Redis, in the postgres tier)',
      available: redis,
      missing: `no Redis answers at ${redisHost} (TEST_REDIS_URL)`,
      howTo: 'start Redis (`redis-server --daemonize yes`) or set TEST_REDIS_URL',
    },
    browser: {
      name: 'browser (the web app in Chromium)',
      available: existsSync(CHROMIUM),
      missing: `no Chromium at ${CHROMIUM} (CHROMIUM)`,
      howTo: 'install Debian\'s Chromium (`apt-get install -y chromium`) or set CHROMIUM to its path',
    },
  };
}

/** The lines `npm test` prints about the tiers it left out (empty when it ran them all). */
export function skippedTiersReport(tiers: Tier[]): string {
  const skipped = tiers.filter((t) => !t.available);
  if (skipped.length === 0) return '';
  return [
    '',
    `Skipped ${skipped.length} test tier${skipped.length > 1 ? 's' : ''} this machine cannot run:`,
    ...skipped.map((t) => `  - ${t.name}: ${t.missing}; to run it, ${t.howTo}`),
    'Then run `npm test` again (TIDINGS_TEST_ALL=1 makes a missing tier an error, as in CI).',
    '',
  ].join('\n');
}
