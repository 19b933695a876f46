import { noMedia, simulatorOrigins, withSimulator, type TestCtx } from '../common/platform.testkit.js';
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

export const { originsFor, platformOriginsFor } = simulatorOrigins([TELEGRAM_API]);

export type { TestCtx };

/** Runs `fn` against a fresh simulator, with an HTTP client mapped to it (no media to open). */
export const withTelegram = <T>(fn: (sim: TelegramSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withSimulator({ start: telegramSimulator, origins: originsFor, openMedia: noMedia('no media here') }, fn);
