import { countGraphemes } from '../text-length.js';
import { setTimeout as sleep } from 'node:timers/promises';
import twitterText from 'twitter-text';
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { exchangeCode } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type Credentials,
  type OperationContext,
  type PlatformAdapter,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { appStillRegistered, call, mediaReady, postStatus, registerApp, SCOPES, uploadMedia, verifyCredentials, type InstanceApp, type MastodonCredentials, type Status, type StatusBody } from './client.js';
import { mastodonResult } from './errors.js';
import { MASTODON_MAX_CHARACTERS, MastodonSettingsSchema, mastodonMetadata } from './metadata.js';

/**
 * Mastodon: OAuth 2 on the user's own instance. The app is registered on each instance the first
 * time someone connects from it (`POST /api/v1/apps`) and reused afterwards; every request goes
 * to a user-supplied host, so all of them pass the SSRF guard (`untrustedHost`).
 */

/** The default `configuration.statuses.max_characters` (in metadata.ts); instances may allow more. */
export { MASTODON_MAX_CHARACTERS };
/** Every URL counts as this many characters, whatever its length (`characters_reserved_per_url`). */
export const MASTODON_URL_LENGTH = 23;

export interface MastodonAdapterOptions {
  /** how long publish waits for uploaded media to finish processing before answering `pending` */
  mediaWaitMs?: number;
  /** first pause between media polls (doubles up to 5 s) */
  mediaPollMs?: number;
}

/** The post's settings as Mastodon fields; what validation let through, defaults filled in. */
function statusSettings(settings: Record<string, unknown>): Pick<StatusBody, 'visibility' | 'spoiler_text'> {
  const parsed = MastodonSettingsSchema.safeParse(settings);
  if (!parsed.success) throw new PlatformError('rejected', `Mastodon settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const warning = parsed.data.spoiler_text?.trim();
  return { visibility: parsed.data.visibility, ...(warning ? { spoiler_text: warning } : {}) };
}

/** What an unfinished publish needs to finish later (the `pending` token). */
interface PendingPublish {
  v: 1;
  instanceUrl: string;
  /** media still processing when publish gave up waiting */
  waiting: string[];
  body: StatusBody;
  idempotencyKey: string;
}

// Mastodon's own mention pattern (Account::MENTION_RE): a remote mention counts as `@user` only.
const REMOTE_MENTION = /(?<![=/\p{L}\p{N}_])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)@[\p{L}\p{N}_]+(?:[.-]+[\p{L}\p{N}_]+)*/giu;

/**
 * The length Mastodon's StatusLengthValidator gives a plain text: every URL with a protocol counts
 * as 23, `@user@domain` counts as `@user`, and the rest is counted in grapheme clusters.
 */
export function countMastodonText(text: string): number {
  let countable = text;
  const urls = twitterText.extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: false });
  for (const u of [...urls].sort((a, b) => b.indices[0] - a.indices[0])) {
    countable = countable.slice(0, u.indices[0]) + 'x'.repeat(MASTODON_URL_LENGTH) + countable.slice(u.indices[1]);
  }
  countable = countable.replace(REMOTE_MENTION, '@$1');
  return countGraphemes(countable);
}

/** `mastodon.social`, `https://mastodon.social/@me` → `https://mastodon.social`. */
function instanceOrigin(raw: string | null | undefined): string {
  const value = (raw ?? '').trim();
  if (!value) throw new PlatformError('rejected', 'The address of the Mastodon instance is missing');
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new PlatformError('rejected', `"${value}" is not the address of a Mastodon instance`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PlatformError('rejected', `Only http(s) instances are supported, not ${url.protocol}`);
  return url.origin;
}

function readApp(value: Credentials | undefined): InstanceApp | undefined {
  const a = value as Partial<InstanceApp> | undefined;
  if (!a || typeof a.clientId !== 'string' || typeof a.clientSecret !== 'string' || typeof a.redirectUri !== 'string') return undefined;
  return { clientId: a.clientId, clientSecret: a.clientSecret, redirectUri: a.redirectUri, scopes: typeof a.scopes === 'string' ? a.scopes : SCOPES };
}

/** What a Mastodon channel stores (the instance may come from the channel instead). */
const StoredCredentials = z.object({ accessToken: z.string().min(1), instanceUrl: z.string().nullish(), accountId: z.string().nullish(), username: z.string().nullish() });

function creds(ctx: Pick<OperationContext, 'credentials' | 'instanceUrl'>): MastodonCredentials {
  const c = readCredentials(ctx, StoredCredentials, 'Mastodon');
  const instance = c.instanceUrl ?? ctx.instanceUrl;
  if (!instance) throw new PlatformError('reconnect_required', 'Stored Mastodon credentials are incomplete', { field: 'instanceUrl' });
  return { accessToken: c.accessToken, instanceUrl: instanceOrigin(instance), accountId: c.accountId ?? '', username: c.username ?? '' };
}

function series(label: string, total: number, now: number): AnalyticsSeries {
  // Mastodon keeps no history of these figures: one point, today.
  return { label, percentageChange: 0, data: [{ total, date: new Date(now).toISOString().slice(0, 10) }] };
}

/** Creates the Mastodon adapter. */
export function createMastodonAdapter(options: MastodonAdapterOptions = {}): PlatformAdapter {
  const mediaWaitMs = options.mediaWaitMs ?? 60_000;
  const mediaPollMs = options.mediaPollMs ?? 1_000;

  /** Polls the attachments in `ids` with a growing pause; answers those still processing when the budget runs out. */
  async function waitForMedia(ctx: OperationContext, c: MastodonCredentials, ids: string[]): Promise<string[]> {
    let waiting = ids;
    let waited = 0;
    let pause = mediaPollMs;
    while (waiting.length > 0 && waited + pause <= mediaWaitMs) {
      try {
        await sleep(pause, undefined, { signal: ctx.signal });
      } catch {
        // Nothing was posted yet: retrying the whole publish is safe.
        throw new PlatformError('transient', 'Cancelled while Mastodon was processing the media');
      }
      waited += pause;
      pause = Math.min(pause * 2, 5_000);
      const still: string[] = [];
      for (const id of waiting) if (!(await mediaReady(ctx, c, id))) still.push(id);
      waiting = still;
    }
    return waiting;
  }

  async function accountId(ctx: OperationContext, c: MastodonCredentials): Promise<string> {
    return c.accountId || (await verifyCredentials(ctx, c.instanceUrl, c.accessToken)).id;
  }

  return {
    metadata: mastodonMetadata,

    /**
     * Registers Tidings on the instance unless `instanceApp` is an app already registered there
     * for this redirect URI and these scopes — and still known to the instance (an admin may have
     * deleted it; checked with an app-level token). PKCE is always sent: Mastodon ≥ 4.3 checks it,
     * older servers ignore the extra parameters.
     */
    async beginConnect({ state, redirectUri, codeChallenge, instanceUrl, instanceApp }, ctx) {
      const instance = instanceOrigin(instanceUrl);
      const known = readApp(instanceApp);
      const matching = known && known.redirectUri === redirectUri && known.scopes === SCOPES ? known : undefined;
      const reusable = matching && (await appStillRegistered(ctx, instance, matching)) ? matching : undefined;
      const app = reusable ?? (await registerApp(ctx, instance, redirectUri));
      const query = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: redirectUri, scope: SCOPES, state });
      if (codeChallenge) {
        query.set('code_challenge', codeChallenge);
        query.set('code_challenge_method', 'S256');
      }
      return { url: `${instance}/oauth/authorize?${query.toString()}`, ...(reusable ? {} : { instanceApp: { ...app } }) };
    },

    async completeConnect({ code, redirectUri, codeVerifier, instanceUrl, instanceApp }, ctx): Promise<ConnectedAccount> {
      const instance = instanceOrigin(instanceUrl);
      const app = readApp(instanceApp);
      if (!app) throw new PlatformError('rejected', 'The app registered on this instance is unknown: start connecting again');
      const tokens = await exchangeCode(ctx.http, {
        tokenUrl: `${instance}/oauth/token`,
        app,
        code,
        redirectUri,
        codeVerifier,
        clientAuth: 'body',
        now: ctx.clock.now(),
        untrustedHost: true,
        extra: { scope: SCOPES },
      });
      const account = await verifyCredentials(ctx, instance, tokens.accessToken);
      return {
        internalId: account.id,
        name: account.display_name || account.username,
        profile: `@${account.acct.includes('@') ? account.acct : `${account.acct}@${new URL(instance).host}`}`,
        picture: account.avatar ?? null,
        credentials: { accessToken: tokens.accessToken, instanceUrl: instance, accountId: account.id, username: account.username } satisfies MastodonCredentials,
        // Mastodon tokens do not expire; there is nothing to refresh.
        expiresAt: null,
      };
    },

    /**
     * Counts like Mastodon (URLs 23, remote mentions as `@user`) against the default 500; the
     * content warning counts too (StatusLengthValidator adds `spoiler_text`), on every item.
     */
    validate(post) {
      const issues: ValidationIssue[] = [];
      const warning = typeof post.settings.spoiler_text === 'string' ? countGraphemes(post.settings.spoiler_text.trim()) : 0;
      post.items.forEach((item, i) => {
        const length = countMastodonText(htmlToText(item.content)) + warning;
        if (length > MASTODON_MAX_CHARACTERS) {
          issues.push({
            path: `value.${i}.content`,
            code: 'too_long',
            message: `Mastodon allows ${MASTODON_MAX_CHARACTERS} characters (every link counts as ${MASTODON_URL_LENGTH}${warning > 0 ? `, the content warning's ${warning} included` : ''}); this text has ${length}`,
          });
        }
      });
      return issues;
    },

    /**
     * Idempotent for an hour through Mastodon's `Idempotency-Key` (the caller's `idempotencyKey`):
     * re-sending the same item with the same key within an hour answers the status posted the
     * first time instead of posting again, even if the first answer was lost. Media uploads are
     * not idempotent (a retry uploads again; Mastodon deletes unattached media by itself).
     *
     * Media are uploaded to `/api/v2/media`; those still processing (202) are polled for up to
     * `mediaWaitMs`. If they are not done by then, publish answers `pending` and `checkPublish`
     * posts the status, with the same key, once they are.
     */
    async publish({ item, settings, replyTo, idempotencyKey }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const audience = statusSettings(settings);
      const mediaIds: string[] = [];
      const processing: string[] = [];
      for (const m of item.media) {
        const uploaded = await uploadMedia(ctx, c, m);
        mediaIds.push(uploaded.id);
        if (!uploaded.ready) processing.push(uploaded.id);
      }
      const body: StatusBody = { status: htmlToText(item.content), media_ids: mediaIds, ...(replyTo ? { in_reply_to_id: replyTo.id } : {}), ...audience };
      const waiting = processing.length > 0 ? await waitForMedia(ctx, c, processing) : [];
      if (waiting.length > 0) {
        const pending: PendingPublish = { v: 1, instanceUrl: c.instanceUrl, waiting, body, idempotencyKey };
        return { status: 'pending', token: JSON.stringify(pending) };
      }
      return postStatus(ctx, c, body, idempotencyKey);
    },

    /** Checks the media once; posts the status (same Idempotency-Key) when all are processed. Safe to retry. */
    async checkPublish(token, ctx): Promise<PublishResult> {
      let pending: PendingPublish;
      try {
        pending = JSON.parse(token) as PendingPublish;
      } catch {
        throw new PlatformError('rejected', 'Unreadable Mastodon publish token');
      }
      if (pending?.v !== 1 || !Array.isArray(pending.waiting) || !pending.body || typeof pending.idempotencyKey !== 'string') {
        throw new PlatformError('rejected', 'Unreadable Mastodon publish token');
      }
      const c = creds(ctx);
      const still: string[] = [];
      for (const id of pending.waiting) if (!(await mediaReady(ctx, c, id))) still.push(id);
      if (still.length > 0) return { status: 'pending', token: JSON.stringify({ ...pending, waiting: still }) };
      return postStatus(ctx, c, pending.body, pending.idempotencyKey);
    },

    async findRecent({ since, limit }, ctx) {
      const c = creds(ctx);
      const id = await accountId(ctx, c);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      let maxId: string | undefined;
      while (out.length < limit) {
        const query = new URLSearchParams({ limit: String(Math.min(40, limit - out.length)), exclude_reblogs: 'true' });
        if (maxId) query.set('max_id', maxId);
        const page = mastodonResult<Status[]>(await call(ctx, c.instanceUrl, c.accessToken, 'GET', `/api/v1/accounts/${encodeURIComponent(id)}/statuses?${query.toString()}`), ctx.clock.now());
        if (!Array.isArray(page) || page.length === 0) break;
        for (const s of page) {
          if (Date.parse(s.created_at) < since.getTime()) return out;
          if (s.reblog) continue;
          out.push({ id: s.id, url: s.url ?? s.uri, content: htmlToText(s.content), createdAt: s.created_at });
          if (out.length >= limit) break;
        }
        maxId = page[page.length - 1]!.id;
      }
      return out;
    },

    async analytics(_days, ctx) {
      const c = creds(ctx);
      const account = await verifyCredentials(ctx, c.instanceUrl, c.accessToken);
      const now = ctx.clock.now();
      return [
        series('Followers', account.followers_count ?? 0, now),
        series('Following', account.following_count ?? 0, now),
        series('Posts', account.statuses_count ?? 0, now),
      ];
    },

    async postAnalytics(postId, _days, ctx) {
      const c = creds(ctx);
      const status = mastodonResult<Status>(await call(ctx, c.instanceUrl, c.accessToken, 'GET', `/api/v1/statuses/${encodeURIComponent(postId)}`), ctx.clock.now());
      const now = ctx.clock.now();
      return [series('Likes', status.favourites_count ?? 0, now), series('Boosts', status.reblogs_count ?? 0, now), series('Replies', status.replies_count ?? 0, now)];
    },
  };
}
