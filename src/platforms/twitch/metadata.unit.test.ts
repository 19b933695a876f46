import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TwitchSettingsSchema, twitchMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('twitch metadata', () => {
  it('is the twitch OAuth platform, text only', () => {
    expect(twitchMetadata.identifier).toBe(folder);
    expect(twitchMetadata.oauth?.authorizeUrl).toBe('https://id.twitch.tv/oauth2/authorize');
    expect(twitchMetadata.oauth?.scopes).toContain('moderator:manage:announcements');
    expect(twitchMetadata.media).toEqual({ minItems: 0, maxItems: 0, mixed: false, onThreadItems: false });
    expect(twitchMetadata.text.maxLength).toBe(500);
  });

  it('accepts an announcement and an empty object', () => {
    expect(TwitchSettingsSchema.parse({ __type: 'twitch', messageType: 'announcement', announcementColor: 'purple' })).toEqual({
      messageType: 'announcement',
      announcementColor: 'purple',
    });
    expect(TwitchSettingsSchema.parse({})).toEqual({});
  });

  it('names the offending field', () => {
    expect(issuePaths(TwitchSettingsSchema, { messageType: 'whisper' })).toEqual([['messageType']]);
    expect(issuePaths(TwitchSettingsSchema, { messageType: 'announcement', announcementColor: 'red' })).toEqual([['announcementColor']]);
  });
});
