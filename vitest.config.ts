import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Every database-touching test runs twice: on embedded PGlite and on the PostgreSQL server
// (TEST_DATABASE_URL, default the CI machine's postgres://postgres@127.0.0.1:5432/test).
// `*.unit.test.ts` files touch no database and run once. The calendar app's component tests
// (`web/src/**/*.test.tsx`) run once in happy-dom; its browser tests are `test/browser/`.
const dbTests = ['src/**/*.test.ts', 'test/**/*.test.ts'];
// The browser tier: the built app in Debian's Chromium against the real service, on PGlite only.
const browserTests = ['test/web/**/*.browser.test.ts'];
const unitTests = ['src/**/*.unit.test.ts', 'test/**/*.unit.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { test: { name: 'unit', include: unitTests } },
      {
        test: {
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
      {
        test: {
          name: 'pglite',
          include: dbTests,
          exclude: [...unitTests, ...browserTests],
          env: { TEST_DB: 'pglite' },
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'postgres',
          include: dbTests,
          exclude: [...unitTests, ...browserTests],
          env: { TEST_DB: 'postgres' },
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
