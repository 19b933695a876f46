import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { OperationContext } from '../platform.js';
import { TELEGRAM_API } from './client.js';
import { startTelegramSimulator, type TelegramSimulator } from './telegram.simulator.js';

/** Shared fixtures of the Telegram tests: a bot, a public channel where it is administrator, a chat where it is not. */

export const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
export const BOT = { id: 123456, username: 'tidings_bot' };
export const CHANNEL = { id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [BOT.id] };
export const NOT_ADMIN_CHAT = { id: -1009999, title: 'Not admin', admins: [] };

/** A simulator with the bot, its channel and a chat where the bot is not administrator. */
export async function telegramSimulator(): Promise<TelegramSimulator> {
  const sim = await startTelegramSimulator();
  sim.addBot(TOKEN, BOT);
  sim.addChat(CHANNEL);
  sim.addChat(NOT_ADMIN_CHAT);
  return sim;
}

export const originsFor = (sim: { origin: string }) => new Map([[TELEGRAM_API, sim.origin]]);
export const platformOriginsFor = (sim: { origin: string }) => `${TELEGRAM_API}=${sim.origin}`;

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Runs `fn` against a fresh simulator, with an HTTP client mapped to it (no media to open). */
export async function withTelegram<T>(fn: (sim: TelegramSimulator, ctx: TestCtx) => Promise<T>): Promise<T> {
  const sim = await telegramSimulator();
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia: () => Promise.reject(new Error('no media here')) });
  } finally {
    await http.close();
    await sim.close();
  }
}
