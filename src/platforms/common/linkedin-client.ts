import { z } from 'zod';
import { readCredentials, StoredOAuthTokens, storedText } from './credentials.js';
import { htmlToText } from './html.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from './oauth2.js';
import {
  PlatformError,
  type Credentials,
  type OperationContext,
  type PlatformMetadata,
  type PlatformResponse,
  type PostDraft,
  type PublishItem,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { duplicateOf, linkedinOk } from './linkedin-errors.js';
import { escapeLittleText, unescapeLittleText } from './linkedin-little-text.js';
import { imagesToPdf, UnsupportedImageError } from './linkedin-pdf.js';

/**
 * The LinkedIn client shared by `linkedin` (a member's profile) and `linkedin-page` (an
 * organisation page): OAuth, the versioned REST API (`/rest/*`), media uploads, posts,
 * comments and the author's recent posts. The two adapters differ only in the author URN and in
 * how the channel is chosen at connect time.
 */

export const LINKEDIN_API = 'https://api.linkedin.com';
export const LINKEDIN_WWW = 'https://www.linkedin.com';
/** The REST API version (`LinkedIn-Version`); LinkedIn retires each version after about a year. */
export const LINKEDIN_VERSION = '202601';
export const RESTLI_PROTOCOL_VERSION = '2.0.0';

/** What a connected LinkedIn channel stores (sealed by the caller). */
export interface LinkedinCredentials {
  accessToken: string;
  /** only apps approved for programmatic refresh get one */
  refreshToken: string | null;
  /** ISO time the access token expires (about 60 days after issue) */
  expiresAt: string | null;
  /** `urn:li:person:{sub}`: the member who authorised the app */
  memberUrn: string;
  /** who posts: the member, or `urn:li:organization:{id}` for a page */
  authorUrn: string;
  /** pages: the organisation's numeric id */
  organizationId?: string;
}

export type Ctx = OperationContext;
type ConnectCtx = Omit<OperationContext, 'credentials'>;

const StoredLinkedinCredentials = StoredOAuthTokens.extend({ memberUrn: storedText, authorUrn: storedText, organizationId: z.string().nullish() }).transform(
  ({ organizationId, ...c }): LinkedinCredentials => ({ ...c, ...(organizationId ? { organizationId } : {}) }),
);
export const linkedinCreds = (ctx: { credentials: Credentials }): LinkedinCredentials => readCredentials(ctx, StoredLinkedinCredentials, 'LinkedIn');

export const linkedinPostUrl = (urn: string) => `${LINKEDIN_WWW}/feed/update/${urn}`;
export const linkedinCommentUrl = (postUrn: string, commentUrn: string) => `${linkedinPostUrl(postUrn)}?commentUrn=${encodeURIComponent(commentUrn)}`;

/** The versioned REST API, bound to one access token. */
export interface LinkedinRest {
  get<T>(pathAndQuery: string, extraHeaders?: Record<string, string>): Promise<T>;
  post(pathAndQuery: string, body: unknown): Promise<PlatformResponse>;
  /**
   * PUTs bytes to an upload URL LinkedIn handed out (with the bearer token when `auth`). A Blob
   * (the stored file, or a slice of it) is streamed from disk, never read whole.
   */
  upload(url: string, bytes: Blob | Buffer, auth: boolean): Promise<PlatformResponse>;
}

export function linkedinRest(ctx: Pick<Ctx, 'http' | 'clock'>, accessToken: string, canRefresh: boolean): LinkedinRest {
  const headers = {
    authorization: `Bearer ${accessToken}`,
    'linkedin-version': LINKEDIN_VERSION,
    'x-restli-protocol-version': RESTLI_PROTOCOL_VERSION,
  };
  const check = (res: PlatformResponse) => linkedinOk(res, { now: ctx.clock.now(), canRefresh });
  return {
    async get<T>(pathAndQuery: string, extraHeaders: Record<string, string> = {}) {
      const res = check(await ctx.http.request({ method: 'GET', url: `${LINKEDIN_API}${pathAndQuery}`, headers: { ...headers, ...extraHeaders } }));
      return res.body as T;
    },
    async post(pathAndQuery: string, body: unknown) {
      return check(await ctx.http.request({ method: 'POST', url: `${LINKEDIN_API}${pathAndQuery}`, headers: { ...headers, 'content-type': 'application/json' }, body }));
    },
    async upload(url: string, bytes: Blob | Buffer, auth: boolean) {
      const h: Record<string, string> = { 'content-type': 'application/octet-stream', ...(auth ? { authorization: headers.authorization } : {}) };
      return check(await ctx.http.request({ method: 'PUT', url, headers: h, body: bytes, timeoutMs: 300_000 }));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OAuth

export function requireApp(app: OAuthApp | undefined, displayName = 'LinkedIn'): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', `${displayName} is not configured`);
  return app;
}

export function linkedinAuthorizeUrl(metadata: PlatformMetadata, app: OAuthApp, input: { state: string; redirectUri: string }): string {
  return buildAuthorizeUrl(metadata.oauth!, { clientId: app.clientId, redirectUri: input.redirectUri, state: input.state });
}

export interface LinkedinMember {
  sub: string;
  name: string;
  picture: string | null;
}

/** Exchanges the callback code (client id and secret in the form body) and reads the member (OIDC userinfo). */
export async function linkedinConnect(metadata: PlatformMetadata, app: OAuthApp, input: { code: string; redirectUri: string }, ctx: ConnectCtx): Promise<{ tokens: TokenSet; member: LinkedinMember }> {
  const tokens = await exchangeCode(ctx.http, { tokenUrl: metadata.oauth!.tokenUrl, app, code: input.code, redirectUri: input.redirectUri, clientAuth: 'body', now: ctx.clock.now() });
  const res = linkedinOk(
    await ctx.http.request({ method: 'GET', url: `${LINKEDIN_API}/v2/userinfo`, headers: { authorization: `Bearer ${tokens.accessToken}` } }),
    { now: ctx.clock.now() },
  );
  const me = res.body as { sub?: string; name?: string; given_name?: string; family_name?: string; picture?: string };
  if (!me.sub) throw new PlatformError('rejected', 'LinkedIn did not say who authorised the app');
  const name = me.name || [me.given_name, me.family_name].filter(Boolean).join(' ') || me.sub;
  return { tokens, member: { sub: me.sub, name, picture: me.picture ?? null } };
}

export function tokenCredentials(tokens: TokenSet): Pick<LinkedinCredentials, 'accessToken' | 'refreshToken' | 'expiresAt'> {
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt?.toISOString() ?? null };
}

/**
 * Renews the access token with the refresh token. Without one (apps not approved for
 * programmatic refresh), the token cannot be renewed: the stored one is kept while it is valid
 * and `reconnect_required` is thrown once it has expired.
 */
export async function linkedinRefresh(metadata: PlatformMetadata, app: OAuthApp | undefined, ctx: Ctx): Promise<{ credentials: Credentials; expiresAt: Date | null }> {
  const c = linkedinCreds(ctx);
  const now = ctx.clock.now();
  if (!c.refreshToken) {
    const expires = c.expiresAt ? Date.parse(c.expiresAt) : Number.NaN;
    if (Number.isFinite(expires) && expires > now) return { credentials: { ...c }, expiresAt: new Date(expires) };
    throw new PlatformError('reconnect_required', 'The LinkedIn access token expired and this app gets no refresh token: reconnect the channel');
  }
  const a = requireApp(app, metadata.displayName);
  let tokens: TokenSet;
  try {
    tokens = await refreshTokens(ctx.http, { tokenUrl: metadata.oauth!.tokenUrl, app: a, refreshToken: c.refreshToken, clientAuth: 'body', now });
  } catch (e) {
    // LinkedIn answers a dead refresh token with a plain 400/401: the grant is gone either way.
    if (e instanceof PlatformError && (e.kind === 'rejected' || e.kind === 'auth_expired')) throw new PlatformError('reconnect_required', e.message, e.details);
    throw e;
  }
  const next: LinkedinCredentials = { ...c, ...tokenCredentials(tokens) };
  return { credentials: { ...next }, expiresAt: tokens.expiresAt };
}

// ---------------------------------------------------------------------------------------------
// Validation

const CAROUSEL_TYPES = ['image/jpeg', 'image/png'];

/** LinkedIn's own rules beyond the metadata: carousels and lone videos. */
export function validateLinkedin(post: PostDraft): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const first = post.items[0];
  if (!first) return issues;
  const images = first.media.filter((m) => m.type === 'image');
  const videos = first.media.filter((m) => m.type === 'video');
  if (videos.length > 0 && first.media.length > 1) {
    issues.push({ path: 'value.0.image', code: 'video_alone', message: 'A LinkedIn video must be the only media of its post' });
  }
  if (post.settings.post_as_images_carousel === true) {
    if (videos.length > 0) issues.push({ path: 'value.0.image', code: 'carousel_no_video', message: 'A LinkedIn carousel is made of pictures only: remove the video' });
    if (images.length < 2) issues.push({ path: 'value.0.image', code: 'carousel_min_images', message: 'A LinkedIn carousel needs at least two pictures' });
    if (images.some((m) => !CAROUSEL_TYPES.includes(m.mimeType))) {
      issues.push({ path: 'value.0.image', code: 'carousel_format', message: 'LinkedIn carousel pictures must be JPEG or PNG' });
    }
  }
  return issues;
}

// ---------------------------------------------------------------------------------------------
// Publishing

/** The body of `POST /rest/posts` as this client sends it. */
export interface PostBody {
  author: string;
  commentary: string;
  visibility: 'PUBLIC';
  distribution: { feedDistribution: 'MAIN_FEED'; targetEntities: []; thirdPartyDistributionChannels: [] };
  lifecycleState: 'PUBLISHED';
  isReshareDisabledByAuthor: boolean;
  content?: { media: { id: string; title?: string; altText?: string } } | { multiImage: { images: { id: string; altText?: string }[] } };
}

/** What `checkPublish` needs to post once LinkedIn has processed the video. */
interface PendingVideo {
  v: 1;
  video: string;
  body: PostBody;
}

/** The created entity's URN: LinkedIn answers 201 with an empty body and the id only in `x-restli-id`. */
function restliId(res: PlatformResponse, what: string): string {
  const raw = res.headers['x-restli-id'];
  if (!raw) {
    throw new PlatformError('transient', `LinkedIn accepted the ${what} (HTTP ${res.status}) without naming it (no x-restli-id)`, { status: res.status, outcomeUnknown: true });
  }
  return /^urn%3a/i.test(raw) ? decodeURIComponent(raw) : raw;
}

/** The whole file in memory: only for the carousel, whose pictures are drawn into one PDF. */
async function readBytes(blob: Blob): Promise<Buffer> {
  return Buffer.from(await blob.arrayBuffer());
}

async function uploadImage(api: LinkedinRest, owner: string, bytes: Blob): Promise<string> {
  const init = await api.post('/rest/images?action=initializeUpload', { initializeUploadRequest: { owner } });
  const value = (init.body as { value?: { uploadUrl?: string; image?: string } } | null)?.value;
  if (!value?.uploadUrl || !value.image) throw new PlatformError('transient', 'LinkedIn gave no image upload URL');
  await api.upload(value.uploadUrl, bytes, true);
  return value.image;
}

async function uploadDocument(api: LinkedinRest, owner: string, bytes: Buffer): Promise<string> {
  const init = await api.post('/rest/documents?action=initializeUpload', { initializeUploadRequest: { owner } });
  const value = (init.body as { value?: { uploadUrl?: string; document?: string } } | null)?.value;
  if (!value?.uploadUrl || !value.document) throw new PlatformError('transient', 'LinkedIn gave no document upload URL');
  await api.upload(value.uploadUrl, bytes, true);
  return value.document;
}

/** Uploads a video in the parts LinkedIn asks for (about 4 MB each, each a slice of the file streamed from disk) and finalises it. */
async function uploadVideo(api: LinkedinRest, owner: string, blob: Blob): Promise<string> {
  const init = await api.post('/rest/videos?action=initializeUpload', {
    initializeUploadRequest: { owner, fileSizeBytes: blob.size, uploadCaptions: false, uploadThumbnail: false },
  });
  const value = (init.body as { value?: { video?: string; uploadToken?: string; uploadInstructions?: { uploadUrl: string; firstByte: number; lastByte: number }[] } } | null)?.value;
  if (!value?.video || !value.uploadInstructions?.length) throw new PlatformError('transient', 'LinkedIn gave no video upload instructions');
  const etags: string[] = [];
  for (const part of value.uploadInstructions) {
    const res = await api.upload(part.uploadUrl, blob.slice(part.firstByte, part.lastByte + 1), false);
    const etag = res.headers.etag;
    if (!etag) throw new PlatformError('transient', 'LinkedIn acknowledged a video part without an ETag');
    etags.push(etag);
  }
  await api.post('/rest/videos?action=finalizeUpload', { finalizeUploadRequest: { video: value.video, uploadToken: value.uploadToken ?? '', uploadedPartIds: etags } });
  return value.video;
}

interface PostView {
  id: string;
  author?: string;
  commentary?: string;
  createdAt?: number;
  publishedAt?: number;
  lastModifiedAt?: number;
  lifecycleState?: string;
  content?: { media?: { id?: string } };
}

async function createPost(api: LinkedinRest, body: PostBody): Promise<PublishResult> {
  const id = restliId(await api.post('/rest/posts', body), 'post');
  return { status: 'published', id, url: linkedinPostUrl(id) };
}

/** Posts the video once processed. A "duplicate of urn" answer for our own video means an earlier attempt got through. */
async function finishVideo(api: LinkedinRest, t: PendingVideo): Promise<PublishResult> {
  const video = await api.get<{ status?: string; processingFailureReason?: string }>(`/rest/videos/${encodeURIComponent(t.video)}`);
  if (video.status === 'PROCESSING_FAILED') {
    throw new PlatformError('rejected', `LinkedIn could not process the video${video.processingFailureReason ? `: ${video.processingFailureReason}` : ''}`, { platformCode: 'PROCESSING_FAILED' });
  }
  if (video.status !== 'AVAILABLE') return { status: 'pending', token: JSON.stringify(t) };
  try {
    return await createPost(api, t.body);
  } catch (e) {
    const earlier = e instanceof PlatformError ? duplicateOf(e) : undefined;
    if (!earlier) throw e;
    const post = await api.get<PostView>(`/rest/posts/${encodeURIComponent(earlier)}`);
    if (post.content?.media?.id === t.video) return { status: 'published', id: earlier, url: linkedinPostUrl(earlier) };
    throw e;
  }
}

function parsePending(token: string): PendingVideo {
  try {
    const t = JSON.parse(token) as PendingVideo;
    if (t.v === 1 && typeof t.video === 'string' && typeof t.body?.author === 'string') return t;
  } catch {
    // fall through
  }
  throw new PlatformError('rejected', 'Unreadable LinkedIn publish token');
}

/**
 * A 403 on reading the author's posts or comments is not a lost grant (a revoked token answers
 * 401): LinkedIn lets most apps publish for a member (`w_member_social`) but read the member's
 * posts only with the restricted `r_member_social`, and a page's only for its administrators. Said
 * as `unsupported`, so the channel is not marked for reconnecting and reconciliation ends at once
 * with "outcome unknown" instead of guessing.
 */
function unreadable(e: unknown, author: string): unknown {
  if (!(e instanceof PlatformError) || e.kind !== 'reconnect_required' || e.details.status !== 403) return e;
  const who = author.startsWith('urn:li:person:')
    ? "this app may publish for the member but not read the member's posts (LinkedIn keeps that to apps granted r_member_social)"
    : "this account may not read the page's posts (it needs to be an administrator of the page, with r_organization_social)";
  return new PlatformError('unsupported', `LinkedIn refused to list recent posts: ${who}`, e.details);
}

/** One entry of `findRecent`. */
type RecentItem = { id: string; url: string; content: string; createdAt: string };

/**
 * The post a thread item is a comment on: the first item's, for every item after it. `publish`
 * comments there and `findRecent` looks there, so both must pick it the same way.
 */
const commentTarget = (replyTo: { id: string; rootId: string }) => replyTo.rootId || replyTo.id;

/** The author's published posts created since `since`, newest first. */
async function recentPosts(api: LinkedinRest, author: string, since: number, limit: number): Promise<RecentItem[]> {
  const count = Math.min(100, Math.max(1, limit));
  const out: RecentItem[] = [];
  for (let start = 0; out.length < limit; ) {
    const page = await api.get<{ elements?: PostView[] }>(
      `/rest/posts?author=${encodeURIComponent(author)}&q=author&count=${count}&start=${start}&sortBy=LAST_MODIFIED`,
      { 'x-restli-method': 'FINDER' },
    );
    const elements = page.elements ?? [];
    let older = false;
    for (const p of elements) {
      const created = p.createdAt ?? p.publishedAt ?? 0;
      // Sorted by last modification, which is never before creation: past `since`, all the rest is older.
      if ((p.lastModifiedAt ?? created) < since) older = true;
      if (created < since || (p.lifecycleState && p.lifecycleState !== 'PUBLISHED')) continue;
      out.push({ id: p.id, url: linkedinPostUrl(p.id), content: unescapeLittleText(p.commentary ?? ''), createdAt: new Date(created).toISOString() });
    }
    if (older || elements.length < count) break;
    start += elements.length;
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
}

/** A comment as `GET /rest/socialActions/{urn}/comments` lists it. */
interface CommentView {
  /** the comment's own numeric id */
  id?: string;
  /** its URN, `urn:li:comment:({object},{id})`: what `x-restli-id` named when it was created */
  $URN?: string;
  actor?: string;
  object?: string;
  created?: { actor?: string; time?: number };
  message?: { text?: string };
}

/** Comments asked for per page (LinkedIn may answer fewer: the end is told by `paging.total`). */
const COMMENTS_PAGE = 100;

/** The comment's URN as `publish` returned it, from `$URN` (or rebuilt from its parts when that is missing). */
function commentUrn(c: CommentView): string | undefined {
  if (c.$URN) return c.$URN;
  return c.object && c.id ? `urn:li:comment:(${c.object},${c.id})` : undefined;
}

/**
 * The author's comments on `target` created since `since`, newest first, with the ids and URLs
 * `publish` gave them. LinkedIn lists everyone's comments on a post and cannot filter by actor
 * or time, so every page is read (a thread's post is young and its comments few) and the rest
 * dropped.
 */
async function recentComments(api: LinkedinRest, author: string, target: string, since: number, limit: number): Promise<RecentItem[]> {
  const out: RecentItem[] = [];
  for (let start = 0; ; ) {
    const page = await api.get<{ elements?: CommentView[]; paging?: { total?: number } }>(
      `/rest/socialActions/${encodeURIComponent(target)}/comments?start=${start}&count=${COMMENTS_PAGE}`,
    );
    const elements = page.elements ?? [];
    for (const c of elements) {
      const id = commentUrn(c);
      const created = c.created?.time ?? 0;
      // `created.actor` names the author too: LinkedIn's listing has been known to leave `actor` out.
      if (!id || (c.actor ?? c.created?.actor) !== author || created < since) continue;
      out.push({ id, url: linkedinCommentUrl(target, id), content: c.message?.text ?? '', createdAt: new Date(created).toISOString() });
    }
    start += elements.length;
    const total = page.paging?.total;
    if (elements.length === 0 || (total !== undefined ? start >= total : elements.length < COMMENTS_PAGE)) break;
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
}

/** The publishing half of both adapters. */
export function linkedinPublishing() {
  return {
    validate: validateLinkedin,

    /**
     * Publishes one item: the first as a post (text, pictures, a carousel document or a video),
     * the others as comments on it. NOT idempotent: LinkedIn has no idempotency key, and a
     * retried identical post is refused as a duplicate (422 `DUPLICATE_POST`) rather than
     * recognised — the publisher must reconcile with `findRecent`, never re-send blindly.
     * A video answers `pending` once uploaded unless LinkedIn has already processed it;
     * `checkPublish` then posts it.
     */
    async publish(input: { item: PublishItem; settings: Record<string, unknown>; replyTo?: { id: string; rootId: string } }, ctx: Ctx): Promise<PublishResult> {
      const c = linkedinCreds(ctx);
      const api = linkedinRest(ctx, c.accessToken, c.refreshToken !== null);
      const { item, settings, replyTo } = input;
      const text = htmlToText(item.content);

      if (replyTo) {
        if (item.media.length > 0) throw new PlatformError('rejected', 'LinkedIn comments are text only');
        const target = commentTarget(replyTo);
        const res = await api.post(`/rest/socialActions/${encodeURIComponent(target)}/comments`, { actor: c.authorUrn, object: target, message: { text } });
        const id = restliId(res, 'comment');
        return { status: 'published', id, url: linkedinCommentUrl(target, id) };
      }

      const body: PostBody = {
        author: c.authorUrn,
        commentary: escapeLittleText(text),
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
        lifecycleState: 'PUBLISHED',
        isReshareDisabledByAuthor: false,
      };
      const video = item.media.find((m) => m.type === 'video');
      const images = item.media.filter((m) => m.type === 'image');
      if (video) {
        if (item.media.length > 1) throw new PlatformError('rejected', 'A LinkedIn video must be the only media of its post');
        const urn = await uploadVideo(api, c.authorUrn, await ctx.openMedia(video));
        body.content = { media: { id: urn } };
        return finishVideo(api, { v: 1, video: urn, body });
      }
      if (images.length >= 2 && settings.post_as_images_carousel === true) {
        const pictures = [];
        for (const m of images) pictures.push({ bytes: await readBytes(await ctx.openMedia(m)), mimeType: m.mimeType });
        const title = typeof settings.carousel_name === 'string' && settings.carousel_name.trim() ? settings.carousel_name.trim() : 'Carousel';
        let pdf: Buffer;
        try {
          pdf = await imagesToPdf(pictures, title);
        } catch (e) {
          if (e instanceof UnsupportedImageError) throw new PlatformError('rejected', e.message);
          throw e;
        }
        body.content = { media: { id: await uploadDocument(api, c.authorUrn, pdf), title } };
      } else if (images.length > 0) {
        const uploaded: { id: string; altText?: string }[] = [];
        for (const m of images) {
          const id = await uploadImage(api, c.authorUrn, await ctx.openMedia(m));
          uploaded.push(m.alt ? { id, altText: m.alt.slice(0, 4086) } : { id });
        }
        body.content = uploaded.length === 1 ? { media: uploaded[0]! } : { multiImage: { images: uploaded } };
      }
      return createPost(api, body);
    },

    /** Polls the video; once AVAILABLE, creates the post (recognising one an earlier attempt made). */
    async checkPublish(token: string, ctx: Ctx): Promise<PublishResult> {
      const c = linkedinCreds(ctx);
      return finishVideo(linkedinRest(ctx, c.accessToken, c.refreshToken !== null), parsePending(token));
    },

    /**
     * The author's recent published posts, newest first, with the commentary as shown. With
     * `replyTo` (reconciling an interrupted thread item), the author's comments on the post
     * thread items are attached to instead: LinkedIn's post listing never shows comments, and a
     * thread item is only ever published as one.
     */
    async findRecent(input: { since: Date; limit: number; replyTo?: { id: string; rootId: string } }, ctx: Ctx): Promise<RecentItem[]> {
      const c = linkedinCreds(ctx);
      const api = linkedinRest(ctx, c.accessToken, c.refreshToken !== null);
      const since = input.since.getTime();
      try {
        if (input.replyTo) return await recentComments(api, c.authorUrn, commentTarget(input.replyTo), since, input.limit);
        return await recentPosts(api, c.authorUrn, since, input.limit);
      } catch (e) {
        throw unreadable(e, c.authorUrn);
      }
    },
  };
}
