import { z } from 'zod';
import { requiredString, requiredSecret } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

/** Moltbook post settings (reference MoltbookDto): the submolt (community) to post in. */
export const MoltbookSettingsSchema = z.object({
  submolt: requiredString().describe('submolt name, e.g. "general"'),
});

/** `POST /social/moltbook`: the agent's API key. */
export const MoltbookCredentialsSchema = z.object({
  apiKey: requiredSecret('agent API key from agent registration (moltbook_…)'),
});

export const moltbookMetadata: PlatformMetadata = {
  identifier: 'moltbook',
  displayName: 'Moltbook',
  authKind: 'credentials',
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 300, counting: 'characters' },
  // Text and link posts only: no uploads.
  media: { minItems: 0, maxItems: 0, mixed: false, onThreadItems: false },
  thread: { supported: true, kind: 'comment' },
  asyncProcessing: false,
  // One post per 30 minutes per agent: no point running many at once.
  concurrency: { perPlatform: 2, perChannel: 1 },
  settings: MoltbookSettingsSchema,
  credentials: MoltbookCredentialsSchema,
  tools: [],
  rules: '',
  analytics: { channel: false, post: false },
};
