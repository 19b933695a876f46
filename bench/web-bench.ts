/**
 * The calendar app's weight and first load (issue 16), run by hand:
 *   npm run build && node --import tsx bench/web-bench.ts
 * Prints one JSON line: the gzip bytes of what index.html loads before the first page (entry JS,
 * CSS and module preloads) and of each lazy chunk; then, against the built service (`serve` on a
 * fresh embedded data folder) with a person whose organisation has one Telegram channel (the
 * simulator, in this process) and 50 drafts in the coming week, the time Chromium takes from
 * navigation to the calendar showing its posts: cold (empty cache), then warm (median of 5).
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
  const start = new Date();
  start.setUTCHours(9, 0, 0, 0);
  for (let i = 0; i < 50; i++) {
    const date = new Date(start.getTime() + (1 + (i % 6)) * 86_400_000 + (i % 9) * 3_600_000).toISOString();
    const res = await page.request.post('/public/v1/posts', { headers, data: { type: 'draft', date, shortLink: false, tags: [], posts: [{ integration: { id: channel.id }, value: [{ content: `Post ${i}`, image: [] }], settings: {} }] } });
    if (!res.ok()) throw new Error(`POST /posts answered ${res.status()}: ${await res.text()}`);
  }
  await context.close();

  const loads: number[] = [];
  const cookies = await context.storageState().catch(() => undefined);
  const session = await browser.newContext({ baseURL: origin, viewport: { width: 1360, height: 860 }, storageState: cookies });
  for (let run = 0; run < 6; run++) {
    const p = await session.newPage();
    const t0 = performance.now();
    await p.goto('/calendar');
    await p.locator('.fc-event').first().waitFor();
    loads.push(Math.round(performance.now() - t0));
    await p.close();
  }
  const warm = loads.slice(1).sort((a, b) => a - b);
  console.log(JSON.stringify({ initialFiles: initial, initialGzipBytes, chunkGzipBytes, calendarWithPostsMs: { cold: loads[0], warmMedian: warm[2] } }));
} finally {
  await browser.close();
  await stop(child);
  await telegram.close();
  rmSync(dataDir, { recursive: true, force: true });
}
