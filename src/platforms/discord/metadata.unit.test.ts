import { describe, expect, it } from 'vitest';
import { DiscordSettingsSchema, discordMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

describe('discord metadata', () => {
  it('is the discord platform: bot install over OAuth, Markdown, 1,980 characters', () => {
    expect(discordMetadata.identifier).toBe('discord');
    expect(discordMetadata.authKind).toBe('oauth2');
    expect(discordMetadata.oauth?.scopes).toEqual(['bot', 'identify', 'guilds']);
    expect(discordMetadata.editor).toBe('markdown');
    expect(discordMetadata.text.maxLength).toBe(1980);
    expect(discordMetadata.thread).toEqual({ supported: true, kind: 'reply' });
    expect(discordMetadata.tools.map((t) => t.methodName)).toEqual(['channels']);
  });

  it('accepts a channel id and keeps unknown keys out', () => {
    const r = DiscordSettingsSchema.safeParse({ __type: 'discord', channel: '1122334455667788' });
    expect(r.success).toBe(true);
    expect(r.data).toEqual({ channel: '1122334455667788' });
  });

  it('rejects a missing, blank or non-string channel', () => {
    expect(issues(DiscordSettingsSchema.safeParse({ __type: 'discord' }))).toEqual([{ path: ['channel'], message: 'Required' }]);
    expect(issues(DiscordSettingsSchema.safeParse({ channel: '   ' }))).toEqual([{ path: ['channel'], message: 'Required' }]);
    expect(issues(DiscordSettingsSchema.safeParse({ channel: 42 }))?.[0]?.path).toEqual(['channel']);
  });
});
