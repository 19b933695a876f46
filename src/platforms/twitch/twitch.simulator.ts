import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import { createOAuth2Simulator, type OAuth2AppRecord, type OAuth2TokenRecord, type OAuth2Controls } from '../common/oauth2.simulator.js';
import { fixedWindowCounter } from '../common/rate-limit.simulator.js';

/**
 * A simulator of Twitch's OAuth server (`https://id.twitch.tv/oauth2`) and Helix API
 * (`https://api.twitch.tv/helix`); one server stands for both hosts (map them to it).
 *
 * OAuth: the authorisation page checks the client and its registered redirect URI; the token
 * endpoint (form) checks the client secret (403 `invalid client secret`), the code (single use, ten
 * minutes, same redirect URI) and answers `{ access_token, expires_in, refresh_token, scope: [],
 * token_type }`; a refresh answers a new access token and a new refresh token (the previous refresh
 * token keeps working, as Twitch's confidential-client tokens do). OAuth errors are
 * `{ status, message }`.
 *
 * Helix: every call needs `Authorization: Bearer` and the `Client-Id` of the token's app, and is
 * answered with `Ratelimit-Limit/Remaining/Reset` (a bucket per token, refilled each minute; Reset
 * is the epoch second); errors are `{ error, status, message }` (401 invalid token, 403 missing
 * scope or not allowed in the chat, 400 invalid parameters, 429 empty bucket). `POST /chat/messages`
 * checks sender = the token's user, broadcaster = that user's own chat, the message (1–500
 * characters) and that a reply parent exists in that chat, answering `{ data: [{ message_id,
 * is_sent, drop_reason }] }`; `POST /chat/announcements` checks the same and the colour, and
 * answers 204. Messages and announcements are recorded.
 */

export const TWITCH_ID_ORIGIN = 'https://id.twitch.tv';
export const TWITCH_API_ORIGIN = 'https://api.twitch.tv';

const ACCESS_SECONDS = 14_400;
const CODE_MS = 10 * 60_000;
const MAX_MESSAGE = 500;
const COLORS = ['blue', 'green', 'orange', 'purple', 'primary'];

export type TwitchAppRecord = OAuth2AppRecord;

export interface TwitchUserRecord {
  id: string;
  login: string;
  display_name: string;
  profile_image_url?: string;
}

export interface TwitchMessageRecord {
  id: string;
  senderId: string;
  broadcasterId: string;
  text: string;
  replyTo: string | null;
  createdAt: number;
}

export interface TwitchAnnouncementRecord {
  broadcasterId: string;
  moderatorId: string;
  text: string;
  color: string;
  createdAt: number;
}

type TokenRecord = OAuth2TokenRecord<string>;

export interface TwitchSimulatorOptions {
  /** Helix points per token and minute (Twitch: 800) */
  rateLimitPerMinute?: number;
}

export interface TwitchSimulator extends Simulator, OAuth2Controls<string> {
  users: Map<string, TwitchUserRecord>;
  messages: TwitchMessageRecord[];
  announcements: TwitchAnnouncementRecord[];
  addUser(user: TwitchUserRecord): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const secret = (n = 15) => randomBytes(n).toString('hex');

export async function startTwitchSimulator(opts: TwitchSimulatorOptions = {}): Promise<TwitchSimulator> {
  const users = new Map<string, TwitchUserRecord>();
  const messages: TwitchMessageRecord[] = [];
  const announcements: TwitchAnnouncementRecord[] = [];
  const buckets = fixedWindowCounter<string>();
  const perMinute = opts.rateLimitPerMinute ?? 800;
  let approver: string | undefined;

  // OAuth errors are `{ status, message }`; the previous refresh token keeps working. (No state, PKCE
  // or scope check: their answers below are never sent.)
  const oauthFail = (reply: FastifyReply, status: number, message: string) => reply.status(status).send({ status, message });
  const OAUTH_FAILURES = {
    unknown_client: [400, 'invalid client'],
    bad_redirect_uri: [400, 'Parameter redirect_uri does not match registered URI'],
    bad_response_type: [400, 'invalid response type'],
    missing_state: [400, 'missing state'],
    missing_pkce: [400, 'missing code challenge'],
    bad_scope: [400, 'invalid scope'],
    no_user: [400, 'no user'],
    not_form: [400, 'missing client id'],
    token_unknown_client: [400, 'invalid client'],
    wrong_secret: [403, 'invalid client secret'],
    bad_code: [400, 'Invalid authorization code'],
    code_redirect_mismatch: [400, 'Parameter redirect_uri does not match registered URI'],
    bad_verifier: [400, 'Invalid authorization code'],
    bad_refresh_token: [400, 'Invalid refresh token'],
    unsupported_grant: [400, 'unsupported grant type'],
  } as const;
  const oauth = createOAuth2Simulator<string>({
    paths: { authorize: '/oauth2/authorize', token: '/oauth2/token' },
    accessSeconds: ACCESS_SECONDS,
    codeMs: CODE_MS,
    accessToken: () => secret(),
    refreshToken: () => secret(25),
    code: () => secret(),
    pkce: false,
    requireState: false,
    redirectScope: true,
    rotateRefreshTokens: false,
    approver: () => approver ?? ([...users.keys()][0] || undefined),
    tokenBody: ({ access, refresh }) => ({ access_token: access.token, expires_in: ACCESS_SECONDS, refresh_token: refresh.token, scope: access.scopes, token_type: 'bearer' }),
    fail: (reply, failure) => {
      const [status, message] = OAUTH_FAILURES[failure];
      return oauthFail(reply, status, message);
    },
  });
  const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 429: 'Too Many Requests' };
  const fail = (reply: FastifyReply, status: number, message: string) => reply.status(status).send({ error: STATUS_TEXT[status] ?? 'Error', status, message });

  /** The token's record when valid, of this client, with `scope`, within its bucket; else the error already sent. */
  function authorize(req: FastifyRequest, reply: FastifyReply, scope?: string): TokenRecord | undefined {
    const t = oauth.bearer(req);
    if (!t) return void fail(reply, 401, 'Invalid OAuth token');
    if (req.headers['client-id'] !== t.clientId) return void fail(reply, 401, 'Client ID and OAuth token do not match');
    const window = buckets.hit(t.token);
    void reply.headers({
      'ratelimit-limit': String(perMinute),
      'ratelimit-remaining': String(Math.max(0, perMinute - window.count)),
      'ratelimit-reset': String(Math.ceil(buckets.endOf(window) / 1000)),
    });
    if (window.count > perMinute) return void fail(reply, 429, 'Too Many Requests');
    if (scope && !t.scopes.includes(scope)) return void fail(reply, 403, `Missing scope: ${scope}`);
    return t;
  }

  const sim = await startSimulator((app) => {
    oauth.register(app);

    app.get('/helix/users', (req, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const u = users.get(t.userId)!;
      return reply.send({
        data: [
          {
            id: u.id,
            login: u.login,
            display_name: u.display_name,
            type: '',
            broadcaster_type: '',
            description: '',
            profile_image_url: u.profile_image_url ?? '',
            offline_image_url: '',
            view_count: 0,
            created_at: '2019-01-01T00:00:00Z',
          },
        ],
      });
    });

    app.post<{ Body: Record<string, unknown> | undefined }>('/helix/chat/messages', (req, reply) => {
      const t = authorize(req, reply, 'user:write:chat');
      if (!t) return reply;
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return fail(reply, 400, 'The request body must be JSON');
      const b = req.body ?? {};
      for (const k of ['broadcaster_id', 'sender_id', 'message']) if (typeof b[k] !== 'string' || b[k] === '') return fail(reply, 400, `Missing required parameter "${k}"`);
      const text = b.message as string;
      if (b.sender_id !== t.userId) return fail(reply, 401, 'The ID in sender_id must match the user ID in the access token.');
      if (b.broadcaster_id !== t.userId) return fail(reply, 403, "The sender is not permitted to send chat messages to the broadcaster's chat room.");
      if (text.length > MAX_MESSAGE) return fail(reply, 400, `The parameter "message" was malformed: it may not be longer than ${MAX_MESSAGE} characters`);
      let replyTo: string | null = null;
      if (b.reply_parent_message_id !== undefined) {
        const parent = messages.find((m) => m.id === b.reply_parent_message_id && m.broadcasterId === b.broadcaster_id);
        if (!parent) return fail(reply, 400, 'The parent message was not found in this chat');
        replyTo = parent.id;
      }
      const msg: TwitchMessageRecord = { id: randomUUID(), senderId: t.userId, broadcasterId: b.broadcaster_id, text, replyTo, createdAt: Date.now() };
      messages.push(msg);
      return reply.send({ data: [{ message_id: msg.id, is_sent: true, drop_reason: null }] });
    });

    app.post<{ Querystring: Record<string, string | undefined>; Body: Record<string, unknown> | undefined }>('/helix/chat/announcements', (req, reply) => {
      const t = authorize(req, reply, 'moderator:manage:announcements');
      if (!t) return reply;
      const q = req.query;
      if (!q.broadcaster_id) return fail(reply, 400, 'Missing required parameter "broadcaster_id"');
      if (!q.moderator_id) return fail(reply, 400, 'Missing required parameter "moderator_id"');
      if (q.moderator_id !== t.userId) return fail(reply, 401, 'The ID in moderator_id must match the user ID in the access token.');
      if (q.broadcaster_id !== t.userId) return fail(reply, 403, "The user in moderator_id is not one of the broadcaster's moderators.");
      const b = req.body ?? {};
      if (typeof b.message !== 'string' || b.message === '') return fail(reply, 400, 'Missing required parameter "message"');
      if (b.message.length > MAX_MESSAGE) return fail(reply, 400, `The parameter "message" was malformed: it may not be longer than ${MAX_MESSAGE} characters`);
      const color = b.color === undefined ? 'primary' : typeof b.color === 'string' ? b.color.toLowerCase() : '';
      if (!COLORS.includes(color)) return fail(reply, 400, 'The parameter "color" was malformed: the value must be one of blue, green, orange, purple, primary');
      announcements.push({ broadcasterId: q.broadcaster_id, moderatorId: q.moderator_id, text: b.message, color, createdAt: Date.now() });
      return reply.status(204).send();
    });
  });

  const HELIX = /^\/helix\//;
  return {
    ...sim,
    ...oauth.controls,
    users,
    messages,
    announcements,
    addUser: (u) => users.set(u.id, u),
    approveAs: (id) => {
      approver = id;
    },
    lookup: (id) => {
      const m = messages.find((x) => x.id === id);
      return m ? { text: m.text, ...(m.replyTo ? { replyTo: m.replyTo } : {}), mediaSha256: [] } : undefined;
    },
    injectKind: (kind) => {
      const reset = String(Math.ceil(Date.now() / 1000) + 20);
      const limits = { 'ratelimit-limit': '800', 'ratelimit-remaining': '0', 'ratelimit-reset': reset };
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path: HELIX, status: 401, body: { error: 'Unauthorized', status: 401, message: 'Invalid OAuth token' } });
        case 'rate_limited':
          return sim.inject({ path: HELIX, status: 429, body: { error: 'Too Many Requests', status: 429, message: 'Too Many Requests' }, headers: limits });
        case 'server_error':
          return sim.inject({ path: HELIX, status: 503, body: { error: 'Service Unavailable', status: 503, message: '' } });
        case 'rejected':
          return sim.inject({ path: HELIX, status: 400, body: { error: 'Bad Request', status: 400, message: 'The parameter "message" was malformed: it contains a term the channel has blocked' } });
        case 'error_in_200':
          return sim.inject({
            path: HELIX,
            status: 200,
            body: { data: [{ message_id: '', is_sent: false, drop_reason: { code: 'msg_duplicate', message: 'Your message was not sent because it is identical to the previous one you sent, less than 30 seconds ago.' } }] },
          });
      }
    },
  };
}
