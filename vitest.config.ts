import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import type { Reporter } from 'vitest/reporters';
import { probeTiers, skippedTiersReport } from './test/tiers.js';

// Every database-touching test runs twice: on embedded PGlite and on the PostgreSQL server
// (TEST_DATABASE_URL, default the CI machine's postgres://postgres@127.0.0.1:5432/test), but for
// the platform API tests listed in `onPgliteOnly` and the API fuzz file (`fuzzOnPgliteOnly`) below.
// `*.unit.test.ts` files touch no database and run once. The calendar app's component tests
// (`web/src/**/*.test.tsx`) run once in happy-dom; its browser tests are `test/web/`.
const dbTests = ['src/**/*.test.ts', 'test/**/*.test.ts'];
// The browser tier: the built app in Debian's Chromium against the real service, on PGlite only.
const browserTests = ['test/web/**/*.browser.test.ts'];
const unitTests = ['src/**/*.unit.test.ts', 'test/**/*.unit.test.ts'];
// Platform end-to-end tests (`src/platforms/<id>/<id>.api.test.ts`) test a platform's logic
// (its simulator, its settings, its media) through the HTTP API. What they ask of the database —
// store a channel, queue a post and publish it, store a refreshed token — is asked the same way
// by the publisher, channel-access and modules/ test files, which run on both databases. So they
// run on PGlite only: each starts an app with its worker, and running them twice cost CI minutes
// it does not have (45 min budget). Kept on both databases:
//   - threads: with instagram-standalone the only test of the token keeper, whose
//     `findTokensDueBefore` compares `token_expires_at` in SQL and which marks a channel
//     `refreshNeeded` with its notification; threads also covers a revoked grant and a channel
//     left alone once marked.
// Every other platform's api test is listed, from the folders, so a new one runs on PGlite only.
const keptOnBothDatabases = ['threads'];
const platformsDir = join(import.meta.dirname, 'src/platforms');
const onPgliteOnly = readdirSync(platformsDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !keptOnBothDatabases.includes(d.name) && existsSync(join(platformsDir, d.name, `${d.name}.api.test.ts`)))
  .map((d) => `src/platforms/${d.name}/${d.name}.api.test.ts`);
// The API fuzz tier (`test/fuzz/api.fuzz.test.ts`: 100 generated requests for every operation of
// the OpenAPI document) tests the HTTP edge — validation, error shapes, auth, framing — which is
// the same code on both databases, and it grows with every route: it was CI's longest file, twice.
// It runs on PGlite, the default deployment; the database's own answers to odd input (casts,
// limits, constraint errors) are tested on both by the modules' tests.
// `npm run fuzz` (scripts/fuzz.js) runs it on both, or on the one its `--db` names.
const fuzzOnPgliteOnly = process.env.TIDINGS_FUZZ_ALL_DBS === '1' ? [] : ['test/fuzz/api.fuzz.test.ts'];

// A fresh machine without PostgreSQL, Redis or Chromium runs the embedded tiers and says at the
// end which it left out and how to run them; TIDINGS_TEST_ALL=1 (set by .ci/run) makes that an error.
const tiers = await probeTiers();
const requireAll = process.env.TIDINGS_TEST_ALL === '1';
const notHere = Object.values(tiers).filter((t) => !t.available);
if (requireAll && notHere.length > 0) {
  throw new Error(`TIDINGS_TEST_ALL=1 but ${notHere.map((t) => t.missing).join('; ')}`);
}
const report = skippedTiersReport(notHere);
const tierReporter: Reporter = {
  onTestRunEnd() {
    if (report) process.stdout.write(report);
  },
};
// CI keeps the run's figures (.ci/run counts passed, failed and skipped from them).
const jsonOut = process.env.TIDINGS_TEST_JSON;

// Vitest's default is one file at a time per core but one (a single worker on CI's 2 cores). Most
// files here wait — on simulators, timers, the database — rather than compute, so they run two at
// a time on a 2-core machine (more cores, more files). Then, one at a time as before, the files
// whose timing is real: the browser tier (Chromium, the service, video encoding) and the tests that
// start, kill and restart `tidings` processes (`*.crash.test.ts`, `test/e2e/`), whose recovery
// deadlines must not be eaten by a neighbour's CPU.
const maxWorkers = Number(process.env.TIDINGS_TEST_WORKERS) || Math.max(2, availableParallelism() - 1);
const processTests = ['src/**/*.crash.test.ts', 'test/e2e/**/*.test.ts'];
const alone = { maxWorkers: 1, sequence: { groupOrder: 1 } };

export default defineConfig({
  test: {
    maxWorkers,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', tierReporter, ...(jsonOut ? [['json', { outputFile: jsonOut }] as ['json', { outputFile: string }]] : [])],
    projects: [
      { test: { name: 'unit', include: unitTests } },
      tiers.browser.available && {
        test: {
          ...alone,
          name: 'browser',
          include: browserTests,
          env: { TEST_DB: 'pglite' },
          globalSetup: ['test/web/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [react()],
        test: { name: 'web', root: 'web', include: ['src/**/*.test.{ts,tsx}'], environment: 'happy-dom', setupFiles: ['src/test-setup.ts'] },
      },
      ...(['pglite', 'postgres'] as const).flatMap((db) => {
        if (db === 'postgres' && !tiers.postgres.available) return [];
        const common = {
          env: db === 'pglite' ? { TEST_DB: db } : { TEST_DB: db, TEST_REDIS: tiers.redis.available ? '1' : '' },
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        };
        const exclude = [...unitTests, ...browserTests, ...(db === 'postgres' ? [...onPgliteOnly, ...fuzzOnPgliteOnly] : [])];
        return [
          { test: { ...common, name: db, include: dbTests, exclude: [...exclude, ...processTests] } },
          { test: { ...common, ...alone, name: `${db}-processes`, include: processTests, exclude } },
        ];
      }),
    ].filter((p) => p !== false),
  },
});
