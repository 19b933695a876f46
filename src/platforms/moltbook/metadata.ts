import { z } from 'zod';
import { requiredString, requiredSecret } from '../common/schemas.js';
import { defineMetadata, noMedia } from '../common/define-metadata.js';

/** Moltbook post settings (reference MoltbookDto): the submolt (community) to post in. */
export const MoltbookSettingsSchema = z.object({
  submolt: requiredString().describe('submolt name, e.g. "general"'),
});

/** `POST /social/moltbook`: the agent's API key. */
export const MoltbookCredentialsSchema = z.object({
  apiKey: requiredSecret('agent API key from agent registration (moltbook_…)'),
});

export const moltbookMetadata = defineMetadata({
  identifier: 'moltbook',
  displayName: 'Moltbook',
  authKind: 'credentials',
  text: { maxLength: 300, counting: 'characters' },
  // Text and link posts only: no uploads.
  media: noMedia,
  thread: { supported: true, kind: 'comment' },
  // One post per 30 minutes per agent: no point running many at once.
  concurrency: { perPlatform: 2 },
  settings: MoltbookSettingsSchema,
  credentials: MoltbookCredentialsSchema,
});
