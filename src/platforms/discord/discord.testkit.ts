import { withBotSimulator, type ConnectAs } from '../common/chat-bot.testkit.js';
import { simulatorOrigins, type TestCtx } from '../common/platform.testkit.js';
import { startDiscordSimulator, type DiscordSimulator } from './discord.simulator.js';

/** Shared fixtures of the Discord tests: an application with its bot, a server with channels, a simulator wired to an HTTP client. */

export const APP = { clientId: '1100000000000000001', clientSecret: 'discord-client-secret' };
export const BOT_TOKEN = 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GabcDE.bot-token-secret';
export const GUILD = '2100000000000000001';
export const GENERAL = '2200000000000000001';
export const NEWS = '2200000000000000002';
export const VOICE = '2200000000000000003';
export const LOCKED = '2200000000000000004';
export const CATEGORY = '2200000000000000005';
export const REAL = 'https://discord.com';

export async function discordSimulator() {
  const sim = await startDiscordSimulator({ ...APP, botToken: BOT_TOKEN });
  sim.addGuild({ id: GUILD, name: 'Acme Guild', icon: 'a1b2c3d4', systemChannelId: GENERAL }, [
    { id: CATEGORY, name: 'Text Channels', type: 4 },
    { id: NEWS, name: 'announcements', type: 5 },
    { id: GENERAL, name: 'general', type: 0 },
    { id: VOICE, name: 'Lounge', type: 2 },
    { id: LOCKED, name: 'staff', type: 0, denySend: true },
  ]);
  sim.addGuild({ id: '2100000000000000009', name: 'Other Guild', systemChannelId: null }, []);
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([REAL]);

export type { TestCtx };

/** What the contract's `lookup` reads of a posted message: its text, thread and the attachments' SHA-256. */
export function lookupIn(sim: DiscordSimulator) {
  return (id: string) => {
    const m = sim.messages.find((x) => x.id === id);
    if (!m) return undefined;
    return { text: m.content, replyTo: m.replyTo, mediaSha256: m.attachments.map((a) => a.sha256) };
  };
}

/** Runs `fn` against a fresh server; `openMedia` answers `bytes of <id>`, `as(adapter)` installs the bot through OAuth. */
export const withDiscord = <T>(fn: (sim: DiscordSimulator, ctx: TestCtx, as: ConnectAs) => Promise<T>): Promise<T> => withBotSimulator(discordSimulator, originsFor, rewriteFor, fn);
