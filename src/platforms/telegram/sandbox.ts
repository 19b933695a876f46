import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId, tokenOf } from '../sandbox/ids.js';
import { startTelegramSimulator } from './telegram.simulator.js';

/** Telegram in the sandbox: a bot per account, admin of a channel chat named after it. */
export default defineSandboxKit({
  origins: ['https://api.telegram.org'],
  start: () => startTelegramSimulator(),
  addAccount(sim, account) {
    const botId = Number(numericId(account.key, 9, 'bot'));
    const botToken = `${botId}:${tokenOf(account.key, 35, 'telegram')}`;
    const chatId = -Number(`100${numericId(account.key, 10, 'chat')}`);
    sim.addBot(botToken, { id: botId, username: `${account.handle}_bot` });
    sim.addChat({ id: chatId, title: account.name, username: account.handle, admins: [botId] });
    return { kind: 'credentials', body: { botToken, chatId: `@${account.handle}` } };
  },
  feed(sim, internalId) {
    return sim.messages
      .filter((m) => String(m.chatId) === internalId)
      .map((m) => ({
        id: String(m.messageId),
        text: m.text ?? m.caption ?? '',
        ...(m.replyTo !== undefined ? { replyTo: String(m.replyTo) } : {}),
        media: m.media.map((f) => ({ kind: f.mimeType.startsWith('video/') ? ('video' as const) : f.mimeType.startsWith('image/') ? ('image' as const) : ('document' as const), sha256: f.sha256, mimeType: f.mimeType })),
      }));
  },
});
