import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import { createOAuth2Simulator, type OAuth2AppRecord, type OAuth2TokenRecord, type OAuth2Controls } from '../common/oauth2.simulator.js';

/**
 * A simulator of Kick's OAuth server (`https://id.kick.com`) and public API
 * (`https://api.kick.com/public/v1`); one server stands for both hosts (map them to it).
 *
 * OAuth 2.1: the authorisation page refuses a request without an S256 code challenge, an unknown
 * client or an unregistered redirect URI; the token endpoint (form-encoded) checks the client
 * secret, the code (single use, ten minutes, same client and redirect URI) and the PKCE verifier,
 * and answers `{ access_token, token_type, refresh_token, expires_in, scope }`. Refresh tokens
 * rotate: each refresh hands out a new one and retires the old. OAuth failures are 400
 * `{"error":"Invalid request"}` (401 for a wrong client secret), as Kick's server answers.
 *
 * The API answers `{ data, message }`: 401 `Unauthorized` for a missing, expired or revoked token,
 * 403 when the token lacks the endpoint's scope. `POST /public/v1/chat` checks the body as Kick
 * does (`type` user|bot, `content` 1–500 characters, `broadcaster_user_id` — here it must be the
 * token's own user — and a `reply_to_message_id` that exists in that channel) and answers
 * `{ data: { is_sent, message_id }, message }`. Every sent message is recorded.
 */

export const KICK_ID_ORIGIN = 'https://id.kick.com';
export const KICK_API_ORIGIN = 'https://api.kick.com';

const ACCESS_SECONDS = 2 * 3600;
const CODE_MS = 10 * 60_000;
const MAX_CONTENT = 500;

export type KickAppRecord = OAuth2AppRecord;

export interface KickUserRecord {
  user_id: number;
  name: string;
  email?: string;
  profile_picture?: string;
  /** the channel's slug (default: the name in lower case) */
  slug?: string;
}

export interface KickMessageRecord {
  id: string;
  /** who sent it (the token's user) */
  senderUserId: number;
  broadcasterUserId: number;
  type: 'user' | 'bot';
  content: string;
  replyTo: string | null;
  createdAt: number;
}

type TokenRecord = OAuth2TokenRecord<number>;

export interface KickSimulator extends Simulator, OAuth2Controls<number> {
  users: Map<number, KickUserRecord>;
  messages: KickMessageRecord[];
  addUser(user: KickUserRecord): void;
  /** a message as the contract suite reads it */
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const secret = () => randomBytes(32).toString('base64url');

export async function startKickSimulator(): Promise<KickSimulator> {
  const users = new Map<number, KickUserRecord>();
  const messages: KickMessageRecord[] = [];
  let approver: number | undefined;

  // OAuth 2.1 (PKCE S256 and state required; refresh tokens rotate). Every failure is 400
  // `{"error":"Invalid request"}`, but a wrong client secret is 401 `{"error":"Unauthorized"}`.
  const oauth = createOAuth2Simulator<number>({
    paths: { authorize: '/oauth/authorize', token: '/oauth/token' },
    accessSeconds: ACCESS_SECONDS,
    codeMs: CODE_MS,
    accessToken: secret,
    refreshToken: secret,
    code: secret,
    pkce: true,
    requireState: true,
    redirectScope: false,
    rotateRefreshTokens: true,
    approver: () => approver ?? [...users.keys()][0],
    tokenBody: ({ access, refresh }) => ({ access_token: access.token, token_type: 'Bearer', refresh_token: refresh.token, expires_in: ACCESS_SECONDS, scope: access.scopes.join(' ') }),
    fail: (reply, failure) => (failure === 'wrong_secret' ? reply.status(401).send({ error: 'Unauthorized' }) : reply.status(400).send({ error: 'Invalid request' })),
  });
  const apiFail = (reply: FastifyReply, status: number, message: string) => reply.status(status).send({ data: {}, message });

  function authorize(req: FastifyRequest, reply: FastifyReply, scope: string): TokenRecord | undefined {
    const t = oauth.bearer(req);
    if (!t) return void apiFail(reply, 401, 'Unauthorized');
    if (!t.scopes.includes(scope)) return void apiFail(reply, 403, `Forbidden: missing scope ${scope}`);
    return t;
  }

  const slugOf = (u: KickUserRecord) => u.slug ?? u.name.toLowerCase();

  const sim = await startSimulator((app) => {
    oauth.register(app);

    app.get('/public/v1/users', (req, reply) => {
      const t = authorize(req, reply, 'user:read');
      if (!t) return reply;
      const u = users.get(t.userId)!;
      return reply.send({ data: [{ user_id: u.user_id, name: u.name, email: u.email ?? `${slugOf(u)}@example.com`, profile_picture: u.profile_picture ?? '' }], message: 'OK' });
    });

    app.get('/public/v1/channels', (req, reply) => {
      const t = authorize(req, reply, 'channel:read');
      if (!t) return reply;
      const u = users.get(t.userId)!;
      return reply.send({
        data: [{ broadcaster_user_id: u.user_id, slug: slugOf(u), channel_description: '', banner_picture: '', stream_title: '', category: { id: 0, name: '', thumbnail: '' } }],
        message: 'OK',
      });
    });

    app.post<{ Body: Record<string, unknown> | undefined }>('/public/v1/chat', (req, reply) => {
      const t = authorize(req, reply, 'chat:write');
      if (!t) return reply;
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return apiFail(reply, 400, 'Invalid request: the body must be JSON');
      const b = req.body ?? {};
      if (b.type !== 'user' && b.type !== 'bot') return apiFail(reply, 400, 'Invalid request: type must be one of user, bot');
      if (typeof b.content !== 'string' || b.content.trim() === '') return apiFail(reply, 400, 'Invalid request: content is required');
      if (b.content.length > MAX_CONTENT) return apiFail(reply, 400, `Invalid request: content may not be greater than ${MAX_CONTENT} characters`);
      let broadcaster = t.userId;
      if (b.type === 'user') {
        if (typeof b.broadcaster_user_id !== 'number' || !Number.isInteger(b.broadcaster_user_id)) return apiFail(reply, 400, 'Invalid request: broadcaster_user_id is required for type user');
        if (b.broadcaster_user_id !== t.userId) return apiFail(reply, 400, 'Invalid request: broadcaster_user_id is not the channel of this token');
        broadcaster = b.broadcaster_user_id;
      }
      let replyTo: string | null = null;
      if (b.reply_to_message_id !== undefined) {
        const parent = typeof b.reply_to_message_id === 'string' ? messages.find((m) => m.id === b.reply_to_message_id) : undefined;
        if (!parent || parent.broadcasterUserId !== broadcaster) return apiFail(reply, 400, 'Invalid request: reply_to_message_id does not exist in this chat');
        replyTo = parent.id;
      }
      const msg: KickMessageRecord = { id: randomUUID(), senderUserId: t.userId, broadcasterUserId: broadcaster, type: b.type, content: b.content, replyTo, createdAt: Date.now() };
      messages.push(msg);
      return reply.send({ data: { is_sent: true, message_id: msg.id }, message: 'OK' });
    });
  });

  const API = /^\/public\/v1\//;
  return {
    ...sim,
    ...oauth.controls,
    users,
    messages,
    addUser: (u) => users.set(u.user_id, u),
    approveAs: (id) => {
      approver = id;
    },
    lookup: (id) => {
      const m = messages.find((x) => x.id === id);
      return m ? { text: m.content, ...(m.replyTo ? { replyTo: m.replyTo } : {}), mediaSha256: [] } : undefined;
    },
    injectKind: (kind) => {
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path: API, status: 401, body: { data: {}, message: 'Unauthorized' } });
        case 'rate_limited':
          return sim.inject({ path: API, status: 429, body: { data: {}, message: 'Too Many Attempts.' }, headers: { 'retry-after': '30' } });
        case 'server_error':
          return sim.inject({ path: API, status: 500, body: { data: {}, message: 'Internal Server Error' } });
        case 'rejected':
          return sim.inject({ path: API, status: 400, body: { data: {}, message: 'Invalid request: content contains a blocked term' } });
        case 'error_in_200':
          return sim.inject({ path: API, status: 200, body: { data: { is_sent: false, message_id: '' }, message: 'Message was not sent: the chat is in followers-only mode' } });
      }
    },
  };
}
