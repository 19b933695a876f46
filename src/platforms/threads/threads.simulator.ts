import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type ReceivedMedia, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from '../common/oauth2.simulator.js';
import { countThreadsText, THREADS_LINK_LIMIT, threadsLinks } from './text.js';

/**
 * A simulator of Threads for the adapter's tests. It answers for two real origins, which tests
 * map to it: `https://threads.net` (the authorisation page) and `https://graph.threads.net` (the
 * token endpoints and the Graph API under `/v1.0`).
 *
 * Faithful parts: Meta's Graph error body (`{ error: { message, type, code, error_subcode,
 * error_user_title, error_user_msg, fbtrace_id } }`, HTTP 400 for refusals, 500 for its own
 * failures) with Threads' codes (190/463 expired token, 190/460 invalidated session, 10 missing
 * permission, 24/4279009 "Media Not Found" for a container not ready to publish); single-use
 * authorisation codes checked against the redirect URI and client secret, answered with a
 * short-lived token and a numeric `user_id`, exchanged for a 60-day token (`th_exchange_token`)
 * and renewed while valid (`th_refresh_token`); containers whose status reads IN_PROGRESS for a
 * configurable number of polls before FINISHED (or ERROR with Threads' `error_message` codes),
 * PUBLISHED once published, EXPIRED after 24 hours; pictures and videos FETCHED from the
 * `image_url`/`video_url` the way Threads pulls them (the bytes' type and size checked, their
 * sha256 recorded); carousels of 2–20 finished items; replies with `reply_to_id`; Threads' text
 * limit (an emoji counts its UTF-8 bytes) and link limit; the 250-post and 1,000-reply quotas;
 * listings newest first with cursor paging and `since`; insights per post and per profile;
 * the `Date` header on the simulator's clock.
 *
 * Not known from Meta's documents, so chosen here (and listed in the adapter's report): the
 * publishing-quota error (code 9), the link-limit and picture-format error bodies, publishing an
 * already published container (code 100), and `expireAccessTokens()` — tokens expired that way
 * can still be renewed, as the contract suite's "expired, refreshed" case needs; a token past its
 * real 60 days cannot.
 */

export const THREADS_WWW_ORIGIN = 'https://threads.net';
export const THREADS_GRAPH_ORIGIN = 'https://graph.threads.net';

const SHORT_TOKEN_S = 3600;
const LONG_TOKEN_S = 60 * 86_400;
const CONTAINER_TTL_MS = 24 * 3600_000;
const QUOTA_WINDOW_MS = 24 * 3600_000;
const IMAGE_MAX_BYTES = 8 * 1024 * 1024;
const VIDEO_MAX_BYTES = 1024 * 1024 * 1024;
const ALT_TEXT_MAX = 1000;
const SCOPES = ['threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_read_replies', 'threads_manage_insights', 'threads_keyword_search', 'threads_manage_mentions'];
const USER_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'clicks', 'followers_count'];
const POST_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];
const POST_FIELDS = new Set([
  'id',
  'media_product_type',
  'media_type',
  'media_url',
  'permalink',
  'owner',
  'username',
  'text',
  'timestamp',
  'shortcode',
  'thumbnail_url',
  'children',
  'is_quote_post',
  'has_replies',
  'root_post',
  'replied_to',
  'is_reply',
  'alt_text',
]);

export type ContainerType = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';
export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';

export interface ThreadsAppRecord {
  clientId: string;
  clientSecret: string;
  /** redirect URIs registered for the app (any https URI when absent) */
  redirectUris?: string[];
}

export interface ThreadsUserRecord {
  id: string;
  username: string;
  name?: string;
  picture?: string;
  followers?: number;
}

export interface ThreadsTokenRecord {
  token: string;
  userId: string;
  clientId: string;
  scopes: string[];
  kind: 'short' | 'long';
  issuedAt: number;
  expiresAt: number;
  revoked: boolean;
  /** made to expire by `expireAccessTokens()` */
  expiredEarly: boolean;
}

export interface ThreadsContainerRecord {
  id: string;
  userId: string;
  mediaType: ContainerType;
  text?: string;
  imageUrl?: string;
  videoUrl?: string;
  altText?: string;
  isCarouselItem: boolean;
  children: string[];
  replyTo?: string;
  status: ContainerStatus;
  /** status reads still answered IN_PROGRESS */
  pollsLeft: number;
  /** the `error_message` it ends with instead of FINISHED */
  failWith?: string;
  errorMessage?: string;
  /** the fetched picture or video */
  media?: ReceivedMedia;
  createdAt: number;
  publishedId?: string;
  /** `threads_publish` calls naming this container (a second one is a bug in the adapter) */
  publishCalls: number;
}

export interface ThreadsPostRecord {
  id: string;
  userId: string;
  username: string;
  mediaType: 'TEXT_POST' | 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  text: string;
  shortcode: string;
  permalink: string;
  createdAt: number;
  replyTo?: string;
  rootId: string;
  containerId: string;
  /** the fetched media, in the post's order (a carousel's items) */
  media: ReceivedMedia[];
  altTexts: (string | undefined)[];
}

export interface PostInsights {
  views?: number;
  likes?: number;
  replies?: number;
  reposts?: number;
  quotes?: number;
  shares?: number;
}

export interface UserInsights {
  /** daily views, by day (YYYY-MM-DD, Pacific day as Threads counts; the simulator uses UTC) */
  views?: Record<string, number>;
  likes?: number;
  replies?: number;
  reposts?: number;
  quotes?: number;
  clicks?: number;
}

export interface ThreadsSimulatorOptions {
  /** public origin → where it really is, for fetching media (the service's PUBLIC_URL → its listening address) */
  mediaOrigins?: Record<string, string>;
  /** status reads answered IN_PROGRESS before a container is FINISHED, by type (default: video 2, others 0) */
  polls?: Partial<Record<ContainerType, number>>;
  /** the simulator's clock (token lifetimes, timestamps, quotas, the Date header) */
  now?: () => number;
  /** posts and replies a profile may publish per 24 hours */
  publishQuota?: number;
  replyQuota?: number;
}

export interface ThreadsSimulator extends Simulator, Pick<OAuth2Controls<string, ThreadsAppRecord>, 'apps' | 'addApp' | 'approveAs' | 'expireAccessTokens'> {
  users: Map<string, ThreadsUserRecord>;
  tokens: Map<string, ThreadsTokenRecord>;
  containers: Map<string, ThreadsContainerRecord>;
  posts: ThreadsPostRecord[];
  addUser(user: ThreadsUserRecord): void;
  /** the user removed the app: every token answers 190/460 */
  revokeAccessTokens(): void;
  /**
   * `threads_publish` requests are held this long after they arrive (and are logged) before Threads
   * acts on them: a client that dies meanwhile has sent a publish whose answer it never reads.
   */
  holdPublishes(ms: number): void;
  /** the next `count` picture or video containers end in ERROR with this `error_message` */
  failNextMedia(errorMessage: string, count?: number): void;
  setPostInsights(postId: string, insights: PostInsights): void;
  setUserInsights(userId: string, insights: UserInsights): void;
  /** a published post by id, as the contract suite reads it */
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

interface GraphError {
  message: string;
  type?: string;
  code: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  is_transient?: boolean;
}

const fbtrace = () => randomBytes(9).toString('base64url');
const graphBody = (e: GraphError) => ({ error: { type: 'OAuthException', ...e, fbtrace_id: fbtrace() } });
const fail = (reply: FastifyReply, status: number, e: GraphError) => reply.status(status).send(graphBody(e));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const unsupported = (reply: FastifyReply, verb: 'get' | 'post', id: string) =>
  fail(reply, 400, {
    message: `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: 'THApiException',
    code: 100,
    error_subcode: 33,
  });
const invalidParam = (reply: FastifyReply, message: string, extra: Partial<GraphError> = {}) => fail(reply, 400, { message, type: 'THApiException', code: 100, ...extra });

/** Threads' timestamp format: `2024-07-01T10:00:00+0000`. */
const threadsTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

/** `since`/`until`: Unix seconds, or a date Threads' strtotime reads. */
function parseTime(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** What the fetched bytes are, from their first bytes (Threads looks at the file, not its name). */
function sniff(b: Buffer): 'image/jpeg' | 'image/png' | 'video/mp4' | 'video/quicktime' | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (b.length >= 12 && b.subarray(4, 8).toString('latin1') === 'ftyp') return b.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4';
  return undefined;
}

export async function startThreadsSimulator(opts: ThreadsSimulatorOptions = {}): Promise<ThreadsSimulator> {
  const mode = currentSimulatorMode();
  const now = opts.now ?? (() => Date.now());
  const polls: Record<ContainerType, number> = { TEXT: 0, IMAGE: 0, VIDEO: 2, CAROUSEL: 0, ...opts.polls };
  const publishQuota = opts.publishQuota ?? 250;
  const replyQuota = opts.replyQuota ?? 1000;
  const apps = new Map<string, ThreadsAppRecord>();
  const users = new Map<string, ThreadsUserRecord>();
  const tokens = new Map<string, ThreadsTokenRecord>();
  const codes = new Map<string, { clientId: string; redirectUri: string; userId: string; scopes: string[]; expiresAt: number; used: boolean }>();
  const containers = new Map<string, ThreadsContainerRecord>();
  const posts: ThreadsPostRecord[] = [];
  const postInsights = new Map<string, PostInsights>();
  const userInsights = new Map<string, UserInsights>();
  const failures: string[] = [];
  let approver: string | undefined;
  let publishHoldMs = 0;
  let seq = 0;
  // Threads ids are 17–18 digit numbers; containers and posts draw from different ranges.
  const containerId = () => (17_890_000_000_000_000n + BigInt(++seq)).toString();
  const postId = () => (18_040_000_000_000_000n + BigInt(++seq)).toString();
  const shortcode = () => randomBytes(8).toString('base64url').slice(0, 11);

  function issue(userId: string, clientId: string, scopes: string[], kind: 'short' | 'long'): ThreadsTokenRecord {
    const t: ThreadsTokenRecord = {
      token: `TH${kind === 'short' ? 'Q' : 'AA'}${randomBytes(30).toString('base64url')}`,
      userId,
      clientId,
      scopes,
      kind,
      issuedAt: now(),
      expiresAt: now() + (kind === 'short' ? SHORT_TOKEN_S : LONG_TOKEN_S) * 1000,
      revoked: false,
      expiredEarly: false,
    };
    tokens.set(t.token, t);
    return t;
  }

  const expiredError = (t: ThreadsTokenRecord): GraphError => ({
    message: `Error validating access token: Session has expired on ${new Date(t.expiredEarly ? now() - 1000 : t.expiresAt).toUTCString()}. The current time is ${new Date(now()).toUTCString()}.`,
    code: 190,
    error_subcode: 463,
  });
  const revokedError: GraphError = {
    message: 'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
    code: 190,
    error_subcode: 460,
  };

  /** The token a Graph request carries (header, query or form), or the error answer already sent. */
  function authorize(req: FastifyRequest, reply: FastifyReply, scope?: string): ThreadsTokenRecord | undefined {
    const header = /^(?:Bearer|OAuth) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const q = req.query as Record<string, string | undefined>;
    const form = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, string | undefined>;
    const raw = header ?? q.access_token ?? form.access_token;
    if (!raw) return void fail(reply, 400, { message: 'An active access token must be used to query information about the current user.', code: 2500 });
    const t = tokens.get(raw);
    if (!t) return void fail(reply, 400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });
    if (t.revoked) return void fail(reply, 400, revokedError);
    if (t.expiredEarly || t.expiresAt <= now()) return void fail(reply, 400, expiredError(t));
    if (scope && !t.scopes.includes(scope)) return void fail(reply, 403, { message: '(#10) Application does not have permission for this action', code: 10 });
    return t;
  }

  /** The request's parameters: the query and a form (or JSON) body together, as the Graph API reads them. */
  function params(req: FastifyRequest): Record<string, string | undefined> {
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    const out: Record<string, string | undefined> = { ...(req.query as Record<string, string | undefined>) };
    for (const [k, v] of Object.entries(body)) {
      out[k] = Array.isArray(v) ? v.join(',') : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : v === undefined || v === null ? undefined : JSON.stringify(v);
    }
    return out;
  }

  /** `me` or the token's own user id; anything else is not reachable with this token. */
  const sameUser = (t: ThreadsTokenRecord, id: string) => id === 'me' || id === t.userId;

  /** A container's status as of now: processing moves on by one step per read. */
  function readStatus(c: ThreadsContainerRecord): ContainerStatus {
    if ((c.status === 'IN_PROGRESS' || c.status === 'FINISHED') && now() - c.createdAt > CONTAINER_TTL_MS) c.status = 'EXPIRED';
    if (c.status === 'IN_PROGRESS') {
      if (c.pollsLeft > 0) c.pollsLeft--;
      else if (c.failWith) {
        c.status = 'ERROR';
        c.errorMessage = c.failWith;
      } else c.status = 'FINISHED';
    }
    return c.status;
  }

  /** Fetches a picture or video the way Threads does: from the public URL, as stored there. */
  async function fetchMedia(url: string, kind: 'image' | 'video'): Promise<{ media: ReceivedMedia } | { problem: string }> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return { problem: 'not a URL' };
    }
    if (u.protocol !== 'https:') return { problem: 'the URL is not https' };
    let res: Response;
    try {
      res = await mediaFetch(mode, opts.mediaOrigins, url, { redirect: 'follow', signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      return { problem: `fetch failed (${(e as Error).message})` };
    }
    if (!res.ok) return { problem: `HTTP ${res.status}` };
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = sniff(bytes);
    if (kind === 'image' && type !== 'image/jpeg' && type !== 'image/png') return { problem: 'not a JPEG or PNG picture' };
    if (kind === 'video' && type !== 'video/mp4' && type !== 'video/quicktime') return { problem: 'not an MP4 or MOV video' };
    if (bytes.length > (kind === 'image' ? IMAGE_MAX_BYTES : VIDEO_MAX_BYTES)) return { problem: 'the file is too large' };
    return { media: { sha256: sha256(bytes), size: bytes.length, mimeType: res.headers.get('content-type') ?? 'application/octet-stream' } };
  }

  const postsInWindow = (userId: string, replies: boolean) => posts.filter((p) => p.userId === userId && !!p.replyTo === replies && now() - p.createdAt < QUOTA_WINDOW_MS).length;

  function postView(p: ThreadsPostRecord, fields: string[]): Record<string, unknown> {
    const all: Record<string, unknown> = {
      id: p.id,
      media_product_type: 'THREADS',
      media_type: p.mediaType,
      permalink: p.permalink,
      owner: { id: p.userId },
      username: p.username,
      text: p.text,
      timestamp: threadsTime(p.createdAt),
      shortcode: p.shortcode,
      is_quote_post: false,
      has_replies: posts.some((r) => r.replyTo === p.id),
      is_reply: !!p.replyTo,
      ...(p.replyTo ? { replied_to: { id: p.replyTo }, root_post: { id: p.rootId } } : { root_post: { id: p.id } }),
      ...(p.mediaType === 'CAROUSEL_ALBUM' ? { children: { data: containers.get(p.containerId)!.children.map((id) => ({ id })) } } : {}),
      ...(p.mediaType === 'IMAGE' || p.mediaType === 'VIDEO' ? { media_url: `https://scontent.cdninstagram.com/v/t51.2885-15/${p.shortcode}` } : {}),
      ...(p.altTexts[0] ? { alt_text: p.altTexts[0] } : {}),
    };
    if (!p.text) delete all.text;
    const out: Record<string, unknown> = { id: p.id };
    for (const f of fields) if (f in all) out[f] = all[f];
    return out;
  }

  const fieldList = (value: string | undefined, fallback: string[]) => (value ? value.split(',').map((f) => f.trim()).filter(Boolean) : fallback);

  const sim = await startSimulator((app) => {
    // Every answer dated by the simulator's clock, as Threads' are by its own.
    app.addHook('onSend', async (_req, reply, payload) => {
      reply.header('date', new Date(now()).toUTCString());
      return payload;
    });

    // ---- OAuth (threads.net, graph.threads.net)
    app.get('/oauth/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const a = q.client_id ? apps.get(q.client_id) : undefined;
      const page = (msg: string) => reply.status(400).type('text/html').send(`<html><body><h1>Something went wrong</h1><p>${msg}</p></body></html>`);
      if (!a) return page('Invalid App ID: the app ID you provided is not valid.');
      if (!q.redirect_uri || !q.redirect_uri.startsWith('https://') || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) {
        return page("URL blocked: this redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.");
      }
      if (q.response_type !== 'code') return page('Invalid response_type: it must be code.');
      const scopes = (q.scope ?? '').split(/[ ,]+/).filter(Boolean);
      const unknown = scopes.find((s) => !SCOPES.includes(s));
      if (unknown) return page(`Invalid Scopes: ${unknown}.`);
      if (!scopes.includes('threads_basic')) return page('Invalid Scopes: threads_basic is required.');
      const userId = approver ?? users.keys().next().value;
      if (!userId) return page('Nobody is logged in to Threads.');
      const code = `AQ${randomBytes(40).toString('base64url')}`;
      codes.set(code, { clientId: a.clientId, redirectUri: q.redirect_uri, userId, scopes, expiresAt: now() + 3600_000, used: false });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      if (q.state !== undefined) back.searchParams.set('state', q.state);
      // Meta appends `#_` to the redirect (the browser keeps it to itself).
      return reply.redirect(`${back.toString()}#_`, 302);
    });

    app.post('/oauth/access_token', async (req, reply) => {
      const b = params(req);
      const a = b.client_id ? apps.get(b.client_id) : undefined;
      if (!a) return fail(reply, 400, { message: 'Error validating application. Invalid application ID.', code: 101 });
      if (b.client_secret !== a.clientSecret) return fail(reply, 400, { message: 'Error validating client secret.', code: 1 });
      if (b.grant_type !== 'authorization_code') return invalidParam(reply, 'Unsupported grant_type', { type: 'OAuthException' });
      const c = b.code ? codes.get(b.code) : undefined;
      if (!c) return invalidParam(reply, 'Invalid verification code format.', { type: 'OAuthException', error_subcode: 36008 });
      if (c.used) return invalidParam(reply, 'This authorization code has been used.', { type: 'OAuthException', error_subcode: 36009 });
      if (c.expiresAt < now()) return invalidParam(reply, 'This authorization code has expired.', { type: 'OAuthException', error_subcode: 36007 });
      if (c.clientId !== a.clientId || c.redirectUri !== b.redirect_uri) {
        return invalidParam(reply, 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request', {
          type: 'OAuthException',
          error_subcode: 36008,
        });
      }
      c.used = true;
      const t = issue(c.userId, a.clientId, c.scopes, 'short');
      // `user_id` is a JSON number too large for a double: clients must not rely on it.
      return reply.type('application/json').send(`{"access_token":"${t.token}","user_id":${c.userId}}`);
    });

    app.get('/access_token', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      if (q.grant_type !== 'th_exchange_token') return invalidParam(reply, 'Unsupported grant_type', { type: 'OAuthException' });
      const t = q.access_token ? tokens.get(q.access_token) : undefined;
      if (!t) return fail(reply, 400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });
      if (apps.get(t.clientId)?.clientSecret !== q.client_secret) return fail(reply, 400, { message: 'Error validating client secret.', code: 1 });
      if (t.revoked) return fail(reply, 400, revokedError);
      if (t.expiredEarly || t.expiresAt <= now()) return fail(reply, 400, expiredError(t));
      if (t.kind !== 'short') return invalidParam(reply, 'The access token is already long-lived', { type: 'OAuthException' });
      const long = issue(t.userId, t.clientId, t.scopes, 'long');
      return { access_token: long.token, token_type: 'bearer', expires_in: LONG_TOKEN_S };
    });

    app.get('/refresh_access_token', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      if (q.grant_type !== 'th_refresh_token') return invalidParam(reply, 'Unsupported grant_type', { type: 'OAuthException' });
      const t = q.access_token ? tokens.get(q.access_token) : undefined;
      if (!t) return fail(reply, 400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });
      if (t.revoked) return fail(reply, 400, revokedError);
      // Only a valid long-lived token renews (one made to expire by the test control excepted).
      if (t.expiresAt <= now()) return fail(reply, 400, expiredError(t));
      if (t.kind !== 'long') return invalidParam(reply, 'Only a long-lived access token can be refreshed', { type: 'OAuthException' });
      const next = issue(t.userId, t.clientId, t.scopes, 'long');
      return { access_token: next.token, token_type: 'bearer', expires_in: LONG_TOKEN_S };
    });

    // ---- Graph API (graph.threads.net/v1.0)
    app.get('/v1.0/:id', async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const { id } = req.params;
      const fields = fieldList(req.query.fields, ['id']);
      if (sameUser(t, id)) {
        const u = users.get(t.userId)!;
        const all: Record<string, unknown> = { id: u.id, username: u.username, name: u.name ?? u.username, threads_profile_picture_url: u.picture, threads_biography: '' };
        const out: Record<string, unknown> = { id: u.id };
        for (const f of fields) {
          if (!(f in all)) return invalidParam(reply, `(#100) Tried accessing nonexisting field (${f}) on node type (User)`);
          if (all[f] !== undefined) out[f] = all[f];
        }
        return out;
      }
      const c = containers.get(id);
      if (c && c.userId === t.userId) {
        const out: Record<string, unknown> = { id: c.id };
        for (const f of fields) {
          if (f === 'status') out.status = readStatus(c);
          else if (f === 'error_message') {
            if (c.errorMessage) out.error_message = c.errorMessage;
          } else if (f !== 'id') return invalidParam(reply, `(#100) Tried accessing nonexisting field (${f}) on node type (ThreadsMediaContainer)`);
        }
        return out;
      }
      const p = posts.find((x) => x.id === id);
      if (!p || p.userId !== t.userId) return unsupported(reply, 'get', id);
      const unknown = fields.find((f) => !POST_FIELDS.has(f));
      if (unknown) return invalidParam(reply, `(#100) Tried accessing nonexisting field (${unknown}) on node type (ThreadsMedia)`);
      return postView(p, fields);
    });

    app.post('/v1.0/:id/threads', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply, 'threads_content_publish');
      if (!t) return reply;
      if (!sameUser(t, req.params.id)) return unsupported(reply, 'post', req.params.id);
      const p = params(req);
      const mediaType = p.media_type as ContainerType | undefined;
      if (!mediaType) return invalidParam(reply, 'The parameter media_type is required');
      if (!['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'].includes(mediaType)) return invalidParam(reply, `(#100) Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL} - got "${mediaType}"`);
      const carouselItem = p.is_carousel_item === 'true';
      const text = p.text ?? '';
      if (countThreadsText(text) > 500) return invalidParam(reply, 'Param text must be at most 500 characters long.', { error_user_title: 'Text too long', error_user_msg: 'The text of a post can be at most 500 characters.' });
      if (threadsLinks(text).length > THREADS_LINK_LIMIT) {
        return invalidParam(reply, 'THREADS_API__LINK_LIMIT_EXCEEDED', { error_user_title: 'Too many links', error_user_msg: `Posts can include at most ${THREADS_LINK_LIMIT} links.` });
      }
      if (p.alt_text && p.alt_text.length > ALT_TEXT_MAX) return invalidParam(reply, `Param alt_text must be at most ${ALT_TEXT_MAX} characters long.`);
      if (p.reply_to_id !== undefined) {
        if (!t.scopes.includes('threads_manage_replies')) return fail(reply, 403, { message: '(#10) Application does not have permission for this action', code: 10 });
        if (!posts.some((x) => x.id === p.reply_to_id)) return unsupported(reply, 'post', p.reply_to_id);
        if (carouselItem) return invalidParam(reply, 'A carousel item cannot be a reply');
      }
      const c: ThreadsContainerRecord = {
        id: containerId(),
        userId: t.userId,
        mediaType,
        isCarouselItem: carouselItem,
        children: [],
        status: 'IN_PROGRESS',
        pollsLeft: polls[mediaType],
        createdAt: now(),
        publishCalls: 0,
        ...(text ? { text } : {}),
        ...(p.reply_to_id ? { replyTo: p.reply_to_id } : {}),
        ...(p.alt_text ? { altText: p.alt_text } : {}),
      };
      if (mediaType === 'TEXT') {
        if (carouselItem) return invalidParam(reply, 'A text post cannot be a carousel item');
        if (!text.trim()) return invalidParam(reply, 'Param text is required for media_type TEXT');
      } else if (mediaType === 'IMAGE' || mediaType === 'VIDEO') {
        const url = mediaType === 'IMAGE' ? p.image_url : p.video_url;
        const field = mediaType === 'IMAGE' ? 'image_url' : 'video_url';
        if (!url) return invalidParam(reply, `Param ${field} is required for media_type ${mediaType}`);
        const got = await fetchMedia(url, mediaType === 'IMAGE' ? 'image' : 'video');
        if ('problem' in got) {
          // A picture is fetched while the container is made; a video's download failure shows in its status.
          if (mediaType === 'IMAGE') {
            return invalidParam(reply, `The media could not be fetched from this URI: ${url}`, { error_subcode: 2207052, error_user_title: 'Media download failed', error_user_msg: `Threads could not use the picture at ${url}: ${got.problem}.` });
          }
          c.failWith = got.problem.startsWith('not an') || got.problem.includes('large') ? 'FAILED_PROCESSING_VIDEO' : 'FAILED_DOWNLOADING_VIDEO';
        } else {
          c.media = got.media;
        }
        if (mediaType === 'IMAGE') c.imageUrl = url;
        else c.videoUrl = url;
        if (!c.failWith && failures.length > 0) c.failWith = failures.shift();
      } else {
        if (carouselItem) return invalidParam(reply, 'A carousel cannot be a carousel item');
        const ids = (p.children ?? '').split(',').map((s) => s.trim()).filter(Boolean);
        if (ids.length < 2 || ids.length > 20) return invalidParam(reply, 'Param children must have between 2 and 20 items', { error_user_msg: 'A carousel needs between 2 and 20 pictures or videos.' });
        for (const id of ids) {
          const child = containers.get(id);
          if (!child || child.userId !== t.userId) return unsupported(reply, 'post', id);
          if (!child.isCarouselItem) return invalidParam(reply, `The media ${id} is not a carousel item`);
          if (readStatus(child) !== 'FINISHED') return invalidParam(reply, `The media ${id} is not ready to be used in a carousel`, { error_user_msg: 'Carousel items must finish processing first.' });
        }
        c.children = ids;
      }
      if (c.pollsLeft === 0 && !c.failWith) c.status = 'FINISHED';
      containers.set(c.id, c);
      return { id: c.id };
    });

    app.post('/v1.0/:id/threads_publish', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply, 'threads_content_publish');
      if (!t) return reply;
      if (!sameUser(t, req.params.id)) return unsupported(reply, 'post', req.params.id);
      const creation = params(req).creation_id;
      if (!creation) return invalidParam(reply, 'The parameter creation_id is required');
      if (publishHoldMs > 0) await new Promise((r) => setTimeout(r, publishHoldMs));
      const c = containers.get(creation);
      if (c) c.publishCalls++;
      const notFound = () =>
        fail(reply, 400, { message: 'The requested resource does not exist', code: 24, error_subcode: 4279009, error_user_title: 'Media Not Found', error_user_msg: `The media with id ${creation} cannot be found.` });
      if (!c || c.userId !== t.userId) return notFound();
      const status = readStatus(c);
      if (status === 'PUBLISHED') return invalidParam(reply, 'This media has already been published', { error_user_title: 'Already published' });
      if (status !== 'FINISHED') return notFound();
      if (c.isCarouselItem) return invalidParam(reply, 'A carousel item cannot be published on its own');
      const isReply = !!c.replyTo;
      if (postsInWindow(t.userId, isReply) >= (isReply ? replyQuota : publishQuota)) {
        return fail(reply, 400, {
          message: 'Application request limit reached',
          code: 9,
          error_user_title: 'Publishing limit reached',
          error_user_msg: `This profile has published the most ${isReply ? 'replies' : 'posts'} allowed in 24 hours (${isReply ? replyQuota : publishQuota}).`,
        });
      }
      const user = users.get(t.userId)!;
      const parent = c.replyTo ? posts.find((x) => x.id === c.replyTo) : undefined;
      const items = c.mediaType === 'CAROUSEL' ? c.children.map((id) => containers.get(id)!) : [c];
      const code = shortcode();
      const id = postId();
      posts.push({
        id,
        userId: t.userId,
        username: user.username,
        mediaType: c.mediaType === 'TEXT' ? 'TEXT_POST' : c.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : c.mediaType,
        text: c.text ?? '',
        shortcode: code,
        permalink: `https://www.threads.net/@${user.username}/post/${code}`,
        createdAt: now(),
        ...(c.replyTo ? { replyTo: c.replyTo } : {}),
        rootId: parent ? parent.rootId : id,
        containerId: c.id,
        media: c.mediaType === 'TEXT' ? [] : items.map((i) => i.media!),
        altTexts: c.mediaType === 'TEXT' ? [] : items.map((i) => i.altText),
      });
      c.status = 'PUBLISHED';
      c.publishedId = id;
      for (const child of c.mediaType === 'CAROUSEL' ? items : []) child.status = 'PUBLISHED';
      return { id };
    });

    const listing = (replies: boolean) => async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>, reply: FastifyReply) => {
      const t = authorize(req, reply, replies ? 'threads_read_replies' : undefined);
      if (!t) return reply;
      if (!sameUser(t, req.params.id)) return unsupported(reply, 'get', req.params.id);
      const q = req.query;
      const since = parseTime(q.since);
      const until = parseTime(q.until);
      const limit = Math.min(100, Math.max(1, Number(q.limit ?? 25) || 25));
      const fields = fieldList(q.fields, ['id']);
      const unknown = fields.find((f) => !POST_FIELDS.has(f));
      if (unknown) return invalidParam(reply, `(#100) Tried accessing nonexisting field (${unknown}) on node type (ThreadsMedia)`);
      const all = posts
        .filter((p) => p.userId === t.userId && !!p.replyTo === replies)
        .filter((p) => (since === undefined || p.createdAt >= since) && (until === undefined || p.createdAt <= until))
        .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
      const start = q.after ? Number(Buffer.from(q.after, 'base64url').toString()) : 0;
      const page = all.slice(start, start + limit);
      const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
      const more = start + limit < all.length;
      return {
        data: page.map((p) => postView(p, fields)),
        paging: {
          cursors: { before: cursor(start), after: cursor(start + page.length) },
          ...(more ? { next: `${THREADS_GRAPH_ORIGIN}/v1.0/${req.params.id}/${replies ? 'replies' : 'threads'}?after=${cursor(start + page.length)}&limit=${limit}` } : {}),
        },
      };
    };
    app.get('/v1.0/:id/threads', listing(false));
    app.get('/v1.0/:id/replies', listing(true));

    app.get('/v1.0/:id/threads_insights', async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, 'threads_manage_insights');
      if (!t) return reply;
      if (!sameUser(t, req.params.id)) return unsupported(reply, 'get', req.params.id);
      const metrics = fieldList(req.query.metric, []);
      if (metrics.length === 0) return invalidParam(reply, 'The parameter metric is required');
      const bad = metrics.find((m) => !USER_METRICS.includes(m));
      if (bad) return invalidParam(reply, `(#100) metric[${metrics.indexOf(bad)}] must be one of the following values: ${USER_METRICS.join(', ')}`);
      const since = parseTime(req.query.since);
      const until = parseTime(req.query.until) ?? now();
      if (since !== undefined && since < 1712991600_000) return invalidParam(reply, 'Param since must be on or after 1712991600');
      const ins = userInsights.get(t.userId) ?? {};
      const user = users.get(t.userId)!;
      const id = t.userId;
      return {
        data: metrics.map((m) => {
          const base = { name: m, title: m, description: `${m} of the profile`, id: `${id}/insights/${m}/day` };
          if (m === 'views') {
            const days: { value: number; end_time: string }[] = [];
            const from = Math.floor((since ?? until - 2 * 86_400_000) / 86_400_000) * 86_400_000;
            for (let d = from; d < until; d += 86_400_000) {
              days.push({ value: ins.views?.[new Date(d).toISOString().slice(0, 10)] ?? 0, end_time: threadsTime(d + 86_400_000) });
            }
            return { ...base, period: 'day', values: days };
          }
          if (m === 'followers_count') return { ...base, period: 'day', total_value: { value: user.followers ?? 0 } };
          return { ...base, period: 'day', total_value: { value: (ins as Record<string, number | undefined>)[m] ?? 0 } };
        }),
        paging: {},
      };
    });

    app.get('/v1.0/:id/insights', async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, 'threads_manage_insights');
      if (!t) return reply;
      const p = posts.find((x) => x.id === req.params.id);
      if (!p || p.userId !== t.userId) return unsupported(reply, 'get', req.params.id);
      const metrics = fieldList(req.query.metric, []);
      if (metrics.length === 0) return invalidParam(reply, 'The parameter metric is required');
      const bad = metrics.find((m) => !POST_METRICS.includes(m));
      if (bad) return invalidParam(reply, `(#100) metric[${metrics.indexOf(bad)}] must be one of the following values: ${POST_METRICS.join(', ')}`);
      const ins = (postInsights.get(p.id) ?? {}) as Record<string, number | undefined>;
      return {
        data: metrics.map((m) => ({ name: m, period: 'lifetime', values: [{ value: ins[m] ?? 0 }], title: m, description: `${m} of the post`, id: `${p.id}/insights/${m}/lifetime` })),
      };
    });

    app.get('/v1.0/:id/threads_publishing_limit', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      if (!sameUser(t, req.params.id)) return unsupported(reply, 'get', req.params.id);
      return {
        data: [
          {
            quota_usage: postsInWindow(t.userId, false),
            config: { quota_total: publishQuota, quota_duration: 86_400 },
            reply_quota_usage: postsInWindow(t.userId, true),
            reply_config: { quota_total: replyQuota, quota_duration: 86_400 },
          },
        ],
      };
    });
  });

  return Object.assign(sim, {
    apps,
    users,
    tokens,
    containers,
    posts,
    addApp(a: ThreadsAppRecord) {
      apps.set(a.clientId, a);
    },
    addUser(u: ThreadsUserRecord) {
      users.set(u.id, u);
    },
    approveAs(userId: string) {
      approver = userId;
    },
    holdPublishes(ms: number) {
      publishHoldMs = ms;
    },
    expireAccessTokens() {
      for (const t of tokens.values()) t.expiredEarly = true;
    },
    revokeAccessTokens() {
      for (const t of tokens.values()) t.revoked = true;
    },
    failNextMedia(errorMessage: string, count = 1) {
      for (let i = 0; i < count; i++) failures.push(errorMessage);
    },
    setPostInsights(id: string, insights: PostInsights) {
      postInsights.set(id, insights);
    },
    setUserInsights(userId: string, insights: UserInsights) {
      userInsights.set(userId, insights);
    },
    lookup(id: string) {
      const p = posts.find((x) => x.id === id);
      return p ? { text: p.text, ...(p.replyTo ? { replyTo: p.replyTo } : {}), mediaSha256: p.media.map((m) => m.sha256) } : undefined;
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/v1\.0\/[^/?]+\/threads(\?|$)/;
      switch (kind) {
        case 'auth_expired':
          return sim.inject({ path, status: 400, body: graphBody({ message: 'Error validating access token: Session has expired.', code: 190, error_subcode: 463 }) });
        case 'revoked':
          return sim.inject({ path, status: 400, body: graphBody(revokedError) });
        case 'rate_limited':
          return sim.inject({
            path,
            status: 400,
            headers: { 'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 34, total_time: 61 }) },
            body: graphBody({ message: '(#4) Application request limit reached', code: 4, is_transient: true }),
          });
        case 'server_error':
          return sim.inject({ path, status: 500, body: graphBody({ message: 'Service temporarily unavailable', code: 2, is_transient: true }) });
        case 'rejected':
          return sim.inject({
            path,
            status: 400,
            body: graphBody({
              message: 'The action attempted has been deemed abusive or is otherwise disallowed',
              type: 'THApiException',
              code: 368,
              error_user_title: 'Action blocked',
              error_user_msg: "This post goes against Threads' Community Guidelines.",
            }),
          });
        case 'error_in_200':
          // Threads' errors under HTTP 200: a container that failed processing reads `status: ERROR`.
          return sim.inject({ path: /^\/v1\.0\/\d+\?(.*&)?fields=[^&]*status/, status: 200, body: { status: 'ERROR', error_message: 'UNKNOWN', id: '0' } });
      }
    },
  });
}
