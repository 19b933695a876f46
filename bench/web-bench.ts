/**
 * The calendar app's weight and first load (issue 16), run by hand:
 *   npm run build && node --import tsx bench/web-bench.ts
 * Prints one JSON line: the gzip bytes of what index.html loads before the first page (entry JS,
 * CSS and module preloads) and of each lazy chunk; then, against the built service (`serve` on a
 * fresh embedded data folder) with a person whose organisation has one Telegram channel (the
 * simulator, in this process) and 50 drafts in the next 48 hours, the time Chromium takes from
 * navigation to the calendar's heading and to the calendar (list view) showing its posts: cold
 * (empty cache), then warm (median of 5).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startTelegramSimulator } from '../src/platforms/telegram/telegram.simulator.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/web/chromium.js';
import { ROOT, SECRET, startService, stop } from './lib.js';

const DIST = join(ROOT, 'web', 'dist');
const gz = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;
const index = readFileSync(join(DIST, 'index.html'), 'utf8');
const initial = [...index.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)].map((m) => m[1]!);
const initialGzipBytes = initial.reduce((n, f) => n + gz(join(DIST, 'assets', f)), 0);
const chunkGzipBytes = Object.fromEntries(
  readdirSync(join(DIST, 'assets'))
    .filter((f) => f.endsWith('.js') && !initial.includes(f))
    .map((f) => [f, gz(join(DIST, 'assets', f))] as const)
    .sort((a, b) => b[1] - a[1]),
);

const BOT = '123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const telegram = await startTelegramSimulator();
telegram.addBot(BOT, { id: 123456, username: 'tidings_bot' });
telegram.addChat({ id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [123456] });
const dataDir = mkdtempSync(join(tmpdir(), 'tidings-web-bench-'));
const port = 3900 + Math.floor(Math.random() * 90);
const origin = `http://127.0.0.1:${port}`;
const { child } = await startService({ DATA_DIR: dataDir, CREDENTIALS_SECRET: SECRET, PUBLIC_URL: origin, SIGNUP: 'open', PLATFORM_ORIGINS: `https://api.telegram.org=${telegram.origin}` }, port);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
try {
  const context = await browser.newContext({ baseURL: origin, viewport: { width: 1360, height: 860 } });
  const page = await context.newPage();
  await page.goto('/account/signup');
  await page.getByLabel('Email').fill('bench@example.test');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: /create/i }).click();
  await page.waitForURL(`${origin}/calendar`);
  const me = (await (await page.request.get('/public/v1/me')).json()) as { csrfToken: string };
  const headers = { 'x-csrf-token': me.csrfToken };
  const channel = (await (await page.request.post('/public/v1/social/telegram', { headers, data: { botToken: BOT, chatId: '@acmenews' } })).json()) as { id: string };
  for (let i = 0; i < 50; i++) {
    // all within the next 48 hours, so the week or the next days are on screen whatever the weekday
    const date = new Date(Date.now() + 3_600_000 + i * 50 * 60_000).toISOString();
    const res = await page.request.post('/public/v1/posts', { headers, data: { type: 'draft', date, shortLink: false, tags: [], posts: [{ integration: { id: channel.id }, value: [{ content: `Post ${i}`, image: [] }], settings: {} }] } });
    if (!res.ok()) throw new Error(`POST /posts answered ${res.status()}: ${await res.text()}`);
  }
  const signedIn = await context.storageState();
  await context.close();

  // each load in a new page of one context: the first with an empty cache, the others with the assets cached
  const loads: number[] = [];
  const shells: number[] = [];
  const session = await browser.newContext({ baseURL: origin, viewport: { width: 1360, height: 860 }, storageState: signedIn });
  for (let run = 0; run < 6; run++) {
    const p = await session.newPage();
    const t0 = performance.now();
    await p.goto('/calendar?view=list');
    await p.getByRole('heading', { level: 1, name: 'Calendar' }).waitFor();
    shells.push(Math.round(performance.now() - t0));
    await p.locator('.fc-event').first().waitFor();
    loads.push(Math.round(performance.now() - t0));
    await p.close();
  }
  const median = (xs: number[]) => xs.slice(1).sort((a, b) => a - b)[2];
  console.log(
    JSON.stringify({
      initialFiles: initial,
      initialGzipBytes,
      chunkGzipBytes,
      calendarHeadingMs: { cold: shells[0], warmMedian: median(shells) },
      calendarWithPostsMs: { cold: loads[0], warmMedian: median(loads) },
    }),
  );
} finally {
  await browser.close();
  await stop(child);
  await telegram.close();
  rmSync(dataDir, { recursive: true, force: true });
}
