import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser as Chromium, type BrowserContext, type Page } from 'playwright-core';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from '../../src/platforms/bluesky/bluesky.simulator.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../src/platforms/telegram/telegram.simulator.js';
import { WEB_DIST } from '../../src/http/web-app.js';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';
import { signUp, type Browser as FormBrowser } from '../browser.js';
import { buildTestApp, type BuildTestAppOptions, type TestApp } from '../helpers.js';
import { freePort } from '../wire.js';

/**
 * The browser tier (issue 16): the real service (built app, API, worker) on a loopback port, the
 * Bluesky and Telegram simulators behind it, and Debian's Chromium driven by playwright-core.
 * Nothing downloads a browser: CHROMIUM (default /usr/bin/chromium) is the one `.ci/run` installs.
 */
export { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';

/** Screenshots go to .ci/out/screenshots, or to docs/screenshots with UPDATE_SCREENSHOTS=1 (the README's). */
const SHOTS = fileURLToPath(new URL(process.env.UPDATE_SCREENSHOTS ? '../../docs/screenshots/' : '../../.ci/out/screenshots/', import.meta.url));

export const TELEGRAM_BOT = '123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
export const TELEGRAM_CHAT = { id: -1001234567890, title: 'Acme News', username: 'acmenews' };
export const BLUESKY_ACCOUNT = { handle: 'acme.bsky.social', did: 'did:plc:acme123', password: 'app-pass-1234', displayName: 'Acme on Bluesky' };

export interface WebHarness {
  t: TestApp;
  origin: string;
  chromium: Chromium;
  sky: BlueskySimulator;
  telegram: TelegramSimulator;
  /** A signed-up person (owner of a new organisation) with a browser context holding their session. */
  signUp(input?: { email?: string; name?: string; organization?: string; timezone?: string }): Promise<SignedIn>;
  close(): Promise<void>;
}

export interface SignedIn {
  context: BrowserContext;
  page: Page;
  /** the same person's session for `inject` calls (arrange through the API: `form.api(method, url, body)`) */
  form: FormBrowser;
  organizationId: string;
}


export async function startWebHarness(
  opts: Pick<BuildTestAppOptions, 'clock' | 'env'> & {
    /**
     * Leave PUBLIC_URL unset, as a fresh install does: it defaults to `http://localhost:PORT`
     * while the browser opens the service at `http://127.0.0.1:PORT` (two origins, one server).
     */
    defaultPublicUrl?: boolean;
  } = {},
): Promise<WebHarness> {
  const sky = await startBlueskySimulator();
  sky.addAccount(BLUESKY_ACCOUNT);
  const telegram = await startTelegramSimulator();
  telegram.addBot(TELEGRAM_BOT, { id: 123456, username: 'tidings_bot' });
  telegram.addChat({ ...TELEGRAM_CHAT, admins: [123456] });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const origins = [`https://api.telegram.org=${telegram.origin}`, ...[BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO].map((o) => `${o}=${sky.origin}`)];
  const t = await buildTestApp({
    clock: opts.clock,
    startWorker: true,
    webApp: { dir: WEB_DIST },
    // PLATFORM_ORIGINS given by a test adds to the simulators' mappings
    env: { ...(opts.defaultPublicUrl ? { PORT: String(port) } : { PUBLIC_URL: origin }), SIGNUP: 'open', ...opts.env, PLATFORM_ORIGINS: [...origins, ...(opts.env?.PLATFORM_ORIGINS ? [opts.env.PLATFORM_ORIGINS] : [])].join(',') },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  let people = 0;

  return {
    t,
    origin,
    chromium: browser,
    sky,
    telegram,
    async signUp(input = {}) {
      people += 1;
      const form = await signUp(t.app, {
        email: input.email ?? `person${people}@example.test`,
        name: input.name ?? `Person ${people}`,
        organization: input.organization ?? `Org ${people}`,
      });
      if (input.timezone) await form.api('PUT', '/public/v1/me', { timezone: input.timezone });
      const me = (await form.api('GET', '/public/v1/me')).json<{ organization: { id: string } }>();
      const context = await browser.newContext({ baseURL: origin, viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
      await context.addCookies([...form.cookies].map(([name, value]) => ({ name, value, url: origin })));
      const page = await context.newPage();
      return { context, page, form, organizationId: me.organization.id };
    },
    async close() {
      await browser.close();
      await t.close();
      await sky.close();
      await telegram.close();
    },
  };
}

/** Saves a PNG of the page (see SHOTS) and answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

export interface ConnectedChannel {
  id: string;
  name: string;
}

/** Connects the harness's Telegram chat and Bluesky account to the person's organisation through the API. */
export async function connectTelegramAndBluesky(me: SignedIn): Promise<{ telegram: ConnectedChannel; bluesky: ConnectedChannel }> {
  const made = async (res: { statusCode: number; body: string; json<T>(): T }, what: string) => {
    if (res.statusCode !== 201) throw new Error(`connecting ${what} answered ${res.statusCode}: ${res.body}`);
    return res.json<ConnectedChannel>();
  };
  const telegram = await made(await me.form.api('POST', '/public/v1/social/telegram', { botToken: TELEGRAM_BOT, chatId: `@${TELEGRAM_CHAT.username}` }), 'Telegram');
  const bluesky = await made(await me.form.api('POST', '/public/v1/social/bluesky', { identifier: BLUESKY_ACCOUNT.handle, password: BLUESKY_ACCOUNT.password }), 'Bluesky');
  return { telegram, bluesky };
}
