import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { percentageChange } from '../common/figures.js';
import { mediaFileName } from '../common/media.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PostDraft,
  type PublishMedia,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import {
  base64Of,
  boardOf,
  isBase64Type,
  LIMITS,
  pinFields,
  PINTEREST_API,
  pinterestApi,
  pinterestCreds,
  pinUrl,
  publicUrlOf,
  sniffBase64Type,
  type MediaStatus,
  type MediaUpload,
  type Page,
  type PinFields,
  type PinterestApi,
  type PinterestCredentials,
  type PinView,
} from './client.js';
import { pinterestOk, uploadError } from './errors.js';
import { pinterestMetadata } from './metadata.js';

export { PINTEREST_API, PINTEREST_WWW, pinUrl, type PinterestCredentials } from './client.js';

const OAUTH = pinterestMetadata.oauth!;
/** The scopes publishing cannot do without (the user may untick others on the consent page). */
const NEEDED_SCOPES = ['boards:read', 'pins:read', 'pins:write', 'user_accounts:read'];
const DAY = 86_400_000;
/** Pinterest keeps analytics for 90 days back (today included). */
const ANALYTICS_MAX_DAYS = 90;
/** Clock skew allowed between our clock and Pinterest's `created_at` when recognising a pin. */
const SKEW_MS = 2 * 60_000;
/** How long a pin creation whose answer was lost is given to show in the board before looking again. */
const LOST_ANSWER_WAIT_SECONDS = 30;
/** Uploads and base64 pins carry up to 2 GB / 100 MB: the attempt's own timeout bounds them. */
const UPLOAD_TIMEOUT_MS = 60 * 60_000;
const PIN_TIMEOUT_MS = 5 * 60_000;

const ACCOUNT_METRICS: [label: string, metric: string][] = [
  ['Impressions', 'IMPRESSION'],
  ['Engagements', 'ENGAGEMENT'],
  ['Pin clicks', 'PIN_CLICK'],
  ['Outbound clicks', 'OUTBOUND_CLICK'],
  ['Saves', 'SAVE'],
];
const PIN_METRICS: [label: string, metric: string][] = [
  ['Impressions', 'IMPRESSION'],
  ['Pin clicks', 'PIN_CLICK'],
  ['Outbound clicks', 'OUTBOUND_CLICK'],
  ['Saves', 'SAVE'],
];

/** What `checkPublish` needs to finish a video pin: the registered upload, the files, the pin. */
interface PendingVideo {
  v: 1;
  /** `upload`: the video is still to be sent to `upload`; `processing`: sent, Pinterest is processing it */
  stage: 'upload' | 'processing';
  mediaId: string;
  upload?: { url: string; parameters: Record<string, string> };
  video: PublishMedia;
  cover: PublishMedia;
  pin: PinFields;
  /** ms when the publish began: a pin made from this token is not older */
  since: number;
}

type MediaSource = Record<string, unknown> & { source_type: string };

function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'Pinterest is not configured');
  return app;
}

function tokenCredentials(tokens: TokenSet, now: number): Pick<PinterestCredentials, 'accessToken' | 'refreshToken' | 'expiresAt' | 'refreshTokenExpiresAt'> {
  const refreshIn = Number(tokens.raw.refresh_token_expires_in);
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt?.toISOString() ?? null,
    refreshTokenExpiresAt: Number.isFinite(refreshIn) && refreshIn > 0 ? new Date(now + refreshIn * 1000).toISOString() : null,
  };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface DailyMetrics {
  all?: { daily_metrics?: { date?: string; data_status?: string; metrics?: Record<string, number> }[] };
}

/** One series per metric, one point per day of the range (0 where Pinterest has no ready figure). */
function dailySeries(body: DailyMetrics, metrics: [string, string][], dates: string[]): AnalyticsSeries[] {
  const byDate = new Map((body.all?.daily_metrics ?? []).filter((d) => d.date && (d.data_status ?? 'READY') === 'READY').map((d) => [d.date!, d.metrics ?? {}]));
  return metrics.map(([label, metric]) => {
    const data = dates.map((date) => ({ date, total: Number(byDate.get(date)?.[metric] ?? 0) || 0 }));
    return { label, percentageChange: percentageChange(data), data };
  });
}

/** The days of an analytics span ending today (UTC), at most Pinterest's 90. */
function spanOf(days: number, now: number): { start: string; end: string; dates: string[] } {
  const n = Math.min(ANALYTICS_MAX_DAYS, Math.max(1, Math.floor(days)));
  const today = Math.floor(now / DAY) * DAY;
  const dates = Array.from({ length: n }, (_, i) => isoDay(today - (n - 1 - i) * DAY));
  return { start: dates[0]!, end: dates.at(-1)!, dates };
}

const sameText = (a: string | null | undefined, b: string | null | undefined) => (a ?? '').replace(/\s+/g, ' ').trim() === (b ?? '').replace(/\s+/g, ' ').trim();

function encodeToken(t: PendingVideo): string {
  return JSON.stringify(t);
}

function decodeToken(token: string): PendingVideo {
  try {
    const t = JSON.parse(token) as PendingVideo;
    if (t.v === 1 && (t.stage === 'upload' || t.stage === 'processing') && typeof t.mediaId === 'string' && typeof t.pin?.board_id === 'string' && t.video && t.cover) return t;
  } catch {
    // fall through
  }
  throw new PlatformError('rejected', 'Unreadable Pinterest publish token');
}

/** The media rules beyond the metadata: one video with one cover picture, or 1–5 pictures of one size. */
function mediaIssues(media: PostDraft['items'][number]['media'], check: 'validate' | 'publish'): ValidationIssue[] {
  const path = 'value.0.image';
  const videos = media.filter((m) => m.type === 'video');
  const images = media.filter((m) => m.type === 'image');
  if (videos.length > 0) {
    if (videos.length > 1) return [{ path, code: 'one_video', message: 'A Pinterest pin takes one video' }];
    if (images.length === 0) return [{ path, code: 'video_cover_required', message: 'A Pinterest video pin needs a cover picture: add one picture after the video' }];
    if (images.length > 1) return [{ path, code: 'video_cover_only', message: 'A Pinterest video pin takes the video and one cover picture, nothing else' }];
    return [];
  }
  // Post validation counts against the metadata's 5 already; `publish` checks it itself.
  if (check === 'publish' && images.length > LIMITS.carouselMax) {
    return [{ path, code: 'carousel_size', message: `A Pinterest carousel takes ${LIMITS.carouselMin} to ${LIMITS.carouselMax} pictures; this one has ${images.length}` }];
  }
  // Sizes are checked when the post is made: at publish time a picture may have been re-encoded.
  if (check === 'validate' && images.length >= LIMITS.carouselMin) {
    const sizes = new Set(images.filter((m) => m.width && m.height).map((m) => `${m.width}×${m.height}`));
    if (sizes.size > 1) return [{ path, code: 'carousel_dimensions', message: `The pictures of a Pinterest carousel must all have the same size; these are ${[...sizes].join(', ')}` }];
  }
  return [];
}

/** A multipart/form-data body of `fields` then one file, read from the Blob chunk by chunk as it is sent. */
export function multipartStream(fields: Record<string, string>, file: { name: string; type: string; blob: Blob }) {
  const boundary = `----tidings${randomBytes(12).toString('hex')}`;
  const quote = (s: string) => s.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
  let head = '';
  for (const [k, v] of Object.entries(fields)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(k)}"\r\n\r\n${v}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(file.name)}"\r\nContent-Type: ${file.type}\r\n\r\n`;
  const before = Buffer.from(head, 'utf8');
  const after = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  async function* chunks() {
    yield before;
    for await (const chunk of file.blob.stream()) yield chunk;
    yield after;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, length: before.length + file.blob.size + after.length, body: Readable.from(chunks()) };
}

/**
 * Creates the Pinterest adapter: OAuth 2 (client authenticated with HTTP Basic at the token
 * endpoint) with 30-day access tokens and rotating refresh tokens; pins of one picture, a
 * carousel of 2–5, or a video with its cover; the `boards` tool; account and pin analytics.
 *
 * Pictures go as base64 (`image_base64`, `multiple_image_base64`) when they are JPEG or PNG — the
 * publisher re-encodes WebP, AVIF and TIFF to JPEG first — so nothing needs to be reachable from
 * the internet; a GIF (which Pinterest takes only by URL, and which is never re-encoded) goes as
 * `image_url`/`multiple_image_urls` with its public path. Videos are uploaded to the storage URL
 * Pinterest hands out, so they need no public URL either.
 */
export function createPinterestAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  async function register(api: PinterestApi): Promise<{ mediaId: string; upload: { url: string; parameters: Record<string, string> } }> {
    const reg = await api.post<MediaUpload>('/v5/media', { media_type: 'video' });
    if (!reg?.media_id || !reg.upload_url) throw new PlatformError('transient', 'Pinterest registered the video upload without an upload URL');
    return { mediaId: reg.media_id, upload: { url: reg.upload_url, parameters: reg.upload_parameters ?? {} } };
  }

  /**
   * POSTs the video to the storage URL as S3 wants a presigned form: every upload parameter, then
   * the file last (S3 ignores fields after it). The body is streamed from the stored Blob, with its
   * length given up front, so a 2 GB video is never held in memory.
   */
  async function uploadVideo(ctx: OperationContext, t: PendingVideo): Promise<void> {
    if (!t.upload) throw new PlatformError('rejected', 'The Pinterest publish token has no upload URL');
    const blob = await ctx.openMedia(t.video);
    const form = multipartStream(t.upload.parameters, { name: mediaFileName(t.video), type: t.video.mimeType, blob });
    const res = await ctx.http.request({
      method: 'POST',
      url: t.upload.url,
      headers: { 'content-type': form.contentType, 'content-length': String(form.length) },
      body: form.body,
      timeoutMs: UPLOAD_TIMEOUT_MS,
    });
    const err = uploadError(res);
    if (err) throw err;
  }

  /** The cover as Pinterest takes it: base64 when the stored bytes are JPEG/PNG within 20 MiB, else by its public URL. */
  async function coverSource(ctx: OperationContext, cover: PublishMedia): Promise<Record<string, string>> {
    const blob = await ctx.openMedia(cover);
    const type = await sniffBase64Type(blob);
    if (type && blob.size <= LIMITS.imageBytes) return { cover_image_content_type: type, cover_image_data: await base64Of(blob) };
    return { cover_image_url: publicUrlOf(cover) };
  }

  async function imagesSource(ctx: OperationContext, images: PublishMedia[], fields: PinFields): Promise<MediaSource> {
    if (images.length === 1) {
      const m = images[0]!;
      if (isBase64Type(m.mimeType)) return { source_type: 'image_base64', content_type: m.mimeType, data: await base64Of(await ctx.openMedia(m)) };
      return { source_type: 'image_url', url: publicUrlOf(m) };
    }
    // Each picture of a carousel may lead elsewhere; here they all lead to the pin's link.
    const extra = { ...(fields.title ? { title: fields.title } : {}), ...(fields.link ? { link: fields.link } : {}) };
    if (images.every((m) => isBase64Type(m.mimeType))) {
      const items = [];
      for (const m of images) items.push({ content_type: m.mimeType, data: await base64Of(await ctx.openMedia(m)), ...extra });
      return { source_type: 'multiple_image_base64', items };
    }
    return { source_type: 'multiple_image_urls', items: images.map((m) => ({ url: publicUrlOf(m), ...extra })) };
  }

  async function createPin(api: PinterestApi, fields: PinFields, source: MediaSource): Promise<PublishResult> {
    const pin = await api.post<PinView>('/v5/pins', { ...fields, media_source: source }, PIN_TIMEOUT_MS);
    if (!pin?.id) throw new PlatformError('transient', 'Pinterest created the pin without naming it', { outcomeUnknown: true });
    return { status: 'published', id: pin.id, url: pinUrl(pin.id) };
  }

  /** A video pin this token already made: on its board, made since the token began, with its words. */
  async function madeFrom(api: PinterestApi, t: PendingVideo): Promise<PinView | undefined> {
    const page = await api.get<Page<PinView>>(`/v5/boards/${encodeURIComponent(t.pin.board_id)}/pins?page_size=50`);
    return (page?.items ?? []).find((p) => {
      const created = p.created_at ? Date.parse(p.created_at) : Number.NaN;
      const video = p.media?.media_type === 'video' || /video/i.test(p.creative_type ?? '');
      return video && !(created < t.since - SKEW_MS) && sameText(p.description, t.pin.description) && sameText(p.title, t.pin.title);
    });
  }

  /**
   * Creates the video pin unless this token already did. A creation whose answer was lost may not
   * be listed on the board at once: the next look waits a little for it.
   */
  async function finish(ctx: OperationContext, api: PinterestApi, t: PendingVideo): Promise<PublishResult> {
    const existing = await madeFrom(api, t);
    if (existing) return { status: 'published', id: existing.id, url: pinUrl(existing.id) };
    const source = { source_type: 'video_id', media_id: t.mediaId, ...(await coverSource(ctx, t.cover)) };
    try {
      return await createPin(api, t.pin, source);
    } catch (e) {
      if (e instanceof PlatformError && e.details.outcomeUnknown) {
        throw new PlatformError('transient', `${e.message}; looking for the pin on the board again in ${LOST_ANSWER_WAIT_SECONDS} s`, { ...e.details, retryAfterSeconds: LOST_ANSWER_WAIT_SECONDS });
      }
      throw e;
    }
  }

  /** One step of a video pin: upload (unless Pinterest has the file already), wait for processing, create once. */
  async function advance(ctx: OperationContext, t: PendingVideo): Promise<PublishResult> {
    const api = pinterestApi(ctx, pinterestCreds(ctx));
    const media = await api.get<MediaStatus>(`/v5/media/${encodeURIComponent(t.mediaId)}`);
    const status = media?.status;
    if (status === 'failed') throw new PlatformError('rejected', 'Pinterest could not process the video (media upload status "failed")', { platformCode: 'failed' });
    if (t.stage === 'upload') {
      if (status === 'registered') {
        try {
          await uploadVideo(ctx, t);
        } catch (e) {
          // The upload's signed policy ran out (a long pause between steps): register a new one.
          if ((e as { expired?: boolean }).expired) return { status: 'pending', token: encodeToken({ ...t, ...(await register(api)) }), pollAfterMs: 0 };
          throw e;
        }
        const { upload: _sent, ...rest } = t;
        return { status: 'pending', token: encodeToken({ ...rest, stage: 'processing' }) };
      }
      // Pinterest has the file already (an earlier attempt sent it before its answer was lost).
      const { upload: _sent, ...rest } = t;
      t = { ...rest, stage: 'processing' };
    }
    if (status !== 'succeeded') return { status: 'pending', token: encodeToken(t) };
    return finish(ctx, api, t);
  }

  return {
    metadata: pinterestMetadata,

    async beginConnect({ state, redirectUri }) {
      const { clientId } = requireApp(config.app);
      return { url: buildAuthorizeUrl(OAUTH, { clientId, redirectUri, state }) };
    },

    async completeConnect({ code, redirectUri }, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      const tokens = await exchangeCode(ctx.http, { tokenUrl: OAUTH.tokenUrl, app, code, redirectUri, clientAuth: 'basic', now: ctx.clock.now() }).catch((e: unknown) => {
        // A 401 of the token endpoint is about the app itself, not a user's token.
        if (e instanceof PlatformError && e.kind === 'auth_expired') {
          throw new PlatformError('rejected', `Pinterest refused this server's app (check PINTEREST_CLIENT_ID and PINTEREST_CLIENT_SECRET): ${e.message}`, e.details);
        }
        throw e;
      });
      const granted = (tokens.scope ?? '').split(/[\s,]+/).filter(Boolean);
      const missing = NEEDED_SCOPES.filter((s) => !granted.includes(s));
      if (tokens.scope !== null && missing.length > 0) throw new PlatformError('rejected', `Pinterest did not grant the ${missing.join(', ')} permission: connect again and allow it`);
      const res = pinterestOk(
        await ctx.http.request({ method: 'GET', url: `${PINTEREST_API}/v5/user_account`, headers: { authorization: `Bearer ${tokens.accessToken}`, accept: 'application/json' } }),
        { now: ctx.clock.now() },
      );
      const me = res.body as { id?: string; username?: string; business_name?: string | null; profile_image?: string | null };
      if (!me?.username) throw new PlatformError('rejected', 'Pinterest did not say who authorised the app');
      const credentials: PinterestCredentials = { ...tokenCredentials(tokens, ctx.clock.now()), userId: me.id ?? me.username, username: me.username };
      return {
        internalId: me.id ?? me.username,
        name: me.business_name?.trim() || me.username,
        profile: me.username,
        picture: me.profile_image ?? null,
        credentials: { ...credentials },
        expiresAt: tokens.expiresAt,
      };
    },

    /**
     * Renews the 30-day access token. Pinterest's continuous refresh hands back a new refresh token
     * each time (the old one stops working), so the returned credentials must be stored before use.
     * A refused refresh token (revoked, expired after 60 idle days) is `reconnect_required`.
     */
    async refresh(ctx) {
      const c = pinterestCreds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'This Pinterest connection has no refresh token: connect again');
      let tokens: TokenSet;
      try {
        tokens = await refreshTokens(ctx.http, { tokenUrl: OAUTH.tokenUrl, app: requireApp(config.app), refreshToken: c.refreshToken, clientAuth: 'basic', now: ctx.clock.now() });
      } catch (e) {
        // Pinterest refuses a dead refresh token with a plain 400/401 `{code, message}`.
        if (e instanceof PlatformError && (e.kind === 'rejected' || e.kind === 'auth_expired')) throw new PlatformError('reconnect_required', e.message, e.details);
        throw e;
      }
      const next: PinterestCredentials = { ...c, ...tokenCredentials(tokens, ctx.clock.now()) };
      if (!tokens.raw.refresh_token) next.refreshTokenExpiresAt = c.refreshTokenExpiresAt;
      return { credentials: { ...next }, expiresAt: tokens.expiresAt };
    },

    validate(post: PostDraft): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      const board = typeof post.settings.board === 'string' ? post.settings.board.trim() : '';
      if (board !== '' && !/^\d+$/.test(board)) issues.push({ path: 'settings.board', code: 'invalid_board', message: 'board must be a Pinterest board id (a number, as the boards tool lists them)' });
      const link = post.settings.link;
      if (typeof link === 'string' && link.length > LIMITS.link) issues.push({ path: 'settings.link', code: 'too_long', message: `A Pinterest link has at most ${LIMITS.link} characters` });
      const first = post.items[0];
      if (first) issues.push(...mediaIssues(first.media, 'validate'));
      return issues;
    },

    /**
     * Publishes one pin. NOT idempotent for pictures: Pinterest has no idempotency key, so an
     * unknown outcome is reconciled with `findRecent`. A video answers `pending` once its upload is
     * registered; `checkPublish` uploads it, waits for processing and creates the pin once.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      if (replyTo) throw new PlatformError('unsupported', 'Pinterest has no replies or comments that an app can post');
      const c = pinterestCreds(ctx);
      const api = pinterestApi(ctx, c);
      const media = item.media;
      if (media.length === 0) throw new PlatformError('rejected', 'A Pinterest pin needs a picture or a video (value.0.image)');
      const issue = mediaIssues(media, 'publish')[0];
      if (issue) throw new PlatformError('rejected', `${issue.message} (${issue.path})`);
      boardOf(settings);
      const fields = pinFields(settings, item.content, media);
      const video = media.find((m) => m.type === 'video');
      if (video) {
        const cover = media.find((m) => m.type === 'image')!;
        const since = ctx.clock.now();
        const reg = await register(api);
        const token: PendingVideo = { v: 1, stage: 'upload', ...reg, video, cover, pin: fields, since };
        return { status: 'pending', token: encodeToken(token), pollAfterMs: 0 };
      }
      return createPin(api, fields, await imagesSource(ctx, media, fields));
    },

    /**
     * Goes on with a video pin. Idempotent: it asks Pinterest for the upload's status before
     * sending the file, and looks for a pin made from this token on the board before creating one.
     */
    async checkPublish(token, ctx) {
      return advance(ctx, decodeToken(token));
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'boards') throw new PlatformError('unsupported', `Pinterest has no tool "${methodName}"`);
      const api = pinterestApi(ctx, pinterestCreds(ctx));
      const boards: { id: string; name: string }[] = [];
      let bookmark: string | null | undefined;
      for (let page = 0; page < 20; page++) {
        const q = new URLSearchParams({ page_size: '250', ...(bookmark ? { bookmark } : {}) });
        const res = await api.get<Page<{ id: string; name: string }>>(`/v5/boards?${q.toString()}`);
        for (const b of res?.items ?? []) boards.push({ id: b.id, name: b.name });
        bookmark = res?.bookmark;
        if (!bookmark) break;
      }
      return boards;
    },

    /** The account's daily impressions, engagements, clicks and saves, today included (up to 90 days). */
    async analytics(days, ctx) {
      const api = pinterestApi(ctx, pinterestCreds(ctx));
      const span = spanOf(days, ctx.clock.now());
      const q = new URLSearchParams({ start_date: span.start, end_date: span.end, metric_types: ACCOUNT_METRICS.map(([, m]) => m).join(',') });
      return dailySeries(await api.get<DailyMetrics>(`/v5/user_account/analytics?${q.toString()}`), ACCOUNT_METRICS, span.dates);
    },

    /** One pin's daily impressions, clicks and saves (up to 90 days). */
    async postAnalytics(pinId, days, ctx) {
      const api = pinterestApi(ctx, pinterestCreds(ctx));
      const span = spanOf(days, ctx.clock.now());
      const q = new URLSearchParams({ start_date: span.start, end_date: span.end, metric_types: PIN_METRICS.map(([, m]) => m).join(','), app_types: 'ALL', split_field: 'NO_SPLIT' });
      return dailySeries(await api.get<DailyMetrics>(`/v5/pins/${encodeURIComponent(pinId)}/analytics?${q.toString()}`), PIN_METRICS, span.dates);
    },

    /** The account's own recent pins (saves of others' pins left out), newest first, with their descriptions. */
    async findRecent({ since, limit }, ctx) {
      const api = pinterestApi(ctx, pinterestCreds(ctx));
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      let bookmark: string | null | undefined;
      for (let page = 0; page < 5 && out.length < limit; page++) {
        const q = new URLSearchParams({ page_size: String(Math.min(100, Math.max(1, limit))), pin_filter: 'exclude_repins', ...(bookmark ? { bookmark } : {}) });
        const res = await api.get<Page<PinView>>(`/v5/pins?${q.toString()}`);
        let older = false;
        for (const p of res?.items ?? []) {
          const created = p.created_at ? Date.parse(p.created_at) : Number.NaN;
          if (created < since.getTime()) {
            older = true;
            continue;
          }
          out.push({ id: p.id, url: pinUrl(p.id), content: p.description ?? '', createdAt: Number.isNaN(created) ? '' : new Date(created).toISOString() });
        }
        bookmark = res?.bookmark;
        if (older || !bookmark) break;
      }
      return out.slice(0, limit);
    },
  };
}
