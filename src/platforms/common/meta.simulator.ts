import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from './oauth2.simulator.js';

/**
 * A simulator of Meta's APIs for `facebook`, `instagram` (Facebook Login) and
 * `instagram-standalone` (Instagram Login). One server answers for every Meta origin tests map to
 * it (the paths do not collide): `www.facebook.com` (the login dialog), `graph.facebook.com` and
 * `graph-video.facebook.com` (the Graph API under `/{version}/`), `rupload.facebook.com` (reel and
 * story video bytes), and for Instagram Login `www.instagram.com` (authorisation),
 * `api.instagram.com` (code exchange) and `graph.instagram.com` (long-lived tokens, refresh, and
 * the same Graph paths as Facebook Login's Instagram API).
 *
 * Faithful parts: Graph errors are `{ error: { message, type, code, error_subcode, fbtrace_id } }`
 * with Meta's codes (190/463 expired, 190/460 invalidated, 100/33 unknown object, #200
 * permissions, #506 duplicate status, #32 and Instagram BUC limits with `X-Business-Use-Case-Usage`,
 * 9/2207042 the 24-hour publishing limit, 9007/2207027 a container not ready); OAuth codes are
 * single use and bound to their redirect URI; long-lived tokens last 60 days and Instagram ones are
 * refreshable once a day old; a Page token got from a long-lived user token does not expire; Page
 * writes need the Page's CREATE_CONTENT task and the token's scopes; photos are uploaded as
 * multipart `source`, unpublished ones attached with `attached_media`; reels and video stories go
 * start → rupload bytes (checked against `offset`/`file_size`) → finish; page videos go
 * start → transfer chunks → finish on graph-video; videos take a configurable number of status
 * reads to process, and can be made to fail. Comment lists (`/{post-or-video-id}/comments`,
 * `/{ig-media-id}/comments`) page like Graph (`data`, `paging.cursors`, `paging.next`, `after`,
 * `limit` capped), honour `fields` (unknown ones refused), Facebook's `filter` and `order`, and
 * Instagram's newest-first order, 50 a page. Instagram containers PULL their `image_url` /
 * `video_url` (through `mediaOrigins`), check the bytes (JPEG/PNG pictures, MP4/MOV videos,
 * sizes), stay IN_PROGRESS for a configurable number of status reads, can end ERROR with a
 * reason, and `media_publish` refuses a container that is not FINISHED or already PUBLISHED.
 */

export const FACEBOOK_WWW_ORIGIN = 'https://www.facebook.com';
export const FACEBOOK_GRAPH_ORIGIN = 'https://graph.facebook.com';
export const FACEBOOK_GRAPH_VIDEO_ORIGIN = 'https://graph-video.facebook.com';
export const FACEBOOK_RUPLOAD_ORIGIN = 'https://rupload.facebook.com';
export const INSTAGRAM_WWW_ORIGIN = 'https://www.instagram.com';
export const INSTAGRAM_API_ORIGIN = 'https://api.instagram.com';
export const INSTAGRAM_GRAPH_ORIGIN = 'https://graph.instagram.com';

export const FACEBOOK_ORIGINS = [FACEBOOK_WWW_ORIGIN, FACEBOOK_GRAPH_ORIGIN, FACEBOOK_GRAPH_VIDEO_ORIGIN, FACEBOOK_RUPLOAD_ORIGIN] as const;
export const INSTAGRAM_LOGIN_ORIGINS = [INSTAGRAM_WWW_ORIGIN, INSTAGRAM_API_ORIGIN, INSTAGRAM_GRAPH_ORIGIN] as const;

const DAY = 86_400_000;
const LONG_LIVED_SECONDS = 60 * 86_400;
const SHORT_FB_SECONDS = 2 * 3600;
const SHORT_IG_SECONDS = 3600;
/** Graph API versions this simulator serves. */
const VERSION = /^v(2[1-9]|[3-9]\d)\.0$/;

export interface MetaAppRecord {
  clientId: string;
  clientSecret: string;
  /** `facebook`: a Facebook Login app; `instagram`: an Instagram Login app */
  login: 'facebook' | 'instagram';
  /** registered redirect URIs (any when absent) */
  redirectUris?: string[];
}

export interface FacebookUserRecord {
  id: string;
  name: string;
  /** permissions the user unticks in the dialog */
  declines?: string[];
}

export interface FacebookPageRecord {
  id: string;
  name: string;
  username?: string;
  picture?: string;
  /** user ids holding the CREATE_CONTENT task (admins/editors) */
  managers: string[];
  /** the linked Instagram professional account */
  instagramId?: string;
}

export interface InstagramUserRecord {
  /** the Instagram professional account id (17841…) */
  id: string;
  username: string;
  name?: string;
  profilePictureUrl?: string;
  followers?: number;
  /** can use Instagram Login (a Business or Creator account) */
  professional?: boolean;
}

export interface TokenRecord {
  token: string;
  kind: 'fb-user' | 'fb-page' | 'ig';
  appId: string;
  scopes: string[];
  userId?: string;
  pageId?: string;
  igUserId?: string;
  longLived: boolean;
  issuedAt: number;
  /** null: does not expire (Page tokens from a long-lived user token) */
  expiresAt: number | null;
  /** Instagram tokens can be refreshed until this time (normally their expiry) */
  refreshableUntil?: number;
  revoked: boolean;
}

export interface PhotoRecord {
  id: string;
  pageId: string;
  published: boolean;
  sha256: string;
  size: number;
  mimeType: string;
  alt?: string;
  /** the feed post or story that shows it */
  usedBy?: string;
}

export interface VideoRecord {
  id: string;
  pageId: string;
  flavor: 'reel' | 'video' | 'story';
  /** bytes declared at the start (page videos) or by the first rupload (`file_size`) */
  fileSize?: number;
  chunks: Buffer[];
  received: number;
  sha256?: string;
  uploadSessionId?: string;
  description?: string;
  finished: boolean;
  /** status reads left before processing completes */
  pollsLeft: number;
  failReason?: string;
  published: boolean;
  postId?: string;
  createdAt: number;
}

export interface FeedPostRecord {
  id: string;
  pageId: string;
  message: string;
  link?: string;
  presetId?: string;
  photoIds: string[];
  mediaSha256: string[];
  kind: 'status' | 'photo' | 'video';
  videoId?: string;
  createdAt: number;
  permalink: string;
}

export interface StoryRecord {
  postId: string;
  pageId: string;
  mediaId: string;
  mediaType: 'photo' | 'video';
  sha256: string;
  createdAt: number;
}

export interface CommentRecord {
  id: string;
  /** the post, video or Instagram media commented on (or the comment replied to) */
  parentId: string;
  message: string;
  /** the author: a Page, a Facebook user or an Instagram account id */
  from: string;
  /** the author's name (Facebook) or username (Instagram) when the simulator has no record of them */
  fromName?: string;
  createdAt: number;
}

export interface ContainerRecord {
  id: string;
  igUserId: string;
  mediaType: 'IMAGE' | 'REELS' | 'VIDEO' | 'STORIES' | 'CAROUSEL';
  isCarouselItem: boolean;
  caption?: string;
  children?: string[];
  collaborators?: string[];
  shareToFeed?: boolean;
  trialGraduation?: string;
  audio?: Record<string, unknown>;
  url?: string;
  /** the fetched bytes */
  sha256?: string;
  mimeType?: string;
  status: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  errorMessage?: string;
  pollsLeft: number;
  createdAt: number;
  mediaId?: string;
}

export interface InstagramMediaRecord {
  id: string;
  igUserId: string;
  containerId: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  productType: 'FEED' | 'REELS' | 'STORY';
  caption: string;
  shortcode: string;
  permalink: string;
  mediaSha256: string[];
  collaborators: string[];
  trialGraduation?: string;
  audio?: Record<string, unknown>;
  timestamp: number;
}

export interface DailyFigures {
  date: string;
  [metric: string]: number | string;
}

export interface MetaSimulatorOptions {
  /** public origin → where it really listens, for media containers pull (`https://tidings.example` → `http://127.0.0.1:PORT`) */
  mediaOrigins?: Record<string, string>;
  /** status reads an Instagram picture container stays IN_PROGRESS (default 0) */
  imagePolls?: number;
  /** status reads an Instagram video container stays IN_PROGRESS (default 2) */
  videoPolls?: number;
  /** status reads a Facebook video stays processing after it is finished (default 2) */
  facebookVideoPolls?: number;
  /** bytes per graph-video transfer chunk (Meta picks it; default 4 MiB) */
  videoChunkSize?: number;
  /** Instagram posts per account per rolling 24 h (default 50) */
  publishingLimit?: number;
}

export interface MetaSimulator extends Simulator, Pick<OAuth2Controls<string, MetaAppRecord>, 'apps' | 'addApp' | 'approveAs'> {
  users: Map<string, FacebookUserRecord>;
  pages: Map<string, FacebookPageRecord>;
  igUsers: Map<string, InstagramUserRecord>;
  tokens: Map<string, TokenRecord>;
  photos: Map<string, PhotoRecord>;
  videos: Map<string, VideoRecord>;
  feed: FeedPostRecord[];
  stories: StoryRecord[];
  comments: CommentRecord[];
  containers: Map<string, ContainerRecord>;
  igMedia: InstagramMediaRecord[];
  /** every media_publish call received (accepted or not), by container */
  mediaPublishCalls: string[];
  /** every page video/reel/story finish call received, by video id */
  finishCalls: string[];
  addUser(user: FacebookUserRecord): void;
  addPage(page: FacebookPageRecord): void;
  addInstagramUser(user: InstagramUserRecord): void;
  /** who approves the next Instagram Login (default: the first professional account) */
  approveInstagramAs(igUserId: string): void;
  /**
   * Every access token now answers 190/463 "Session has expired". With `pastRefresh` their
   * refresh window closes too (the real end of a 60-day token); without it an Instagram token
   * can still be refreshed (what the shared contract suite needs to exercise `refresh`).
   */
  expireAccessTokens(opts?: { pastRefresh?: boolean }): void;
  /** the user changed their password: every token answers 190/460 */
  revokeAccessTokens(): void;
  /** the next Instagram containers created end ERROR with this reason */
  failNextContainers(reason: string, count?: number): void;
  /** a Facebook video's processing fails with this reason */
  failVideo(videoId: string, reason: string): void;
  setPageInsights(pageId: string, rows: DailyFigures[]): void;
  setPostInsights(postId: string, figures: Record<string, number | Record<string, number>>): void;
  setInstagramInsights(igUserId: string, rows: DailyFigures[]): void;
  setMediaInsights(mediaId: string, figures: Record<string, number>): void;
  /**
   * A comment made on Facebook or Instagram itself rather than through the API (a reader's, unless
   * `from` is the Page or the account): on a Page post or video, an Instagram media, or a comment
   * (a reply). `name` is the author's name or username when `from` is no user, Page or account the
   * simulator knows; `at` defaults to now.
   */
  addComment(c: { parentId: string; message: string; from: string; name?: string; at?: number }): CommentRecord;
  /** a post, comment or media as the contract suite reads it */
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
  /** advances the simulator's clock (token expiry, 24-hour windows) */
  advance(ms: number): void;
  now(): number;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const fbtrace = () => randomBytes(9).toString('base64url');

type Params = Record<string, unknown>;

interface GraphError {
  status: number;
  code: number;
  message: string;
  type?: string;
  subcode?: number;
  userTitle?: string;
  userMsg?: string;
  transient?: boolean;
  headers?: Record<string, string>;
}

/** Meta's error body. */
export function graphErrorBody(e: Omit<GraphError, 'status' | 'headers'>) {
  return {
    error: {
      message: e.message,
      type: e.type ?? 'OAuthException',
      code: e.code,
      ...(e.subcode !== undefined ? { error_subcode: e.subcode } : {}),
      ...(e.userTitle ? { error_user_title: e.userTitle } : {}),
      ...(e.userMsg ? { error_user_msg: e.userMsg } : {}),
      is_transient: e.transient ?? false,
      fbtrace_id: fbtrace(),
    },
  };
}

class Refusal extends Error {
  constructor(readonly e: GraphError) {
    super(e.message);
  }
}

const refuse = (e: GraphError): never => {
  throw new Refusal(e);
};

const unknownObject = (id: string, method = 'get') =>
  refuse({
    status: 400,
    code: 100,
    subcode: 33,
    type: 'GraphMethodException',
    message: `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
  });

const invalidParam = (message: string, subcode?: number) => refuse({ status: 400, code: 100, subcode, message: `(#100) ${message}` });

/** What kind of file the bytes are, by their first bytes. */
function sniff(b: Buffer): string | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (b.length >= 6 && b.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  if (b.length >= 12 && b.subarray(4, 8).toString('latin1') === 'ftyp') return b.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4';
  return undefined;
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** A list parameter sent as a JSON array, a JSON string of one, or a comma list. */
function list(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v as unknown[];
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  try {
    const parsed = JSON.parse(v) as unknown;
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return v.split(',').map((s) => s.trim());
  }
}

function obj(v: unknown): Record<string, unknown> | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === 'string') {
    try {
      const parsed = JSON.parse(v) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const truthy = (v: unknown) => v === true || v === 'true' || v === '1';

/** Fields asked for: each name with its subfields (`from{id}`), null when none are named. */
type FieldList = Map<string, string[] | null>;

/**
 * `fields` as Graph reads it (`id,from{id,name},message`; one level of nesting is all these lists
 * take); undefined when absent or empty (the node's default fields). A malformed list is Graph's
 * syntax error, code 2500.
 */
function parseFields(raw: unknown): FieldList | undefined {
  const text = str(raw);
  if (text === undefined || text.trim() === '') return undefined;
  const out: FieldList = new Map();
  const one = /^\s*([a-z_]+)\s*(?:\{([a-z_,\s]*)\})?\s*(?:,|$)/;
  let rest = text;
  while (rest.trim() !== '') {
    const m = one.exec(rest);
    if (!m) return refuse({ status: 400, code: 2500, message: `Syntax error "Expected end of string instead of "${rest.trim()[0]}"." at character ${text.length - rest.length}: ${text}` });
    out.set(m[1]!, m[2] === undefined ? null : m[2].split(',').map((f) => f.trim()).filter(Boolean));
    rest = rest.slice(m[0].length);
  }
  return out;
}

/**
 * The fields asked for of one node: `id` always, the `defaults` when none are named; a field the
 * node type does not have (or a subfield its value does not) is Graph's "nonexisting field" error.
 * `known` lists the type's fields, with the subfields of those that are objects.
 */
function pickFields(view: Record<string, unknown>, asked: FieldList | undefined, type: string, known: Record<string, readonly string[] | true>, defaults: readonly string[]) {
  const wanted: FieldList = asked ?? new Map(defaults.map((f) => [f, null]));
  const out: Record<string, unknown> = { id: view.id };
  for (const [name, sub] of wanted) {
    const k = known[name];
    if (!k) return refuse({ status: 400, code: 100, message: `(#100) Tried accessing nonexisting field (${name}) on node type (${type})` });
    if (sub && k === true) return refuse({ status: 400, code: 100, message: `(#100) Field ${name} has no subfields on node type (${type})` });
    const bad = sub && k !== true ? sub.find((f) => !k.includes(f)) : undefined;
    if (bad) return refuse({ status: 400, code: 100, message: `(#100) Tried accessing nonexisting field (${bad}) on node type (${type}.${name})` });
    const value = view[name];
    if (value === undefined) continue;
    if (sub) {
      const nested = value as Record<string, unknown>;
      out[name] = Object.fromEntries(sub.filter((f) => nested[f] !== undefined).map((f) => [f, nested[f]]));
    } else {
      out[name] = value;
    }
  }
  return out;
}

/** Graph's time format: `2026-11-20T10:00:00+0000`. */
const graphTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

/** Graph's opaque paging cursors (here: the id of the item they stand at). */
const cursorOf = (id: string) => Buffer.from(id).toString('base64url');
const cursorId = (cursor: string) => Buffer.from(cursor, 'base64url').toString();

/** Facebook comment fields (those of objects with their subfields), and those shown when none are asked for. */
const FB_COMMENT_FIELDS = { id: true, message: true, created_time: true, from: ['id', 'name'], like_count: true, comment_count: true, is_hidden: true, permalink_url: true } as const;
const FB_COMMENT_DEFAULTS = ['created_time', 'from', 'message'] as const;
/** Instagram comment fields (IG Comment), and those shown when none are asked for. */
const IG_COMMENT_FIELDS = { id: true, text: true, timestamp: true, username: true, from: ['id', 'username'], like_count: true, hidden: true, parent_id: true, media: ['id', 'media_product_type'] } as const;
const IG_COMMENT_DEFAULTS = ['timestamp', 'text'] as const;
/** The most items a page of the simulator's lists holds (Instagram documents 50 for comments), and the default page. */
const MAX_PAGE = 100;
const IG_COMMENTS_MAX_PAGE = 50;
const DEFAULT_PAGE = 25;

/** `limit` as Graph reads it: a positive whole number, capped at the list's most. */
function pageLimit(v: unknown, max: number): number {
  const raw = str(v);
  if (raw === undefined) return Math.min(DEFAULT_PAGE, max);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) invalidParam(`Param limit must be a positive integer, got ${raw}`);
  return Math.min(n, max);
}

/**
 * One page of a Graph list, from the `after` cursor: `{ data, paging: { cursors, next } }`, with
 * `next` only while more follow, and no `paging` when the page is empty. An `after` cursor that
 * stands at no item of the list is refused; paging back (`before`) is not simulated and refused.
 */
function pageOf<T extends { id: string }>(items: T[], p: Params, max: number, nextUrl: (after: string) => string) {
  if (str(p.before) !== undefined) invalidParam('Paging backwards (before) is not supported by this simulator');
  const limit = pageLimit(p.limit, max);
  const after = str(p.after);
  let start = 0;
  if (after !== undefined) {
    const at = items.findIndex((x) => x.id === cursorId(after));
    if (at === -1) invalidParam(`Invalid after cursor: ${after}`);
    start = at + 1;
  }
  const data = items.slice(start, start + limit);
  if (data.length === 0) return { data };
  const last = cursorOf(data.at(-1)!.id);
  const more = start + data.length < items.length;
  return { data, paging: { cursors: { before: cursorOf(data[0]!.id), after: last }, ...(more ? { next: nextUrl(last) } : {}) } };
}

export async function startMetaSimulator(opts: MetaSimulatorOptions = {}): Promise<MetaSimulator> {
  const mode = currentSimulatorMode();
  const apps = new Map<string, MetaAppRecord>();
  const users = new Map<string, FacebookUserRecord>();
  const pages = new Map<string, FacebookPageRecord>();
  const igUsers = new Map<string, InstagramUserRecord>();
  const tokens = new Map<string, TokenRecord>();
  const codes = new Map<string, { appId: string; redirectUri: string; userId?: string; igUserId?: string; scopes: string[]; expiresAt: number; used: boolean }>();
  const photos = new Map<string, PhotoRecord>();
  const videos = new Map<string, VideoRecord>();
  const feed: FeedPostRecord[] = [];
  const stories: StoryRecord[] = [];
  const comments: CommentRecord[] = [];
  const containers = new Map<string, ContainerRecord>();
  const igMedia: InstagramMediaRecord[] = [];
  const mediaPublishCalls: string[] = [];
  const finishCalls: string[] = [];
  const pageInsights = new Map<string, DailyFigures[]>();
  const postInsights = new Map<string, Record<string, number | Record<string, number>>>();
  const igInsights = new Map<string, DailyFigures[]>();
  const mediaInsights = new Map<string, Record<string, number>>();
  const failContainers: string[] = [];
  let approver: string | undefined;
  let igApprover: string | undefined;
  let offset = 0;
  let seq = 0;
  const now = () => Date.now() + offset;
  const nextId = (base: bigint) => (base + BigInt(++seq)).toString();
  const publishingLimit = opts.publishingLimit ?? 50;
  const chunkSize = opts.videoChunkSize ?? 4 * 1024 * 1024;

  // ------------------------------------------------------------------------------------------
  // Tokens

  function issue(t: Omit<TokenRecord, 'token' | 'issuedAt' | 'revoked'>): TokenRecord {
    const prefix = t.kind === 'ig' ? 'IGAA' : 'EAA';
    const rec: TokenRecord = { ...t, token: `${prefix}${randomBytes(30).toString('base64url')}`, issuedAt: now(), revoked: false };
    tokens.set(rec.token, rec);
    return rec;
  }

  function tokenOf(req: FastifyRequest, params: Params): TokenRecord {
    const header = /^(?:Bearer|OAuth) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const raw = header ?? str(params.access_token);
    if (!raw) refuse({ status: 400, code: 2500, message: 'An active access token must be used to query information about the current user.' });
    const t = tokens.get(raw!);
    if (!t) return refuse({ status: 400, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
    if (t.revoked) {
      return refuse({
        status: 400,
        code: 190,
        subcode: 460,
        message: 'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
      });
    }
    if (t.expiresAt !== null && t.expiresAt <= now()) {
      const at = new Date(t.expiresAt).toUTCString();
      return refuse({ status: 400, code: 190, subcode: 463, message: `Error validating access token: Session has expired on ${at}. The current time is ${new Date(now()).toUTCString()}.` });
    }
    return t;
  }

  const needScope = (t: TokenRecord, ...anyOf: string[]) => {
    if (!anyOf.some((s) => t.scopes.includes(s))) {
      refuse({ status: 403, code: 10, message: `(#10) This endpoint requires the '${anyOf[0]}' permission.` });
    }
  };

  /** May this token write as the Page (its own Page token, with the Page's CREATE_CONTENT task)? */
  function pageWriter(t: TokenRecord, pageId: string): FacebookPageRecord {
    const page = pages.get(pageId);
    if (!page) return unknownObject(pageId, 'post');
    if (t.kind !== 'fb-page' || t.pageId !== pageId) {
      return refuse({ status: 403, code: 200, message: '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission' });
    }
    if (!page.managers.includes(t.userId ?? '')) {
      return refuse({ status: 403, code: 200, message: '(#200) The user must be an administrator, editor, or moderator of the page' });
    }
    needScope(t, 'pages_manage_posts');
    return page;
  }

  /** May this token act for the Instagram account (its Page's token or the account's own Instagram Login token)? */
  function igActor(t: TokenRecord, igUserId: string, scope: { fb: string; ig: string }): InstagramUserRecord {
    const ig = igUsers.get(igUserId);
    if (!ig) return unknownObject(igUserId);
    if (t.kind === 'ig') {
      if (t.igUserId !== igUserId) return unknownObject(igUserId);
      needScope(t, scope.ig);
      return ig;
    }
    const page = [...pages.values()].find((p) => p.instagramId === igUserId);
    const reaches = page && (t.kind === 'fb-page' ? t.pageId === page.id : page.managers.includes(t.userId ?? ''));
    if (!reaches) return unknownObject(igUserId);
    needScope(t, scope.fb);
    return ig;
  }

  // ------------------------------------------------------------------------------------------
  // Media pulled by Instagram

  async function pull(url: string): Promise<{ sha256: string; size: number; mimeType: string } | { error: string }> {
    if (!/^https?:\/\//.test(url)) return { error: 'The media URI is not a valid URL' };
    try {
      const res = await mediaFetch(mode, opts.mediaOrigins, url);
      if (res.status !== 200) return { error: `Media download has failed. The media URI doesn't meet our requirements (HTTP ${res.status}).` };
      const bytes = Buffer.from(await res.arrayBuffer());
      const kind = sniff(bytes);
      if (!kind) return { error: 'The media format is not supported.' };
      return { sha256: sha256(bytes), size: bytes.length, mimeType: kind };
    } catch (e) {
      return { error: `Media download has failed: ${(e as Error).message}` };
    }
  }

  // ------------------------------------------------------------------------------------------
  // Views

  const permalinkOf = (post: FeedPostRecord) => post.permalink;

  function pageView(p: FacebookPageRecord, withToken?: TokenRecord) {
    const ig = p.instagramId ? igUsers.get(p.instagramId) : undefined;
    return {
      id: p.id,
      name: p.name,
      ...(p.username ? { username: p.username } : {}),
      ...(withToken ? { access_token: withToken.token } : {}),
      tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
      picture: { data: { height: 200, width: 200, is_silhouette: false, url: p.picture ?? `https://scontent.xx.fbcdn.net/v/t39.30808-1/${p.id}_n.jpg` } },
      ...(ig ? { instagram_business_account: { id: ig.id, username: ig.username, name: ig.name ?? ig.username, profile_picture_url: ig.profilePictureUrl ?? null } } : {}),
    };
  }

  function videoStatus(v: VideoRecord) {
    const uploaded = v.fileSize !== undefined && v.received >= v.fileSize;
    const processing = v.finished || (v.flavor === 'story' && uploaded);
    const failed = v.failReason !== undefined;
    const processed = processing && !failed && v.pollsLeft <= 0;
    const phase = (s: string, extra: Record<string, unknown> = {}) => ({ status: s, ...extra });
    return {
      video_status: failed ? 'error' : processed ? 'ready' : processing ? 'processing' : uploaded ? 'upload_complete' : 'uploading',
      uploading_phase: phase(uploaded ? 'complete' : 'in_progress', { bytes_transferred: v.received }),
      processing_phase: failed
        ? phase('error', { errors: [{ code: 1363008, message: v.failReason }] })
        : phase(processed ? 'complete' : processing ? 'in_progress' : 'not_started'),
      publishing_phase: phase(v.published ? 'complete' : v.finished && !failed ? 'in_progress' : 'not_started', v.published ? { publish_status: 'published', publish_time: Math.floor(v.createdAt / 1000) } : {}),
    };
  }

  /** A status read: processing moves on by one read. */
  function readVideo(v: VideoRecord) {
    const uploaded = v.fileSize !== undefined && v.received >= v.fileSize;
    const processing = v.finished || (v.flavor === 'story' && uploaded);
    if (processing && v.failReason === undefined && v.pollsLeft > 0) v.pollsLeft--;
    // Reels and page videos finished as published go live once processed.
    if (v.finished && v.failReason === undefined && v.pollsLeft <= 0 && !v.published && v.flavor !== 'story') publishVideo(v);
    return { id: v.id, status: videoStatus(v), ...(v.description ? { description: v.description } : {}), ...(v.postId ? { post_id: v.postId } : {}) };
  }

  function publishVideo(v: VideoRecord) {
    v.published = true;
    if (v.flavor === 'video') {
      const id = `${v.pageId}_${nextId(1_100_000_000_000_000n)}`;
      v.postId = id;
      feed.push({ id, pageId: v.pageId, message: v.description ?? '', photoIds: [], mediaSha256: [v.sha256!], kind: 'video', videoId: v.id, createdAt: now(), permalink: `https://www.facebook.com/${v.pageId}/videos/${v.id}/` });
    }
  }

  function containerView(c: ContainerRecord) {
    // A status read: processing moves on by one read.
    if (c.status === 'IN_PROGRESS') {
      // Items of a carousel process on their own: reading the carousel sees them move on too.
      for (const child of c.children ?? []) containerView(containers.get(child)!);
      if (c.pollsLeft > 0) c.pollsLeft--;
      if (c.pollsLeft <= 0) {
        const children = (c.children ?? []).map((id) => containers.get(id)!);
        const failed = children.find((ch) => ch.status === 'ERROR');
        if (failed && !c.errorMessage) c.errorMessage = `A carousel item failed: ${failed.errorMessage}`;
        if (c.errorMessage) c.status = 'ERROR';
        else if (children.every((ch) => ch.status === 'FINISHED')) c.status = 'FINISHED';
      }
    }
    if (c.status === 'FINISHED' && now() - c.createdAt > DAY) c.status = 'EXPIRED';
    return { id: c.id, status_code: c.status, status: c.status === 'ERROR' ? `Error: ${c.errorMessage}` : c.status === 'FINISHED' ? 'Finished: Media has been uploaded and it is ready to be published.' : c.status === 'PUBLISHED' ? 'Published: Media has been published.' : c.status === 'EXPIRED' ? 'Expired: The media container was not published within 24 hours.' : 'In Progress: Media is still being processed.' };
  }

  function mediaView(m: InstagramMediaRecord) {
    return {
      id: m.id,
      caption: m.caption,
      media_type: m.mediaType,
      media_product_type: m.productType,
      permalink: m.permalink,
      shortcode: m.shortcode,
      timestamp: new Date(m.timestamp).toISOString().replace(/\.\d{3}Z$/, '+0000'),
      username: igUsers.get(m.igUserId)?.username,
      like_count: Number(mediaInsights.get(m.id)?.likes ?? 0),
      comments_count: comments.filter((c) => c.parentId === m.id).length,
    };
  }

  /** Comments in the order they were made (equal times in the order they arrived). */
  const chronological = (list: CommentRecord[]) => list.map((c, i) => ({ c, i })).sort((x, y) => x.c.createdAt - y.c.createdAt || x.i - y.i).map(({ c }) => c);

  function facebookCommentView(c: CommentRecord) {
    const author = pages.get(c.from)?.name ?? users.get(c.from)?.name ?? c.fromName ?? c.from;
    const root = comments.find((x) => x.id === c.parentId)?.parentId ?? c.parentId;
    return {
      id: c.id,
      message: c.message,
      created_time: graphTime(c.createdAt),
      from: { name: author, id: c.from },
      like_count: 0,
      comment_count: comments.filter((r) => r.parentId === c.id).length,
      is_hidden: false,
      permalink_url: `https://www.facebook.com/${root}?comment_id=${c.id.split('_').pop()!}`,
    };
  }

  /**
   * GET /{post-or-video-id}/comments with a Page token: `filter` toplevel (the default) or stream
   * (the replies too), `order` chronological (the default) or reverse_chronological, `fields`,
   * `limit` and the `after` cursor. The Page token sees every comment's `from`.
   */
  function facebookComments(objectId: string, p: Params) {
    const filter = str(p.filter) ?? 'toplevel';
    if (filter !== 'toplevel' && filter !== 'stream') invalidParam('filter must be one of the following values: toplevel, stream');
    const order = str(p.order) ?? 'chronological';
    if (order !== 'chronological' && order !== 'reverse_chronological') invalidParam('order must be one of the following values: chronological, reverse_chronological');
    const fields = parseFields(p.fields);
    const top = comments.filter((c) => c.parentId === objectId);
    const topIds = new Set(top.map((c) => c.id));
    const listed = chronological(filter === 'stream' ? comments.filter((c) => c.parentId === objectId || topIds.has(c.parentId)) : top);
    if (order === 'reverse_chronological') listed.reverse();
    const page = pageOf(listed, p, MAX_PAGE, (after) => nextUrl(FACEBOOK_GRAPH_ORIGIN, `${objectId}/comments`, p, after));
    return { ...page, data: page.data.map((c) => pickFields(facebookCommentView(c), fields, 'Comment', FB_COMMENT_FIELDS, FB_COMMENT_DEFAULTS)) };
  }

  function instagramCommentView(c: CommentRecord, media: InstagramMediaRecord) {
    const username = igUsers.get(c.from)?.username ?? c.fromName ?? c.from;
    const reply = c.parentId !== media.id;
    return {
      id: c.id,
      text: c.message,
      timestamp: graphTime(c.createdAt),
      username,
      from: { id: c.from, username },
      like_count: 0,
      hidden: false,
      ...(reply ? { parent_id: c.parentId } : {}),
      media: { id: media.id, media_product_type: media.productType },
    };
  }

  /**
   * GET /{ig-media-id}/comments: the top-level comments, newest first (as Instagram lists them
   * since v3.2), at most 50 a page; `fields`, `limit` and the `after` cursor. Instagram takes no
   * order or time filter.
   */
  function instagramComments(media: InstagramMediaRecord, t: TokenRecord, p: Params) {
    const fields = parseFields(p.fields);
    const listed = chronological(comments.filter((c) => c.parentId === media.id)).reverse();
    const origin = t.kind === 'ig' ? INSTAGRAM_GRAPH_ORIGIN : FACEBOOK_GRAPH_ORIGIN;
    const page = pageOf(listed, p, IG_COMMENTS_MAX_PAGE, (after) => nextUrl(origin, `${media.id}/comments`, p, after));
    return { ...page, data: page.data.map((c) => pickFields(instagramCommentView(c, media), fields, 'IGComment', IG_COMMENT_FIELDS, IG_COMMENT_DEFAULTS)) };
  }

  /** The `next` link of a list page: the same request from the `after` cursor (the token stays out of it). */
  function nextUrl(origin: string, path: string, p: Params, after: string): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(p)) if (k !== 'access_token' && k !== 'after' && str(v) !== undefined) q.set(k, str(v)!);
    q.set('after', after);
    return `${origin}/v23.0/${path}?${q.toString()}`;
  }

  const shortcode = () => randomBytes(8).toString('base64url').replace(/[-_]/g, 'x').slice(0, 11);

  // ------------------------------------------------------------------------------------------
  // Handlers

  function params(req: FastifyRequest): Params {
    const body = req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? (req.body as Params) : {};
    return { ...(req.query as Params), ...body };
  }

  async function send(reply: FastifyReply, fn: () => unknown) {
    try {
      const out = await fn();
      return reply.status(200).send(out);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      return reply.status(e.e.status).headers(e.e.headers ?? {}).send(graphErrorBody(e.e));
    }
  }

  function checkVersion(v: string) {
    if (!VERSION.test(v)) refuse({ status: 400, code: 2635, message: `(#2635) You are calling a deprecated or unknown version of the Graph API (${v}). Please update to the latest version.` });
  }

  function insightsSeries(rows: DailyFigures[] | undefined, metrics: string[], since: number, until: number) {
    const inRange = (rows ?? []).filter((r) => {
      const t = Date.parse(`${r.date}T00:00:00Z`) / 1000;
      return t >= since && t < until;
    });
    return metrics.map((name) => ({
      name,
      period: 'day',
      values: inRange.map((r) => ({ value: Number(r[name] ?? 0), end_time: new Date(Date.parse(`${r.date}T00:00:00Z`) + DAY).toISOString().replace(/\.\d{3}Z$/, '+0000') })),
      title: name,
      description: name,
      id: `${name}/day`,
    }));
  }

  // GET /{node} and GET /{node}/{edge}
  function readNode(t: TokenRecord, id: string, edge: string | undefined, p: Params) {
    if (id === 'me') {
      if (t.kind === 'ig') id = t.igUserId!;
      else if (t.kind === 'fb-page') id = t.pageId!;
      else id = t.userId!;
    }
    if (id === 'ig_audio' && !edge) {
      needScope(t, 'instagram_content_publish');
      if (t.kind === 'ig') refuse({ status: 400, code: 514, message: 'The Instagram Audio API is only available on the Instagram API with Facebook Login.' });
      const type = str(p.audio_type);
      if (type !== 'music' && type !== 'original_sound') invalidParam('The parameter audio_type is required (music or original_sound)');
      if (!str(p.user_id)) invalidParam('The parameter user_id is required');
      const q = (str(p.search_query) ?? '').toLowerCase();
      const catalogue = [
        { audio_id: '17900000000000001', audio_type: 'music', title: 'Summer Breeze', display_artist: 'The Tides', duration_in_ms: 30_000 },
        { audio_id: '17900000000000002', audio_type: 'music', title: 'Night Drive', display_artist: 'Neon', duration_in_ms: 45_000 },
        { audio_id: '17800000000000003', audio_type: 'original_sound', title: 'Original audio', ig_username: 'creator' },
      ];
      return { data: catalogue.filter((a) => a.audio_type === type && (!q || a.title.toLowerCase().includes(q))) };
    }

    const user = users.get(id);
    if (user) {
      if (t.userId !== id) return unknownObject(id);
      if (!edge) return { id: user.id, name: user.name };
      if (edge === 'permissions') return { data: t.scopes.map((s) => ({ permission: s, status: 'granted' })).concat((user.declines ?? []).map((s) => ({ permission: s, status: 'declined' }))) };
      if (edge === 'accounts') {
        needScope(t, 'pages_show_list');
        const mine = [...pages.values()].filter((pg) => pg.managers.includes(user.id));
        const data = mine.map((pg) => {
          // A Page token from a long-lived user token does not expire.
          const pageToken = issue({ kind: 'fb-page', appId: t.appId, scopes: t.scopes, userId: user.id, pageId: pg.id, longLived: t.longLived, expiresAt: t.longLived ? null : t.expiresAt });
          return pageView(pg, pageToken);
        });
        const limit = Number(str(p.limit) ?? 25);
        const start = Number(str(p.after) ? Buffer.from(str(p.after)!, 'base64url').toString() : 0);
        const slice = data.slice(start, start + limit);
        const more = start + limit < data.length;
        return {
          data: slice,
          paging: {
            cursors: { before: Buffer.from(String(start)).toString('base64url'), after: Buffer.from(String(start + slice.length)).toString('base64url') },
            ...(more ? { next: `${FACEBOOK_GRAPH_ORIGIN}/v23.0/me/accounts?after=${Buffer.from(String(start + slice.length)).toString('base64url')}` } : {}),
          },
        };
      }
      return unknownObject(`${id}/${edge}`);
    }

    const page = pages.get(id);
    if (page) {
      const reaches = (t.kind === 'fb-page' && t.pageId === id) || (t.kind === 'fb-user' && page.managers.includes(t.userId ?? ''));
      if (!reaches) return unknownObject(id);
      if (!edge) return pageView(page);
      if (edge === 'posts' || edge === 'published_posts' || edge === 'feed') {
        needScope(t, 'pages_read_engagement');
        const since = Number(str(p.since) ?? 0);
        const limit = Math.min(100, Number(str(p.limit) ?? 25));
        const mine = feed.filter((f) => f.pageId === id && f.createdAt / 1000 >= since).sort((a, b) => b.createdAt - a.createdAt);
        return {
          data: mine.slice(0, limit).map((f) => ({ id: f.id, message: f.message || undefined, created_time: new Date(f.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'), permalink_url: permalinkOf(f) })),
          paging: { cursors: { before: 'MA', after: 'MQ' } },
        };
      }
      if (edge === 'stories') {
        needScope(t, 'pages_read_engagement');
        return {
          data: stories
            .filter((s) => s.pageId === id)
            .sort((a, b) => b.createdAt - a.createdAt)
            .map((s) => ({ post_id: s.postId, status: 'PUBLISHED', creation_time: String(Math.floor(s.createdAt / 1000)), media_type: s.mediaType, media_id: s.mediaId, url: `https://www.facebook.com/stories/${s.pageId}/${s.postId}/` })),
        };
      }
      if (edge === 'insights') {
        needScope(t, 'read_insights');
        const metrics = (str(p.metric) ?? '').split(',').filter(Boolean);
        if (metrics.length === 0) invalidParam('The value must be a valid insights metric');
        if (str(p.period) !== 'day') invalidParam('period must be day for these metrics');
        const since = Number(str(p.since));
        const until = Number(str(p.until));
        if (!Number.isFinite(since) || !Number.isFinite(until) || until - since > 93 * 86_400) invalidParam('There cannot be more than 93 days between since and until');
        return { data: insightsSeries(pageInsights.get(id), metrics, since, until), paging: {} };
      }
      return unknownObject(`${id}/${edge}`);
    }

    const post = feed.find((f) => f.id === id);
    if (post) {
      if (!(t.kind === 'fb-page' && t.pageId === post.pageId)) return unknownObject(id);
      if (!edge) return { id: post.id, message: post.message, created_time: new Date(post.createdAt).toISOString(), permalink_url: permalinkOf(post) };
      if (edge === 'insights') {
        needScope(t, 'read_insights');
        const figures = postInsights.get(id) ?? {};
        const metrics = (str(p.metric) ?? '').split(',').filter(Boolean);
        return { data: metrics.map((name) => ({ name, period: 'lifetime', values: [{ value: figures[name] ?? 0 }], title: name, description: name, id: `${id}/insights/${name}/lifetime` })), paging: {} };
      }
      if (edge === 'comments') {
        needScope(t, 'pages_read_engagement');
        return facebookComments(id, p);
      }
      return unknownObject(`${id}/${edge}`);
    }

    const video = videos.get(id);
    if (video) {
      if (!(t.kind === 'fb-page' && t.pageId === video.pageId)) return unknownObject(id);
      if (!edge) return readVideo(video);
      // Only a published video (a reel, a page video) can be commented on.
      if (edge === 'comments' && video.published && video.flavor !== 'story') {
        needScope(t, 'pages_read_engagement');
        return facebookComments(id, p);
      }
      return unknownObject(`${id}/${edge}`);
    }

    const photo = photos.get(id);
    if (photo) {
      if (!(t.kind === 'fb-page' && t.pageId === photo.pageId)) return unknownObject(id);
      return { id: photo.id, ...(photo.usedBy ? { page_story_id: photo.usedBy } : {}) };
    }

    const container = containers.get(id);
    if (container) {
      igActor(t, container.igUserId, { fb: 'instagram_basic', ig: 'instagram_business_basic' });
      return containerView(container);
    }

    const ig = igUsers.get(id);
    if (ig) {
      igActor(t, id, { fb: 'instagram_basic', ig: 'instagram_business_basic' });
      if (!edge) {
        return {
          id: ig.id,
          ...(t.kind === 'ig' ? { user_id: ig.id } : {}),
          username: ig.username,
          name: ig.name ?? ig.username,
          profile_picture_url: ig.profilePictureUrl ?? null,
          followers_count: ig.followers ?? 0,
          media_count: igMedia.filter((m) => m.igUserId === id && m.productType !== 'STORY').length,
          account_type: 'BUSINESS',
        };
      }
      if (edge === 'media' || edge === 'stories') {
        const since = Number(str(p.since) ?? 0);
        const limit = Math.min(100, Number(str(p.limit) ?? 25));
        const mine = igMedia
          .filter((m) => m.igUserId === id && (edge === 'stories' ? m.productType === 'STORY' : m.productType !== 'STORY') && m.timestamp / 1000 >= since)
          .sort((a, b) => b.timestamp - a.timestamp || Number(BigInt(b.id) - BigInt(a.id)));
        return { data: mine.slice(0, limit).map(mediaView), paging: { cursors: { before: 'MA', after: 'MQ' } } };
      }
      if (edge === 'content_publishing_limit') {
        const used = igMedia.filter((m) => m.igUserId === id && m.timestamp > now() - DAY).length;
        return { data: [{ quota_usage: used, config: { quota_total: publishingLimit, quota_duration: 86_400 } }] };
      }
      if (edge === 'insights') {
        igActor(t, id, { fb: 'instagram_manage_insights', ig: 'instagram_business_manage_insights' });
        const metrics = (str(p.metric) ?? '').split(',').filter(Boolean);
        if (metrics.length === 0) invalidParam('The parameter metric is required');
        const since = Number(str(p.since));
        const until = Number(str(p.until));
        if (!Number.isFinite(since) || !Number.isFinite(until) || until - since > 30 * 86_400) invalidParam('(#100) The time range cannot exceed 30 days');
        if (str(p.metric_type) === 'total_value') {
          const rows = (igInsights.get(id) ?? []).filter((r) => {
            const s = Date.parse(`${r.date}T00:00:00Z`) / 1000;
            return s >= since && s < until;
          });
          return { data: metrics.map((name) => ({ name, period: 'day', title: name, description: name, total_value: { value: rows.reduce((sum, r) => sum + Number(r[name] ?? 0), 0) }, id: `${id}/insights/${name}/day` })) };
        }
        if (str(p.period) !== 'day') invalidParam('period must be day');
        return { data: insightsSeries(igInsights.get(id), metrics, since, until), paging: {} };
      }
      return unknownObject(`${id}/${edge}`);
    }

    const media = igMedia.find((m) => m.id === id);
    if (media) {
      igActor(t, media.igUserId, { fb: 'instagram_basic', ig: 'instagram_business_basic' });
      if (!edge) return mediaView(media);
      if (edge === 'insights') {
        igActor(t, media.igUserId, { fb: 'instagram_manage_insights', ig: 'instagram_business_manage_insights' });
        const figures = mediaInsights.get(id) ?? {};
        const metrics = (str(p.metric) ?? '').split(',').filter(Boolean);
        return { data: metrics.map((name) => ({ name, period: 'lifetime', values: [{ value: figures[name] ?? 0 }], title: name, description: name, id: `${id}/insights/${name}/lifetime` })) };
      }
      if (edge === 'comments') {
        igActor(t, media.igUserId, { fb: 'instagram_manage_comments', ig: 'instagram_business_manage_comments' });
        if (t.kind !== 'ig') needScope(t, 'pages_read_engagement');
        return instagramComments(media, t, p);
      }
      return unknownObject(`${id}/${edge}`);
    }
    return unknownObject(id);
  }

  // POST /{node}/{edge}
  async function writeNode(req: FastifyRequest, t: TokenRecord, id: string, edge: string, p: Params, host: 'graph' | 'video') {
    if (id === 'me' && t.kind === 'ig') id = t.igUserId!;
    if (id === 'me' && t.kind === 'fb-page') id = t.pageId!;

    if (pages.has(id)) {
      const page = pageWriter(t, id);
      switch (edge) {
        case 'feed': {
          const message = str(p.message) ?? '';
          const link = str(p.link);
          if (message.length > 63_206) invalidParam('Message is too long', 1349125);
          const attached = (list(p.attached_media) ?? []).map((a) => str(obj(a)?.media_fbid) ?? '');
          if (!message && !link && attached.length === 0) invalidParam('Missing message or attachment');
          const photoRecords = attached.map((fbid) => {
            const photo = photos.get(fbid);
            if (!photo || photo.pageId !== page.id) invalidParam(`Invalid media_fbid ${fbid}`);
            if (photo!.published || photo!.usedBy) refuse({ status: 400, code: 100, subcode: 1366051, message: '(#100) Duplicate photos cannot be attached to the same post', userTitle: 'Duplicate photos' });
            return photo!;
          });
          const presetId = str(p.text_format_preset_id);
          if (presetId && (attached.length > 0 || link || message.length > 130)) invalidParam('text_format_preset_id can only be used with a short text-only post');
          const last = feed.filter((f) => f.pageId === page.id).at(-1);
          if (message && last && last.message === message && attached.length === 0 && last.photoIds.length === 0) {
            refuse({ status: 400, code: 506, message: '(#506) Duplicate status message', userTitle: 'Duplicate Post', userMsg: 'This status update is identical to the last one you posted. Try posting something different, or delete your previous update.' });
          }
          const postId = `${page.id}_${nextId(1_000_000_000_000_000n)}`;
          const post: FeedPostRecord = {
            id: postId,
            pageId: page.id,
            message,
            ...(link ? { link } : {}),
            ...(presetId ? { presetId } : {}),
            photoIds: attached,
            mediaSha256: photoRecords.map((r) => r.sha256),
            kind: attached.length > 0 ? 'photo' : 'status',
            createdAt: now(),
            permalink: `https://www.facebook.com/${page.username ?? page.id}/posts/pfbid0${randomBytes(20).toString('hex')}`,
          };
          for (const r of photoRecords) r.usedBy = postId;
          feed.push(post);
          const fields = (str(p.fields) ?? '').split(',');
          return { id: postId, ...(fields.includes('permalink_url') ? { permalink_url: post.permalink } : {}) };
        }
        case 'photos': {
          const file = (req as FastifyRequest & { upload?: { bytes: Buffer; mimeType: string } }).upload;
          let facts: { sha256: string; size: number; mimeType: string };
          if (file) {
            const kind = sniff(file.bytes);
            if (kind !== 'image/jpeg' && kind !== 'image/png' && kind !== 'image/gif' && kind !== 'image/webp') return refuse({ status: 400, code: 324, message: '(#324) Missing or invalid image file' });
            facts = { sha256: sha256(file.bytes), size: file.bytes.length, mimeType: kind };
          } else if (str(p.url)) {
            const pulled = await pull(str(p.url)!);
            if ('error' in pulled) return refuse({ status: 400, code: 324, message: `(#324) Missing or invalid image file: ${pulled.error}` });
            facts = pulled;
          } else {
            return invalidParam('Requires one of the params: source, url, attachment_url');
          }
          if (facts.size > 4 * 1024 * 1024) {
            refuse({ status: 400, code: 100, subcode: 1366046, message: "Your photos couldn't be uploaded. Photos should be less than 4 MB and saved as JPG, PNG, GIF, TIFF, HEIF or WebP files.", userTitle: "Can't Read Files" });
          }
          const published = p.published === undefined ? true : truthy(p.published);
          const alt = str(p.alt_text_custom);
          const photo: PhotoRecord = { id: nextId(1_200_000_000_000_000n), pageId: page.id, published, ...facts, ...(alt ? { alt } : {}) };
          photos.set(photo.id, photo);
          if (published) {
            const postId = `${page.id}_${nextId(1_000_000_000_000_000n)}`;
            photo.usedBy = postId;
            feed.push({ id: postId, pageId: page.id, message: str(p.caption) ?? str(p.message) ?? '', photoIds: [photo.id], mediaSha256: [photo.sha256], kind: 'photo', createdAt: now(), permalink: `https://www.facebook.com/photo/?fbid=${photo.id}` });
            return { id: photo.id, post_id: postId };
          }
          return { id: photo.id };
        }
        case 'photo_stories': {
          const photo = photos.get(str(p.photo_id) ?? '');
          if (!photo || photo.pageId !== page.id) return invalidParam('The parameter photo_id is required and must be an unpublished photo of this Page');
          if (photo.published || photo.usedBy) invalidParam('This photo has already been used', 2069019);
          const postId = nextId(1_300_000_000_000_000n);
          photo.usedBy = postId;
          stories.push({ postId, pageId: page.id, mediaId: photo.id, mediaType: 'photo', sha256: photo.sha256, createdAt: now() });
          return { success: true, post_id: postId };
        }
        case 'video_reels':
        case 'video_stories': {
          const flavor = edge === 'video_reels' ? 'reel' : 'story';
          const phase = str(p.upload_phase);
          if (phase === 'start') {
            const v: VideoRecord = { id: nextId(1_400_000_000_000_000n), pageId: page.id, flavor, chunks: [], received: 0, finished: false, pollsLeft: opts.facebookVideoPolls ?? 2, published: false, createdAt: now() };
            videos.set(v.id, v);
            return { video_id: v.id, upload_url: `${FACEBOOK_RUPLOAD_ORIGIN}/video-upload/v23.0/${v.id}` };
          }
          if (phase === 'finish') {
            const v = videos.get(str(p.video_id) ?? '');
            if (!v || v.pageId !== page.id || v.flavor !== flavor) return invalidParam('Invalid video_id');
            finishCalls.push(v.id);
            if (v.fileSize === undefined || v.received < v.fileSize) return refuse({ status: 400, code: 6000, subcode: 1363030, message: 'There was a problem uploading your video file. Please try again.', userTitle: 'Video Upload Time Out Error' });
            if (v.finished) return refuse({ status: 400, code: 6000, subcode: 1363019, message: 'The video has already been published.', userTitle: 'Video Already Published' });
            if (flavor === 'story') {
              if (v.failReason) return refuse({ status: 400, code: 6000, subcode: 1363008, message: v.failReason });
              if (v.pollsLeft > 0) return refuse({ status: 400, code: 6000, subcode: 1363040, message: 'The video is still being processed. Please try again later.', transient: true });
              v.finished = true;
              v.published = true;
              v.postId = nextId(1_300_000_000_000_000n);
              stories.push({ postId: v.postId, pageId: page.id, mediaId: v.id, mediaType: 'video', sha256: v.sha256!, createdAt: now() });
              return { success: true, post_id: v.postId };
            }
            const state = str(p.video_state);
            if (state !== 'PUBLISHED' && state !== 'DRAFT' && state !== 'SCHEDULED') return invalidParam('video_state must be one of PUBLISHED, DRAFT, SCHEDULED');
            const description = str(p.description) ?? '';
            if (description.length > 2200) invalidParam('The description is too long');
            v.description = description;
            v.finished = true;
            return { success: true };
          }
          return invalidParam('upload_phase must be start or finish');
        }
        case 'videos': {
          if (host !== 'video') return refuse({ status: 400, code: 6000, subcode: 1363020, message: 'Video uploads must go to graph-video.facebook.com' });
          const phase = str(p.upload_phase);
          if (phase === 'start') {
            const size = Number(str(p.file_size));
            if (!Number.isInteger(size) || size <= 0) return invalidParam('file_size must be a positive integer');
            const v: VideoRecord = {
              id: nextId(1_400_000_000_000_000n),
              pageId: page.id,
              flavor: 'video',
              fileSize: size,
              chunks: [],
              received: 0,
              finished: false,
              pollsLeft: opts.facebookVideoPolls ?? 2,
              published: false,
              createdAt: now(),
              uploadSessionId: nextId(1_500_000_000_000_000n),
            };
            videos.set(v.id, v);
            return { video_id: v.id, upload_session_id: v.uploadSessionId, start_offset: '0', end_offset: String(Math.min(size, chunkSize)) };
          }
          const v = [...videos.values()].find((x) => x.uploadSessionId === str(p.upload_session_id));
          if (!v || v.pageId !== page.id) return invalidParam('Invalid upload_session_id', 1363037);
          if (phase === 'transfer') {
            const start = Number(str(p.start_offset));
            const chunk = (req as FastifyRequest & { upload?: { bytes: Buffer } }).upload?.bytes;
            if (!chunk) return invalidParam('video_file_chunk is required');
            if (start !== v.received) {
              return refuse({ status: 400, code: 6000, subcode: 1363037, message: `Partial upload failed: the start offset is ${start}, expected ${v.received}`, userTitle: 'Upload Failed', userMsg: 'Your video upload was interrupted. Please try again.' });
            }
            if (v.received + chunk.length > v.fileSize!) return invalidParam('The chunk goes beyond file_size', 1363037);
            v.chunks.push(chunk);
            v.received += chunk.length;
            if (v.received === v.fileSize) v.sha256 = sha256(Buffer.concat(v.chunks));
            return { start_offset: String(v.received), end_offset: String(Math.min(v.fileSize!, v.received + chunkSize)) };
          }
          if (phase === 'finish') {
            finishCalls.push(v.id);
            if (v.received < v.fileSize!) return refuse({ status: 400, code: 6000, subcode: 1363030, message: 'There was a problem uploading your video file. Please try again.' });
            if (v.finished) return refuse({ status: 400, code: 6000, subcode: 1363019, message: 'The video has already been published.' });
            if (!sniff(Buffer.concat(v.chunks))?.startsWith('video/')) {
              v.failReason = 'The video file you selected is in a format that we don\'t support.';
            }
            v.description = str(p.description) ?? '';
            v.finished = true;
            return { success: true };
          }
          return invalidParam('upload_phase must be start, transfer or finish');
        }
        default:
          return unknownObject(`${id}/${edge}`, 'post');
      }
    }

    // Comments: on a Page post or video (as the Page), or on Instagram media.
    if (edge === 'comments' || edge === 'replies') {
      const message = str(p.message) ?? '';
      const fbPost = feed.find((f) => f.id === id);
      const fbVideo = videos.get(id);
      if (fbPost || fbVideo) {
        const pageId = fbPost?.pageId ?? fbVideo!.pageId;
        if (!(t.kind === 'fb-page' && t.pageId === pageId)) return unknownObject(id, 'post');
        needScope(t, 'pages_manage_engagement');
        if (fbVideo && !fbVideo.published) return unknownObject(id, 'post');
        if (!message.trim()) return invalidParam('Missing message');
        if (message.length > 8000) invalidParam('The comment is too long');
        const suffix = (fbPost?.id ?? fbVideo!.id).split('_').pop();
        const c: CommentRecord = { id: `${suffix}_${nextId(1_600_000_000_000_000n)}`, parentId: id, message, from: pageId, createdAt: now() };
        comments.push(c);
        return { id: c.id };
      }
      const media = igMedia.find((m) => m.id === id);
      const parentComment = comments.find((c) => c.id === id);
      if (media || parentComment) {
        const target = media ?? igMedia.find((m) => m.id === parentComment!.parentId);
        if (!target) return unknownObject(id, 'post');
        igActor(t, target.igUserId, { fb: 'instagram_manage_comments', ig: 'instagram_business_manage_comments' });
        if (target.productType === 'STORY') return refuse({ status: 400, code: 100, subcode: 2207001, message: 'Stories cannot be commented on through the API' });
        if (!message.trim()) return invalidParam('The parameter message is required');
        if (message.length > 2200) invalidParam('The comment is too long');
        const c: CommentRecord = { id: nextId(17_950_000_000_000_000n), parentId: id, message, from: target.igUserId, createdAt: now() };
        comments.push(c);
        return { id: c.id };
      }
      return unknownObject(id, 'post');
    }

    // Instagram containers.
    if (igUsers.has(id) && edge === 'media') {
      const ig = igActor(t, id, { fb: 'instagram_content_publish', ig: 'instagram_business_content_publish' });
      const isItem = truthy(p.is_carousel_item);
      const mediaType = (str(p.media_type) ?? (str(p.video_url) ? 'VIDEO' : 'IMAGE')) as ContainerRecord['mediaType'];
      if (!['IMAGE', 'VIDEO', 'REELS', 'STORIES', 'CAROUSEL'].includes(mediaType)) invalidParam(`media_type ${mediaType} is not supported`, 2207023);
      if (mediaType === 'VIDEO' && !isItem) invalidParam('The VIDEO media type is no longer supported for feed videos: use REELS', 2207023);
      const caption = str(p.caption);
      if (caption !== undefined && caption.length > 2200) refuse({ status: 400, code: 100, subcode: 2207010, message: 'The caption is too long', userTitle: 'Caption too long', userMsg: 'The caption cannot be longer than 2,200 characters.' });
      if (caption !== undefined && (caption.match(/#[\p{L}\p{N}_]+/gu) ?? []).length > 30) invalidParam('The caption has more than 30 hashtags', 2207010);
      const collaborators = (list(p.collaborators) ?? []).map((c) => String(c));
      if (collaborators.length > 3) invalidParam('A post can have at most 3 collaborators');
      if (collaborators.length > 0 && (mediaType === 'STORIES' || isItem)) invalidParam('Collaborators are only allowed on feed images, reels and carousels');
      const trial = obj(p.trial_params);
      if (trial && mediaType !== 'REELS') invalidParam('trial_params can only be used with REELS', 2207081);
      const audio = obj(p.audio_configuration);
      if (audio && t.kind === 'ig') refuse({ status: 400, code: 514, message: 'The Instagram Audio API is only available on the Instagram API with Facebook Login.' });
      if (audio && mediaType !== 'REELS') invalidParam('audio_configuration can only be used with REELS');
      const base = { id: nextId(17_890_000_000_000_000n), igUserId: ig.id, isCarouselItem: isItem, createdAt: now(), pollsLeft: 0 };
      if (mediaType === 'CAROUSEL') {
        const children = (list(p.children) ?? []).map((c) => String(c));
        if (children.length < 2 || children.length > 10) refuse({ status: 400, code: 100, subcode: 2207028, message: 'Carousel validation failed: a carousel takes 2 to 10 items', userTitle: 'Carousel validation failed' });
        for (const childId of children) {
          const child = containers.get(childId);
          if (!child || child.igUserId !== ig.id || !child.isCarouselItem) invalidParam(`Invalid child ${childId}`, 2207028);
          if (child!.status === 'ERROR') refuse({ status: 400, code: 100, subcode: 2207028, message: `The carousel item ${childId} failed: ${child!.errorMessage}` });
        }
        const c: ContainerRecord = { ...base, mediaType, caption, children, collaborators, status: 'IN_PROGRESS' };
        containers.set(c.id, c);
        return { id: c.id };
      }
      const url = str(p.image_url) ?? str(p.video_url);
      const isVideo = str(p.video_url) !== undefined;
      if (!url) return invalidParam('The parameter image_url or video_url is required');
      if ((mediaType === 'REELS' || mediaType === 'VIDEO') && !isVideo) invalidParam('REELS need a video_url', 2207023);
      if (mediaType === 'IMAGE' && isVideo) invalidParam('IMAGE needs an image_url', 2207023);
      const pulled = await pull(url);
      if ('error' in pulled) {
        if (!isVideo) return refuse({ status: 400, code: 9004, subcode: 2207052, message: pulled.error, userTitle: 'Media download has failed', userMsg: 'The media could not be fetched from this uri.' });
      } else if (!isVideo && pulled.mimeType !== 'image/jpeg') {
        // Instagram publishes JPEG pictures only: a PNG (or anything else) pulled from the URL is refused.
        return refuse({ status: 400, code: 9004, subcode: 2207005, message: 'The image format is not supported. Only JPEG images can be published.', userTitle: 'Unsupported format', userMsg: 'The image format is not supported. Only JPEG images can be published.' });
      } else if (!isVideo && pulled.size > 8 * 1024 * 1024) {
        return refuse({ status: 400, code: 9004, subcode: 2207004, message: 'The image is too large to download. It should be less than 8 MiB.', userTitle: 'Image too large' });
      }
      const failing = failContainers.shift();
      const fetchError = 'error' in pulled ? pulled.error : isVideo && !pulled.mimeType.startsWith('video/') ? 'The video format is not supported. Please check spec for supported format.' : undefined;
      const c: ContainerRecord = {
        ...base,
        mediaType,
        caption: isItem ? undefined : caption,
        collaborators: collaborators.length ? collaborators : undefined,
        shareToFeed: p.share_to_feed === undefined ? undefined : truthy(p.share_to_feed),
        trialGraduation: str(trial?.graduation_strategy),
        audio,
        url,
        ...('error' in pulled ? {} : { sha256: pulled.sha256, mimeType: pulled.mimeType }),
        status: 'IN_PROGRESS',
        pollsLeft: isVideo ? (opts.videoPolls ?? 2) : (opts.imagePolls ?? 0),
        errorMessage: failing ?? fetchError,
      };
      containers.set(c.id, c);
      return { id: c.id };
    }

    if (igUsers.has(id) && edge === 'media_publish') {
      const ig = igActor(t, id, { fb: 'instagram_content_publish', ig: 'instagram_business_content_publish' });
      const creationId = str(p.creation_id) ?? '';
      mediaPublishCalls.push(creationId);
      const c = containers.get(creationId);
      if (!c || c.igUserId !== ig.id || c.isCarouselItem) return invalidParam('The parameter creation_id is required and must be a container of this account');
      if (c.status === 'PUBLISHED') return refuse({ status: 400, code: 9007, subcode: 2207008, message: 'The media has already been published', userTitle: 'Media already published' });
      if (c.status === 'ERROR') return refuse({ status: 400, code: 9007, subcode: 2207032, message: `Media could not be created: ${c.errorMessage}` });
      if (c.status === 'EXPIRED') return refuse({ status: 400, code: 9007, subcode: 2207008, message: 'The media container has expired (containers must be published within 24 hours)' });
      if (c.status !== 'FINISHED') return refuse({ status: 400, code: 9007, subcode: 2207027, message: 'Media ID is not available', userTitle: 'Media not ready', userMsg: 'The media is not ready for publishing, please wait for a moment' });
      const used = igMedia.filter((m) => m.igUserId === ig.id && m.timestamp > now() - DAY).length;
      if (used >= publishingLimit) {
        return refuse({ status: 400, code: 9, subcode: 2207042, message: 'Application request limit reached', userTitle: 'Reached publishing limit', userMsg: `You reached the maximum number of posts (${publishingLimit}) allowed to be published in a 24-hour period.` });
      }
      const children = (c.children ?? []).map((cid) => containers.get(cid)!);
      const productType = c.mediaType === 'STORIES' ? 'STORY' : c.mediaType === 'REELS' ? 'REELS' : 'FEED';
      const mediaType = c.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : c.url && c.mimeType?.startsWith('video/') ? 'VIDEO' : c.mediaType === 'REELS' ? 'VIDEO' : 'IMAGE';
      const code = shortcode();
      const m: InstagramMediaRecord = {
        id: nextId(17_900_000_000_000_000n),
        igUserId: ig.id,
        containerId: c.id,
        mediaType,
        productType,
        caption: c.caption ?? '',
        shortcode: code,
        permalink: productType === 'STORY' ? `https://www.instagram.com/stories/${ig.username}/${nextId(3_400_000_000_000_000_000n)}/` : `https://www.instagram.com/${productType === 'REELS' ? 'reel' : 'p'}/${code}/`,
        mediaSha256: c.mediaType === 'CAROUSEL' ? children.map((ch) => ch.sha256!) : [c.sha256!],
        collaborators: c.collaborators ?? [],
        ...(c.trialGraduation ? { trialGraduation: c.trialGraduation } : {}),
        ...(c.audio ? { audio: c.audio } : {}),
        timestamp: now(),
      };
      igMedia.push(m);
      c.status = 'PUBLISHED';
      c.mediaId = m.id;
      for (const ch of children) ch.status = 'PUBLISHED';
      return { id: m.id };
    }

    return unknownObject(`${id}/${edge}`, 'post');
  }

  const sim = await startSimulator(async (app) => {
    app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    // Multipart uploads (photos' `source`, video chunks' `video_file_chunk`): the bytes are kept.
    app.addHook('preValidation', async (req) => {
      if (!req.isMultipart()) return;
      const fields: Record<string, string> = {};
      let upload: { bytes: Buffer; mimeType: string } | undefined;
      for await (const part of req.parts()) {
        if (part.type === 'file') upload = { bytes: await part.toBuffer(), mimeType: part.mimetype };
        else fields[part.fieldname] = String(part.value);
      }
      (req as FastifyRequest & { upload?: unknown }).upload = upload;
      req.body = fields;
    });

    // ---- Facebook Login dialog (www.facebook.com)
    app.get('/:v/dialog/oauth', async (req: FastifyRequest<{ Params: { v: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const a = q.client_id ? apps.get(q.client_id) : undefined;
      if (!a || a.login !== 'facebook') return reply.status(400).type('text/html').send('<p>Invalid App ID: The provided app ID does not look like a valid app ID.</p>');
      if (!q.redirect_uri || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) {
        return reply.status(400).type('text/html').send("<p>URL Blocked: This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.</p>");
      }
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      const userId = approver ?? users.keys().next().value;
      if (!userId) return reply.status(400).type('text/html').send('<p>Log in to Facebook first</p>');
      const user = users.get(userId)!;
      const asked = (q.scope ?? '').split(/[ ,]+/).filter(Boolean);
      const scopes = asked.filter((s) => !(user.declines ?? []).includes(s));
      const code = `AQ${randomBytes(40).toString('base64url')}`;
      codes.set(code, { appId: a.clientId, redirectUri: q.redirect_uri, userId, scopes, expiresAt: now() + 10 * 60_000, used: false });
      back.searchParams.set('code', code);
      back.hash = '_=_';
      return reply.redirect(back.toString(), 302);
    });

    // ---- Instagram Login authorisation (www.instagram.com)
    app.get('/oauth/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const a = q.client_id ? apps.get(q.client_id) : undefined;
      if (!a || a.login !== 'instagram') return reply.status(400).type('text/html').send('<p>Invalid platform app</p>');
      if (!q.redirect_uri || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) return reply.status(400).type('text/html').send('<p>Invalid redirect_uri</p>');
      if (q.response_type !== 'code') return reply.status(400).type('text/html').send('<p>response_type must be code</p>');
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      const igUserId = igApprover ?? [...igUsers.values()].find((u) => u.professional !== false)?.id;
      const ig = igUserId ? igUsers.get(igUserId) : undefined;
      if (!ig || ig.professional === false) {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_reason', 'user_denied');
        back.searchParams.set('error_description', 'Only Instagram professional accounts can use this app');
        return reply.redirect(back.toString(), 302);
      }
      const scopes = (q.scope ?? '').split(/[ ,]+/).filter(Boolean);
      const code = `AQ${randomBytes(40).toString('base64url')}`;
      codes.set(code, { appId: a.clientId, redirectUri: q.redirect_uri, igUserId: ig.id, scopes, expiresAt: now() + 60 * 60_000, used: false });
      back.searchParams.set('code', code);
      back.hash = '_';
      return reply.redirect(back.toString(), 302);
    });

    // ---- Instagram Login code exchange (api.instagram.com): its own error shape
    app.post('/oauth/access_token', async (req, reply) => {
      const b = (req.body ?? {}) as Record<string, string | undefined>;
      const igFail = (message: string) => reply.status(400).send({ error_type: 'OAuthException', code: 400, error_message: message });
      const a = b.client_id ? apps.get(b.client_id) : undefined;
      if (!a || a.login !== 'instagram') return igFail('Invalid platform app');
      if (a.clientSecret !== b.client_secret) return igFail('Error validating client secret.');
      if (b.grant_type !== 'authorization_code') return igFail('Unsupported grant_type');
      const code = b.code ? codes.get(b.code.replace(/#_$/, '')) : undefined;
      if (!code || code.used || code.expiresAt < now() || code.appId !== a.clientId || !code.igUserId) return igFail('Invalid authorization code');
      if (code.redirectUri !== b.redirect_uri) return igFail('Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request');
      code.used = true;
      const t = issue({ kind: 'ig', appId: a.clientId, scopes: code.scopes, igUserId: code.igUserId, longLived: false, expiresAt: now() + SHORT_IG_SECONDS * 1000 });
      return { data: [{ access_token: t.token, user_id: code.igUserId, permissions: code.scopes.join(',') }] };
    });

    // ---- Instagram long-lived tokens (graph.instagram.com, unversioned)
    const igTokenRoute = (grant: 'ig_exchange_token' | 'ig_refresh_token') => async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply) =>
      send(reply, () => {
        const q = req.query;
        if (q.grant_type !== grant) invalidParam(`grant_type must be ${grant}`);
        const raw = q.access_token ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const t = raw ? tokens.get(raw) : undefined;
        if (!t || t.kind !== 'ig') return refuse({ status: 400, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
        if (t.revoked) return refuse({ status: 400, code: 190, subcode: 460, message: 'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.' });
        if (grant === 'ig_exchange_token') {
          const a = apps.get(t.appId);
          if (!a || a.clientSecret !== q.client_secret) return refuse({ status: 400, code: 101, message: 'Error validating client secret.' });
          if (t.longLived) invalidParam('The access token is already long-lived');
          if (t.expiresAt !== null && t.expiresAt <= now()) return refuse({ status: 400, code: 190, subcode: 463, message: 'Error validating access token: Session has expired.' });
        } else {
          if (!t.longLived) invalidParam('Only long-lived tokens can be refreshed');
          const window = t.refreshableUntil ?? t.expiresAt ?? Infinity;
          if (window <= now()) return refuse({ status: 400, code: 190, subcode: 463, message: `Error validating access token: Session has expired on ${new Date(t.expiresAt ?? 0).toUTCString()}.` });
          if (now() - t.issuedAt < DAY) invalidParam('The access token must be at least 24 hours old to be refreshed');
        }
        const next = issue({ kind: 'ig', appId: t.appId, scopes: t.scopes, igUserId: t.igUserId, longLived: true, expiresAt: now() + LONG_LIVED_SECONDS * 1000 });
        next.refreshableUntil = next.expiresAt!;
        // The old long-lived token keeps working until it expires; an exchanged short one is spent.
        if (grant === 'ig_exchange_token') tokens.delete(t.token);
        return { access_token: next.token, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS - 56 };
      });
    app.get('/access_token', igTokenRoute('ig_exchange_token'));
    app.get('/refresh_access_token', igTokenRoute('ig_refresh_token'));

    // ---- Facebook token endpoint (graph.facebook.com)
    app.get('/:v/oauth/access_token', async (req: FastifyRequest<{ Params: { v: string }; Querystring: Record<string, string | undefined> }>, reply) =>
      send(reply, () => {
        checkVersion(req.params.v);
        const q = req.query;
        const a = q.client_id ? apps.get(q.client_id) : undefined;
        if (!a || a.login !== 'facebook') return refuse({ status: 400, code: 101, message: 'Error validating application. Invalid application ID.' });
        if (a.clientSecret !== q.client_secret) return refuse({ status: 400, code: 1, message: 'Error validating client secret.' });
        if (q.grant_type === 'fb_exchange_token') {
          const t = q.fb_exchange_token ? tokens.get(q.fb_exchange_token) : undefined;
          if (!t || t.kind !== 'fb-user' || t.appId !== a.clientId) return refuse({ status: 400, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
          if (t.expiresAt !== null && t.expiresAt <= now()) return refuse({ status: 400, code: 190, subcode: 463, message: 'Error validating access token: Session has expired.' });
          const long = issue({ kind: 'fb-user', appId: a.clientId, scopes: t.scopes, userId: t.userId, longLived: true, expiresAt: now() + LONG_LIVED_SECONDS * 1000 });
          return { access_token: long.token, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS - 56 };
        }
        const code = q.code ? codes.get(q.code) : undefined;
        if (!code || code.used || code.expiresAt < now() || code.appId !== a.clientId || !code.userId) {
          return refuse({ status: 400, code: 100, subcode: 36009, type: 'OAuthException', message: 'This authorization code has been used.' });
        }
        if (code.redirectUri !== q.redirect_uri) {
          return refuse({ status: 400, code: 100, subcode: 36008, message: 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request' });
        }
        code.used = true;
        const t = issue({ kind: 'fb-user', appId: a.clientId, scopes: code.scopes, userId: code.userId, longLived: false, expiresAt: now() + SHORT_FB_SECONDS * 1000 });
        return { access_token: t.token, token_type: 'bearer', expires_in: SHORT_FB_SECONDS };
      }),
    );

    // ---- rupload.facebook.com: reel and video story bytes
    app.post('/video-upload/:v/:videoId', async (req: FastifyRequest<{ Params: { v: string; videoId: string } }>, reply) =>
      send(reply, () => {
        checkVersion(req.params.v);
        const raw = /^OAuth (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const t = raw ? tokens.get(raw) : undefined;
        if (!t || t.revoked || (t.expiresAt !== null && t.expiresAt <= now())) return refuse({ status: 401, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
        const v = videos.get(req.params.videoId);
        if (!v || (v.flavor !== 'reel' && v.flavor !== 'story')) return refuse({ status: 400, code: 100, message: 'Invalid video id' });
        if (t.kind !== 'fb-page' || t.pageId !== v.pageId) return refuse({ status: 403, code: 200, message: '(#200) Permissions error' });
        const declared = Number(req.headers.file_size);
        const at = Number(req.headers.offset);
        if (!Number.isInteger(declared) || declared <= 0) return refuse({ status: 400, code: 100, message: 'The file_size header is required' });
        if (v.fileSize !== undefined && v.fileSize !== declared) return refuse({ status: 400, code: 100, message: `file_size ${declared} does not match the ${v.fileSize} bytes of this upload` });
        if (at !== v.received) return refuse({ status: 400, code: 100, message: `Invalid offset ${at}: ${v.received} bytes have been received` });
        const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        if (bytes.length === 0) return refuse({ status: 400, code: 100, message: 'Empty upload' });
        if (at + bytes.length > declared) return refuse({ status: 400, code: 100, message: 'More bytes than file_size' });
        v.fileSize = declared;
        v.chunks.push(bytes);
        v.received += bytes.length;
        if (v.received === declared) {
          const all = Buffer.concat(v.chunks);
          v.sha256 = sha256(all);
          if (!sniff(all)?.startsWith('video/')) v.failReason = "The video file you selected is in a format that we don't support.";
        }
        return { success: true };
      }),
    );

    // ---- Graph API nodes and edges
    app.get('/:v/:node', async (req: FastifyRequest<{ Params: { v: string; node: string } }>, reply) =>
      send(reply, () => {
        checkVersion(req.params.v);
        const p = params(req);
        return readNode(tokenOf(req, p), req.params.node, undefined, p);
      }),
    );
    app.get('/:v/:node/:edge', async (req: FastifyRequest<{ Params: { v: string; node: string; edge: string } }>, reply) =>
      send(reply, () => {
        checkVersion(req.params.v);
        const p = params(req);
        return readNode(tokenOf(req, p), req.params.node, req.params.edge, p);
      }),
    );
    app.post('/:v/:node/:edge', async (req: FastifyRequest<{ Params: { v: string; node: string; edge: string } }>, reply) =>
      send(reply, async () => {
        checkVersion(req.params.v);
        const p = params(req);
        // Both hosts reach this server; only graph-video takes the resumable `upload_phase` protocol on `/videos`.
        const isVideoHost = req.params.edge === 'videos' && p.upload_phase !== undefined;
        return writeNode(req, tokenOf(req, p), req.params.node, req.params.edge, p, isVideoHost ? 'video' : 'graph');
      }),
    );
  });

  return Object.assign(sim, {
    apps,
    users,
    pages,
    igUsers,
    tokens,
    photos,
    videos,
    feed,
    stories,
    comments,
    containers,
    igMedia,
    mediaPublishCalls,
    finishCalls,
    addApp: (a: MetaAppRecord) => void apps.set(a.clientId, a),
    addUser: (u: FacebookUserRecord) => void users.set(u.id, u),
    addPage: (p: FacebookPageRecord) => void pages.set(p.id, p),
    addInstagramUser: (u: InstagramUserRecord) => void igUsers.set(u.id, u),
    approveAs(userId: string) {
      approver = userId;
    },
    approveInstagramAs(igUserId: string) {
      igApprover = igUserId;
    },
    expireAccessTokens(o: { pastRefresh?: boolean } = {}) {
      for (const t of tokens.values()) {
        if (t.kind === 'ig' && t.longLived && !o.pastRefresh) t.refreshableUntil = Math.max(t.refreshableUntil ?? 0, t.expiresAt ?? 0, now() + DAY);
        if (o.pastRefresh) t.refreshableUntil = now() - 1000;
        // Refreshing needs a day-old token: an expired one is at least that old.
        t.issuedAt = Math.min(t.issuedAt, now() - DAY - 1000);
        t.expiresAt = now() - 1000;
      }
    },
    revokeAccessTokens() {
      for (const t of tokens.values()) t.revoked = true;
    },
    failNextContainers(reason: string, count = 1) {
      for (let i = 0; i < count; i++) failContainers.push(reason);
    },
    failVideo(videoId: string, reason: string) {
      const v = videos.get(videoId);
      if (v) v.failReason = reason;
    },
    setPageInsights: (pageId: string, rows: DailyFigures[]) => void pageInsights.set(pageId, rows),
    setPostInsights: (postId: string, figures: Record<string, number | Record<string, number>>) => void postInsights.set(postId, figures),
    setInstagramInsights: (igUserId: string, rows: DailyFigures[]) => void igInsights.set(igUserId, rows),
    setMediaInsights: (mediaId: string, figures: Record<string, number>) => void mediaInsights.set(mediaId, figures),
    addComment(c: { parentId: string; message: string; from: string; name?: string; at?: number }): CommentRecord {
      // Facebook names a comment `{post or video number}_{comment number}` (a reply too); Instagram by a number alone.
      const fbPrefix = feed.find((f) => f.id === c.parentId)?.id.split('_').pop() ?? videos.get(c.parentId)?.id ?? comments.find((x) => x.id === c.parentId && x.id.includes('_'))?.id.split('_')[0];
      const igParent = igMedia.some((m) => m.id === c.parentId) || comments.some((x) => x.id === c.parentId && !x.id.includes('_'));
      if (!fbPrefix && !igParent) throw new Error(`addComment: no post, video, media or comment ${c.parentId}`);
      const id = fbPrefix ? `${fbPrefix}_${nextId(1_600_000_000_000_000n)}` : nextId(17_950_000_000_000_000n);
      const rec: CommentRecord = { id, parentId: c.parentId, message: c.message, from: c.from, ...(c.name ? { fromName: c.name } : {}), createdAt: c.at ?? now() };
      comments.push(rec);
      return rec;
    },
    lookup(id: string) {
      const post = feed.find((f) => f.id === id);
      if (post) return { text: post.message, mediaSha256: post.mediaSha256 };
      const video = videos.get(id);
      if (video?.published) return { text: video.description ?? '', mediaSha256: [video.sha256!] };
      const story = stories.find((s) => s.postId === id);
      if (story) return { text: '', mediaSha256: [story.sha256] };
      const m = igMedia.find((x) => x.id === id);
      if (m) return { text: m.caption, mediaSha256: m.mediaSha256 };
      const c = comments.find((x) => x.id === id);
      if (c) return { text: c.message, replyTo: c.parentId, mediaSha256: [] };
      return undefined;
    },
    injectKind(kind: InjectedKind) {
      // Every write a publish makes: feed posts, photos, comments, containers, media_publish.
      const path = /^\/v\d+\.0\/[^/?]+\/(feed|photos|comments|media|media_publish|video_reels|video_stories|photo_stories|videos)(\?|$)/;
      const inject = (status: number, e: Omit<GraphError, 'status' | 'headers'>, headers: Record<string, string> = {}) => sim.inject({ path, status, body: graphErrorBody(e), headers });
      switch (kind) {
        case 'auth_expired':
          return inject(400, { code: 190, subcode: 463, message: 'Error validating access token: Session has expired on Friday, 20-Nov-26 10:00:00 PST. The current time is Saturday, 21-Nov-26 04:00:00 PST.' });
        case 'revoked':
          return inject(400, { code: 190, subcode: 460, message: 'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.' });
        case 'rate_limited':
          return inject(400, { code: 32, message: '(#32) Page request limit reached', type: 'OAuthException' }, {
            'x-business-use-case-usage': JSON.stringify({ '101000000000001': [{ type: 'pages', call_count: 100, total_cputime: 34, total_time: 41, estimated_time_to_regain_access: 4 }] }),
          });
        case 'server_error':
          return inject(500, { code: 2, message: 'An unexpected error has occurred. Please retry your request later.', transient: true });
        case 'rejected':
          return inject(400, { code: 368, message: 'The action attempted has been deemed abusive or is otherwise disallowed', userTitle: 'Action Blocked', userMsg: 'This content goes against our Community Standards on spam.' });
        case 'error_in_200':
          // Graph reports failures with their HTTP status, never inside a 200.
          return;
      }
    },
    advance(ms: number) {
      offset += ms;
    },
    now,
  });
}
