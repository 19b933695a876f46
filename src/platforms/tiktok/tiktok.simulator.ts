import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type ReceivedMedia, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from '../common/oauth2.simulator.js';

/**
 * A simulator of TikTok for the `tiktok` adapter. It answers for three real origins, which tests
 * map to it: `https://www.tiktok.com` (the Login Kit authorisation page), `https://open.tiktokapis.com`
 * (the token endpoint and API v2) and `https://open-upload.tiktokapis.com` (video upload URLs).
 *
 * Faithful parts:
 * - Every API answer is `{ data, error: { code, message, log_id } }`, `code: "ok"` on success; failures
 *   carry TikTok's string codes with their documented statuses (401 `access_token_invalid` and
 *   `scope_not_authorized`, 429 `rate_limit_exceeded`, 400 `invalid_params`, 403 for the caps).
 * - OAuth: the page needs a registered redirect URI and a PKCE challenge, which TikTok computes as
 *   the HEX SHA-256 of the verifier; codes are single use; refresh tokens rotate (the old one dies).
 * - Scopes per endpoint and per user/info field; the per-user rate limits of the posting endpoints
 *   (6 initialisations, 20 creator_info reads and 30 status reads per minute, sliding window).
 * - Direct posts are checked against creator_info and the app's audit state (unaudited apps:
 *   SELF_ONLY only, private accounts only, 5 posting users a day); daily post and pending-share caps.
 * - Videos: `source_info` must follow the chunk rules (5–64 MB chunks, count = floor(size ÷ chunk),
 *   last chunk ≤ 128 MB, files under 5 MB whole); chunks are PUT in order with `Content-Range`
 *   (206 Partial Content, 201 Created for the last); the assembled file must be an MP4/MOV/WebM.
 * - Photos are pulled from their URLs, which must start with a prefix verified for the app; they
 *   must be JPEG or WebP (TikTok refuses PNG), up to 20 MB.
 * - Status goes PROCESSING_UPLOAD / PROCESSING_DOWNLOAD → PUBLISH_COMPLETE (or SEND_TO_USER_INBOX
 *   for inbox uploads) after a configurable number of polls, or FAILED with a `fail_reason`; the
 *   public id (`publicaly_available_post_id`, TikTok's spelling) is given only for non-private
 *   posts once moderation is done, as JSON numbers (int64) — past 2^53, as TikTok's are.
 * - video/list lists the user's non-private posts newest first with a time cursor; video/query
 *   reads the user's own posts only.
 */

export const TIKTOK_WWW_ORIGIN = 'https://www.tiktok.com';
export const TIKTOK_API_ORIGIN = 'https://open.tiktokapis.com';
export const TIKTOK_UPLOAD_ORIGIN = 'https://open-upload.tiktokapis.com';

const MiB = 1024 * 1024;
const ACCESS_SECONDS = 24 * 3600;
const REFRESH_SECONDS = 365 * 24 * 3600;
const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
const KNOWN_SCOPES = ['user.info.basic', 'user.info.profile', 'user.info.stats', 'video.list', 'video.publish', 'video.upload'];
const FIELD_SCOPES: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  avatar_url_100: 'user.info.basic',
  avatar_large_url: 'user.info.basic',
  display_name: 'user.info.basic',
  username: 'user.info.profile',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  follower_count: 'user.info.stats',
  following_count: 'user.info.stats',
  likes_count: 'user.info.stats',
  video_count: 'user.info.stats',
};
const VIDEO_FIELDS = ['id', 'title', 'video_description', 'create_time', 'share_url', 'cover_image_url', 'duration', 'height', 'width', 'embed_html', 'embed_link', 'like_count', 'comment_count', 'share_count', 'view_count'];

export interface TiktokAppRecord {
  clientKey: string;
  clientSecret: string;
  /** registered redirect URIs (any when absent) */
  redirectUris?: string[];
  /** passed TikTok's audit: may post publicly (default true) */
  audited?: boolean;
  /** verified domains or URL prefixes TikTok may pull media from */
  verifiedPrefixes?: string[];
}

export interface CreatorRecord {
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
}

export interface TiktokUserRecord {
  openId: string;
  unionId?: string;
  username: string;
  displayName: string;
  avatarUrl?: string;
  /** a private account (what unaudited apps may only post to) */
  privateAccount?: boolean;
  creator?: Partial<CreatorRecord>;
  stats?: { follower_count?: number; following_count?: number; likes_count?: number; video_count?: number };
  /** scopes this user ticks on the consent page (default: all asked) */
  grants?: string[];
}

export interface TiktokTokenRecord {
  accessToken: string;
  openId: string;
  clientKey: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface TiktokPostRecord {
  /** 19-digit id, as a string (TikTok's ids do not fit a double) */
  id: string;
  openId: string;
  kind: 'video' | 'photo';
  publishId: string;
  /** video caption (post_info.title) */
  caption?: string;
  /** photo title and description */
  title?: string;
  description?: string;
  privacy: string;
  postInfo: Record<string, unknown>;
  mediaSha256: string[];
  media: ReceivedMedia[];
  /** unix seconds */
  createTime: number;
  /** posted by the creator from the inbox */
  fromInbox: boolean;
}

export interface ChunkReceipt {
  publishId: string;
  first: number;
  last: number;
  sha256: string;
  status: number;
}

export type TaskStatus = 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';

export interface TiktokTaskRecord {
  publishId: string;
  openId: string;
  clientKey: string;
  kind: 'video' | 'photo';
  /** DIRECT_POST, or the inbox (video inbox init, photo MEDIA_UPLOAD) */
  direct: boolean;
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  postInfo: Record<string, unknown>;
  createdAt: number;
  status: TaskStatus;
  failReason?: string;
  /** status reads left before processing ends */
  pollsLeft: number;
  /** status reads after PUBLISH_COMPLETE before the public id shows (moderation) */
  moderationPollsLeft: number;
  postId?: string;
  video?: { size: number; chunkSize: number; chunks: number; received: (Buffer | undefined)[]; mimeType?: string; uploadId: string; uploadToken: string; complete: boolean };
  photos?: { urls: string[]; coverIndex: number; fetched?: ReceivedMedia[]; downloadedBytes: number; done: boolean; error?: string };
}

export interface ChunkRules {
  /** smallest chunk (and files below it go whole) */
  minChunk: number;
  maxChunk: number;
  maxFinalChunk: number;
  maxChunks: number;
  maxVideoBytes: number;
}

export interface TiktokSimulatorOptions {
  /** TikTok's chunk rules; tests scale them down to keep files small */
  chunkRules?: Partial<ChunkRules>;
  /** status reads that still answer PROCESSING_* once the media is in (default 1) */
  processingPolls?: number;
  /** status reads after PUBLISH_COMPLETE without a public id (moderation; default 0) */
  moderationPolls?: number;
  /** requests per minute per user (TikTok: init 6, creator_info 20, status 30) */
  rateLimits?: Partial<Record<'init' | 'creator_info' | 'status', number>>;
  /** posts per user per 24 h before `spam_risk_too_many_posts` */
  dailyPostCap?: number;
  /** inbox uploads waiting per user per 24 h before `spam_risk_too_many_pending_share` (TikTok: 5) */
  pendingShareCap?: number;
  /** picture formats TikTok takes (default jpeg and webp; TikTok refuses png) */
  photoFormats?: ('jpeg' | 'webp' | 'png')[];
  /** where TikTok's fetches of public media URLs really go: public origin → local origin */
  mediaOrigins?: Map<string, string>;
  /** how long an upload URL lives (TikTok: one hour) */
  uploadUrlTtlMs?: number;
}

export interface TiktokSimulator extends Simulator, Pick<OAuth2Controls<string, TiktokAppRecord>, 'apps' | 'addApp' | 'approveAs' | 'expireAccessTokens'> {
  users: Map<string, TiktokUserRecord>;
  tokens: Map<string, TiktokTokenRecord>;
  tasks: Map<string, TiktokTaskRecord>;
  posts: TiktokPostRecord[];
  chunks: ChunkReceipt[];
  /** public origin → local origin, for pulled media (may be changed while running) */
  mediaOrigins: Map<string, string>;
  addUser(user: TiktokUserRecord): void;
  setCreator(openId: string, creator: Partial<CreatorRecord>): void;
  setProcessingPolls(n: number): void;
  setVideoStats(id: string, stats: { view_count?: number; like_count?: number; comment_count?: number; share_count?: number }): void;
  /** the next task to finish processing fails with this reason */
  failNextPublish(reason: string): void;
  /** the creator posts an inbox upload from the TikTok app */
  completeInboxPost(publishId: string, opts?: { caption?: string; privacy?: string }): TiktokPostRecord;
  revokeAccessTokens(): void;
  /** a post by id, as the contract suite reads it */
  lookup(id: string): { text: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const randomToken = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;
const logId = () => `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(10).toString('hex').toUpperCase()}`;

/** TikTok's answer envelope. */
function ok(data: unknown) {
  return { data, error: { code: 'ok', message: '', log_id: logId() } };
}
function fail(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.status(status).send({ data: {}, error: { code, message, log_id: logId() } });
}
/** The OAuth endpoint's own error shape. */
function oauthFail(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.status(status).send({ error, error_description: description, log_id: logId() });
}

/** What the bytes are, by their first bytes. */
function sniff(b: Buffer): 'jpeg' | 'png' | 'webp' | 'gif' | 'mp4' | 'webm' | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'png';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (b.length >= 6 && b.subarray(0, 3).toString('latin1') === 'GIF') return 'gif';
  if (b.length >= 8 && b.subarray(4, 8).toString('latin1') === 'ftyp') return 'mp4';
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return 'webm';
  return undefined;
}

export async function startTiktokSimulator(opts: TiktokSimulatorOptions = {}): Promise<TiktokSimulator> {
  const mode = currentSimulatorMode();
  const rules: ChunkRules = { minChunk: 5 * MiB, maxChunk: 64_000_000, maxFinalChunk: 128_000_000, maxChunks: 1000, maxVideoBytes: 4 * 1024 * MiB, ...opts.chunkRules };
  const limits = { init: 6, creator_info: 20, status: 30, ...opts.rateLimits };
  const photoFormats = opts.photoFormats ?? ['jpeg', 'webp'];
  const uploadTtl = opts.uploadUrlTtlMs ?? 3600_000;
  let processingPolls = opts.processingPolls ?? 1;
  const moderationPolls = opts.moderationPolls ?? 0;

  const apps = new Map<string, TiktokAppRecord>();
  const users = new Map<string, TiktokUserRecord>();
  const tokens = new Map<string, TiktokTokenRecord>();
  const refreshTokens = new Map<string, { openId: string; clientKey: string; scopes: string[]; expiresAt: number; revoked: boolean }>();
  const codes = new Map<string, { clientKey: string; redirectUri: string; openId: string; scopes: string[]; challenge: string; method: string; expiresAt: number; used: boolean }>();
  const tasks = new Map<string, TiktokTaskRecord>();
  const tasksByUpload = new Map<string, TiktokTaskRecord>();
  const posts: TiktokPostRecord[] = [];
  const chunks: ChunkReceipt[] = [];
  const videoStats = new Map<string, { view_count?: number; like_count?: number; comment_count?: number; share_count?: number }>();
  const windows = new Map<string, number[]>();
  const posters = new Map<string, { openId: string; at: number }[]>();
  const mediaOrigins = opts.mediaOrigins ?? new Map<string, string>();
  let approver: string | undefined;
  let failNext: string | undefined;
  let seq = 0;
  // 19 digits, never a multiple of 1024: parsed as a JSON number, such an id loses its last digits.
  const nextPostId = () => (7_400_000_000_000_000_000n + BigInt(++seq * 7919 + 13)).toString();
  const nextPublishId = (prefix: string) => `${prefix}~v2${prefix.startsWith('v_pub_file') ? '-1' : ''}.${(7_400_000_000_000_000_000n + BigInt(++seq)).toString()}`;

  const creatorOf = (u: TiktokUserRecord): CreatorRecord => ({
    privacyLevelOptions: u.privateAccount ? ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'] : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    commentDisabled: false,
    duetDisabled: false,
    stitchDisabled: false,
    maxVideoPostDurationSec: 600,
    ...u.creator,
  });

  function issueTokens(openId: string, clientKey: string, scopes: string[]) {
    const accessToken = randomToken('act.');
    tokens.set(accessToken, { accessToken, openId, clientKey, scopes, expiresAt: Date.now() + ACCESS_SECONDS * 1000, revoked: false });
    const refreshToken = randomToken('rft.');
    refreshTokens.set(refreshToken, { openId, clientKey, scopes, expiresAt: Date.now() + REFRESH_SECONDS * 1000, revoked: false });
    return { access_token: accessToken, expires_in: ACCESS_SECONDS, open_id: openId, refresh_expires_in: REFRESH_SECONDS, refresh_token: refreshToken, scope: scopes.join(','), token_type: 'Bearer' };
  }

  /** The bearer token of a request with `scope`, or the 401 already sent. */
  function authorize(req: FastifyRequest, reply: FastifyReply, scope?: string | string[]): TiktokTokenRecord | undefined {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t || t.revoked || t.expiresAt <= Date.now()) {
      return void fail(reply, 401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    }
    const needed = scope === undefined ? [] : Array.isArray(scope) ? scope : [scope];
    if (needed.length > 0 && !needed.some((s) => t.scopes.includes(s))) {
      return void fail(reply, 401, 'scope_not_authorized', `The user did not authorize the scope required for completing this request (${needed.join(' or ')}).`);
    }
    return t;
  }

  /** Sliding one-minute window per user and endpoint group; true when the request is refused (429 sent). */
  function throttled(reply: FastifyReply, openId: string, group: keyof typeof limits): boolean {
    const key = `${openId}:${group}`;
    const now = Date.now();
    const hits = (windows.get(key) ?? []).filter((at) => at > now - 60_000);
    if (hits.length >= limits[group]) {
      windows.set(key, hits);
      fail(reply, 429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.');
      return true;
    }
    hits.push(now);
    windows.set(key, hits);
    return false;
  }

  /** The caps on posting: daily posts, pending inbox shares, an unaudited app's users. Sends the 403 and returns true when one is hit. */
  function capped(reply: FastifyReply, t: TiktokTokenRecord, direct: boolean, privacy: string | undefined): boolean {
    const app = apps.get(t.clientKey)!;
    const user = users.get(t.openId)!;
    const dayAgo = Date.now() - 86_400_000;
    if (app.audited === false) {
      if (direct && privacy !== 'SELF_ONLY') {
        fail(reply, 403, 'unaudited_client_can_only_post_to_private_accounts', 'Unaudited clients can only post to private accounts. Please set the privacy_level to SELF_ONLY and make sure the account is private.');
        return true;
      }
      if (direct && !user.privateAccount) {
        fail(reply, 403, 'unaudited_client_can_only_post_to_private_accounts', 'Unaudited clients can only post to private accounts. Please make the TikTok account private.');
        return true;
      }
      const recent = (posters.get(t.clientKey) ?? []).filter((p) => p.at > dayAgo);
      if (!recent.some((p) => p.openId === t.openId) && new Set(recent.map((p) => p.openId)).size >= 5) {
        fail(reply, 403, 'reached_active_user_cap', 'The daily limit of active users posting through this unaudited client has been reached.');
        return true;
      }
    }
    const mine = [...tasks.values()].filter((x) => x.openId === t.openId && x.createdAt > dayAgo && x.status !== 'FAILED');
    if (direct && opts.dailyPostCap !== undefined && mine.filter((x) => x.direct).length >= opts.dailyPostCap) {
      fail(reply, 403, 'spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.');
      return true;
    }
    if (!direct && mine.filter((x) => !x.direct && x.status !== 'PUBLISH_COMPLETE').length >= (opts.pendingShareCap ?? 5)) {
      fail(reply, 403, 'spam_risk_too_many_pending_share', 'The user has too many pending shares in their inbox: they must post or delete some first.');
      return true;
    }
    posters.set(t.clientKey, [...(posters.get(t.clientKey) ?? []).filter((p) => p.at > dayAgo), { openId: t.openId, at: Date.now() }]);
    return false;
  }

  /** Checks a direct post's post_info against creator_info; sends the error and returns true when refused. */
  function badPostInfo(reply: FastifyReply, user: TiktokUserRecord, info: Record<string, unknown>, kind: 'video' | 'photo'): boolean {
    const refuse = (status: number, code: string, message: string) => {
      fail(reply, status, code, message);
      return true;
    };
    const creator = creatorOf(user);
    const privacy = info.privacy_level;
    if (typeof privacy !== 'string' || !PRIVACY_LEVELS.includes(privacy)) return refuse(400, 'invalid_params', 'post_info.privacy_level is required and must be a valid privacy level.');
    if (!creator.privacyLevelOptions.includes(privacy)) {
      return refuse(400, 'privacy_level_option_mismatch', `The privacy level ${privacy} is not among the options available to this creator (${creator.privacyLevelOptions.join(', ')}).`);
    }
    if (info.brand_content_toggle === true && privacy === 'SELF_ONLY') return refuse(400, 'invalid_params', 'Branded content cannot be posted with the SELF_ONLY privacy level.');
    if (info.disable_comment === false && creator.commentDisabled) return refuse(400, 'invalid_params', 'Comments are disabled by the creator: disable_comment must be true.');
    if (kind === 'video' && info.disable_duet === false && creator.duetDisabled) return refuse(400, 'invalid_params', 'Duets are disabled by the creator: disable_duet must be true.');
    if (kind === 'video' && info.disable_stitch === false && creator.stitchDisabled) return refuse(400, 'invalid_params', 'Stitches are disabled by the creator: disable_stitch must be true.');
    return false;
  }

  /** Validates FILE_UPLOAD `source_info`; the error message, or undefined when it follows TikTok's chunk rules. */
  function chunkProblem(s: Record<string, unknown>): string | undefined {
    const size = s.video_size;
    const chunk = s.chunk_size;
    const count = s.total_chunk_count;
    if (![size, chunk, count].every((n) => typeof n === 'number' && Number.isInteger(n) && n > 0)) return 'source_info.video_size, chunk_size and total_chunk_count must be positive integers.';
    const [v, c, n] = [size as number, chunk as number, count as number];
    if (v > rules.maxVideoBytes) return 'The video is larger than 4 GB.';
    if (v < rules.minChunk) return c === v && n === 1 ? undefined : 'A video smaller than 5 MB must be uploaded as a single chunk whose chunk_size is the video_size.';
    if (n === 1 && c === v) return v <= rules.maxChunk ? undefined : 'A video larger than 64 MB must be uploaded in several chunks.';
    if (c < rules.minChunk || c > rules.maxChunk) return 'chunk_size must be between 5 MB and 64 MB.';
    if (n !== Math.floor(v / c)) return 'total_chunk_count must be video_size divided by chunk_size, rounded down.';
    if (n > rules.maxChunks) return 'A video takes at most 1000 chunks.';
    if (v - (n - 1) * c > rules.maxFinalChunk) return 'The final chunk may not exceed 128 MB.';
    return undefined;
  }

  function newVideoTask(t: TiktokTokenRecord, direct: boolean, s: Record<string, unknown>, postInfo: Record<string, unknown>): TiktokTaskRecord {
    const uploadId = String(7_400_000_000_000_000_000n + BigInt(++seq));
    const task: TiktokTaskRecord = {
      publishId: nextPublishId(direct ? 'v_pub_file' : 'v_inbox_file'),
      openId: t.openId,
      clientKey: t.clientKey,
      kind: 'video',
      direct,
      source: 'FILE_UPLOAD',
      postInfo,
      createdAt: Date.now(),
      status: 'PROCESSING_UPLOAD',
      pollsLeft: processingPolls,
      moderationPollsLeft: moderationPolls,
      video: {
        size: s.video_size as number,
        chunkSize: s.chunk_size as number,
        chunks: s.total_chunk_count as number,
        received: [],
        uploadId,
        uploadToken: randomBytes(16).toString('hex'),
        complete: false,
      },
    };
    tasks.set(task.publishId, task);
    tasksByUpload.set(uploadId, task);
    return task;
  }

  /** TikTok downloads the pictures in the background, in order. */
  async function pullPhotos(task: TiktokTaskRecord) {
    const p = task.photos!;
    const fetched: ReceivedMedia[] = [];
    try {
      for (const url of p.urls) {
        const res = await mediaFetch(mode, mediaOrigins, url, { signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error('photo_pull_failed');
        const bytes = Buffer.from(await res.arrayBuffer());
        p.downloadedBytes += bytes.length;
        const format = sniff(bytes);
        if (!format || !(photoFormats as string[]).includes(format)) throw new Error('file_format_check_failed');
        if (bytes.length > 20 * MiB) throw new Error('picture_size_check_failed');
        fetched.push({ sha256: sha256(bytes), size: bytes.length, mimeType: `image/${format}` });
      }
      p.fetched = fetched;
    } catch (e) {
      p.error = e instanceof Error && /^[a-z_]+$/.test(e.message) ? e.message : 'photo_pull_failed';
    } finally {
      p.done = true;
    }
  }

  function createPost(task: TiktokTaskRecord, media: ReceivedMedia[], fromInbox: boolean, overrides: { caption?: string; privacy?: string } = {}): TiktokPostRecord {
    const info = task.postInfo;
    const post: TiktokPostRecord = {
      id: nextPostId(),
      openId: task.openId,
      kind: task.kind,
      publishId: task.publishId,
      ...(task.kind === 'video' ? { caption: overrides.caption ?? (typeof info.title === 'string' ? info.title : '') } : { title: typeof info.title === 'string' ? info.title : '', description: typeof info.description === 'string' ? info.description : '' }),
      privacy: overrides.privacy ?? (typeof info.privacy_level === 'string' ? info.privacy_level : 'PUBLIC_TO_EVERYONE'),
      postInfo: info,
      mediaSha256: media.map((m) => m.sha256),
      media,
      createTime: Math.floor(Date.now() / 1000),
      fromInbox,
    };
    posts.push(post);
    task.postId = post.id;
    return post;
  }

  /** Moves a task on by one status read, as TikTok's processing would. */
  function advance(task: TiktokTaskRecord) {
    if (task.status === 'FAILED' || task.status === 'SEND_TO_USER_INBOX') return;
    if (task.status === 'PUBLISH_COMPLETE') {
      if (task.moderationPollsLeft > 0) task.moderationPollsLeft--;
      return;
    }
    if (task.video && !task.video.complete) return;
    if (task.photos && !task.photos.done) return;
    if (task.photos?.error) {
      task.status = 'FAILED';
      task.failReason = task.photos.error;
      return;
    }
    if (task.pollsLeft > 0) {
      task.pollsLeft--;
      return;
    }
    if (failNext) {
      task.status = 'FAILED';
      task.failReason = failNext;
      failNext = undefined;
      return;
    }
    if (task.kind === 'video') {
      const bytes = Buffer.concat(task.video!.received as Buffer[]);
      if (!sniff(bytes) || !['mp4', 'webm'].includes(sniff(bytes)!)) {
        task.status = 'FAILED';
        task.failReason = 'file_format_check_failed';
        return;
      }
    }
    if (!task.direct) {
      task.status = 'SEND_TO_USER_INBOX';
      return;
    }
    createPost(task, receivedMedia(task), false);
    task.status = 'PUBLISH_COMPLETE';
  }

  function receivedMedia(task: TiktokTaskRecord): ReceivedMedia[] {
    if (task.photos) return task.photos.fetched ?? [];
    const bytes = Buffer.concat(task.video!.received as Buffer[]);
    return [{ sha256: sha256(bytes), size: bytes.length, mimeType: task.video!.mimeType ?? 'application/octet-stream' }];
  }

  /** The public ids of a task's post: none for private posts, none while moderation runs. */
  function publicIds(task: TiktokTaskRecord): string[] {
    if (task.status !== 'PUBLISH_COMPLETE' || !task.postId || task.moderationPollsLeft > 0) return [];
    const post = posts.find((p) => p.id === task.postId);
    return post && post.privacy !== 'SELF_ONLY' ? [post.id] : [];
  }

  const shareUrl = (p: TiktokPostRecord, clientKey: string) => {
    const user = users.get(p.openId)!;
    return `${TIKTOK_WWW_ORIGIN}/@${user.username}/${p.kind}/${p.id}?utm_campaign=tt4d_open_api&utm_source=${clientKey}`;
  };

  function videoView(p: TiktokPostRecord, fields: string[], clientKey: string): Record<string, unknown> {
    const s = videoStats.get(p.id) ?? {};
    const all: Record<string, unknown> = {
      id: p.id,
      title: p.kind === 'photo' ? (p.title ?? '') : '',
      video_description: p.kind === 'video' ? (p.caption ?? '') : (p.description ?? ''),
      create_time: p.createTime,
      share_url: shareUrl(p, clientKey),
      cover_image_url: `https://p16-sign.tiktokcdn-us.com/obj/tos-useast5-p-0068-tx/${p.id}~tplv-cover.jpeg`,
      duration: p.kind === 'video' ? 2 : 0,
      height: 1920,
      width: 1080,
      embed_link: `${TIKTOK_WWW_ORIGIN}/player/v1/${p.id}`,
      embed_html: `<blockquote class="tiktok-embed" data-video-id="${p.id}"></blockquote>`,
      like_count: s.like_count ?? 0,
      comment_count: s.comment_count ?? 0,
      share_count: s.share_count ?? 0,
      view_count: s.view_count ?? 0,
    };
    return Object.fromEntries(fields.map((f) => [f, all[f]]));
  }

  /** The `fields` query parameter, or the 400 already sent. */
  function fieldsOf(req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply, known: string[]): string[] | undefined {
    const fields = (req.query.fields ?? '').split(',').map((f) => f.trim()).filter(Boolean);
    if (fields.length === 0) return void fail(reply, 400, 'invalid_params', 'The fields parameter is required.');
    const unknown = fields.find((f) => !known.includes(f));
    if (unknown) return void fail(reply, 400, 'invalid_params', `Unknown field: ${unknown}.`);
    return fields;
  }

  const sim = await startSimulator((app) => {
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    // ---- Login Kit (www.tiktok.com)
    app.get('/v2/auth/authorize/', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const page = (what: string) => reply.status(400).type('text/html').send(`<p>We couldn't log in with TikTok. This may be due to specific app settings.</p><p>If you're a developer, correct the following and try again: ${what}</p>`);
      const a = q.client_key ? apps.get(q.client_key) : undefined;
      if (!a) return page('client_key');
      if (!q.redirect_uri || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) return page('redirect_uri');
      if (q.response_type !== 'code') return page('response_type');
      const scopes = (q.scope ?? '').split(',').filter(Boolean);
      if (scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.includes(s))) return page('scope');
      // TikTok's Login Kit requires PKCE: a 64-character hex SHA-256 challenge, method S256.
      if (!q.code_challenge || q.code_challenge_method !== 'S256') return page('code_challenge');
      const openId = approver ?? users.keys().next().value;
      if (!openId) return page('no TikTok user is signed in');
      const back = new URL(q.redirect_uri);
      const user = users.get(openId)!;
      const granted = scopes.filter((s) => !user.grants || user.grants.includes(s) || s === 'user.info.basic');
      const code = randomToken('');
      codes.set(code, { clientKey: a.clientKey, redirectUri: q.redirect_uri, openId, scopes: granted, challenge: q.code_challenge, method: q.code_challenge_method, expiresAt: Date.now() + 5 * 60_000, used: false });
      back.searchParams.set('code', code);
      back.searchParams.set('scopes', granted.join(','));
      if (q.state) back.searchParams.set('state', q.state);
      return reply.redirect(back.toString(), 302);
    });

    // ---- OAuth token endpoint (open.tiktokapis.com)
    app.post('/v2/oauth/token/', async (req, reply) => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return oauthFail(reply, 400, 'invalid_request', 'The request parameters are malformed.');
      const b = (req.body ?? {}) as Record<string, string | undefined>;
      const a = b.client_key ? apps.get(b.client_key) : undefined;
      if (!a || b.client_secret !== a.clientSecret) return oauthFail(reply, 401, 'invalid_client', 'Client key or secret is incorrect.');
      if (b.grant_type === 'authorization_code') {
        const c = b.code ? codes.get(b.code) : undefined;
        if (!c || c.used || c.clientKey !== a.clientKey) return oauthFail(reply, 400, 'invalid_grant', 'Authorization code is expired.');
        c.used = true;
        if (c.expiresAt <= Date.now()) return oauthFail(reply, 400, 'invalid_grant', 'Authorization code is expired.');
        if (b.redirect_uri !== c.redirectUri) return oauthFail(reply, 400, 'invalid_grant', 'Redirect URI does not match the one used to request the code.');
        const expected = createHash('sha256').update(b.code_verifier ?? '').digest('hex');
        if (!b.code_verifier || expected !== c.challenge) return oauthFail(reply, 400, 'invalid_request', 'Code verifier or code challenge is invalid.');
        return issueTokens(c.openId, a.clientKey, c.scopes);
      }
      if (b.grant_type === 'refresh_token') {
        const r = b.refresh_token ? refreshTokens.get(b.refresh_token) : undefined;
        if (!r || r.revoked || r.expiresAt <= Date.now() || r.clientKey !== a.clientKey) return oauthFail(reply, 400, 'invalid_grant', 'Refresh token is invalid or expired.');
        // Rotation: the refresh token sent stops working once a new one is issued.
        r.revoked = true;
        return issueTokens(r.openId, a.clientKey, r.scopes);
      }
      return oauthFail(reply, 400, 'unsupported_grant_type', 'The grant type is not supported.');
    });

    // ---- Display API
    app.get('/v2/user/info/', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const fields = fieldsOf(req, reply, Object.keys(FIELD_SCOPES));
      if (!fields) return reply;
      const missingScope = fields.map((f) => FIELD_SCOPES[f]!).find((s) => !t.scopes.includes(s));
      if (missingScope) return fail(reply, 401, 'scope_not_authorized', `The user did not authorize the scope required for completing this request (${missingScope}).`);
      const u = users.get(t.openId)!;
      const all: Record<string, unknown> = {
        open_id: u.openId,
        union_id: u.unionId ?? `union-${u.openId}`,
        avatar_url: u.avatarUrl ?? `https://p16-sign.tiktokcdn-us.com/tos-useast5-avt-0068-tx/${u.openId}~c5_168x168.jpeg`,
        avatar_url_100: u.avatarUrl ?? '',
        avatar_large_url: u.avatarUrl ?? '',
        display_name: u.displayName,
        username: u.username,
        bio_description: '',
        profile_deep_link: `https://vm.tiktok.com/${u.username}`,
        is_verified: false,
        follower_count: u.stats?.follower_count ?? 0,
        following_count: u.stats?.following_count ?? 0,
        likes_count: u.stats?.likes_count ?? 0,
        video_count: u.stats?.video_count ?? posts.filter((p) => p.openId === u.openId).length,
      };
      return ok({ user: Object.fromEntries(fields.map((f) => [f, all[f]])) });
    });

    app.post('/v2/video/list/', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, 'video.list');
      if (!t) return reply;
      const fields = fieldsOf(req, reply, VIDEO_FIELDS);
      if (!fields) return reply;
      const b = (req.body ?? {}) as { max_count?: unknown; cursor?: unknown };
      const max = b.max_count === undefined ? 10 : Number(b.max_count);
      if (!Number.isInteger(max) || max < 1 || max > 20) return fail(reply, 400, 'invalid_params', 'max_count must be between 1 and 20.');
      const cursor = b.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(b.cursor);
      // Public posts only, newest first; the cursor is a create time in ms.
      const mine = posts
        .filter((p) => p.openId === t.openId && p.privacy !== 'SELF_ONLY' && p.createTime * 1000 < cursor)
        .sort((x, y) => y.createTime - x.createTime || y.id.localeCompare(x.id));
      const page = mine.slice(0, max);
      const last = page.at(-1);
      return ok({ videos: page.map((p) => videoView(p, fields, t.clientKey)), cursor: last ? last.createTime * 1000 : 0, has_more: mine.length > max });
    });

    app.post('/v2/video/query/', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, 'video.list');
      if (!t) return reply;
      const fields = fieldsOf(req, reply, VIDEO_FIELDS);
      if (!fields) return reply;
      const ids = ((req.body ?? {}) as { filters?: { video_ids?: unknown } }).filters?.video_ids;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 20) return fail(reply, 400, 'invalid_params', 'filters.video_ids must list 1 to 20 video ids.');
      const found = posts.filter((p) => p.openId === t.openId && ids.includes(p.id));
      return ok({ videos: found.map((p) => videoView(p, fields, t.clientKey)), cursor: 0, has_more: false });
    });

    // ---- Content Posting API
    app.post('/v2/post/publish/creator_info/query/', async (req, reply) => {
      const t = authorize(req, reply, 'video.publish');
      if (!t || throttled(reply, t.openId, 'creator_info')) return reply;
      const u = users.get(t.openId)!;
      const c = creatorOf(u);
      return ok({
        creator_avatar_url: u.avatarUrl ?? '',
        creator_username: u.username,
        creator_nickname: u.displayName,
        privacy_level_options: c.privacyLevelOptions,
        comment_disabled: c.commentDisabled,
        duet_disabled: c.duetDisabled,
        stitch_disabled: c.stitchDisabled,
        max_video_post_duration_sec: c.maxVideoPostDurationSec,
      });
    });

    app.post('/v2/post/publish/video/init/', async (req, reply) => {
      const t = authorize(req, reply, 'video.publish');
      if (!t || throttled(reply, t.openId, 'init')) return reply;
      const b = (req.body ?? {}) as { post_info?: Record<string, unknown>; source_info?: Record<string, unknown> };
      const info = b.post_info;
      const s = b.source_info;
      if (!info || !s) return fail(reply, 400, 'invalid_params', 'post_info and source_info are required.');
      if (typeof info.title === 'string' && info.title.length > 2200) return fail(reply, 400, 'invalid_params', 'post_info.title is longer than 2200 characters.');
      if (badPostInfo(reply, users.get(t.openId)!, info, 'video')) return reply;
      if (s.source === 'PULL_FROM_URL') return fail(reply, 400, 'invalid_params', 'This simulator takes FILE_UPLOAD videos only.');
      if (s.source !== 'FILE_UPLOAD') return fail(reply, 400, 'invalid_params', 'source_info.source must be FILE_UPLOAD or PULL_FROM_URL.');
      const problem = chunkProblem(s);
      if (problem) return fail(reply, 400, 'invalid_params', problem);
      if (capped(reply, t, true, info.privacy_level as string)) return reply;
      const task = newVideoTask(t, true, s, info);
      return ok({ publish_id: task.publishId, upload_url: `${TIKTOK_UPLOAD_ORIGIN}/video/?upload_id=${task.video!.uploadId}&upload_token=${task.video!.uploadToken}` });
    });

    app.post('/v2/post/publish/inbox/video/init/', async (req, reply) => {
      const t = authorize(req, reply, 'video.upload');
      if (!t || throttled(reply, t.openId, 'init')) return reply;
      const s = ((req.body ?? {}) as { source_info?: Record<string, unknown> }).source_info;
      if (!s || s.source !== 'FILE_UPLOAD') return fail(reply, 400, 'invalid_params', 'source_info.source must be FILE_UPLOAD or PULL_FROM_URL.');
      const problem = chunkProblem(s);
      if (problem) return fail(reply, 400, 'invalid_params', problem);
      if (capped(reply, t, false, undefined)) return reply;
      const task = newVideoTask(t, false, s, {});
      return ok({ publish_id: task.publishId, upload_url: `${TIKTOK_UPLOAD_ORIGIN}/video/?upload_id=${task.video!.uploadId}&upload_token=${task.video!.uploadToken}` });
    });

    app.post('/v2/post/publish/content/init/', async (req, reply) => {
      const b = (req.body ?? {}) as { media_type?: string; post_mode?: string; post_info?: Record<string, unknown>; source_info?: Record<string, unknown> };
      const direct = b.post_mode === 'DIRECT_POST';
      const t = authorize(req, reply, direct ? 'video.publish' : 'video.upload');
      if (!t || throttled(reply, t.openId, 'init')) return reply;
      if (b.media_type !== 'PHOTO') return fail(reply, 400, 'invalid_params', 'media_type must be PHOTO.');
      if (!direct && b.post_mode !== 'MEDIA_UPLOAD') return fail(reply, 400, 'invalid_params', 'post_mode must be DIRECT_POST or MEDIA_UPLOAD.');
      const info = b.post_info ?? {};
      const s = b.source_info ?? {};
      if (typeof info.title === 'string' && info.title.length > 90) return fail(reply, 400, 'invalid_params', 'post_info.title is longer than 90 characters.');
      if (typeof info.description === 'string' && info.description.length > 4000) return fail(reply, 400, 'invalid_params', 'post_info.description is longer than 4000 characters.');
      if (direct && badPostInfo(reply, users.get(t.openId)!, info, 'photo')) return reply;
      if (s.source !== 'PULL_FROM_URL') return fail(reply, 400, 'invalid_params', 'Photos can only be posted with source PULL_FROM_URL.');
      const urls = s.photo_images;
      if (!Array.isArray(urls) || urls.length < 1 || urls.length > 35 || !urls.every((u) => typeof u === 'string')) return fail(reply, 400, 'invalid_params', 'source_info.photo_images must list 1 to 35 URLs.');
      const cover = s.photo_cover_index === undefined ? 0 : Number(s.photo_cover_index);
      if (!Number.isInteger(cover) || cover < 0 || cover >= urls.length) return fail(reply, 400, 'invalid_params', 'photo_cover_index is out of range.');
      const prefixes = apps.get(t.clientKey)!.verifiedPrefixes ?? [];
      const unverified = urls.find((u) => !prefixes.some((p) => u.startsWith(p)));
      if (unverified) return fail(reply, 403, 'url_ownership_unverified', `The domain or URL prefix of ${unverified} is not verified for this app.`);
      if (capped(reply, t, direct, info.privacy_level as string)) return reply;
      const task: TiktokTaskRecord = {
        publishId: nextPublishId(direct ? 'p_pub_url' : 'p_inbox_url'),
        openId: t.openId,
        clientKey: t.clientKey,
        kind: 'photo',
        direct,
        source: 'PULL_FROM_URL',
        postInfo: info,
        createdAt: Date.now(),
        status: 'PROCESSING_DOWNLOAD',
        pollsLeft: processingPolls,
        moderationPollsLeft: moderationPolls,
        photos: { urls, coverIndex: cover, downloadedBytes: 0, done: false },
      };
      tasks.set(task.publishId, task);
      void pullPhotos(task);
      return ok({ publish_id: task.publishId });
    });

    app.post('/v2/post/publish/status/fetch/', async (req, reply) => {
      const t = authorize(req, reply, ['video.publish', 'video.upload']);
      if (!t || throttled(reply, t.openId, 'status')) return reply;
      const id = ((req.body ?? {}) as { publish_id?: unknown }).publish_id;
      const task = typeof id === 'string' ? tasks.get(id) : undefined;
      if (!task || task.openId !== t.openId) return fail(reply, 400, 'invalid_publish_id', 'The publish_id does not exist or does not belong to this user.');
      advance(task);
      const ids = publicIds(task);
      const data: Record<string, unknown> = { status: task.status, publicaly_available_post_id: '__PUBLIC_IDS__' };
      if (task.failReason) data.fail_reason = task.failReason;
      if (task.video) data.uploaded_bytes = task.video.received.reduce((n, b) => n + (b?.length ?? 0), 0);
      if (task.photos) data.downloaded_bytes = task.photos.downloadedBytes;
      // int64 ids as bare JSON numbers, as TikTok documents them.
      const text = JSON.stringify(ok(data)).replace('"__PUBLIC_IDS__"', `[${ids.join(',')}]`);
      return reply.type('application/json; charset=utf-8').send(text);
    });

    // ---- Upload URLs (open-upload.tiktokapis.com)
    app.put('/video/', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const task = req.query.upload_id ? tasksByUpload.get(req.query.upload_id) : undefined;
      const v = task?.video;
      if (!task || !v || req.query.upload_token !== v.uploadToken) return fail(reply, 404, 'invalid_params', 'The upload URL is not valid.');
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
      const [first, last, total] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [-1, -1, -1];
      const record = (status: number) => chunks.push({ publishId: task.publishId, first, last, sha256: sha256(body), status });
      if (Date.now() - task.createdAt > uploadTtl) {
        record(403);
        if (!v.complete && task.status !== 'FAILED') Object.assign(task, { status: 'FAILED', failReason: 'file_upload_expired' });
        return fail(reply, 403, 'invalid_file_upload', 'The upload URL has expired.');
      }
      if (v.complete) {
        record(400);
        return fail(reply, 400, 'invalid_file_upload', 'The video has been uploaded already.');
      }
      const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (!['video/mp4', 'video/quicktime', 'video/webm'].includes(type)) {
        record(415);
        return fail(reply, 415, 'invalid_file_upload', 'Content-Type must be video/mp4, video/quicktime or video/webm.');
      }
      if (!m) {
        record(400);
        return fail(reply, 400, 'invalid_file_upload', 'The Content-Range header is missing or malformed.');
      }
      const k = Math.floor(first / v.chunkSize);
      const expectedFirst = Math.min(k, v.chunks - 1) * v.chunkSize;
      const expectedLast = (k >= v.chunks - 1 ? v.size : expectedFirst + v.chunkSize) - 1;
      const received = v.received.filter(Boolean).length;
      if (total !== v.size || first !== expectedFirst || last !== expectedLast || k >= v.chunks || k > received) {
        record(416);
        return fail(reply, 416, 'invalid_file_upload', `The range ${first}-${last}/${total} is not the next chunk of this upload.`);
      }
      if (body.length !== last - first + 1) {
        record(400);
        return fail(reply, 400, 'invalid_file_upload', `Expected ${last - first + 1} bytes, received ${body.length}.`);
      }
      v.received[k] = body;
      v.mimeType ??= type;
      if (v.received.filter(Boolean).length === v.chunks) {
        v.complete = true;
        record(201);
        return reply.status(201).send();
      }
      record(206);
      return reply.status(206).send();
    });
  });

  return Object.assign(sim, {
    apps,
    users,
    tokens,
    tasks,
    posts,
    chunks,
    mediaOrigins,
    addApp: (a: TiktokAppRecord) => void apps.set(a.clientKey, a),
    addUser: (u: TiktokUserRecord) => void users.set(u.openId, u),
    approveAs(openId: string) {
      approver = openId;
    },
    setCreator(openId: string, creator: Partial<CreatorRecord>) {
      const u = users.get(openId);
      if (u) u.creator = { ...u.creator, ...creator };
    },
    setProcessingPolls(n: number) {
      processingPolls = n;
    },
    setVideoStats: (id: string, stats: { view_count?: number; like_count?: number; comment_count?: number; share_count?: number }) => void videoStats.set(id, stats),
    failNextPublish(reason: string) {
      failNext = reason;
    },
    completeInboxPost(publishId: string, o: { caption?: string; privacy?: string } = {}) {
      const task = tasks.get(publishId);
      if (!task || task.direct || task.status !== 'SEND_TO_USER_INBOX') throw new Error(`${publishId} is not waiting in an inbox`);
      const post = createPost(task, receivedMedia(task), true, { caption: o.caption ?? '', privacy: o.privacy ?? 'PUBLIC_TO_EVERYONE' });
      task.status = 'PUBLISH_COMPLETE';
      return post;
    },
    expireAccessTokens() {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1000;
    },
    revokeAccessTokens() {
      for (const t of tokens.values()) t.revoked = true;
      for (const r of refreshTokens.values()) r.revoked = true;
    },
    lookup(id: string) {
      const p = posts.find((x) => x.id === id);
      return p ? { text: (p.kind === 'video' ? p.caption : p.description) ?? '', mediaSha256: p.mediaSha256 } : undefined;
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/v2\/post\/publish\//;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          // TikTok has one answer for an expired and a revoked token; refreshing tells them apart.
          return sim.inject({ path, status: 401, body: { data: {}, error: { code: 'access_token_invalid', message: 'The access token is invalid or not found in the request.', log_id: logId() } } });
        case 'rate_limited':
          // No Retry-After: TikTok counts over a one-minute sliding window.
          return sim.inject({ path, status: 429, body: { data: {}, error: { code: 'rate_limit_exceeded', message: 'The API rate limit was exceeded. Please try again later.', log_id: logId() } } });
        case 'server_error':
          return sim.inject({ path, status: 500, body: { data: {}, error: { code: 'internal_error', message: 'Something went wrong. Please try again later.', log_id: logId() } } });
        case 'rejected':
          return sim.inject({ path, status: 403, body: { data: {}, error: { code: 'spam_risk_too_many_posts', message: 'The daily post cap from the API is reached for the current user.', log_id: logId() } } });
        case 'error_in_200':
          // The envelope is the same on every answer: the code, not the status, says it failed.
          return sim.inject({ path, status: 200, body: { data: {}, error: { code: 'spam_risk_text', message: 'The post text was flagged as spam risk.', log_id: logId() } } });
      }
    },
  });
}
