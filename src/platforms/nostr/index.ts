import type { Event as NostrEvent, Filter } from 'nostr-tools';
import * as nip19 from 'nostr-tools/nip19';
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { PlatformError, type ConnectedAccount, type OperationContext, type PlatformAdapter, type PublishMedia, type PublishResult } from '../platform.js';
import { openRelay, queryRelay } from './client.js';
import { classifyOutcomes, prefixOf, type RelayOutcome } from './errors.js';
import { DEFAULT_RELAYS, NostrCredentialsSchema, nostrMetadata } from './metadata.js';

/** What a Nostr channel stores: the secret key (hex) and where its notes go. */
export interface NostrCredentials {
  secretKey: string;
  relays: string[];
}

export interface NostrAdapterConfig {
  /** how long one relay may take to connect, then to answer (`OK`, `EOSE`); default 10 s */
  relayTimeoutMs?: number;
}

const hexToBytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));
const bytesToHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** What a Nostr channel stores: the secret key as 64 lower-case hex digits, and at least one relay. */
const StoredCredentials = z.object({ secretKey: z.string().regex(/^[0-9a-f]{64}$/), relays: z.array(z.string()).min(1) });

function creds(ctx: { credentials: Record<string, unknown> }): NostrCredentials & { sk: Uint8Array; pubkey: string } {
  const c = readCredentials(ctx, StoredCredentials, 'Nostr');
  const sk = hexToBytes(c.secretKey);
  return { secretKey: c.secretKey, relays: c.relays, sk, pubkey: getPublicKey(sk) };
}

/** The secret key a user pasted (`nsec1…` or hex) as bytes; `rejected` naming `privateKey` when it is not a valid key. */
export function parseSecretKey(input: string): Uint8Array {
  const bad = (why: string) => new PlatformError('rejected', `Not a usable Nostr secret key: ${why}`, { field: 'privateKey' });
  let sk: Uint8Array;
  if (input.startsWith('nsec1')) {
    try {
      const decoded = nip19.decode(input);
      if (decoded.type !== 'nsec') throw new Error(`it is an ${decoded.type}`);
      sk = decoded.data;
    } catch (e) {
      throw bad(`the nsec1… key does not decode (${(e as Error).message})`);
    }
  } else {
    if (!/^[0-9a-fA-F]{64}$/.test(input)) throw bad('expected 64 hex digits or nsec1…');
    sk = hexToBytes(input.toLowerCase());
  }
  try {
    getPublicKey(sk);
  } catch {
    throw bad('it is outside the secp256k1 key range');
  }
  return sk;
}

/** `https://njump.me/nevent1…` naming the event, its author and up to two relays that hold it. */
export function noteUrl(id: string, pubkey: string, relays: string[]): string {
  return `https://njump.me/${nip19.neventEncode({ id, author: pubkey, kind: 1, relays: relays.slice(0, 2) })}`;
}

/** The media's public URL: Nostr has no upload, clients fetch what the note links. */
function publicUrlOf(m: PublishMedia): string {
  if (!/^https?:\/\//i.test(m.path)) {
    throw new PlatformError('rejected', `Nostr clients load media from its public address, and ${m.path} is not one: set PUBLIC_URL (or S3_PUBLIC_URL)`);
  }
  return m.path;
}

/** NIP-92 `imeta`: `url`, `m` (MIME type), `dim` (WxH) and `alt` where known. */
export function imetaTag(m: PublishMedia): string[] {
  const tag = ['imeta', `url ${publicUrlOf(m)}`, `m ${m.mimeType}`];
  if (m.width && m.height) tag.push(`dim ${m.width}x${m.height}`);
  if (m.alt) tag.push(`alt ${m.alt}`);
  return tag;
}

/** The event's content: the text, then each media URL on its own line (clients show them inline). */
export function noteContent(html: string, media: PublishMedia[]): string {
  const text = htmlToText(html).trim();
  const urls = media.map(publicUrlOf);
  return [text, urls.join('\n')].filter(Boolean).join('\n\n');
}

/**
 * NIP-10 reply tags: the root marked `root`, the parent marked `reply` (a direct reply to the
 * root carries only the root), and a `p` tag for the parent's author (in a thread: us).
 */
export function replyTags(replyTo: { id: string; rootId: string }, relayHint: string, parentAuthor: string): string[][] {
  const tags = [['e', replyTo.rootId, relayHint, 'root', parentAuthor]];
  if (replyTo.id !== replyTo.rootId) tags.push(['e', replyTo.id, relayHint, 'reply', parentAuthor]);
  tags.push(['p', parentAuthor]);
  return tags;
}

/** Creates the Nostr adapter: a key pair and a relay list; notes are signed here and sent to every relay. */
export function createNostrAdapter(config: NostrAdapterConfig = {}): PlatformAdapter {
  const timeoutMs = config.relayTimeoutMs ?? 10_000;

  /** Sends `event` to one relay and reads its `OK` (or notes that none came). */
  async function sendTo(ctx: OperationContext, relay: string, event: NostrEvent): Promise<RelayOutcome> {
    let sock;
    try {
      sock = await openRelay(ctx, relay, timeoutMs);
    } catch (e) {
      return { relay, status: 'unreachable', message: (e as Error).message };
    }
    try {
      sock.send(['EVENT', event]);
      const r = await sock.wait((m) => (m[0] === 'OK' && m[1] === event.id ? m : undefined), timeoutMs, ctx.signal);
      if ('timeout' in r) return { relay, status: 'no_answer', message: `no answer within ${Math.round(timeoutMs / 100) / 10} s` };
      if ('closed' in r) return { relay, status: 'no_answer', message: `${r.closed} before the relay answered` };
      const ok = r.value[2] === true;
      const message = typeof r.value[3] === 'string' ? r.value[3] : '';
      if (ok || prefixOf(message) === 'duplicate') return { relay, status: 'accepted', message: message || 'accepted' };
      return { relay, status: 'refused', message: message || 'refused without a reason' };
    } catch (e) {
      return { relay, status: 'no_answer', message: (e as Error).message };
    } finally {
      sock.close();
    }
  }

  /** Runs `filters` on every relay at once; the events seen anywhere, deduplicated. `transient` when no relay answered. */
  async function queryAll(ctx: OperationContext, relays: string[], filters: Filter[]) {
    const results = await Promise.allSettled(relays.map((r) => queryRelay(ctx, r, filters, timeoutMs, verifyEvent)));
    const ok = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ relay: relays[i]!, events: r.value }] : []));
    if (ok.length === 0) {
      const why = results.map((r, i) => `${relays[i]}: ${r.status === 'rejected' ? (r.reason as Error).message : ''}`).join('; ');
      throw new PlatformError('transient', `No relay answered (${why})`);
    }
    const byId = new Map<string, { event: NostrEvent; relays: string[] }>();
    for (const { relay, events } of ok) {
      for (const e of events) {
        const seen = byId.get(e.id) ?? { event: e, relays: [] };
        seen.relays.push(relay);
        byId.set(e.id, seen);
      }
    }
    return [...byId.values()];
  }

  return {
    metadata: nostrMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const parsed = NostrCredentialsSchema.parse(input);
      const sk = parsed.privateKey !== undefined ? parseSecretKey(parsed.privateKey) : generateSecretKey();
      const pubkey = getPublicKey(sk);
      const relays = [...new Set(parsed.relays ?? DEFAULT_RELAYS)];
      // Reach the relays (at least one must answer) and read the profile (kind 0) where one is published.
      const results = await Promise.allSettled(relays.map((r) => queryRelay(ctx, r, [{ kinds: [0], authors: [pubkey], limit: 1 }], timeoutMs, verifyEvent)));
      const reached = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      if (reached.length === 0) {
        const why = results.map((r, i) => `${relays[i]}: ${r.status === 'rejected' ? (r.reason as Error).message : ''}`).join('; ');
        throw new PlatformError('rejected', `No relay could be reached: ${why}`, { field: 'relays' });
      }
      const profileEvent = reached
        .flat()
        .filter((e) => e.kind === 0 && e.pubkey === pubkey)
        .sort((a, b) => b.created_at - a.created_at)[0];
      let profile: { name?: unknown; display_name?: unknown; picture?: unknown } = {};
      try {
        if (profileEvent) profile = JSON.parse(profileEvent.content) as typeof profile;
      } catch {
        ctx.logger.warn({ pubkey }, 'nostr: the kind-0 profile is not JSON');
      }
      const npub = nip19.npubEncode(pubkey);
      const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
      return {
        internalId: pubkey,
        name: str(profile.display_name) ?? str(profile.name) ?? `${npub.slice(0, 12)}…${npub.slice(-6)}`,
        profile: npub,
        picture: str(profile.picture) ?? null,
        credentials: { secretKey: bytesToHex(sk), relays } satisfies NostrCredentials,
        expiresAt: null,
      };
    },

    validate() {
      return [];
    },

    /**
     * Signs a kind-1 note and sends it to every relay at once, each read for its `OK` within the
     * timeout. Published when one relay accepted it; the refusals are the result's `note`. Not
     * idempotent across attempts (a new attempt signs a new event at a new time): an attempt
     * whose relays never answered is `transient` with `outcomeUnknown`, reconciled by `findRecent`.
     */
    async publish({ item, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const tags: string[][] = replyTo ? replyTags(replyTo, c.relays[0] ?? '', c.pubkey) : [];
      for (const m of item.media) tags.push(imetaTag(m));
      const event = finalizeEvent({ kind: 1, created_at: Math.floor(ctx.clock.now() / 1000), tags, content: noteContent(item.content, item.media) }, c.sk);
      const outcomes = await Promise.all(c.relays.map((r) => sendTo(ctx, r, event)));
      const { accepted, note } = classifyOutcomes(outcomes);
      if (note) ctx.logger.warn({ eventId: event.id, outcomes }, `nostr: ${note}`);
      return {
        status: 'published',
        id: event.id,
        url: noteUrl(
          event.id,
          c.pubkey,
          accepted.map((o) => o.relay),
        ),
        ...(note ? { note } : {}),
      };
    },

    /**
     * The account's kind-1 notes since `since` on every relay (with `replyTo`: also the notes
     * tagging the parent), signatures checked, newest first.
     */
    async findRecent({ since, limit, replyTo }, ctx) {
      const c = creds(ctx);
      const sinceSec = Math.floor(since.getTime() / 1000);
      const filters: Filter[] = [{ kinds: [1], authors: [c.pubkey], since: sinceSec, limit }];
      if (replyTo) filters.push({ kinds: [1], authors: [c.pubkey], '#e': [replyTo.id], since: sinceSec, limit });
      const found = await queryAll(ctx, c.relays, filters);
      return found
        .filter(({ event }) => event.pubkey === c.pubkey && event.kind === 1 && event.created_at >= sinceSec)
        .sort((a, b) => b.event.created_at - a.event.created_at)
        .slice(0, limit)
        .map(({ event, relays }) => ({ id: event.id, url: noteUrl(event.id, c.pubkey, relays), content: event.content, createdAt: new Date(event.created_at * 1000).toISOString() }));
    },
  };
}
