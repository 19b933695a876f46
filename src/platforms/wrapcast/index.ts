import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import type { OAuthApp } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
} from '../platform.js';
import { castsOf, castUrl, createCast, getCast, getSigner, idemOf, NEYNAR_LOGIN, searchChannels, userOf, type NeynarUser } from './client.js';
import { wrapcastMetadata } from './metadata.js';

/**
 * Farcaster through Neynar. Connect is Sign in with Neynar: the user approves a Neynar-managed
 * signer for the deployment's Neynar app and comes back with `signer_uuid` and `fid`; the signer,
 * checked with Neynar (approved, paired with our API key, the same fid), is the channel's grant.
 * The app's client id is `WRAPCAST_CLIENT_ID`, its API key `WRAPCAST_CLIENT_SECRET`; every API
 * call carries the key as `x-api-key`. A signer does not expire, so there is no refresh: a revoked
 * one is `reconnect_required`.
 */

/** Text limits in UTF-8 bytes: a standard cast, and a long cast (Farcaster Pro). */
export const CAST_BYTES = 320;
export const LONG_CAST_BYTES = 1024;

export interface WrapcastCredentials {
  signerUuid: string;
  fid: number;
  username: string;
  /** a Farcaster Pro subscriber when connected (long casts) */
  pro: boolean;
}

const isPro = (u: NeynarUser) => u.pro?.status === 'subscribed';

// A channel without a Neynar signer (or its fid) must be connected again.
const StoredWrapcastCredentials = z
  .object({ signerUuid: z.string(), fid: z.number(), username: z.string().nullish(), pro: z.unknown() })
  .transform(({ username, pro, ...c }): WrapcastCredentials => ({ ...c, username: username ?? String(c.fid), pro: pro === true }));
const creds = (ctx: OperationContext): WrapcastCredentials => readCredentials(ctx, StoredWrapcastCredentials, 'Farcaster');

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

export function createWrapcastAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  function apiKey(): string {
    if (!config.app) throw new PlatformError('unsupported', 'set WRAPCAST_CLIENT_ID (the Neynar client id) and WRAPCAST_CLIENT_SECRET (the Neynar API key)');
    return config.app.clientSecret;
  }
  const adapter: PlatformAdapter = {
    metadata: wrapcastMetadata,

    /** The Sign in with Neynar page; the state rides in the redirect URI's query, which Neynar keeps. */
    beginConnect({ state, redirectUri }) {
      if (!config.app) {
        return Promise.reject(new PlatformError('unsupported', 'set WRAPCAST_CLIENT_ID (the Neynar client id) and WRAPCAST_CLIENT_SECRET (the Neynar API key)'));
      }
      const back = new URL(redirectUri);
      back.searchParams.set('state', state);
      const url = new URL(NEYNAR_LOGIN);
      url.searchParams.set('client_id', config.app.clientId);
      url.searchParams.set('redirect_uri', back.toString());
      return Promise.resolve({ url: url.toString() });
    },

    /**
     * `code` is the `signer_uuid` Neynar returned (metadata `callbackCodeParam`), `fid` comes with
     * it. The signer must be approved and paired with our key, and belong to that fid.
     */
    async completeConnect({ code, callbackParams }, ctx): Promise<ConnectedAccount> {
      const signer = await getSigner(ctx, apiKey(), code).catch((e: unknown) => {
        if (e instanceof PlatformError && e.details.status === 404) throw new PlatformError('rejected', 'Neynar does not know this signer for this app: sign in with Neynar again');
        throw e;
      });
      if (signer.status !== 'approved' || typeof signer.fid !== 'number') {
        throw new PlatformError('rejected', `The Neynar signer is not approved yet (status: ${signer.status}): approve it in the Farcaster app, then connect again`);
      }
      if (callbackParams?.fid !== undefined && callbackParams.fid !== String(signer.fid)) {
        throw new PlatformError('rejected', `The signer belongs to Farcaster account ${signer.fid}, not ${callbackParams.fid}`);
      }
      const user = await userOf(ctx, apiKey(), signer.fid);
      const credentials: WrapcastCredentials = { signerUuid: signer.signer_uuid, fid: user.fid, username: user.username, pro: isPro(user) };
      return {
        internalId: String(user.fid),
        name: user.display_name || user.username,
        profile: user.username,
        picture: user.pfp_url ?? null,
        credentials: { ...credentials },
        expiresAt: null,
      };
    },

    validate() {
      // The byte limit, embeds and the one channel are in the metadata and the settings schema.
      return [];
    },

    /**
     * One cast; thread items reply to the previous cast by `parent`. Idempotent: `idem` (derived
     * from the publish's idempotency key) makes Neynar answer the same cast for a repeated
     * request. Pictures are embedded by their public https URL (Farcaster clients fetch them).
     */
    async publish({ item, settings, replyTo, idempotencyKey }, ctx) {
      const c = creds(ctx);
      const text = htmlToText(item.content);
      const limit = c.pro ? LONG_CAST_BYTES : CAST_BYTES;
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > limit) throw new PlatformError('rejected', `A cast is at most ${limit} bytes of text; this one is ${bytes}`);
      if (item.media.length > 2) throw new PlatformError('rejected', 'A cast takes at most 2 pictures');
      const embeds = item.media.map((m) => {
        if (m.type !== 'image') throw new PlatformError('rejected', 'Farcaster casts take pictures only');
        if (!/^https:\/\//i.test(m.path)) {
          throw new PlatformError('rejected', `Farcaster shows pictures from their public address, and ${m.path} is not https: set PUBLIC_URL (or S3_PUBLIC_URL) to an https address`);
        }
        return { url: m.path };
      });
      const channel = (settings.subreddit as { value?: { id?: string } }[] | undefined)?.[0]?.value?.id;
      const body: Record<string, unknown> = { signer_uuid: c.signerUuid, text, idem: idemOf(idempotencyKey) };
      if (embeds.length > 0) body.embeds = embeds;
      if (replyTo) body.parent = replyTo.id;
      else if (channel) body.channel_id = channel;
      const res = await createCast(ctx, apiKey(), body);
      const hash = res.cast?.hash;
      if (!hash) throw new PlatformError('transient', 'Neynar answered without the cast hash', { outcomeUnknown: true });
      return { status: 'published', id: hash, url: castUrl(res.cast?.author?.username ?? c.username, hash) };
    },

    /** Likes, recasts and replies of one cast, as of today. */
    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      creds(ctx);
      const cast = await getCast(ctx, apiKey(), postId);
      const date = today(ctx.clock.now());
      const point = (label: string, n: number | undefined): AnalyticsSeries => ({ label, percentageChange: 0, data: [{ date, total: Number(n ?? 0) || 0 }] });
      return [point('Likes', cast.reactions?.likes_count), point('Recasts', cast.reactions?.recasts_count), point('Replies', cast.replies?.count)];
    },

    /** `subreddits` {word}: channels whose id or name matches. */
    async runTool(methodName, data, ctx) {
      if (methodName !== 'subreddits') throw new PlatformError('unsupported', `Farcaster has no tool ${methodName}`);
      const word = typeof (data as { word?: unknown })?.word === 'string' ? (data as { word: string }).word.trim() : '';
      if (!word) return [];
      const channels = await searchChannels(ctx, apiKey(), word);
      return channels.map((ch) => ({ id: ch.id, name: ch.name ?? ch.id, title: ch.description ?? '', subreddit: ch.id, subscribers: ch.follower_count ?? 0 }));
    },

    /**
     * The account's casts since `since` (replies included, as Neynar's user feed lists them),
     * newest first; with `replyTo`, only the replies to that cast; with a channel in `settings`,
     * only casts in that channel.
     */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      const c = creds(ctx);
      const channel = (settings?.subreddit as { value?: { id?: string } }[] | undefined)?.[0]?.value?.id;
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      for await (const cast of castsOf(ctx, apiKey(), c.fid, Math.min(Math.max(limit, 1), 150))) {
        if (Date.parse(cast.timestamp) < since.getTime()) break;
        if (replyTo && cast.parent_hash !== replyTo.id) continue;
        if (!replyTo && channel && cast.channel?.id !== channel) continue;
        out.push({ id: cast.hash, url: castUrl(cast.author.username ?? c.username, cast.hash), content: cast.text, createdAt: cast.timestamp });
        if (out.length >= limit) break;
      }
      return out;
    },
  };
  return adapter;
}
