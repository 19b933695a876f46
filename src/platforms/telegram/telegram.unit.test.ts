import { describe, expect, it } from 'vitest';
import { runPlatformContract, testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { PlatformError } from '../platform.js';
import { createTelegramAdapter, telegramPostUrl } from './index.js';
import { startTelegramSimulator, type TelegramSimulator } from './telegram.simulator.js';

const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
const adapter = createTelegramAdapter();

async function simulator() {
  const sim = await startTelegramSimulator();
  sim.addBot(TOKEN, { id: 123456, username: 'tidings_bot' });
  sim.addChat({ id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [123456] });
  sim.addChat({ id: -1009999, title: 'Not admin', admins: [] });
  return sim;
}

function lookupIn(sim: TelegramSimulator) {
  return (id: string) => {
    const m = sim.messages.find((x) => x.messageId === Number(id));
    if (!m) return undefined;
    // A media group's other items carry the rest of the files.
    const group = m.groupId ? sim.messages.filter((x) => x.groupId === m.groupId) : [m];
    return { text: m.text ?? m.caption ?? '', replyTo: m.replyTo === undefined ? undefined : String(m.replyTo), mediaSha256: group.flatMap((x) => x.media.map((f) => f.sha256)) };
  };
}

runPlatformContract({
  name: 'telegram',
  adapter,
  errorsIn200: true,
  async setup() {
    const sim = await simulator();
    return {
      origins: new Map([['https://api.telegram.org', sim.origin]]),
      injectKind: (k) => sim.injectKind(k),
      connect: (ctx) => adapter.connectWithCredentials!({ botToken: TOKEN, chatId: '@acmenews' }, ctx),
      lookup: lookupIn(sim),
      close: () => sim.close(),
    };
  },
});

describe('telegram specifics', () => {
  async function withSim<T>(fn: (sim: TelegramSimulator, ctx: Parameters<NonNullable<typeof adapter.connectWithCredentials>>[1]) => Promise<T>) {
    const sim = await simulator();
    const http = createPlatformHttp({ origins: new Map([['https://api.telegram.org', sim.origin]]), allowPrivateTargets: false, timeoutMs: 5000 });
    try {
      return await fn(sim, {
        ...testContext(http),
        openMedia: () => Promise.reject(new Error('no media here')),
      });
    } finally {
      await http.close();
      await sim.close();
    }
  }

  it('refuses a bad token, an unknown chat and a chat where the bot is not admin, naming the field', async () => {
    await withSim(async (_sim, ctx) => {
      const bad = (await adapter.connectWithCredentials!({ botToken: '999:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ', chatId: '@acmenews' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: bad.kind, field: bad.details.field }).toEqual({ kind: 'rejected', field: 'botToken' });
      const unknown = (await adapter.connectWithCredentials!({ botToken: TOKEN, chatId: '@nosuchchat' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: unknown.kind, field: unknown.details.field }).toEqual({ kind: 'rejected', field: 'chatId' });
      const notAdmin = (await adapter.connectWithCredentials!({ botToken: TOKEN, chatId: '-1009999' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect(notAdmin.message).toMatch(/must be an administrator/);
    });
  });

  it('sends a long caption as a reply text after the media, and keeps only Telegram HTML', async () => {
    await withSim(async (sim, ctx) => {
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
