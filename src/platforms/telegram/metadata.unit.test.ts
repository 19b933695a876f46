import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TelegramCredentialsSchema, telegramMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0';

describe('telegram metadata', () => {
  it('is the telegram credential platform without settings', () => {
    expect(telegramMetadata.identifier).toBe(folder);
    expect(telegramMetadata.authKind).toBe('credentials');
    expect(telegramMetadata.settings).toBeNull();
    expect(telegramMetadata.editor).toBe('html');
    expect(telegramMetadata.text).toEqual({ maxLength: 4096, counting: 'characters' });
  });

  it('accepts a bot token with a numeric chat id or a channel name', () => {
    expect(TelegramCredentialsSchema.parse({ botToken: TOKEN, chatId: '-1001234567890' })).toEqual({ botToken: TOKEN, chatId: '-1001234567890' });
    expect(TelegramCredentialsSchema.safeParse({ botToken: TOKEN, chatId: '@tidings_news' }).success).toBe(true);
  });

  it('refuses a bad token or chat id', () => {
    expect(issuePaths(TelegramCredentialsSchema, { botToken: 'not-a-token', chatId: '42' })).toEqual([['botToken']]);
    expect(issuePaths(TelegramCredentialsSchema, { botToken: TOKEN, chatId: 'channel' })).toEqual([['chatId']]);
    const missing = TelegramCredentialsSchema.safeParse({ botToken: TOKEN });
    expect(missing.error?.issues).toMatchObject([{ path: ['chatId'], message: 'Required' }]);
  });
});
