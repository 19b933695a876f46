import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SlackSettingsSchema, slackMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('slack metadata', () => {
  it('is the slack OAuth v2 platform', () => {
    expect(slackMetadata.identifier).toBe(folder);
    expect(slackMetadata.oauth).toMatchObject({
      authorizeUrl: 'https://slack.com/oauth/v2/authorize',
      tokenUrl: 'https://slack.com/api/oauth.v2.access',
      pkce: false,
    });
    expect(slackMetadata.oauth?.scopes).toContain('chat:write');
    expect(slackMetadata.thread).toEqual({ supported: true, kind: 'reply' });
  });

  it('accepts a channel', () => {
    expect(SlackSettingsSchema.parse({ __type: 'slack', channel: 'C0123456789' })).toEqual({ channel: 'C0123456789' });
  });

  it('requires a channel', () => {
    expect(issuePaths(SlackSettingsSchema, { __type: 'slack' })).toEqual([['channel']]);
    expect(issuePaths(SlackSettingsSchema, { channel: 42 })).toEqual([['channel']]);
  });

  it('channels tool takes an empty object', () => {
    expect(slackMetadata.tools).toHaveLength(1);
    expect(slackMetadata.tools[0]?.methodName).toBe('channels');
    expect(slackMetadata.tools[0]?.dataSchema.safeParse({}).success).toBe(true);
  });
});
