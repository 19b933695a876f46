import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import { createOAuth2Simulator, type OAuth2AppRecord, type OAuth2Failure, type OAuth2TokenRecord, type OAuth2Controls } from '../common/oauth2.simulator.js';
import { fixedWindowCounter } from '../common/rate-limit.simulator.js';

/**
 * A simulator of Pinterest's API v5. One server stands for three hosts (map them all to it):
 * `https://www.pinterest.com` (the authorisation page `/oauth/`), `https://api.pinterest.com`
 * (`/v5/…`, the token endpoint included) and the S3 bucket videos are uploaded to.
 *
 * Faithful parts: the token endpoint wants the client in HTTP Basic, checks the code (single use,
 * ten minutes, same redirect URI) and hands out 30-day access tokens with continuous refresh
 * tokens (each refresh returns a new one and retires the old). Errors are `{ code, message }`:
 * 401 code 2 "Authentication failed." for a missing, expired or revoked token, 429 code 8 with
 * `x-ratelimit-*` headers, 400 code 1 for invalid parameters (with Pinterest's JSON-schema
 * wording, e.g. "constraint: maxItems=5"); every API answer carries the rate-limit headers.
 * Scopes are checked per endpoint. Pins take `image_base64` (JPEG/PNG only, the bytes checked),
 * `image_url` (the simulator FETCHES the URL, through `mediaOrigins`, and hashes what it gets),
 * `multiple_image_base64`/`multiple_image_urls` (2–5 items) and `video_id` (a registered upload
 * that has finished processing, and a cover: base64, URL or key frame). Videos are registered
 * (`POST /v5/media`), uploaded as an S3 presigned POST (every policy field before the file, the
 * policy's expiry and size range enforced, 204 on success), then processed for a configurable
 * number of status reads (`registered → processing → succeeded`, or `failed`, also when the bytes
 * are not a video). Lists (boards, pins, a board's pins) are newest first and paginated with an
 * opaque `bookmark`. Records keep the sha256 of every byte received.
 */

export const PINTEREST_WWW_ORIGIN = 'https://www.pinterest.com';
export const PINTEREST_API_ORIGIN = 'https://api.pinterest.com';
export const PINTEREST_UPLOAD_ORIGIN = 'https://pinterest-media-upload.s3-accelerate.amazonaws.com';

const ACCESS_SECONDS = 30 * 24 * 3600;
/** Continuous refresh tokens: 60 days, renewed by every refresh. */
const REFRESH_SECONDS = 60 * 24 * 3600;
const CODE_MS = 10 * 60_000;
const BASE64_TYPES = ['image/jpeg', 'image/png'];

export type PinterestAppRecord = OAuth2AppRecord;

export interface PinterestUserRecord {
  id: string;
  username: string;
  business_name?: string;
  profile_image?: string;
  account_type?: 'BUSINESS' | 'PINNER';
}

export interface PinterestBoardRecord {
  id: string;
  name: string;
  owner: string;
  privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET';
  createdAt: number;
}

type TokenRecord = OAuth2TokenRecord<string>;

export interface PinterestMediaRecord {
  id: string;
  userId: string;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  key: string;
  policy: string;
  signature: string;
  policyExpiresAt: number;
  pollsLeft: number;
  failOnProcessing: boolean;
  /** the bytes the bucket received */
  sha256?: string;
  size?: number;
  uploads: number;
}

/** Where a pin's picture came from. */
export interface PinterestImageRecord {
  source: 'base64' | 'url';
  sha256: string;
  size: number;
  contentType: string;
  url?: string;
}

export interface PinterestPinRecord {
  id: string;
  userId: string;
  boardId: string;
  title: string | null;
  description: string | null;
  link: string | null;
  altText: string | null;
  dominantColor: string | null;
  sourceType: string;
  images: PinterestImageRecord[];
  /** video pins */
  mediaId?: string;
  videoSha256?: string;
  cover?: PinterestImageRecord | { source: 'key_frame'; seconds: number };
  createdAt: number;
}

export interface DailyRow {
  date: string;
  metrics: Record<string, number>;
}

export interface PinterestSimulatorOptions {
  /** public origin of pulled media → where it is really served (`{ 'https://tidings.example': 'http://127.0.0.1:PORT' }`) */
  mediaOrigins?: Record<string, string>;
  /** status reads that answer `processing` after a video is uploaded (default 1) */
  videoPollsUntilReady?: number;
  /** lifetime of an upload's signed policy (default one hour) */
  uploadPolicySeconds?: number;
  /** largest page a list answers (Pinterest: 250) */
  maxPageSize?: number;
  /** requests per user per minute before 429 (default 1000) */
  rateLimitPerMinute?: number;
  /** Pinterest's description limit (500) */
  descriptionMax?: number;
}

export interface PinterestSimulator extends Simulator, OAuth2Controls<string> {
  users: Map<string, PinterestUserRecord>;
  boards: PinterestBoardRecord[];
  media: Map<string, PinterestMediaRecord>;
  pins: PinterestPinRecord[];
  addUser(user: PinterestUserRecord): void;
  addBoard(board: { id?: string; name: string; owner: string; privacy?: PinterestBoardRecord['privacy'] }): PinterestBoardRecord;
  /** the next video uploads fail processing (status `failed`) */
  failVideoProcessing(fail?: boolean): void;
  /** a pin creation is answered this long after it arrived (crash tests) */
  delayPinCreation(ms: number): void;
  setAccountAnalytics(userId: string, rows: DailyRow[]): void;
  setPinAnalytics(pinId: string, rows: DailyRow[]): void;
  /** a pin by id, as the contract suite reads it: its description and the sha256 of its media (a video's cover after the video) */
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const secret = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '');
const isDate = (s: unknown): s is string => typeof s === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));

/** The kind of picture the bytes are, by their first bytes. */
function pictureType(b: Buffer): string | undefined {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

export async function startPinterestSimulator(opts: PinterestSimulatorOptions = {}): Promise<PinterestSimulator> {
  const mode = currentSimulatorMode();
  const users = new Map<string, PinterestUserRecord>();
  const boards: PinterestBoardRecord[] = [];
  const media = new Map<string, PinterestMediaRecord>();
  const pins: PinterestPinRecord[] = [];
  const accountDaily = new Map<string, DailyRow[]>();
  const pinDaily = new Map<string, DailyRow[]>();
  const calls = fixedWindowCounter<string>();
  const maxPage = opts.maxPageSize ?? 250;
  const perMinute = opts.rateLimitPerMinute ?? 1000;
  const descriptionMax = opts.descriptionMax ?? 500;
  let approver: string | undefined;
  let failProcessing = false;
  let pinDelayMs = 0;
  let seq = 0;
  const nextId = (base: bigint) => (base + BigInt(++seq)).toString();

  const fail = (reply: FastifyReply, status: number, code: number, message: string) => reply.status(status).send({ code, message });
  const invalid = (reply: FastifyReply, message: string) => fail(reply, 400, 1, message);

  // OAuth: the authorisation page (www.pinterest.com) answers an HTML page for a bad client or
  // redirect URI and redirects back with `error` otherwise; the token endpoint (api.pinterest.com)
  // wants the client in HTTP Basic. Continuous refresh: the old refresh token is retired, a new one
  // (60 days) comes back; the answer says which grant it was (`response_type`).
  const page = (reply: FastifyReply, text: string) => reply.status(400).type('text/html').send(`<p>${text}</p>`);
  // (No state, PKCE or scope check: those answers are never sent.)
  const OAUTH_FAILURES: Record<Exclude<OAuth2Failure, 'bad_response_type' | 'unsupported_grant'>, (reply: FastifyReply) => FastifyReply> = {
    unknown_client: (r) => page(r, 'Something went wrong: invalid client_id'),
    bad_redirect_uri: (r) => page(r, "Something went wrong: the redirect_uri does not match the app's redirect URIs"),
    missing_state: (r) => page(r, 'Something went wrong: state is required'),
    missing_pkce: (r) => page(r, 'Something went wrong: code_challenge is required'),
    bad_scope: (r) => page(r, 'Something went wrong: invalid scope'),
    no_user: (r) => page(r, 'No user is signed in'),
    not_form: (r) => invalid(r, 'Invalid parameters: the body must be application/x-www-form-urlencoded'),
    token_unknown_client: (r) => fail(r, 401, 2, 'Authentication failed.'),
    wrong_secret: (r) => fail(r, 401, 2, 'Authentication failed.'),
    bad_code: (r) => invalid(r, 'Invalid parameters: the authorization code is invalid, expired or already used'),
    code_redirect_mismatch: (r) => invalid(r, 'Invalid parameters: redirect_uri does not match the one of the authorization request'),
    bad_verifier: (r) => invalid(r, 'Invalid parameters: the code_verifier is invalid'),
    bad_refresh_token: (r) => invalid(r, 'Invalid parameters: the refresh token is invalid or expired'),
  };
  const oauth = createOAuth2Simulator<string>({
    paths: { authorize: '/oauth/', token: '/v5/oauth/token' },
    accessSeconds: ACCESS_SECONDS,
    refreshSeconds: REFRESH_SECONDS,
    codeMs: CODE_MS,
    accessToken: () => secret('pina_'),
    refreshToken: () => secret('pinr_'),
    code: () => secret(''),
    pkce: false,
    requireState: false,
    redirectScope: false,
    rotateRefreshTokens: true,
    clientAuth: 'basic',
    scopeSeparator: ',',
    approver: () => approver ?? users.keys().next().value,
    tokenBody: ({ access, refresh, grant }) => ({
      access_token: access.token,
      refresh_token: refresh.token,
      token_type: 'bearer',
      expires_in: ACCESS_SECONDS,
      refresh_token_expires_in: REFRESH_SECONDS,
      scope: access.scopes.join(','),
      response_type: grant,
    }),
    fail: (reply, failure, req) => {
      if (failure === 'unsupported_grant') {
        const grant = (req.body as Record<string, unknown> | undefined)?.grant_type;
        return invalid(reply, `Invalid parameters: grant_type '${String(grant)}' is not one of ['authorization_code', 'refresh_token', 'client_credentials']`);
      }
      if (failure !== 'bad_response_type') return OAUTH_FAILURES[failure](reply);
      const back = new URL(req.query.redirect_uri!);
      if (req.query.state) back.searchParams.set('state', req.query.state);
      back.searchParams.set('error', 'unsupported_response_type');
      return reply.redirect(back.toString(), 302);
    },
  });

  /** The bearer token's record when valid and holding every scope in `need`, else the 401/403 already sent. */
  function authorize(req: FastifyRequest, reply: FastifyReply, need: string[]): TokenRecord | undefined {
    const t = oauth.bearer(req);
    if (!t) return void fail(reply, 401, 2, 'Authentication failed.');
    const missing = need.filter((s) => !t.scopes.includes(s));
    if (missing.length > 0) return void fail(reply, 403, 3, `Your application does not have the required scope(s): ${missing.join(', ')}`);
    // Rate limit per user and minute, with the headers Pinterest sends on every answer.
    const now = Date.now();
    const window = calls.hit(t.userId, now);
    const reset = Math.max(1, Math.ceil((calls.endOf(window) - now) / 1000));
    void reply.headers({ 'x-ratelimit-limit': String(perMinute), 'x-ratelimit-remaining': String(Math.max(0, perMinute - window.count)), 'x-ratelimit-reset': String(reset) });
    if (window.count > perMinute) return void fail(reply, 429, 8, 'You have exceeded your rate limit. Try again later.');
    return t;
  }

  /** `page_size` and `bookmark` of a list request, or the 400 already sent. */
  function paging(req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply): { size: number; offset: number } | undefined {
    const size = req.query.page_size === undefined ? 25 : Number(req.query.page_size);
    if (!Number.isInteger(size) || size < 1 || size > 250) return void invalid(reply, `Invalid parameters: page_size ${req.query.page_size} is not between 1 and 250`);
    let offset = 0;
    if (req.query.bookmark) {
      const m = /^o:(\d+)$/.exec(Buffer.from(req.query.bookmark, 'base64url').toString('utf8'));
      if (!m) return void invalid(reply, 'Invalid parameters: bookmark is not valid');
      offset = Number(m[1]);
    }
    return { size: Math.min(size, maxPage), offset };
  }

  function pageOf<T>(all: T[], p: { size: number; offset: number }) {
    const items = all.slice(p.offset, p.offset + p.size);
    const next = p.offset + p.size < all.length ? Buffer.from(`o:${p.offset + p.size}`).toString('base64url') : null;
    return { items, bookmark: next };
  }

  const ownerOf = (u: string) => users.get(u)?.username ?? u;

  function pinView(p: PinterestPinRecord) {
    const video = p.sourceType === 'video_id';
    const carousel = p.sourceType.startsWith('multiple_');
    return {
      id: p.id,
      created_at: iso(p.createdAt),
      link: p.link,
      title: p.title,
      description: p.description,
      dominant_color: p.dominantColor,
      alt_text: p.altText,
      creative_type: video ? 'VIDEO' : carousel ? 'CAROUSEL' : 'REGULAR',
      board_id: p.boardId,
      board_section_id: null,
      board_owner: { username: ownerOf(p.userId) },
      is_owner: true,
      is_standard: true,
      has_been_promoted: false,
      parent_pin_id: null,
      note: null,
      pin_metrics: null,
      media: video
        ? { media_type: 'video', cover_image_url: `https://i.pinimg.com/videos/thumbnails/originals/${p.id}.jpg`, video_url: null, duration: 2000, height: 720, width: 1280 }
        : carousel
          ? { media_type: 'multiple_images', items: p.images.map((_, i) => ({ title: p.title, images: { '600x': { url: `https://i.pinimg.com/600x/${p.id}-${i}.jpg`, width: 600, height: 600 } } })) }
          : { media_type: 'image', images: { '600x': { url: `https://i.pinimg.com/600x/${p.id}.jpg`, width: 600, height: 600 } } },
    };
  }

  /** Fetches a pulled picture through `mediaOrigins`, as Pinterest's crawler would fetch the public URL. */
  async function pull(url: string): Promise<{ ok: true; image: PinterestImageRecord } | { ok: false; message: string }> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { ok: false, message: `Invalid parameters: "${url}" is not a valid URL` };
    }
    if (target.protocol !== 'https:') return { ok: false, message: `Invalid parameters: the image URL must be https: ${url}` };
    let res: Response;
    try {
      res = await mediaFetch(mode, opts.mediaOrigins, url, { signal: AbortSignal.timeout(10_000) });
    } catch {
      return { ok: false, message: `Unable to reach the URL: ${url}` };
    }
    if (!res.ok) return { ok: false, message: `Unable to reach the URL: ${url} (HTTP ${res.status})` };
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = pictureType(bytes);
    if (!type) return { ok: false, message: `Invalid parameters: the URL does not point to an image: ${url}` };
    return { ok: true, image: { source: 'url', url, sha256: sha256(bytes), size: bytes.length, contentType: type } };
  }

  /** A base64 picture checked as Pinterest checks it, or the message of its refusal. */
  function fromBase64(contentType: unknown, data: unknown, at: string): { ok: true; image: PinterestImageRecord } | { ok: false; message: string } {
    if (!BASE64_TYPES.includes(String(contentType))) return { ok: false, message: `Invalid parameters: '${String(contentType)}' is not one of ['image/jpeg', 'image/png'] - '${at}.content_type'` };
    if (typeof data !== 'string' || data === '' || !/^[A-Za-z0-9+/=]+$/.test(data)) return { ok: false, message: `Invalid parameters: '${at}.data' does not match '^[a-zA-Z0-9+/=]+$'` };
    const bytes = Buffer.from(data, 'base64');
    if (pictureType(bytes) !== contentType) return { ok: false, message: `The image data is not a valid ${String(contentType)} image (${at})` };
    if (bytes.length > 20 * 1024 * 1024) return { ok: false, message: `Image is too large: ${bytes.length} bytes (${at})` };
    return { ok: true, image: { source: 'base64', sha256: sha256(bytes), size: bytes.length, contentType: String(contentType) } };
  }

  function series(rows: DailyRow[] | undefined, start: string, end: string, metricTypes: string[] | undefined) {
    const byDate = new Map((rows ?? []).map((r) => [r.date, r.metrics]));
    const daily = [];
    for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += 86_400_000) {
      const date = new Date(t).toISOString().slice(0, 10);
      const all = byDate.get(date) ?? {};
      const keys = metricTypes ?? Object.keys(all);
      daily.push({ date, data_status: 'READY', metrics: Object.fromEntries(keys.map((k) => [k, all[k] ?? 0])) });
    }
    const summary: Record<string, number> = {};
    for (const d of daily) for (const [k, v] of Object.entries(d.metrics)) summary[k] = (summary[k] ?? 0) + v;
    return { daily_metrics: daily, summary_metrics: summary };
  }

  /** `start_date`/`end_date` as Pinterest takes them (at most 90 days back), or the 400 already sent. */
  function dateRange(req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply): { start: string; end: string } | undefined {
    const { start_date: start, end_date: end } = req.query;
    if (!isDate(start) || !isDate(end)) return void invalid(reply, 'Invalid parameters: start_date and end_date are required (YYYY-MM-DD)');
    if (start > end) return void invalid(reply, 'Invalid parameters: start_date must be before end_date');
    const oldest = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 89 * 86_400_000).toISOString().slice(0, 10);
    if (start < oldest) return void invalid(reply, 'Invalid parameters: start_date cannot be more than 90 days back from today');
    return { start, end };
  }

  const sim = await startSimulator((app) => {
    oauth.register(app);

    // ---- The account
    app.get('/v5/user_account', async (req, reply) => {
      const t = authorize(req, reply, ['user_accounts:read']);
      if (!t) return reply;
      const u = users.get(t.userId)!;
      return {
        account_type: u.account_type ?? 'BUSINESS',
        id: u.id,
        username: u.username,
        business_name: u.business_name ?? null,
        profile_image: u.profile_image ?? `https://i.pinimg.com/600x600_R/${u.id}.jpg`,
        website_url: null,
        about: '',
        board_count: boards.filter((x) => x.owner === u.id).length,
        pin_count: pins.filter((p) => p.userId === u.id).length,
        follower_count: 0,
        following_count: 0,
        monthly_views: 0,
      };
    });

    app.get('/v5/user_account/analytics', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, ['user_accounts:read']);
      if (!t) return reply;
      const range = dateRange(req, reply);
      if (!range) return reply;
      const metricTypes = req.query.metric_types?.split(',').filter(Boolean);
      return { all: series(accountDaily.get(t.userId), range.start, range.end, metricTypes) };
    });

    // ---- Boards
    app.get('/v5/boards', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, ['boards:read']);
      if (!t) return reply;
      const p = paging(req, reply);
      if (!p) return reply;
      const mine = boards.filter((b) => b.owner === t.userId && b.privacy !== 'SECRET').sort((a, b) => b.createdAt - a.createdAt);
      const page = pageOf(mine, p);
      return { items: page.items.map((b) => ({ id: b.id, name: b.name, description: '', privacy: b.privacy, owner: { username: ownerOf(b.owner) }, pin_count: pins.filter((x) => x.boardId === b.id).length })), bookmark: page.bookmark };
    });

    app.get('/v5/boards/:board/pins', async (req: FastifyRequest<{ Params: { board: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, ['boards:read', 'pins:read']);
      if (!t) return reply;
      const board = boards.find((b) => b.id === req.params.board && b.owner === t.userId);
      if (!board) return fail(reply, 404, 404, 'Board not found.');
      const p = paging(req, reply);
      if (!p) return reply;
      const list = pins.filter((x) => x.boardId === board.id).sort((a, b) => b.createdAt - a.createdAt || Number(BigInt(b.id) - BigInt(a.id)));
      const page = pageOf(list, p);
      return { items: page.items.map(pinView), bookmark: page.bookmark };
    });

    // ---- Pins
    app.get('/v5/pins', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, ['pins:read']);
      if (!t) return reply;
      const p = paging(req, reply);
      if (!p) return reply;
      const filter = req.query.pin_filter;
      if (filter !== undefined && !['exclude_native', 'exclude_repins', 'has_been_promoted'].includes(filter)) {
        return invalid(reply, `Invalid parameters: '${filter}' is not one of ['exclude_native', 'exclude_repins', 'has_been_promoted'] - 'pin_filter'`);
      }
      const list = pins.filter((x) => x.userId === t.userId).sort((a, b) => b.createdAt - a.createdAt || Number(BigInt(b.id) - BigInt(a.id)));
      const page = pageOf(list, p);
      return { items: page.items.map(pinView), bookmark: page.bookmark };
    });

    app.get('/v5/pins/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply, ['pins:read']);
      if (!t) return reply;
      const p = pins.find((x) => x.id === req.params.id);
      if (!p) return fail(reply, 404, 404, 'Pin not found.');
      return pinView(p);
    });

    app.get('/v5/pins/:id/analytics', async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, ['pins:read']);
      if (!t) return reply;
      const p = pins.find((x) => x.id === req.params.id && x.userId === t.userId);
      if (!p) return fail(reply, 404, 404, 'Pin not found.');
      const range = dateRange(req, reply);
      if (!range) return reply;
      const metricTypes = req.query.metric_types?.split(',').filter(Boolean);
      if (!metricTypes?.length) return invalid(reply, "Invalid parameters: 'metric_types' is a required property");
      const s = series(pinDaily.get(p.id), range.start, range.end, metricTypes);
      return { all: { ...s, lifetime_metrics: s.summary_metrics } };
    });

    app.post('/v5/pins', async (req: FastifyRequest<{ Body: Record<string, unknown> | undefined }>, reply) => {
      const t = authorize(req, reply, ['boards:read', 'pins:read', 'pins:write']);
      if (!t) return reply;
      if (pinDelayMs > 0) await new Promise((r) => setTimeout(r, pinDelayMs));
      const b = req.body ?? {};
      if (typeof b.board_id !== 'string' || b.board_id === '') return invalid(reply, "Invalid parameters: 'board_id' is a required property");
      if (!/^\d+$/.test(b.board_id)) return invalid(reply, `Invalid parameters: '${b.board_id}' does not match '^\\d+$' - 'board_id'`);
      const board = boards.find((x) => x.id === b.board_id);
      if (!board || board.owner !== t.userId) return fail(reply, 404, 404, 'Board not found.');
      const text = (k: string) => (typeof b[k] === 'string' ? (b[k]) : null);
      const limits: [string, number][] = [['title', 100], ['description', descriptionMax], ['link', 2048], ['alt_text', 500]];
      for (const [k, max] of limits) {
        const v = text(k);
        if (v !== null && v.length > max) return invalid(reply, `Invalid parameters: '${k}' is too long (${v.length} > ${max})`);
      }
      const link = text('link');
      if (link !== null && !/^https?:\/\//.test(link)) return invalid(reply, `Invalid parameters: '${link}' is not a valid URL - 'link'`);
      const ms = b.media_source as Record<string, unknown> | undefined;
      if (!ms || typeof ms !== 'object') return invalid(reply, "Invalid parameters: 'media_source' is a required property");
      const sourceType = String(ms.source_type);
      const images: PinterestImageRecord[] = [];
      const pin: Partial<PinterestPinRecord> = {};
      switch (sourceType) {
        case 'image_base64': {
          const r = fromBase64(ms.content_type, ms.data, 'media_source');
          if (!r.ok) return invalid(reply, r.message);
          images.push(r.image);
          break;
        }
        case 'image_url': {
          if (typeof ms.url !== 'string') return invalid(reply, "Invalid parameters: 'url' is a required property - 'media_source'");
          const r = await pull(ms.url);
          if (!r.ok) return invalid(reply, r.message);
          images.push(r.image);
          break;
        }
        case 'multiple_image_base64':
        case 'multiple_image_urls': {
          const items = Array.isArray(ms.items) ? (ms.items as Record<string, unknown>[]) : undefined;
          if (!items) return invalid(reply, "Invalid parameters: 'items' is a required property - 'media_source'");
          if (items.length < 2) return invalid(reply, `Invalid parameters: ${items.length} items is too short - 'media_source.items' (constraint: minItems=2)`);
          if (items.length > 5) return invalid(reply, `Invalid parameters: ${items.length} items is too long - 'media_source.items' (constraint: maxItems=5)`);
          for (const [i, item] of items.entries()) {
            const r = sourceType === 'multiple_image_base64' ? fromBase64(item.content_type, item.data, `media_source.items.${i}`) : await pull(String(item.url));
            if (!r.ok) return invalid(reply, r.message);
            images.push(r.image);
          }
          break;
        }
        case 'video_id': {
          const m = typeof ms.media_id === 'string' ? media.get(ms.media_id) : undefined;
          if (!m || m.userId !== t.userId) return invalid(reply, `Invalid parameters: media ${String(ms.media_id)} not found`);
          if (m.status !== 'succeeded') return invalid(reply, `Invalid parameters: media ${m.id} is not ready (status ${m.status})`);
          if (typeof ms.cover_image_url === 'string') {
            const r = await pull(ms.cover_image_url);
            if (!r.ok) return invalid(reply, r.message);
            pin.cover = r.image;
          } else if (ms.cover_image_content_type !== undefined || ms.cover_image_data !== undefined) {
            const r = fromBase64(ms.cover_image_content_type, ms.cover_image_data, 'media_source.cover_image');
            if (!r.ok) return invalid(reply, r.message);
            pin.cover = r.image;
          } else if (typeof ms.cover_image_key_frame_time === 'number') {
            pin.cover = { source: 'key_frame', seconds: ms.cover_image_key_frame_time };
          } else {
            return invalid(reply, 'Invalid parameters: cover_image_url or cover_image_content_type and cover_image_data, or cover_image_key_frame_time, is required for a video Pin');
          }
          pin.mediaId = m.id;
          pin.videoSha256 = m.sha256;
          break;
        }
        default:
          return invalid(reply, `Invalid parameters: '${sourceType}' is not one of ['image_base64', 'image_url', 'multiple_image_base64', 'multiple_image_urls', 'pin_url', 'video_id'] - 'media_source.source_type'`);
      }
      const record: PinterestPinRecord = {
        id: nextId(1_125_968_647_761_500_000n),
        userId: t.userId,
        boardId: board.id,
        title: text('title'),
        description: text('description'),
        link,
        altText: text('alt_text'),
        dominantColor: text('dominant_color'),
        sourceType,
        images,
        ...pin,
        createdAt: Date.now(),
      };
      pins.push(record);
      return reply.status(201).send(pinView(record));
    });

    // ---- Video uploads
    app.post('/v5/media', async (req: FastifyRequest<{ Body: Record<string, unknown> | undefined }>, reply) => {
      const t = authorize(req, reply, ['pins:read', 'pins:write']);
      if (!t) return reply;
      if (req.body?.media_type !== 'video') return invalid(reply, `Invalid parameters: '${String(req.body?.media_type)}' is not one of ['video'] - 'media_type'`);
      const id = nextId(5_125_968_647_761_500_000n);
      const key = `uploads/${randomBytes(2).toString('hex')}/${randomBytes(2).toString('hex')}/${id}.mp4`;
      const expiresAt = Date.now() + (opts.uploadPolicySeconds ?? 3600) * 1000;
      const policy = Buffer.from(
        JSON.stringify({ expiration: new Date(expiresAt).toISOString(), conditions: [{ bucket: 'pinterest-media-upload' }, { key }, ['content-length-range', 1, 2 * 1024 ** 3]] }),
      ).toString('base64');
      const signature = randomBytes(32).toString('hex');
      const record: PinterestMediaRecord = { id, userId: t.userId, status: 'registered', key, policy, signature, policyExpiresAt: expiresAt, pollsLeft: opts.videoPollsUntilReady ?? 1, failOnProcessing: failProcessing, uploads: 0 };
      media.set(id, record);
      return reply.status(201).send({
        media_id: id,
        media_type: 'video',
        upload_url: `${PINTEREST_UPLOAD_ORIGIN}/`,
        upload_parameters: {
          'x-amz-date': '20260101T000000Z',
          'x-amz-signature': signature,
          'x-amz-security-token': 'IQoJb3JpZ2luX2VjEXAMPLE',
          'x-amz-algorithm': 'AWS4-HMAC-SHA256',
          key,
          policy,
          'x-amz-credential': 'ASIAEXAMPLE/20260101/us-east-1/s3/aws4_request',
          'Content-Type': 'multipart/form-data',
        },
      });
    });

    app.get('/v5/media/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply, ['pins:read']);
      if (!t) return reply;
      const m = media.get(req.params.id);
      if (!m || m.userId !== t.userId) return fail(reply, 404, 404, 'Media upload not found.');
      if (m.status === 'processing') {
        if (m.pollsLeft <= 0) m.status = m.failOnProcessing ? 'failed' : 'succeeded';
        else m.pollsLeft--;
      }
      return { media_id: m.id, media_type: 'video', status: m.status };
    });

    // ---- The S3 bucket (its own host, mapped here): a presigned POST form upload.
    app.post('/', async (req, reply) => {
      const s3Error = (status: number, code: string, message: string) =>
        reply.status(status).type('application/xml').send(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`);
      if (!req.isMultipart()) return s3Error(412, 'PreconditionFailed', 'Bucket POST must be of the enclosure-type multipart/form-data');
      const fields: Record<string, string> = {};
      let file: { sha256: string; size: number; head: Buffer } | undefined;
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file') {
            for await (const _ of part.file) void _;
            return s3Error(400, 'InvalidArgument', `POST requires the file in a field named 'file', not '${part.fieldname}'.`);
          }
          const hash = createHash('sha256');
          let size = 0;
          const head: Buffer[] = [];
          for await (const chunk of part.file) {
            hash.update(chunk as Buffer);
            if (size < 16) head.push(chunk as Buffer);
            size += (chunk as Buffer).length;
          }
          file = { sha256: hash.digest('hex'), size, head: Buffer.concat(head).subarray(0, 16) };
        } else if (!file) {
          // S3 ignores the fields that come after the file.
          fields[part.fieldname] = String(part.value);
        }
      }
      if (!file) return s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
      for (const name of ['key', 'policy', 'x-amz-signature', 'x-amz-algorithm', 'x-amz-credential', 'x-amz-date']) {
        if (!fields[name]) return s3Error(400, 'InvalidArgument', `Bucket POST must contain a field named '${name}'.  If it is specified, please check the order of the fields.`);
      }
      const m = [...media.values()].find((x) => x.key === fields.key);
      if (!m || fields.policy !== m.policy || fields['x-amz-signature'] !== m.signature) return s3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
      if (m.policyExpiresAt <= Date.now()) return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
      if (file.size < 1 || file.size > 2 * 1024 ** 3) return s3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
      m.sha256 = file.sha256;
      m.size = file.size;
      m.uploads++;
      // Pinterest processes what arrived: bytes that are not an MP4/MOV fail.
      if (m.status === 'registered') m.status = 'processing';
      if (file.head.subarray(4, 8).toString('latin1') !== 'ftyp') m.failOnProcessing = true;
      return reply.status(204).send();
    });
  });

  return Object.assign(sim, {
    ...oauth.controls,
    users,
    boards,
    media,
    pins,
    addUser: (u: PinterestUserRecord) => void users.set(u.id, u),
    addBoard(b: { id?: string; name: string; owner: string; privacy?: PinterestBoardRecord['privacy'] }) {
      const board: PinterestBoardRecord = { id: b.id ?? nextId(1_020_276_715_534_500_000n), name: b.name, owner: b.owner, privacy: b.privacy ?? 'PUBLIC', createdAt: Date.now() + boards.length };
      boards.push(board);
      return board;
    },
    approveAs(userId: string) {
      approver = userId;
    },
    failVideoProcessing(f = true) {
      failProcessing = f;
      for (const m of media.values()) if (m.status === 'registered' || m.status === 'processing') m.failOnProcessing = f;
    },
    delayPinCreation(ms: number) {
      pinDelayMs = ms;
    },
    setAccountAnalytics: (userId: string, rows: DailyRow[]) => void accountDaily.set(userId, rows),
    setPinAnalytics: (pinId: string, rows: DailyRow[]) => void pinDaily.set(pinId, rows),
    lookup(id: string) {
      const p = pins.find((x) => x.id === id);
      if (!p) return undefined;
      const shas = p.images.map((i) => i.sha256);
      if (p.videoSha256) shas.push(p.videoSha256);
      if (p.cover && 'sha256' in p.cover) shas.push(p.cover.sha256);
      return { text: p.description ?? '', mediaSha256: shas };
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/v5\/(pins|media)(\?|$)/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          // Pinterest answers both with the same 401; a refused refresh tells them apart.
          return sim.inject({ path, status: 401, body: { code: 2, message: 'Authentication failed.' } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '42' }, body: { code: 8, message: 'You have exceeded your rate limit. Try again later.' } });
        case 'server_error':
          return sim.inject({ path, status: 500, body: { code: 0, message: 'Sorry, something went wrong on our end. Please try again.' } });
        case 'rejected':
          return sim.inject({ path, status: 400, body: { code: 1, message: "Invalid parameters: 'board_id' is a required property" } });
        case 'error_in_200':
          // Pinterest never reports errors under HTTP 200: nothing to inject.
          return;
      }
    },
  });
}
