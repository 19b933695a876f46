import { z } from 'zod';
import { IMAGE_TYPES, VIDEO_TYPES } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

/** A secp256k1 secret key: 64 hex digits, or bech32 `nsec1…` (58 data+checksum characters). */
const NOSTR_SECRET = /^(?:[0-9a-fA-F]{64}|nsec1[02-9ac-hj-np-z]{58})$/;

/** `POST /social/nostr`: the account's secret key and, optionally, the relays to publish to. */
export const NostrCredentialsSchema = z.object({
  privateKey: z
    .string({ error: 'Required' })
    .trim()
    .min(1, 'Required')
    .regex(NOSTR_SECRET, 'Must be a 64-digit hex key or an nsec1… key')
    .describe('secret key, hex or nsec1…; the public key (channel id) is derived from it'),
  relays: z
    .array(z.url({ protocol: /^wss$/, error: 'Must be a wss:// URL' }))
    .max(20)
    .optional()
    .describe('relay URLs (wss://…) to publish to; a default set is used when omitted'),
});

export const nostrMetadata: PlatformMetadata = {
  identifier: 'nostr',
  displayName: 'Nostr',
  authKind: 'credentials',
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 100_000, counting: 'characters' },
  // No upload in the protocol: media are linked by URL in the note's content.
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
    video: { maxCount: 10, mimeTypes: VIDEO_TYPES },
    mixed: true,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: false,
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: null,
  credentials: NostrCredentialsSchema,
  tools: [],
  rules: '',
  analytics: { channel: false, post: false },
};
