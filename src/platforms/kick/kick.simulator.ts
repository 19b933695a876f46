import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../../../test/simulators/harness.js';

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

export interface KickAppRecord {
  clientId: string;
  clientSecret: string;
  /** registered redirect URIs (any when absent) */
  redirectUris?: string[];
}

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

interface TokenRecord {
  token: string;
  userId: number;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface KickSimulator extends Simulator {
  apps: Map<string, KickAppRecord>;
  users: Map<number, KickUserRecord>;
  messages: KickMessageRecord[];
  addApp(app: KickAppRecord): void;
  addUser(user: KickUserRecord): void;
  /** the user who approves the next authorisations (default: the first added) */
  approveAs(userId: number): void;
  /** scopes the user grants (default: what the app asks) */
  grantOnly(scopes: string[] | undefined): void;
  expireAccessTokens(): void;
  /** the user removes the app: access and refresh tokens stop working */
  revokeGrant(): void;
  refreshCount(): number;
  /** a message as the contract suite reads it */
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const secret = () => randomBytes(32).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function startKickSimulator(): Promise<KickSimulator> {
  const apps = new Map<string, KickAppRecord>();
  const users = new Map<number, KickUserRecord>();
  const messages: KickMessageRecord[] = [];
  const tokens = new Map<string, TokenRecord>();
  const refreshTokens = new Map<string, TokenRecord>();
  const codes = new Map<string, { clientId: string; redirectUri: string; userId: number; scopes: string[]; challenge: string; expiresAt: number; used: boolean }>();
  let approver: number | undefined;
  let granted: string[] | undefined;
  let refreshes = 0;

  const oauthFail = (reply: FastifyReply, status = 400) => reply.status(status).send({ error: status === 401 ? 'Unauthorized' : 'Invalid request' });
  const apiFail = (reply: FastifyReply, status: number, message: string) => reply.status(status).send({ data: {}, message });

  function issue(userId: number, clientId: string, scopes: string[]) {
    const access: TokenRecord = { token: secret(), userId, clientId, scopes, expiresAt: Date.now() + ACCESS_SECONDS * 1000, revoked: false };
    const refresh: TokenRecord = { ...access, token: secret(), expiresAt: Number.POSITIVE_INFINITY };
    tokens.set(access.token, access);
    refreshTokens.set(refresh.token, refresh);
    return { access_token: access.token, token_type: 'Bearer', refresh_token: refresh.token, expires_in: ACCESS_SECONDS, scope: scopes.join(' ') };
  }

  function authorize(req: FastifyRequest, reply: FastifyReply, scope: string): TokenRecord | undefined {
    const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t || t.revoked || t.expiresAt <= Date.now()) return void apiFail(reply, 401, 'Unauthorized');
    if (!t.scopes.includes(scope)) return void apiFail(reply, 403, `Forbidden: missing scope ${scope}`);
    return t;
  }

  const slugOf = (u: KickUserRecord) => u.slug ?? u.name.toLowerCase();

  const sim = await startSimulator((app) => {
    app.get<{ Querystring: Record<string, string | undefined> }>('/oauth/authorize', (req, reply) => {
      const q = req.query;
      const client = apps.get(q.client_id ?? '');
      if (!client || q.response_type !== 'code' || !q.redirect_uri || !q.state) return oauthFail(reply);
      if (client.redirectUris && !client.redirectUris.includes(q.redirect_uri)) return oauthFail(reply);
      // OAuth 2.1: PKCE is mandatory, and only S256.
      if (!q.code_challenge || q.code_challenge_method !== 'S256') return oauthFail(reply);
      const userId = approver ?? [...users.keys()][0];
      if (userId === undefined) return oauthFail(reply);
      const asked = (q.scope ?? '').split(' ').filter(Boolean);
      const scopes = granted ? asked.filter((s) => granted!.includes(s)) : asked;
      const code = secret();
      codes.set(code, { clientId: client.clientId, redirectUri: q.redirect_uri, userId, scopes, challenge: q.code_challenge, expiresAt: Date.now() + CODE_MS, used: false });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.state);
      return reply.redirect(back.toString(), 302);
    });

    app.post<{ Body: Record<string, string | undefined> }>('/oauth/token', (req, reply) => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return oauthFail(reply);
      const b = req.body ?? {};
      const client = apps.get(b.client_id ?? '');
      if (!client) return oauthFail(reply);
      if (b.client_secret !== client.clientSecret) return oauthFail(reply, 401);
      if (b.grant_type === 'authorization_code') {
        const c = codes.get(b.code ?? '');
        if (!c || c.clientId !== client.clientId || c.expiresAt <= Date.now()) return oauthFail(reply);
        // A code is single use.
        if (c.used) return oauthFail(reply);
        if (c.redirectUri !== b.redirect_uri) return oauthFail(reply);
        if (!b.code_verifier || s256(b.code_verifier) !== c.challenge) return oauthFail(reply);
        c.used = true;
        return reply.send(issue(c.userId, client.clientId, c.scopes));
      }
      if (b.grant_type === 'refresh_token') {
        const r = refreshTokens.get(b.refresh_token ?? '');
        if (!r || r.revoked || r.clientId !== client.clientId) return oauthFail(reply);
        // Rotation: the presented refresh token is retired.
        refreshTokens.delete(r.token);
        refreshes++;
        return reply.send(issue(r.userId, r.clientId, r.scopes));
      }
      return oauthFail(reply);
    });

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
    apps,
    users,
    messages,
    addApp: (a) => apps.set(a.clientId, a),
    addUser: (u) => users.set(u.user_id, u),
    approveAs: (id) => {
      approver = id;
    },
    grantOnly: (scopes) => {
      granted = scopes;
    },
    expireAccessTokens: () => {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1;
    },
    revokeGrant: () => {
      for (const t of tokens.values()) t.revoked = true;
      for (const t of refreshTokens.values()) t.revoked = true;
    },
    refreshCount: () => refreshes,
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
