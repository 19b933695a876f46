import { expect } from 'vitest';
import type { ManualClock } from '../src/lib/clock.js';
import { startTelegramSimulator, type TelegramSimulator } from '../src/platforms/telegram/telegram.simulator.js';
import { realtimeManualClock } from './factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from './helpers.js';

const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
const BOT = { id: 123456, username: 'tidings_bot' };
export const TELEGRAM_TEST_CHAT = { id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [BOT.id] };

export interface TelegramApp {
  t: TestApp;
  tg: TelegramSimulator;
  /** the app clock, at real now when started (pg-boss compares job times with the database's real clock) */
  clock: ManualClock;
  org: TestOrg;
  /** the connected Telegram channel (TELEGRAM_TEST_CHAT) */
  channel: string;
  /** the messages the simulator was sent */
  sends(): TelegramSimulator['log'];
  close(): Promise<void>;
}

/** An app with its worker and the Telegram simulator, an organisation and its Telegram channel connected through the API. */
export async function startTelegramApp(opts: { origins?: Map<string, string>; env?: Record<string, string> } = {}): Promise<TelegramApp> {
  const tg = await startTelegramSimulator();
  tg.addBot(TOKEN, BOT);
  tg.addChat(TELEGRAM_TEST_CHAT);
  const clock = realtimeManualClock();
  const origins = [`https://api.telegram.org=${tg.origin}`, ...[...(opts.origins ?? [])].map(([from, to]) => `${from}=${to}`)].join(',');
  const t = await buildTestApp({ env: { ...opts.env, PLATFORM_ORIGINS: origins }, clock, startWorker: true });
  const org = await t.createOrg('Acme');
  const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: `@${TELEGRAM_TEST_CHAT.username}` } });
  expect(res.statusCode, res.body).toBe(201);
  return {
    t,
    tg,
    clock,
    org,
    channel: res.json<{ id: string }>().id,
    sends: () => tg.log.filter((r) => /\/sendMessage$/.test(r.path)),
    async close() {
      await t.close();
      await tg.close();
    },
  };
}
