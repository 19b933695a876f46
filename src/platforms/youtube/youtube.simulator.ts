import { createHash, randomBytes, type Hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from '../common/oauth2.simulator.js';
import { createGoogleOAuthSimulator, type GoogleOAuthApp, type GoogleUserRecord } from '../common/google-oauth.simulator.js';

/**
 * A simulator of Google's side of YouTube, on one server that stands for four real origins, which
 * tests map to it:
 *
 * - `https://accounts.google.com`: the consent page `GET /o/oauth2/v2/auth`, which approves at
 *   once as the signed-in Google user (and the channel picked on Google's channel chooser) and
 *   redirects with `code`, `state` and `scope`;
 * - `https://oauth2.googleapis.com`: `POST /token` — authorisation codes (single use, redirect
 *   URI, client secret and the PKCE verifier checked, S256 or plain), one-hour access tokens,
 *   refresh tokens only with `access_type=offline` (again only with `prompt=consent` once the
 *   account has granted the app), refreshes that keep the refresh token, `invalid_grant` for a
 *   revoked grant;
 * - `https://www.googleapis.com`: the YouTube Data API v3 (`/youtube/v3/channels`, `videos`,
 *   `playlistItems`, `commentThreads`) and its upload endpoint: resumable video uploads
 *   (`POST /upload/youtube/v3/videos?uploadType=resumable` → `Location` session URI; `PUT` chunks
 *   with `Content-Range`, contiguous, multiples of 256 KiB except the last, the declared total
 *   kept to; 308 with `Range` while incomplete, the status query `bytes *` + `/N`; 404 once a
 *   session has expired), `thumbnails/set`, and the video metadata checks (title, description,
 *   tags, category, privacy, `publishAt` only when private); processing read back from
 *   `status.uploadStatus` (`uploaded` → `processed` after a configurable number of reads, or
 *   `failed`/`rejected` with YouTube's reasons);
 * - `https://youtubeanalytics.googleapis.com`: `GET /v2/reports` (daily channel figures).
 *
 * Errors are Google's shape `{ error: { code, message, errors: [{ message, domain, reason }], status } }`
 * with its reasons (`authError`, `insufficientPermissions`, `quotaExceeded`, `uploadLimitExceeded`,
 * `invalidTitle`…); the token endpoint answers `{ error, error_description }`.
 *
 * Channels: a Google user owns one or more channels; `channels?mine=true` lists every channel of
 * the user who granted, the one picked at consent first. Writes (uploads, thumbnails, comments)
 * carry no channel, so they go to the channel picked at consent, as Google files them under the
 * identity the token was issued for.
 *
 * Google documents some messages loosely (chunk range errors, expired sessions): their wording here
 * is approximate; the statuses and reasons are Google's.
 */

export const GOOGLE_ACCOUNTS = 'https://accounts.google.com';
export const GOOGLE_OAUTH = 'https://oauth2.googleapis.com';
export const GOOGLE_APIS = 'https://www.googleapis.com';
export const YOUTUBE_ANALYTICS = 'https://youtubeanalytics.googleapis.com';
export const GOOGLE_ORIGINS = [GOOGLE_ACCOUNTS, GOOGLE_OAUTH, GOOGLE_APIS, YOUTUBE_ANALYTICS] as const;

const SCOPE = 'https://www.googleapis.com/auth/';
const WRITE_SCOPES = ['youtube', 'youtube.force-ssl', 'youtubepartner'].map((s) => SCOPE + s);
const UPLOAD_SCOPES = [...WRITE_SCOPES, `${SCOPE}youtube.upload`];
const READ_SCOPES = [...UPLOAD_SCOPES, `${SCOPE}youtube.readonly`];
const COMMENT_SCOPES = [`${SCOPE}youtube.force-ssl`];
const ANALYTICS_SCOPES = [`${SCOPE}yt-analytics.readonly`, `${SCOPE}yt-analytics-monetary.readonly`];

export const CHUNK_GRANULE = 256 * 1024;
const ACCESS_SECONDS = 3600;
const THUMBNAIL_MAX_BYTES = 2 * 1024 * 1024;
/** Video categories YouTube offers in most regions (`videoCategories.list`, assignable ones). */
export const YOUTUBE_CATEGORIES = ['1', '2', '10', '15', '17', '19', '20', '22', '23', '24', '25', '26', '27', '28', '29'];

export type GoogleAppRecord = GoogleOAuthApp;
export type { GoogleUserRecord };

export interface YoutubeChannelRecord {
  id: string;
  owner: string;
  title: string;
  customUrl: string;
  picture: string;
  /** verified channels may set custom thumbnails */
  verified: boolean;
  subscriberCount: number;
  viewCount: number;
  createdAt: string;
}

export interface TokenRecord {
  accessToken: string;
  sub: string;
  /** the channel picked at consent: writes go there */
  channelId: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

/** One PUT to an upload session: the range it claimed and the bytes Google kept. */
export interface ChunkRecord {
  first: number;
  last: number;
  kept: number;
}

export interface UploadSessionRecord {
  uploadId: string;
  sub: string;
  channelId: string;
  resource: NormalisedVideo;
  notifySubscribers: boolean;
  total: number;
  declaredType: string;
  received: number;
  hash: Hash;
  chunks: ChunkRecord[];
  /** status queries (`bytes *` + `/N`) answered */
  statusQueries: number;
  expiresAt: number;
  videoId?: string;
  createdAt: number;
}

export interface NormalisedVideo {
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: 'public' | 'private' | 'unlisted';
  publishAt?: string;
  selfDeclaredMadeForKids?: boolean;
}

export type ProcessingOutcome = { failureReason: string } | { rejectionReason: string } | 'processed';

export interface VideoRecord extends NormalisedVideo {
  id: string;
  channelId: string;
  uploadId: string;
  notifySubscribers: boolean;
  sha256: string;
  size: number;
  mimeType: string;
  uploadStatus: 'uploaded' | 'processed' | 'failed' | 'rejected' | 'deleted';
  failureReason?: string;
  rejectionReason?: string;
  /** status reads left before processing ends */
  pollsLeft: number;
  outcome: ProcessingOutcome;
  publishedAt: string;
  commentsDisabled: boolean;
  thumbnail?: { sha256: string; size: number; mimeType: string };
  thumbnailSets: number;
  statistics: { viewCount: number; likeCount: number; favoriteCount: number; commentCount: number };
}

export interface CommentThreadRecord {
  id: string;
  videoId: string;
  /** the author channel */
  channelId: string;
  text: string;
  publishedAt: string;
}

export interface DailyFigures {
  day: string;
  views?: number;
  estimatedMinutesWatched?: number;
  likes?: number;
  comments?: number;
  subscribersGained?: number;
  subscribersLost?: number;
}

export interface YoutubeSimulatorOptions {
  /** status reads that still answer `uploaded` after an upload (default 1) */
  processingPolls?: number;
  /** `processingDetails.processingProgress.timeLeftMs` while processing (default 0: not given) */
  processingTimeLeftMs?: number;
  /** the most bytes of one PUT Google keeps (rounded down to 256 KiB), as its servers may keep fewer than were sent */
  keepAtMostBytes?: number;
  /** lifetime of an upload session (default a week) */
  sessionTtlMs?: number;
  /** videos a channel may upload per day (default unlimited) */
  dailyUploadLimit?: number;
}

export interface YoutubeSimulator extends Simulator, Pick<OAuth2Controls<string, GoogleAppRecord>, 'apps' | 'addApp' | 'expireAccessTokens'> {
  users: Map<string, GoogleUserRecord>;
  channels: Map<string, YoutubeChannelRecord>;
  tokens: Map<string, TokenRecord>;
  sessions: Map<string, UploadSessionRecord>;
  videos: VideoRecord[];
  comments: CommentThreadRecord[];
  addUser(user: GoogleUserRecord): void;
  addChannel(channel: Partial<YoutubeChannelRecord> & { id: string; owner: string; title: string }): YoutubeChannelRecord;
  /** the user (and the channel picked on Google's chooser) who approves the next consents */
  approveAs(sub: string, channelId?: string): void;
  /** the user removes the app's access: every token and refresh token of the grant stops working */
  revokeGrants(sub?: string): void;
  expireUploadSessions(): void;
  /** how the next uploaded videos' processing ends (default processed) */
  setNextProcessing(...outcomes: ProcessingOutcome[]): void;
  /** the next chunk PUT keeps `keep` bytes then fails: the connection drops, or Google answers 503 */
  interruptNextChunk(opts: { keep: number; mode: 'drop' | '503' }): void;
  setQuotaExceeded(exceeded: boolean): void;
  setDailyFigures(channelId: string, rows: DailyFigures[]): void;
  /** a video or comment thread by id, as the contract suite reads it */
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

// ---------------------------------------------------------------------------------------------

const rand = (n: number) => randomBytes(n).toString('base64url');
const etag = () => rand(20);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Google's API error body. */
function googleError(status: number, reason: string, message: string, opts: { domain?: string; location?: string; locationType?: string } = {}) {
  const statusName: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    409: 'ABORTED',
    413: 'FAILED_PRECONDITION',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  return {
    error: {
      code: status,
      message,
      errors: [{ message, domain: opts.domain ?? 'global', reason, ...(opts.location ? { location: opts.location, locationType: opts.locationType ?? 'parameter' } : {}) }],
      status: statusName[status] ?? 'UNKNOWN',
    },
  };
}

const send = (reply: FastifyReply, status: number, reason: string, message: string, opts: { domain?: string; location?: string; locationType?: string } = {}) =>
  reply.status(status).send(googleError(status, reason, message, opts));

const QUOTA_MESSAGE = 'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.';

/** YouTube's tag length: labels with whitespace are quoted, so they cost 2 more. */
function tagsLength(tags: string[]): number {
  return tags.reduce((n, t) => n + t.length + (/\s/.test(t) ? 2 : 0), 0);
}

type Query = Record<string, string | undefined>;

export async function startYoutubeSimulator(opts: YoutubeSimulatorOptions = {}): Promise<YoutubeSimulator> {
  const apps = new Map<string, GoogleAppRecord>();
  const users = new Map<string, GoogleUserRecord>();
  const channels = new Map<string, YoutubeChannelRecord>();
  const tokens = new Map<string, TokenRecord>();
  const sessions = new Map<string, UploadSessionRecord>();
  const videos: VideoRecord[] = [];
  const comments: CommentThreadRecord[] = [];
  const daily = new Map<string, DailyFigures[]>();
  let nextOutcomes: ProcessingOutcome[] = [];
  let interrupt: { keep: number; mode: 'drop' | '503' } | undefined;
  let quotaExceeded = false;
  let approver: { sub: string; channelId?: string } | undefined;

  const channelsOf = (sub: string) => [...channels.values()].filter((c) => c.owner === sub);
  const uploadsPlaylist = (channelId: string) => `UU${channelId.slice(2)}`;

  function issueAccess(sub: string, channelId: string, clientId: string, scopes: string[]) {
    const accessToken = `ya29.a0${rand(90)}`;
    tokens.set(accessToken, { accessToken, sub, channelId, clientId, scopes, expiresAt: Date.now() + ACCESS_SECONDS * 1000, revoked: false });
    return { access_token: accessToken, expires_in: ACCESS_SECONDS - 1, scope: scopes.join(' '), token_type: 'Bearer' };
  }

  // Google's OAuth server, with PKCE (plain or S256) and HTTP Basic client credentials; a grant carries the channel picked at consent.
  const oauth = createGoogleOAuthSimulator<{ channelId: string }>({
    apps,
    approve: () => {
      const sub = approver?.sub ?? users.keys().next().value;
      const user = sub ? users.get(sub) : undefined;
      return user ? { sub: user.sub, extra: { channelId: approver?.channelId ?? channelsOf(user.sub)[0]?.id ?? '' } } : undefined;
    },
    pkce: true,
    basicAuth: true,
    issueAccess: (sub, { channelId }, clientId, scopes) => issueAccess(sub, channelId, clientId, scopes),
  });

  /** The bearer token of a request with one of `scopes`, or the 401/403 answer already sent. */
  function authorize(req: FastifyRequest, reply: FastifyReply, scopes: string[]): TokenRecord | undefined {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t || t.revoked || t.expiresAt <= Date.now()) {
      void reply
        .header('www-authenticate', 'Bearer realm="https://accounts.google.com/", error="invalid_token"')
        .status(401)
        .send(
          googleError(
            401,
            'authError',
            'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
            { location: 'Authorization', locationType: 'header' },
          ),
        );
      return undefined;
    }
    if (!scopes.some((s) => t.scopes.includes(s))) {
      void send(reply, 403, 'insufficientPermissions', 'Request had insufficient authentication scopes.');
      return undefined;
    }
    if (quotaExceeded) {
      void send(reply, 403, 'quotaExceeded', QUOTA_MESSAGE, { domain: 'youtube.quota' });
      return undefined;
    }
    return t;
  }

  /** `part` is required on every Data API call. */
  function parts(q: Query, reply: FastifyReply): Set<string> | undefined {
    if (!q.part) {
      void send(reply, 400, 'required', 'Required parameter: part', { location: 'part' });
      return undefined;
    }
    return new Set(q.part.split(',').map((p) => p.trim()));
  }

  function thumbnails(base: string) {
    return {
      default: { url: `${base}/default.jpg`, width: 120, height: 90 },
      medium: { url: `${base}/mqdefault.jpg`, width: 320, height: 180 },
      high: { url: `${base}/hqdefault.jpg`, width: 480, height: 360 },
    };
  }

  function channelResource(c: YoutubeChannelRecord, p: Set<string>) {
    const videoCount = videos.filter((v) => v.channelId === c.id && v.uploadStatus !== 'deleted').length;
    return {
      kind: 'youtube#channel',
      etag: etag(),
      id: c.id,
      ...(p.has('snippet')
        ? {
            snippet: {
              title: c.title,
              description: '',
              customUrl: c.customUrl,
              publishedAt: c.createdAt,
              thumbnails: { default: { url: c.picture, width: 88, height: 88 }, medium: { url: c.picture, width: 240, height: 240 }, high: { url: c.picture, width: 800, height: 800 } },
              localized: { title: c.title, description: '' },
            },
          }
        : {}),
      ...(p.has('contentDetails') ? { contentDetails: { relatedPlaylists: { likes: '', uploads: uploadsPlaylist(c.id) } } } : {}),
      ...(p.has('statistics')
        ? { statistics: { viewCount: String(c.viewCount), subscriberCount: String(c.subscriberCount), hiddenSubscriberCount: false, videoCount: String(videoCount) } }
        : {}),
    };
  }

  function processingDetails(v: VideoRecord) {
    if (v.uploadStatus === 'processed') return { processingStatus: 'succeeded', processingProgress: { partsTotal: '1000', partsProcessed: '1000', timeLeftMs: '0' } };
    if (v.uploadStatus === 'failed') return { processingStatus: 'failed', processingFailureReason: 'transcodeFailed' };
    if (v.uploadStatus === 'rejected' || v.uploadStatus === 'deleted') return { processingStatus: 'terminated' };
    return {
      processingStatus: 'processing',
      processingProgress: { partsTotal: '1000', partsProcessed: String(Math.max(0, 1000 - v.pollsLeft * 100)), ...(opts.processingTimeLeftMs ? { timeLeftMs: String(opts.processingTimeLeftMs) } : {}) },
    };
  }

  function videoResource(v: VideoRecord, p: Set<string>) {
    const channel = channels.get(v.channelId);
    return {
      kind: 'youtube#video',
      etag: etag(),
      id: v.id,
      ...(p.has('snippet')
        ? {
            snippet: {
              publishedAt: v.publishedAt,
              channelId: v.channelId,
              title: v.title,
              description: v.description,
              thumbnails: thumbnails(`https://i.ytimg.com/vi/${v.id}`),
              channelTitle: channel?.title ?? '',
              ...(v.tags.length ? { tags: v.tags } : {}),
              categoryId: v.categoryId,
              liveBroadcastContent: 'none',
              localized: { title: v.title, description: v.description },
            },
          }
        : {}),
      ...(p.has('status')
        ? {
            status: {
              uploadStatus: v.uploadStatus,
              ...(v.failureReason ? { failureReason: v.failureReason } : {}),
              ...(v.rejectionReason ? { rejectionReason: v.rejectionReason } : {}),
              privacyStatus: v.privacyStatus,
              ...(v.publishAt ? { publishAt: v.publishAt } : {}),
              license: 'youtube',
              embeddable: true,
              publicStatsViewable: true,
              madeForKids: v.selfDeclaredMadeForKids ?? false,
              ...(v.selfDeclaredMadeForKids !== undefined ? { selfDeclaredMadeForKids: v.selfDeclaredMadeForKids } : {}),
            },
          }
        : {}),
      ...(p.has('processingDetails') ? { processingDetails: processingDetails(v) } : {}),
      ...(p.has('statistics')
        ? {
            statistics: {
              viewCount: String(v.statistics.viewCount),
              likeCount: String(v.statistics.likeCount),
              favoriteCount: String(v.statistics.favoriteCount),
              commentCount: String(comments.filter((c) => c.videoId === v.id).length + v.statistics.commentCount),
            },
          }
        : {}),
    };
  }

  function threadResource(c: CommentThreadRecord) {
    const author = channels.get(c.channelId);
    const video = videos.find((v) => v.id === c.videoId);
    return {
      kind: 'youtube#commentThread',
      etag: etag(),
      id: c.id,
      snippet: {
        channelId: video?.channelId ?? '',
        videoId: c.videoId,
        topLevelComment: {
          kind: 'youtube#comment',
          etag: etag(),
          id: c.id,
          snippet: {
            channelId: video?.channelId ?? '',
            videoId: c.videoId,
            textDisplay: c.text,
            textOriginal: c.text,
            authorDisplayName: author?.customUrl ?? '',
            authorProfileImageUrl: author?.picture ?? '',
            authorChannelUrl: `http://www.youtube.com/${author?.customUrl ?? ''}`,
            authorChannelId: { value: c.channelId },
            canRate: true,
            viewerRating: 'none',
            likeCount: 0,
            publishedAt: c.publishedAt,
            updatedAt: c.publishedAt,
          },
        },
        canReply: true,
        totalReplyCount: 0,
        isPublic: true,
      },
    };
  }

  /** The metadata of `POST …/videos` checked as YouTube does; a string is the refusal already sent. */
  function readVideo(body: unknown, reply: FastifyReply): NormalisedVideo | undefined {
    const b = (typeof body === 'object' && body !== null ? body : {}) as { snippet?: Record<string, unknown>; status?: Record<string, unknown> };
    const sn = b.snippet ?? {};
    const st = b.status ?? {};
    const title = typeof sn.title === 'string' ? sn.title : '';
    if (title.trim() === '' || title.length > 100 || /[<>]/.test(title)) {
      return void send(reply, 400, 'invalidTitle', 'The request metadata specifies an invalid or empty video title.', { domain: 'youtube.video', location: 'body.snippet.title' });
    }
    const description = typeof sn.description === 'string' ? sn.description : '';
    if (Buffer.byteLength(description, 'utf8') > 5000 || /[<>]/.test(description)) {
      return void send(reply, 400, 'invalidDescription', 'The request metadata specifies an invalid video description.', { domain: 'youtube.video', location: 'body.snippet.description' });
    }
    const tags = Array.isArray(sn.tags) ? sn.tags.filter((t): t is string => typeof t === 'string') : [];
    if (tagsLength(tags) > 500 || tags.some((t) => /[<>]/.test(t))) {
      return void send(reply, 400, 'invalidTags', 'The request metadata specifies invalid video keywords.', { domain: 'youtube.video', location: 'body.snippet.tags' });
    }
    const categoryId = sn.categoryId === undefined ? '22' : typeof sn.categoryId === 'string' || typeof sn.categoryId === 'number' ? String(sn.categoryId) : '';
    if (!YOUTUBE_CATEGORIES.includes(categoryId)) {
      return void send(reply, 400, 'invalidCategoryId', 'The snippet.categoryId property specifies an invalid category ID. Use the videoCategories.list method to retrieve supported categories.', {
        domain: 'youtube.video',
        location: 'body.snippet.categoryId',
      });
    }
    const privacyStatus = st.privacyStatus === undefined ? 'public' : st.privacyStatus;
    if (privacyStatus !== 'public' && privacyStatus !== 'private' && privacyStatus !== 'unlisted') {
      return void send(reply, 400, 'invalidVideoMetadata', 'The request metadata is invalid.', { domain: 'youtube.video', location: 'body.status.privacyStatus' });
    }
    if (st.selfDeclaredMadeForKids !== undefined && typeof st.selfDeclaredMadeForKids !== 'boolean') {
      return void send(reply, 400, 'invalidVideoMetadata', 'The request metadata is invalid.', { domain: 'youtube.video', location: 'body.status.selfDeclaredMadeForKids' });
    }
    let publishAt: string | undefined;
    if (st.publishAt !== undefined) {
      const at = typeof st.publishAt === 'string' ? Date.parse(st.publishAt) : Number.NaN;
      // A scheduled publication needs a private video and a time in the future.
      if (privacyStatus !== 'private' || !Number.isFinite(at) || at <= Date.now()) {
        return void send(reply, 400, 'invalidPublishAt', 'The request metadata specifies an invalid scheduled publishing time.', { domain: 'youtube.video', location: 'body.status.publishAt' });
      }
      publishAt = new Date(at).toISOString();
    }
    return {
      title,
      description,
      tags,
      categoryId,
      privacyStatus,
      ...(publishAt ? { publishAt } : {}),
      ...(typeof st.selfDeclaredMadeForKids === 'boolean' ? { selfDeclaredMadeForKids: st.selfDeclaredMadeForKids } : {}),
    };
  }

  function finishUpload(s: UploadSessionRecord): VideoRecord {
    const id = rand(8).slice(0, 11);
    const outcome = nextOutcomes.shift() ?? 'processed';
    const video: VideoRecord = {
      ...s.resource,
      id,
      channelId: s.channelId,
      uploadId: s.uploadId,
      notifySubscribers: s.notifySubscribers,
      sha256: s.hash.digest('hex'),
      size: s.total,
      mimeType: s.declaredType,
      uploadStatus: 'uploaded',
      pollsLeft: opts.processingPolls ?? 1,
      outcome,
      publishedAt: new Date().toISOString(),
      commentsDisabled: false,
      thumbnailSets: 0,
      statistics: { viewCount: 0, likeCount: 0, favoriteCount: 0, commentCount: 0 },
    };
    videos.push(video);
    s.videoId = id;
    return video;
  }

  /** One status read of a processing video by its owner. */
  function advanceProcessing(v: VideoRecord) {
    if (v.uploadStatus !== 'uploaded') return;
    if (v.pollsLeft > 0) {
      v.pollsLeft--;
      return;
    }
    if (v.outcome === 'processed') v.uploadStatus = 'processed';
    else if ('failureReason' in v.outcome) Object.assign(v, { uploadStatus: 'failed', failureReason: v.outcome.failureReason });
    else Object.assign(v, { uploadStatus: 'rejected', rejectionReason: v.outcome.rejectionReason });
  }

  const sessionUrl = (s: UploadSessionRecord) => `${GOOGLE_APIS}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${s.uploadId}`;

  const sim = await startSimulator((app) => {
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    oauth.register(app);

    // ---- Data API: channels
    app.get('/youtube/v3/channels', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, READ_SCOPES);
      if (!t) return;
      const p = parts(req.query, reply);
      if (!p) return;
      const q = req.query;
      let list: YoutubeChannelRecord[];
      if (q.mine === 'true') {
        const own = channelsOf(t.sub);
        list = [...own.filter((c) => c.id === t.channelId), ...own.filter((c) => c.id !== t.channelId)];
      } else if (q.id) list = q.id.split(',').flatMap((id) => channels.get(id) ?? []);
      else if (q.forHandle) list = [...channels.values()].filter((c) => c.customUrl.toLowerCase() === `@${q.forHandle!.replace(/^@/, '').toLowerCase()}`);
      else {
        return send(reply, 400, 'missingRequiredParameter', 'No filter selected. Expected one of: mySubscribers, forHandle, forUsername, mine, managedByMe, id, idParam, categoryId', {
          domain: 'youtube.parameter',
        });
      }
      const max = Math.min(50, Math.max(0, Number(q.maxResults ?? 5)));
      const start = Number(q.pageToken ? Buffer.from(q.pageToken, 'base64url').toString() : 0) || 0;
      const page = list.slice(start, start + max);
      return {
        kind: 'youtube#channelListResponse',
        etag: etag(),
        ...(start + max < list.length ? { nextPageToken: Buffer.from(String(start + max)).toString('base64url') } : {}),
        pageInfo: { totalResults: list.length, resultsPerPage: max },
        items: page.map((c) => channelResource(c, p)),
      };
    });

    // ---- Data API: videos
    app.get('/youtube/v3/videos', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, READ_SCOPES);
      if (!t) return;
      const p = parts(req.query, reply);
      if (!p) return;
      if (!req.query.id) return send(reply, 400, 'missingRequiredParameter', 'No filter selected. Expected one of: chart, id, idParam, myRated', { domain: 'youtube.parameter' });
      const ids = req.query.id.split(',');
      const own = new Set(channelsOf(t.sub).map((c) => c.id));
      const items = ids.flatMap((id) => {
        const v = videos.find((x) => x.id === id && x.uploadStatus !== 'deleted');
        if (!v) return [];
        const mine = own.has(v.channelId);
        // Others see a video only once it is processed and not private.
        if (!mine && (v.uploadStatus !== 'processed' || v.privacyStatus === 'private')) return [];
        if (mine && (p.has('status') || p.has('processingDetails'))) advanceProcessing(v);
        return [videoResource(v, p)];
      });
      return { kind: 'youtube#videoListResponse', etag: etag(), items, pageInfo: { totalResults: items.length, resultsPerPage: items.length } };
    });

    // ---- Data API: playlist items (the channel's uploads playlist, newest first)
    app.get('/youtube/v3/playlistItems', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, READ_SCOPES);
      if (!t) return;
      const p = parts(req.query, reply);
      if (!p) return;
      const q = req.query;
      if (!q.playlistId) return send(reply, 400, 'missingRequiredParameter', 'No filter selected. Expected one of: id, playlistId', { domain: 'youtube.parameter' });
      const channel = [...channels.values()].find((c) => uploadsPlaylist(c.id) === q.playlistId);
      if (!channel) return send(reply, 404, 'playlistNotFound', 'The playlist identified with the request\'s <code>playlistId</code> parameter cannot be found.', { domain: 'youtube.playlistItem', location: 'playlistId' });
      const mine = channel.owner === t.sub;
      const list = videos
        .filter((v) => v.channelId === channel.id && v.uploadStatus !== 'deleted' && (mine || (v.privacyStatus !== 'private' && v.uploadStatus === 'processed')))
        .sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
      const max = Math.min(50, Math.max(0, Number(q.maxResults ?? 5)));
      const start = Number(q.pageToken ? Buffer.from(q.pageToken, 'base64url').toString() : 0) || 0;
      const page = list.slice(start, start + max);
      return {
        kind: 'youtube#playlistItemListResponse',
        etag: etag(),
        ...(start + max < list.length ? { nextPageToken: Buffer.from(String(start + max)).toString('base64url') } : {}),
        pageInfo: { totalResults: list.length, resultsPerPage: max },
        items: page.map((v, i) => ({
          kind: 'youtube#playlistItem',
          etag: etag(),
          id: rand(30),
          ...(p.has('snippet')
            ? {
                snippet: {
                  publishedAt: v.publishedAt,
                  channelId: v.channelId,
                  title: v.title,
                  description: v.description,
                  thumbnails: thumbnails(`https://i.ytimg.com/vi/${v.id}`),
                  channelTitle: channel.title,
                  playlistId: q.playlistId,
                  position: start + i,
                  resourceId: { kind: 'youtube#video', videoId: v.id },
                  videoOwnerChannelTitle: channel.title,
                  videoOwnerChannelId: channel.id,
                },
              }
            : {}),
          ...(p.has('contentDetails') ? { contentDetails: { videoId: v.id, videoPublishedAt: v.publishedAt } } : {}),
        })),
      };
    });

    // ---- Data API: comment threads
    app.post('/youtube/v3/commentThreads', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, COMMENT_SCOPES);
      if (!t) return;
      if (!parts(req.query, reply)) return;
      const b = (req.body ?? {}) as { snippet?: { videoId?: unknown; topLevelComment?: { snippet?: { textOriginal?: unknown } } } };
      const videoId = b.snippet?.videoId;
      const text = b.snippet?.topLevelComment?.snippet?.textOriginal;
      if (typeof videoId !== 'string' || !videoId) return send(reply, 400, 'invalidCommentMetadata', 'The request metadata is invalid.', { domain: 'youtube.commentThread', location: 'body.snippet.videoId' });
      if (typeof text !== 'string' || text.trim() === '') {
        return send(reply, 400, 'commentTextRequired', 'The comment resource that is being inserted must specify a value for the snippet.topLevelComment.snippet.textOriginal property.', {
          domain: 'youtube.commentThread',
          location: 'body.snippet.topLevelComment.snippet.textOriginal',
        });
      }
      if (text.length > 10_000) return send(reply, 400, 'commentTextTooLong', 'The comment resource that is being inserted contains too many characters in the snippet.topLevelComment.snippet.textOriginal property.', { domain: 'youtube.commentThread' });
      const video = videos.find((v) => v.id === videoId && v.uploadStatus !== 'deleted');
      if (!video) return send(reply, 404, 'videoNotFound', 'The video identified by the <code><a href="/youtube/v3/docs/commentThreads/insert#videoId">videoId</a></code> parameter could not be found.', { domain: 'youtube.commentThread', location: 'body.snippet.videoId' });
      if (video.commentsDisabled) return send(reply, 403, 'commentsDisabled', 'The video identified by the <code><a href="/youtube/v3/docs/commentThreads/list#videoId">videoId</a></code> parameter has disabled comments.', { domain: 'youtube.commentThread' });
      const thread: CommentThreadRecord = { id: `Ugz${rand(15).slice(0, 19)}4AaABAg`, videoId, channelId: t.channelId, text, publishedAt: new Date().toISOString() };
      comments.push(thread);
      return threadResource(thread);
    });

    app.get('/youtube/v3/commentThreads', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, READ_SCOPES);
      if (!t) return;
      if (!parts(req.query, reply)) return;
      const q = req.query;
      let list: CommentThreadRecord[];
      if (q.videoId) list = comments.filter((c) => c.videoId === q.videoId);
      else if (q.allThreadsRelatedToChannelId) {
        const ids = new Set(videos.filter((v) => v.channelId === q.allThreadsRelatedToChannelId).map((v) => v.id));
        list = comments.filter((c) => ids.has(c.videoId));
      } else return send(reply, 400, 'missingRequiredParameter', 'No filter selected. Expected one of: allThreadsRelatedToChannelId, channelId, id, videoId', { domain: 'youtube.parameter' });
      list = [...list].sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
      const max = Math.min(100, Math.max(1, Number(q.maxResults ?? 20)));
      return { kind: 'youtube#commentThreadListResponse', etag: etag(), pageInfo: { totalResults: list.length, resultsPerPage: max }, items: list.slice(0, max).map(threadResource) };
    });

    // ---- Upload endpoint: resumable sessions
    app.post('/upload/youtube/v3/videos', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, UPLOAD_SCOPES);
      if (!t) return;
      const q = req.query;
      if (q.uploadType !== 'resumable') return send(reply, 400, 'wrongUrlForUpload', 'Uploads must be sent to the upload URL. Re-send this request to https://www.googleapis.com/upload/youtube/v3/videos');
      if (!parts(q, reply)) return;
      const type = String(req.headers['x-upload-content-type'] ?? 'application/octet-stream');
      if (!/^video\//.test(type) && type !== 'application/octet-stream') {
        return send(reply, 400, 'badContent', `Media type '${type}' is not supported. Valid media types: [video/*, application/octet-stream]`);
      }
      const lengthHeader = req.headers['x-upload-content-length'];
      const total = Number(lengthHeader);
      if (lengthHeader === undefined || !Number.isInteger(total) || total <= 0) {
        return send(reply, 400, 'badRequest', 'X-Upload-Content-Length must give the size of the video in bytes');
      }
      const resource = readVideo(req.body, reply);
      if (!resource) return;
      const today = new Date().toISOString().slice(0, 10);
      if (opts.dailyUploadLimit !== undefined && videos.filter((v) => v.channelId === t.channelId && v.publishedAt.startsWith(today)).length >= opts.dailyUploadLimit) {
        return send(reply, 400, 'uploadLimitExceeded', 'The user has exceeded the number of videos they may upload.', { domain: 'youtube.video' });
      }
      const s: UploadSessionRecord = {
        uploadId: `ADPycd${rand(40)}`,
        sub: t.sub,
        channelId: t.channelId,
        resource,
        notifySubscribers: q.notifySubscribers !== 'false',
        total,
        declaredType: type,
        received: 0,
        hash: createHash('sha256'),
        chunks: [],
        statusQueries: 0,
        expiresAt: Date.now() + (opts.sessionTtlMs ?? 7 * 86_400_000),
        createdAt: Date.now(),
      };
      sessions.set(s.uploadId, s);
      return reply.status(200).header('location', sessionUrl(s)).header('x-guploader-uploadid', s.uploadId).send();
    });

    app.put('/upload/youtube/v3/videos', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const s = req.query.upload_id ? sessions.get(req.query.upload_id) : undefined;
      if (!s || s.expiresAt <= Date.now()) return reply.status(404).type('text/plain').send('Not Found');
      const t = authorize(req, reply, UPLOAD_SCOPES);
      if (!t) return;
      if (t.sub !== s.sub) return send(reply, 403, 'forbidden', 'The request is not properly authorized to upload to this session.');
      const range = String(req.headers['content-range'] ?? '');
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : '');
      const done = () => reply.status(200).send(videoResource(videos.find((v) => v.id === s.videoId)!, new Set(['snippet', 'status'])));
      const incomplete = () => {
        if (s.received > 0) void reply.header('range', `bytes=0-${s.received - 1}`);
        return reply.status(308).header('x-guploader-uploadid', s.uploadId).send();
      };
      const status = /^bytes \*\/(\d+|\*)$/.exec(range);
      if (status) {
        if (body.length > 0) return send(reply, 400, 'badRequest', 'A status query (Content-Range: bytes */N) carries no body');
        if (status[1] !== '*' && Number(status[1]) !== s.total) return send(reply, 400, 'badRequest', `The upload was declared as ${s.total} bytes, not ${status[1]}`);
        s.statusQueries++;
        return s.videoId ? done() : incomplete();
      }
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
      if (!m) return send(reply, 400, 'badRequest', `Invalid Content-Range header: "${range}"`);
      const [first, last, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
      if (s.videoId) return done();
      if (total !== s.total) return send(reply, 400, 'badRequest', `The upload was declared as ${s.total} bytes (X-Upload-Content-Length), not ${total}`);
      if (first !== s.received) return send(reply, 400, 'badRequest', `Content-Range starts at byte ${first}, but the upload has ${s.received} bytes: query the session for the offset`);
      if (last < first || last >= total) return send(reply, 400, 'badRequest', `Invalid Content-Range bytes ${first}-${last}/${total}`);
      if (body.length !== last - first + 1) return send(reply, 400, 'badRequest', `Content-Range announces ${last - first + 1} bytes but the request carries ${body.length}`);
      const final = last + 1 === total;
      if (!final && body.length % CHUNK_GRANULE !== 0) {
        return send(reply, 400, 'badRequest', `The chunk of ${body.length} bytes is not a multiple of 256 KiB (262144 bytes); only the last chunk may be shorter`);
      }
      let kept = body.length;
      if (opts.keepAtMostBytes !== undefined && kept > opts.keepAtMostBytes) kept = Math.floor(opts.keepAtMostBytes / CHUNK_GRANULE) * CHUNK_GRANULE;
      const cut = interrupt;
      interrupt = undefined;
      if (cut) kept = Math.min(kept, Math.floor(cut.keep / CHUNK_GRANULE) * CHUNK_GRANULE);
      s.hash.update(body.subarray(0, kept));
      s.received += kept;
      s.chunks.push({ first, last, kept });
      if (s.received === s.total) finishUpload(s);
      if (cut?.mode === 'drop') {
        reply.hijack();
        reply.raw.destroy();
        return;
      }
      if (cut?.mode === '503') return send(reply, 503, 'backendError', 'Backend Error');
      return s.videoId ? done() : incomplete();
    });

    // ---- Upload endpoint: thumbnails
    app.post('/upload/youtube/v3/thumbnails/set', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, UPLOAD_SCOPES);
      if (!t) return;
      const video = req.query.videoId ? videos.find((v) => v.id === req.query.videoId && v.uploadStatus !== 'deleted') : undefined;
      if (!video) return send(reply, 404, 'videoNotFound', 'The video that you are trying to update cannot be found. Check the value of the <code>videoId</code> parameter in the request body to ensure that it is correct.', { domain: 'youtube.thumbnail', location: 'videoId' });
      const channel = channels.get(video.channelId);
      if (!channel || channel.owner !== t.sub) return send(reply, 403, 'forbidden', "The thumbnail can't be set for the specified video. The request might not be properly authorized.", { domain: 'youtube.thumbnail' });
      if (!channel.verified) {
        return send(reply, 403, 'forbidden', "The authenticated user doesn't have permissions to upload and set custom video thumbnails.", { domain: 'youtube.thumbnail' });
      }
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (body.length === 0) return send(reply, 400, 'mediaBodyRequired', 'The request does not include the image content.', { domain: 'youtube.thumbnail' });
      const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (!['image/jpeg', 'image/png', 'application/octet-stream'].includes(type)) {
        return send(reply, 400, 'invalidImage', 'The provided image content is invalid.', { domain: 'youtube.thumbnail' });
      }
      if (body.length > THUMBNAIL_MAX_BYTES) return send(reply, 413, 'mediaTooLarge', 'Media larger than 2097152 bytes is not allowed for this request.', { domain: 'global' });
      video.thumbnail = { sha256: sha256(body), size: body.length, mimeType: type };
      video.thumbnailSets++;
      const base = `https://i.ytimg.com/vi/${video.id}`;
      return { kind: 'youtube#thumbnailSetResponse', etag: etag(), items: [thumbnails(base)] };
    });

    // ---- YouTube Analytics API v2
    app.get('/v2/reports', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, ANALYTICS_SCOPES);
      if (!t) return;
      const q = req.query;
      for (const name of ['ids', 'startDate', 'endDate', 'metrics'] as const) {
        if (!q[name]) return send(reply, 400, 'required', `Required parameter: ${name}`, { location: name });
      }
      const ids = /^channel==(MINE|UC[\w-]+)$/.exec(q.ids!);
      if (!ids) return send(reply, 400, 'invalid', `Invalid value '${q.ids}'. Values must match the following regular expression: '(channel|contentOwner)==[^;]+'`, { location: 'ids' });
      const channelId = ids[1] === 'MINE' ? t.channelId : ids[1]!;
      if (channels.get(channelId)?.owner !== t.sub) return send(reply, 403, 'forbidden', 'Forbidden');
      if (!/^\d{4}-\d{2}-\d{2}$/.test(q.startDate!) || !/^\d{4}-\d{2}-\d{2}$/.test(q.endDate!) || q.startDate! > q.endDate!) {
        return send(reply, 400, 'invalid', 'The query is not supported: the start date must not be after the end date.', { location: 'startDate' });
      }
      const known = ['views', 'estimatedMinutesWatched', 'likes', 'dislikes', 'comments', 'shares', 'subscribersGained', 'subscribersLost', 'averageViewDuration'];
      const metrics = q.metrics!.split(',');
      const unknown = metrics.find((m) => !known.includes(m));
      if (unknown) return send(reply, 400, 'invalid', `Unknown identifier (${unknown}) given in field parameters.metrics.`, { location: 'metrics' });
      if (q.dimensions && q.dimensions !== 'day') return send(reply, 400, 'invalid', `The query is not supported. Check the documentation for the supported combinations of dimensions.`);
      const rows = (daily.get(channelId) ?? [])
        .filter((r) => r.day >= q.startDate! && r.day <= q.endDate!)
        .sort((a, b) => a.day.localeCompare(b.day))
        .map((r) => [r.day, ...metrics.map((m) => Number((r as unknown as Record<string, number | undefined>)[m] ?? 0))]);
      return {
        kind: 'youtubeAnalytics#resultTable',
        columnHeaders: [{ name: 'day', columnType: 'DIMENSION', dataType: 'STRING' }, ...metrics.map((name) => ({ name, columnType: 'METRIC', dataType: 'INTEGER' }))],
        rows,
      };
    });
  });

  const created = new Date(Date.UTC(2020, 0, 1)).toISOString();
  return Object.assign(sim, {
    apps,
    users,
    channels,
    tokens,
    sessions,
    videos,
    comments,
    addApp: (a: GoogleAppRecord) => void apps.set(a.clientId, a),
    addUser: (u: GoogleUserRecord) => void users.set(u.sub, u),
    addChannel(c: Partial<YoutubeChannelRecord> & { id: string; owner: string; title: string }) {
      const record: YoutubeChannelRecord = {
        customUrl: `@${c.title.toLowerCase().replace(/[^a-z0-9]+/g, '')}`,
        picture: `https://yt3.ggpht.com/${c.id}=s88-c-k-c0x00ffffff-no-rj`,
        verified: true,
        subscriberCount: 0,
        viewCount: 0,
        createdAt: created,
        ...c,
      };
      channels.set(record.id, record);
      return record;
    },
    approveAs(sub: string, channelId?: string) {
      approver = { sub, ...(channelId ? { channelId } : {}) };
    },
    expireAccessTokens() {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1000;
    },
    revokeGrants(sub?: string) {
      for (const t of tokens.values()) if (!sub || t.sub === sub) t.revoked = true;
      for (const r of oauth.refreshTokens.values()) if (!sub || r.sub === sub) r.revoked = true;
    },
    expireUploadSessions() {
      for (const s of sessions.values()) s.expiresAt = Date.now() - 1000;
    },
    setNextProcessing(...outcomes: ProcessingOutcome[]) {
      nextOutcomes = outcomes;
    },
    interruptNextChunk(o: { keep: number; mode: 'drop' | '503' }) {
      interrupt = o;
    },
    setQuotaExceeded(exceeded: boolean) {
      quotaExceeded = exceeded;
    },
    setDailyFigures: (channelId: string, rows: DailyFigures[]) => void daily.set(channelId, rows),
    lookup(id: string) {
      const v = videos.find((x) => x.id === id);
      if (v) return { text: v.description, mediaSha256: [v.sha256] };
      const c = comments.find((x) => x.id === id);
      if (c) return { text: c.text, replyTo: c.videoId, mediaSha256: [] };
      return undefined;
    },
    injectKind(kind: InjectedKind) {
      // The first request of a publish: opening an upload session, or a comment.
      const path = /^\/(upload\/youtube\/v3\/videos\?(?!.*upload_id=)|youtube\/v3\/commentThreads\?)/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          // Google answers an expired and a revoked access token alike; the refresh tells them apart.
          return sim.inject({
            path,
            status: 401,
            headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
            body: googleError(401, 'authError', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', {
              location: 'Authorization',
              locationType: 'header',
            }),
          });
        case 'rate_limited':
          return sim.inject({ path, status: 403, body: googleError(403, 'quotaExceeded', QUOTA_MESSAGE, { domain: 'youtube.quota' }) });
        case 'server_error':
          return sim.inject({ path, status: 503, body: googleError(503, 'backendError', 'Backend Error') });
        case 'rejected':
          return sim.inject({ path, status: 400, body: googleError(400, 'uploadLimitExceeded', 'The user has exceeded the number of videos they may upload.', { domain: 'youtube.video' }) });
        case 'error_in_200':
          // Google never reports errors under HTTP 200.
          return;
      }
    },
  });
}
