import { z } from 'zod';
import { anyAttachments, defineMetadata } from '../common/define-metadata.js';

/** A secp256k1 secret key: 64 hex digits, or bech32 `nsec1…` (58 data+checksum characters). */
const NOSTR_SECRET = /^(?:[0-9a-fA-F]{64}|nsec1[02-9ac-hj-np-z]{58})$/;

/** The relays notes go to when the channel names none (the reference's default set). */
export const DEFAULT_RELAYS = ['wss://nos.lol', 'wss://relay.damus.io', 'wss://relay.snort.social', 'wss://temp.iris.to', 'wss://vault.iris.to'] as const;

/**
 * `POST /social/nostr`: the account's secret key (pasted), or `generate: true` for a new key made
 * by the service; and, optionally, the relays to publish to.
 */
export const NostrCredentialsSchema = z
  .object({
    privateKey: z
      .string({ error: 'Must be a string' })
      .trim()
      .min(1, 'Required')
      .regex(NOSTR_SECRET, 'Must be a 64-digit hex key or an nsec1… key')
      .optional()
      .describe('secret key, hex or nsec1…; the public key (channel id) is derived from it. Leave out and send generate: true for a new key'),
    generate: z
      .boolean({ error: 'Must be true or false' })
      .optional()
      .describe('true: the service generates a new secret key for this channel (its public key is shown as npub1…)'),
    relays: z
      .array(z.url({ protocol: /^wss$/, error: 'Must be a wss:// URL' }))
      .min(1, 'Give at least one relay, or leave relays out for the default set')
      .max(20)
      .optional()
      .describe(`relay URLs (wss://…) to publish to; when omitted: ${DEFAULT_RELAYS.join(', ')}`),
  })
  .superRefine((v, ctx) => {
    if (v.privateKey === undefined && v.generate !== true) {
      ctx.addIssue({ code: 'custom', path: ['privateKey'], message: 'Required: paste a secret key (nsec1… or 64 hex digits), or send generate: true for a new one' });
    }
    if (v.privateKey !== undefined && v.generate === true) {
      ctx.addIssue({ code: 'custom', path: ['generate'], message: 'Give either a privateKey or generate: true, not both' });
    }
  });

export const nostrMetadata = defineMetadata({
  identifier: 'nostr',
  displayName: 'Nostr',
  authKind: 'credentials',
  text: { maxLength: 100_000, counting: 'characters' },
  // No upload in the protocol: media are linked by URL in the note's content.
  media: anyAttachments(10),
  thread: { supported: true, kind: 'reply' },
  concurrency: { perPlatform: 5 },
  credentials: NostrCredentialsSchema,
  rules:
    'A note goes to every relay of the channel; it is published when at least one relay accepts it. Media are linked by their public URL (with NIP-92 imeta tags): the service must have a public media address.',
});
