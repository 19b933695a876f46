import { SANDBOX_APPS, SANDBOX_DISCORD_BOT_TOKEN } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { startDiscordSimulator, type DiscordSimulator } from './discord.simulator.js';

/**
 * The #general channel of the example: the one of the first server made in the organisation's
 * simulator (a channel belongs to one server). Every further server's #general has an id from
 * its account key, as the channels tool lists it.
 */
const SANDBOX_CHANNEL = '2200000000000400001';

const snowflake = (key: string, salt: string) => `1${numericId(key, 18, salt)}`;

/**
 * Discord in the sandbox: the application with its bot (the sandbox's bot token), a server per
 * account named after it (#general, its system channel, and #announcements) to which the bot is
 * added on its own consent. The feed is the bot's messages in the server's channels and the
 * threads started from them (thread items reply to the starter message).
 */
export default defineSandboxKit<DiscordSimulator>({
  origins: ['https://discord.com'],
  app: SANDBOX_APPS.discord,
  example: { settings: { channel: SANDBOX_CHANNEL }, media: 'image' },
  start: () => startDiscordSimulator({ clientId: SANDBOX_APPS.discord.clientId, clientSecret: SANDBOX_APPS.discord.clientSecret, botToken: SANDBOX_DISCORD_BOT_TOKEN }),
  addAccount(sim, account) {
    const guild = snowflake(account.key, 'discord-guild');
    if (!sim.guilds.has(guild)) {
      const general = sim.guilds.size === 0 && !sim.channels.has(SANDBOX_CHANNEL) ? SANDBOX_CHANNEL : snowflake(account.key, 'discord-general');
      sim.addGuild({ id: guild, name: account.name, systemChannelId: general }, [
        { id: snowflake(account.key, 'discord-category'), name: 'Text Channels', type: 4 },
        { id: general, name: 'general', type: 0 },
        { id: snowflake(account.key, 'discord-news'), name: 'announcements', type: 5 },
      ]);
    }
    return {
      kind: 'oauth',
      // The authorisation page adds the bot to the first server of the list: this account's.
      approve: () => {
        const mine = sim.guilds.get(guild)!;
        const others = [...sim.guilds.values()].filter((g) => g.id !== guild);
        sim.guilds.clear();
        for (const g of [mine, ...others]) sim.guilds.set(g.id, g);
      },
    };
  },
  feed(sim, internalId) {
    return sim.messages
      .filter((m) => m.guildId === internalId && m.authorId === sim.botUserId)
      .map((m) => ({
        id: m.id,
        text: m.content,
        createdAt: m.timestamp,
        ...(m.replyTo ? { replyTo: m.replyTo } : {}),
        media: m.attachments.map((a) => ({
          kind: a.mimeType.startsWith('image/') ? ('image' as const) : a.mimeType.startsWith('video/') ? ('video' as const) : ('document' as const),
          sha256: a.sha256,
          mimeType: a.mimeType,
        })),
      }));
  },
});
