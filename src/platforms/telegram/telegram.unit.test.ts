import { describe, expect, it } from 'vitest';
import { runSimulatorContract } from '../common/unit.testkit.js';
import type { PlatformError } from '../platform.js';
import { telegramPostUrl } from './client.js';
import { createTelegramAdapter } from './index.js';
import type { TelegramSimulator } from './telegram.simulator.js';
import { originsFor, telegramSimulator, TOKEN, withTelegram } from './telegram.testkit.js';

const adapter = createTelegramAdapter();

function lookupIn(sim: TelegramSimulator) {
  return (id: string) => {
    const m = sim.messages.find((x) => x.messageId === Number(id));
    if (!m) return undefined;
    // A media group's other items carry the rest of the files.
    const group = m.groupId ? sim.messages.filter((x) => x.groupId === m.groupId) : [m];
    return { text: m.text ?? m.caption ?? '', replyTo: m.replyTo === undefined ? undefined : String(m.replyTo), mediaSha256: group.flatMap((x) => x.media.map((f) => f.sha256)) };
  };
}

runSimulatorContract({ name: 'telegram', adapter, errorsIn200: true, start: () => telegramSimulator(), origins: originsFor, connect: { botToken: TOKEN, chatId: '@acmenews' }, lookup: lookupIn });

describe('telegram specifics', () => {
  it('refuses a bad token, an unknown chat and a chat where the bot is not admin, naming the field', async () => {
    await withTelegram(async (_sim, ctx) => {
      const bad = (await adapter.connectWithCredentials!({ botToken: '999:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ', chatId: '@acmenews' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: bad.kind, field: bad.details.field }).toEqual({ kind: 'rejected', field: 'botToken' });
      const unknown = (await adapter.connectWithCredentials!({ botToken: TOKEN, chatId: '@nosuchchat' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: unknown.kind, field: unknown.details.field }).toEqual({ kind: 'rejected', field: 'chatId' });
      const notAdmin = (await adapter.connectWithCredentials!({ botToken: TOKEN, chatId: '-1009999' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect(notAdmin.message).toMatch(/must be an administrator/);
    });
  });

  it('sends a long caption as a reply text after the media, and keeps only Telegram HTML', async () => {
    await withTelegram(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!({ botToken: TOKEN, chatId: '@acmenews' }, ctx);
      expect(account).toMatchObject({ internalId: '-1001234567890', name: 'Acme News', profile: 'acmenews' });
      const r = await adapter.publish({ item: { content: '<p><strong>Bold</strong> <span>plain</span></p><p>next</p>', media: [] }, settings: {}, idempotencyKey: 'x' }, { ...ctx, credentials: account.credentials });
      expect(r).toEqual({ status: 'published', id: '1', url: 'https://t.me/acmenews/1' });
      expect(sim.messages[0]!.text).toBe('<b>Bold</b> plain\nnext');
    });
  });

  it('builds private-channel URLs without the -100 prefix', () => {
    expect(telegramPostUrl('-1001234567890', null, 7)).toBe('https://t.me/c/1234567890/7');
  });
});
