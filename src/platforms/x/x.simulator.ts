import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import twitterText from 'twitter-text';
import { startSimulator, type InjectedKind, type ReceivedMedia, type Simulator } from '../simulator.js';

/**
 * A simulator of the X API v2 as this adapter uses it, on one origin that stands for both
 * `https://x.com` (the authorisation page) and `https://api.x.com`:
 *
 * - OAuth 2.0 authorisation code with PKCE (S256 checked), confidential clients authenticated
 *   with HTTP Basic at `POST /2/oauth2/token`, 2-hour access tokens, refresh tokens only with
 *   `offline.access`, rotated on every refresh (a spent one is refused as X does, 400
 *   `invalid_request`);
 * - `POST /2/tweets` with X's checks: 280 weighted characters (twitter-text; 25,000 for verified
 *   accounts), the same text twice in a row refused as duplicate content, media ids that must
 *   belong to the user and have finished processing, at most 4 images or one video/GIF, replies to
 *   existing posts only, `reply_settings` values;
 * - media upload v2: one-shot images, chunked `initialize`/`append`/`finalize` with the bytes
 *   reassembled by `segment_index`, asynchronous processing of videos and GIFs read back with
 *   `command=STATUS` (pending → in_progress → succeeded after a configurable number of polls, or
 *   failed), alt text through `/2/media/metadata`;
 * - timelines with `start_time`, `max_results` (5–100) and pagination, public metrics of users
 *   and posts, and a missing post reported under HTTP 200 as X's reads do;
 * - X's problem-details error shapes and `x-rate-limit-*` headers (epoch-second reset, no
 *   Retry-After) on every API answer, with a real per-user window on `POST /2/tweets`.
 *
 * Error shapes are X's; the wording of messages for checks X documents only loosely (too long,
 * invalid media ids) is approximate.
 */

export interface XUser {
  id: string;
  name: string;
  username: string;
  verified?: boolean;
  profile_image_url?: string;
  followers?: number;
  following?: number;
}

export interface XTweetRecord {
  id: string;
  authorId: string;
  text: string;
  createdAt: string;
  replyTo?: string;
  mediaKeys: string[];
  mediaSha256: string[];
  altTexts: (string | undefined)[];
  reply_settings?: string;
  community_id?: string;
  made_with_ai?: boolean;
  paid_partnership?: boolean;
  metrics: { impression_count: number; like_count: number; retweet_count: number; reply_count: number; quote_count: number; bookmark_count: number };
}

/** An uploaded media; `sha256`, `size` and `mimeType` describe the bytes received once they are complete. */
export interface MediaRecord extends Partial<ReceivedMedia> {
  id: string;
  key: string;
  userId: string;
  category: string;
  /** `media_type` of initialize; the file part's type for a one-shot upload */
  mediaType: string;
  totalBytes: number;
  segments: Map<number, Buffer>;
  state: 'uploading' | 'pending' | 'in_progress' | 'succeeded' | 'failed';
  pollsLeft: number;
  used: boolean;
  alt?: string;
}

export interface XSimulatorOptions {
  /** STATUS polls before a video/GIF finishes processing (0: ready at finalize) */
  processingPolls?: number;
  /** posts per user per 15-minute window on POST /2/tweets */
  tweetLimit?: number;
}

export interface XSimulator extends Simulator {
  addClient(client: { clientId: string; clientSecret: string }): void;
  addUser(user: XUser): void;
  /** the user who approves the next authorisation (default: the first user added) */
  approveAs(userId: string): void;
  tweets: XTweetRecord[];
  media: Map<string, MediaRecord>;
  /** makes every issued access token expire now */
  expireAccessTokens(): void;
  /** the next finalized video/GIF fails processing */
  failNextProcessing(): void;
  setProcessingPolls(n: number): void;
  setTweetLimit(n: number): void;
  injectKind(kind: InjectedKind): void;
}

const WINDOW_MS = 15 * 60_000;
const ACCESS_TTL_S = 7200;
const REPLY_SETTINGS = ['following', 'mentionedUsers', 'subscribers', 'verified'];

const problem = (reply: FastifyReply, status: number, title: string, detail: string, type = 'about:blank') =>
  reply.status(status).header('content-type', 'application/problem+json').send({ title, type, status, detail });

const invalidRequest = (reply: FastifyReply, message: string, parameters: Record<string, unknown> = {}) =>
  reply.status(400).send({
    errors: [{ parameters, message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  });

const unauthorized = (reply: FastifyReply) => problem(reply, 401, 'Unauthorized', 'Unauthorized');

/** Multipart fields and files, keeping the bytes (chunks are reassembled at finalize) and each file's type. */
async function readParts(req: FastifyRequest): Promise<{ fields: Record<string, string>; files: Record<string, Buffer>; types: Record<string, string> }> {
  const fields: Record<string, string> = {};
  const files: Record<string, Buffer> = {};
  const types: Record<string, string> = {};
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      files[part.fieldname] = await part.toBuffer();
      types[part.fieldname] = part.mimetype;
    } else fields[part.fieldname] = String(part.value);
  }
  return { fields, files, types };
}

export async function startXSimulator(options: XSimulatorOptions = {}): Promise<XSimulator> {
  const clients = new Map<string, string>();
  const users = new Map<string, XUser>();
  let approver: string | undefined;
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; scopes: string[]; userId: string }>();
  const accessTokens = new Map<string, { userId: string; expiresAt: number; scopes: string[] }>();
  const refreshTokens = new Map<string, { userId: string; clientId: string; scopes: string[] }>();
  const tweets: XTweetRecord[] = [];
  const media = new Map<string, MediaRecord>();
  const windows = new Map<string, { start: number; count: number }>();
  let processingPolls = options.processingPolls ?? 2;
  let tweetLimit = options.tweetLimit ?? 200;
  let failProcessing = false;
  // 19-digit snowflake-like ids: too large for a JS number, as X's are (they travel as strings).
  let seq = 1_900_000_000_000_000_000n;
  const nextId = () => String((seq += 7919n));

  /** The user behind a bearer token, or undefined after answering 401. */
  function authenticate(req: FastifyRequest, reply: FastifyReply): string | undefined {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const t = m ? accessTokens.get(m[1]!) : undefined;
    if (!t || t.expiresAt <= Date.now()) {
      void unauthorized(reply);
      return undefined;
    }
    return t.userId;
  }

  function issueTokens(userId: string, clientId: string, scopes: string[]) {
    const access = randomBytes(24).toString('base64url');
    accessTokens.set(access, { userId, expiresAt: Date.now() + ACCESS_TTL_S * 1000, scopes });
    const answer: Record<string, unknown> = { token_type: 'bearer', expires_in: ACCESS_TTL_S, access_token: access, scope: scopes.join(' ') };
    if (scopes.includes('offline.access')) {
      const refresh = randomBytes(24).toString('base64url');
      refreshTokens.set(refresh, { userId, clientId, scopes });
      answer.refresh_token = refresh;
    }
    return answer;
  }

  function rateHeaders(userId: string) {
    const now = Date.now();
    let w = windows.get(userId);
    if (!w || now - w.start >= WINDOW_MS) windows.set(userId, (w = { start: now, count: 0 }));
    return {
      w,
      headers: {
        'x-rate-limit-limit': String(tweetLimit),
        'x-rate-limit-remaining': String(Math.max(0, tweetLimit - w.count)),
        'x-rate-limit-reset': String(Math.ceil((w.start + WINDOW_MS) / 1000)),
      },
    };
  }

  const tweetJson = (t: XTweetRecord, fields: string[]) => ({
    id: t.id,
    text: t.text,
    edit_history_tweet_ids: [t.id],
    ...(fields.includes('created_at') ? { created_at: t.createdAt } : {}),
    ...(fields.includes('attachments') && t.mediaKeys.length > 0 ? { attachments: { media_keys: t.mediaKeys } } : {}),
    ...(fields.includes('public_metrics') ? { public_metrics: t.metrics } : {}),
  });

  const sim = await startSimulator((app) => {
    // Read endpoints carry the rate-limit headers too (generous fixed figures).
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.url.startsWith('/2/') && !req.url.startsWith('/2/oauth2') && !reply.hasHeader('x-rate-limit-limit')) {
        reply.header('x-rate-limit-limit', '900').header('x-rate-limit-remaining', '899').header('x-rate-limit-reset', String(Math.ceil((Date.now() + WINDOW_MS) / 1000)));
      }
      return payload;
    });

    app.get('/i/oauth2/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      const q = req.query;
      if (q.response_type !== 'code' || !q.client_id || !clients.has(q.client_id) || !q.redirect_uri || !q.state) {
        return reply.status(400).send('Something went wrong: the authorisation request is invalid');
      }
      if (!q.code_challenge || q.code_challenge_method !== 'S256') return reply.status(400).send('Something went wrong: PKCE S256 is required');
      const userId = approver ?? users.keys().next().value;
      if (!userId) return reply.status(500).send('no user to approve with');
      const code = randomBytes(18).toString('base64url');
      codes.set(code, { clientId: q.client_id, redirectUri: q.redirect_uri, challenge: q.code_challenge, scopes: (q.scope ?? '').split(' ').filter(Boolean), userId });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('state', q.state);
      back.searchParams.set('code', code);
      return reply.redirect(back.toString(), 302);
    });

    app.post('/2/oauth2/token', async (req, reply) => {
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent) : [];
      if (!id || clients.get(id) !== secret) return reply.status(401).send({ error: 'unauthorized_client', error_description: 'Missing valid authorization header' });
      const body = (req.body ?? {}) as Record<string, string>;
      if (body.grant_type === 'authorization_code') {
        const c = body.code ? codes.get(body.code) : undefined;
        if (body.code) codes.delete(body.code);
        const verifierOk = c && body.code_verifier && createHash('sha256').update(body.code_verifier).digest('base64url') === c.challenge;
        if (!c || c.clientId !== id || c.redirectUri !== body.redirect_uri || !verifierOk) {
          return reply.status(400).send({ error: 'invalid_request', error_description: 'Value passed for the authorization code was invalid.' });
        }
        return issueTokens(c.userId, id, c.scopes);
      }
      if (body.grant_type === 'refresh_token') {
        const r = body.refresh_token ? refreshTokens.get(body.refresh_token) : undefined;
        if (!r || r.clientId !== id) return reply.status(400).send({ error: 'invalid_request', error_description: 'Value passed for the token was invalid.' });
        refreshTokens.delete(body.refresh_token!);
        return issueTokens(r.userId, id, r.scopes);
      }
      return reply.status(400).send({ error: 'unsupported_grant_type', error_description: 'Unsupported grant type' });
    });

    app.get('/2/users/me', async (req, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      const u = users.get(userId)!;
      return { data: { id: u.id, name: u.name, username: u.username, verified: u.verified === true, ...(u.profile_image_url ? { profile_image_url: u.profile_image_url } : {}) } };
    });

    app.get('/2/users/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      if (!authenticate(req, reply)) return reply;
      const u = users.get(req.params.id);
      if (!u) {
        return { errors: [{ value: req.params.id, detail: `Could not find user with id: [${req.params.id}].`, title: 'Not Found Error', resource_type: 'user', type: 'https://api.twitter.com/2/problems/resource-not-found' }] };
      }
      const count = tweets.filter((t) => t.authorId === u.id).length;
      return { data: { id: u.id, name: u.name, username: u.username, public_metrics: { followers_count: u.followers ?? 0, following_count: u.following ?? 0, tweet_count: count, listed_count: 0, like_count: 0 } } };
    });

    app.get('/2/users/:id/tweets', async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string> }>, reply) => {
      if (!authenticate(req, reply)) return reply;
      const q = req.query;
      const max = q.max_results === undefined ? 10 : Number(q.max_results);
      if (!Number.isInteger(max) || max < 5 || max > 100) {
        return invalidRequest(reply, `The \`max_results\` query parameter value [${q.max_results}] is not between 5 and 100`, { max_results: [q.max_results] });
      }
      let since = 0;
      if (q.start_time !== undefined) {
        if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/.test(q.start_time)) {
          return invalidRequest(reply, `Invalid 'start_time':'${q.start_time}'. 'start_time' must be a valid RFC 3339 timestamp.`, { start_time: [q.start_time] });
        }
        since = Date.parse(q.start_time);
      }
      const fields = (q['tweet.fields'] ?? '').split(',');
      const all = tweets.filter((t) => t.authorId === req.params.id && Date.parse(t.createdAt) >= since).reverse();
      const offset = q.pagination_token ? Number(q.pagination_token) : 0;
      const page = all.slice(offset, offset + max);
      if (page.length === 0) return { meta: { result_count: 0 } };
      return {
        data: page.map((t) => tweetJson(t, fields)),
        meta: { result_count: page.length, newest_id: page[0]!.id, oldest_id: page.at(-1)!.id, ...(offset + max < all.length ? { next_token: String(offset + max) } : {}) },
      };
    });

    app.get('/2/tweets/:id', async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string> }>, reply) => {
      if (!authenticate(req, reply)) return reply;
      const t = tweets.find((x) => x.id === req.params.id);
      if (!t) {
        const id = req.params.id;
        return { errors: [{ value: id, detail: `Could not find tweet with id: [${id}].`, title: 'Not Found Error', resource_type: 'tweet', parameter: 'id', resource_id: id, type: 'https://api.twitter.com/2/problems/resource-not-found' }] };
      }
      return { data: tweetJson(t, (req.query['tweet.fields'] ?? '').split(',')) };
    });

    app.post('/2/tweets', async (req, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      const { w, headers } = rateHeaders(userId);
      if (w.count >= tweetLimit) {
        return reply.status(429).headers({ ...headers, 'x-rate-limit-remaining': '0' }).send({ title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 });
      }
      void reply.headers(headers);
      const b = (req.body ?? {}) as {
        text?: unknown;
        media?: { media_ids?: unknown };
        reply?: { in_reply_to_tweet_id?: unknown };
        reply_settings?: unknown;
        community_id?: unknown;
        made_with_ai?: unknown;
        paid_partnership?: unknown;
      };
      const user = users.get(userId)!;
      const text = typeof b.text === 'string' ? b.text : '';
      const mediaIds = Array.isArray(b.media?.media_ids) ? (b.media.media_ids as unknown[]) : [];
      if (text === '' && mediaIds.length === 0) return invalidRequest(reply, 'Post text or media is required', { text: [] });
      const limit = user.verified ? 25_000 : 280;
      const weighted = twitterText.parseTweet(text).weightedLength;
      if (weighted > limit) return invalidRequest(reply, `Your Post text is too long: ${weighted} weighted characters, the limit is ${limit}.`, { text: [text] });
      if (b.reply_settings !== undefined && !REPLY_SETTINGS.includes(b.reply_settings as string)) {
        return invalidRequest(reply, `$.reply_settings: does not have a value in the enumeration [${REPLY_SETTINGS.join(', ')}]`, { reply_settings: [b.reply_settings] });
      }
      const community = typeof b.community_id === 'string' || typeof b.community_id === 'number' ? String(b.community_id) : undefined;
      if (b.community_id !== undefined && (community === undefined || !/^\d{1,19}$/.test(community))) {
        return invalidRequest(reply, `$.community_id: does not match the regex pattern ^[0-9]{1,19}$`, { community_id: [b.community_id] });
      }
      const files: MediaRecord[] = [];
      for (const id of mediaIds) {
        const m = media.get(String(id));
        if (!m || m.userId !== userId || m.state !== 'succeeded' || m.used) return invalidRequest(reply, 'Your media IDs are invalid.', { media_ids: mediaIds });
        files.push(m);
      }
      const heavy = files.filter((m) => m.category !== 'tweet_image').length;
      if (files.length > 4 || (heavy > 0 && files.length > 1)) {
        return invalidRequest(reply, 'Your Post may have a maximum of 4 images, or one video or GIF.', { media_ids: mediaIds });
      }
      const parentRef = b.reply?.in_reply_to_tweet_id;
      const parent = typeof parentRef === 'string' ? parentRef : parentRef === undefined ? undefined : JSON.stringify(parentRef);
      if (parent !== undefined && !tweets.some((t) => t.id === parent)) {
        return problem(reply, 403, 'Forbidden', 'You attempted to reply to a Tweet that is deleted or not visible to you.');
      }
      const last = tweets.filter((t) => t.authorId === userId).at(-1);
      if (text !== '' && last?.text === text) return problem(reply, 403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
      w.count += 1;
      void reply.header('x-rate-limit-remaining', String(Math.max(0, tweetLimit - w.count)));
      for (const m of files) m.used = true;
      const t: XTweetRecord = {
        id: nextId(),
        authorId: userId,
        text,
        createdAt: new Date().toISOString(),
        replyTo: parent,
        mediaKeys: files.map((m) => m.key),
        mediaSha256: files.map((m) => m.sha256!),
        altTexts: files.map((m) => m.alt),
        ...(typeof b.reply_settings === 'string' ? { reply_settings: b.reply_settings } : {}),
        ...(community !== undefined ? { community_id: community } : {}),
        ...(b.made_with_ai === true ? { made_with_ai: true } : {}),
        ...(b.paid_partnership === true ? { paid_partnership: true } : {}),
        metrics: { impression_count: 0, like_count: 0, retweet_count: 0, reply_count: 0, quote_count: 0, bookmark_count: 0 },
      };
      tweets.push(t);
      if (parent) tweets.find((x) => x.id === parent)!.metrics.reply_count += 1;
      return reply.status(201).send({ data: { id: t.id, text: t.text, edit_history_tweet_ids: [t.id] } });
    });

    const mediaJson = (m: MediaRecord) => ({
      id: m.id,
      media_key: m.key,
      size: m.totalBytes,
      expires_after_secs: 86_400,
      ...(m.state === 'pending' || m.state === 'in_progress' || m.state === 'failed' || m.category !== 'tweet_image' ? { processing_info: processingInfo(m) } : {}),
    });

    function processingInfo(m: MediaRecord) {
      if (m.state === 'failed') return { state: 'failed', progress_percent: 100, error: { code: 1, name: 'InvalidMedia', message: 'Invalid or Unsupported media, Reason: UnsupportedMedia.' } };
      if (m.state === 'succeeded') return { state: 'succeeded', progress_percent: 100 };
      return { state: m.state, check_after_secs: 1, progress_percent: m.state === 'pending' ? 0 : 50 };
    }

    function newMedia(userId: string, category: string, mediaType: string, totalBytes: number): MediaRecord {
      const id = nextId();
      const prefix = category === 'tweet_video' ? '7' : category === 'tweet_gif' ? '16' : '3';
      const m: MediaRecord = { id, key: `${prefix}_${id}`, userId, category, mediaType, totalBytes, segments: new Map(), state: 'uploading', pollsLeft: 0, used: false };
      media.set(id, m);
      return m;
    }

    // One-shot upload (images), and the STATUS read of the chunked flow.
    app.post('/2/media/upload', async (req, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      if (!req.isMultipart()) return invalidRequest(reply, 'The media upload must be multipart/form-data', {});
      const { fields, files, types } = await readParts(req);
      const bytes = files.media;
      if (!bytes || bytes.length === 0) return invalidRequest(reply, 'The `media` field is required', { media: [] });
      const category = fields.media_category ?? 'tweet_image';
      if (category !== 'tweet_image') return invalidRequest(reply, 'Only images can be uploaded in one request; use the chunked upload', { media_category: [category] });
      if (bytes.length > 5 * 1024 * 1024) return invalidRequest(reply, 'File size exceeds 5242880 bytes.', { media: [] });
      const mimeType = types.media ?? 'application/octet-stream';
      const m = newMedia(userId, category, mimeType, bytes.length);
      Object.assign(m, { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, mimeType });
      m.state = 'succeeded';
      return { data: { id: m.id, media_key: m.key, size: m.totalBytes, expires_after_secs: 86_400, image: { image_type: mimeType } } };
    });

    app.get('/2/media/upload', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      if (req.query.command !== 'STATUS') return invalidRequest(reply, 'command must be STATUS', { command: [req.query.command] });
      const m = media.get(req.query.media_id ?? '');
      if (!m || m.userId !== userId) return invalidRequest(reply, 'Invalid media_id', { media_id: [req.query.media_id] });
      if (m.state === 'pending' || m.state === 'in_progress') {
        m.pollsLeft -= 1;
        m.state = m.pollsLeft <= 0 ? 'succeeded' : 'in_progress';
      }
      return { data: mediaJson(m) };
    });

    app.post('/2/media/upload/initialize', async (req, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      const b = (req.body ?? {}) as { media_type?: unknown; total_bytes?: unknown; media_category?: unknown };
      if (typeof b.media_type !== 'string' || !Number.isInteger(b.total_bytes) || (b.total_bytes as number) <= 0) {
        return invalidRequest(reply, 'media_type and total_bytes are required', { media_type: [b.media_type], total_bytes: [b.total_bytes] });
      }
      const category = typeof b.media_category === 'string' ? b.media_category : 'tweet_video';
      if (!['tweet_image', 'tweet_gif', 'tweet_video', 'amplify_video'].includes(category)) return invalidRequest(reply, 'Invalid media_category', { media_category: [category] });
      const m = newMedia(userId, category, b.media_type, b.total_bytes as number);
      return { data: { id: m.id, media_key: m.key, expires_after_secs: 86_400 } };
    });

    app.post('/2/media/upload/:id/append', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      const m = media.get(req.params.id);
      if (!req.isMultipart()) return invalidRequest(reply, 'The append request must be multipart/form-data', {});
      const { fields, files } = await readParts(req);
      if (!m || m.userId !== userId || m.state !== 'uploading') return invalidRequest(reply, 'Invalid media id', { id: [req.params.id] });
      const index = Number(fields.segment_index);
      if (!Number.isInteger(index) || index < 0 || index > 999 || !files.media) return invalidRequest(reply, 'segment_index and media are required', { segment_index: [fields.segment_index] });
      m.segments.set(index, files.media);
      return reply.status(200).send({ meta: {} });
    });

    app.post('/2/media/upload/:id/finalize', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      const m = media.get(req.params.id);
      if (!m || m.userId !== userId || m.state !== 'uploading') return invalidRequest(reply, 'Invalid media id', { id: [req.params.id] });
      const ordered = [...m.segments.entries()].sort((a, b) => a[0] - b[0]).map(([, buf]) => buf);
      const bytes = Buffer.concat(ordered);
      if (bytes.length !== m.totalBytes) return invalidRequest(reply, `File size mismatch: expected ${m.totalBytes} bytes, got ${bytes.length}`, { total_bytes: [m.totalBytes] });
      // Chunks carry no type of their own: the bytes are what initialize announced.
      Object.assign(m, { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, mimeType: m.mediaType });
      m.segments.clear();
      if (failProcessing) {
        failProcessing = false;
        m.state = 'failed';
      } else if (m.category === 'tweet_image' || processingPolls <= 0) {
        m.state = 'succeeded';
      } else {
        m.state = 'pending';
        m.pollsLeft = processingPolls;
      }
      return { data: mediaJson(m) };
    });

    app.post('/2/media/metadata', async (req, reply) => {
      const userId = authenticate(req, reply);
      if (!userId) return reply;
      const b = (req.body ?? {}) as { id?: unknown; metadata?: { alt_text?: { text?: unknown } } };
      const m = media.get(String(b.id));
      if (!m || m.userId !== userId) return invalidRequest(reply, 'Invalid media id', { id: [b.id] });
      const alt = b.metadata?.alt_text?.text;
      if (typeof alt !== 'string' || alt.length > 1000) return invalidRequest(reply, 'alt_text.text must be a string of at most 1000 characters', { 'metadata.alt_text.text': [] });
      m.alt = alt;
      return { data: { id: m.id, associated_metadata: true } };
    });
  });

  return Object.assign(sim, {
    tweets,
    media,
    addClient: (c: { clientId: string; clientSecret: string }) => void clients.set(c.clientId, c.clientSecret),
    addUser(u: XUser) {
      users.set(u.id, u);
      approver ??= u.id;
    },
    approveAs: (userId: string) => void (approver = userId),
    expireAccessTokens() {
      for (const t of accessTokens.values()) t.expiresAt = 0;
    },
    failNextProcessing: () => void (failProcessing = true),
    setProcessingPolls: (n: number) => void (processingPolls = n),
    setTweetLimit: (n: number) => void (tweetLimit = n),
    injectKind(kind: InjectedKind) {
      const path = /^\/2\/tweets/;
      const reset = String(Math.ceil(Date.now() / 1000) + 900);
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 401, body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' } });
        case 'rate_limited':
          return sim.inject({
            path,
            status: 429,
            headers: { 'x-rate-limit-limit': String(tweetLimit), 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': reset },
            body: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
          });
        case 'server_error':
          return sim.inject({ path, status: 503, body: { title: 'Service Unavailable', detail: 'Service Unavailable', type: 'about:blank', status: 503 } });
        case 'rejected':
          return sim.inject({ path, status: 403, body: { detail: 'You are not allowed to create a Tweet with duplicate content.', type: 'about:blank', title: 'Forbidden', status: 403 } });
        case 'error_in_200':
          // X reports write errors with their status, never under 200 (errorsIn200: false).
          return sim.inject({
            path,
            status: 400,
            body: { errors: [{ parameters: {}, message: 'Requests with bodies must have content-type of application/json.' }], title: 'Invalid Request', detail: 'One or more parameters to your request was invalid.', type: 'https://api.twitter.com/2/problems/invalid-request' },
          });
      }
    },
  });
}
