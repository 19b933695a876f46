import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of Whop's OAuth (OIDC) endpoints and REST API v1 (`https://api.whop.com`), plus
 * the file storage its uploads go to (another origin, `https://whop-uploads.s3.amazonaws.com`):
 *
 * - `GET /oauth/authorize`: a registered client and redirect URI, `openid` among the scopes, a
 *   S256 PKCE challenge and a nonce; approves at once and redirects with `code` and `state`;
 * - `POST /oauth/token` takes JSON only: the code once, for the same client and redirect URI, the
 *   client secret, the PKCE verifier; refresh tokens rotate (a used one is `invalid_grant`); access
 *   tokens last `expires_in` (1 hour);
 * - `GET /oauth/userinfo` → `{ sub, name, preferred_username, picture }`;
 * - API calls read `Authorization: Bearer`: an expired token → 401 `invalid_token`, an unknown or
 *   revoked one → 401 `invalid_grant`; a missing scope → 403 `insufficient_scope`; errors as
 *   `{ error: { type, message } }`; 429 with `Retry-After`;
 * - `GET /api/v1/companies`, `GET /api/v1/forums?company_id=` (the user's companies only);
 * - `POST /api/v1/files { filename }` → `{ id, upload_status: "pending", upload_url,
 *   upload_headers }`; `PUT` to the pre-signed `upload_url` (signature and Content-Type checked,
 *   bytes hashed); `GET /api/v1/files/{id}` says `processing` for `processingPolls` looks, then
 *   `ready` (or `failed` for a file marked so);
 * - `POST /api/v1/forum_posts { experience_id, content, title?, attachments?, parent_id? }`: an
 *   experience of the user's companies, content or attachments, content ≤ 50,000, attachments
 *   only the user's `ready` files, a parent in the same experience → the post;
 *   `GET /api/v1/forum_posts?experience_id=&parent_id=` → `{ data, page_info }`, newest first.
 */

export const WHOP_ORIGIN = 'https://api.whop.com';
export const WHOP_UPLOAD_ORIGIN = 'https://whop-uploads.s3.amazonaws.com';

export interface WhopUserRecord {
  id: string;
  username: string;
  name: string;
  picture?: string;
}
export interface WhopCompanyRecord {
  id: string;
  title: string;
  members: string[];
  forums: { id: string; experienceId: string; name: string }[];
}
export interface WhopFileRecord {
  id: string;
  owner: string;
  filename: string;
  contentType: string;
  signature: string;
  status: 'pending' | 'processing' | 'ready' | 'failed';
  pollsLeft: number;
  sha256?: string;
  size?: number;
  failOnProcessing?: boolean;
}
export interface WhopPostRecord {
  id: string;
  experienceId: string;
  userId: string;
  title: string | null;
  content: string | null;
  parentId: string | null;
  attachments: string[];
  mediaSha256: string[];
  createdAt: string;
}

export interface WhopSimulatorOptions {
  /** looks at a file that say `processing` before it is `ready` (0: ready at the first look) */
  processingPolls?: number;
  now?: () => number;
}

export interface WhopSimulator extends Simulator {
  addApp(app: { clientId: string; clientSecret: string; redirectUris: string[] }): void;
  addUser(user: WhopUserRecord): void;
  addCompany(company: WhopCompanyRecord): void;
  /** the user who approves the next authorisation */
  approveAs(userId: string, scopes?: string[]): void;
  expireAccessTokens(): void;
  revokeGrants(): void;
  /** the next file created fails processing */
  failNextFile(): void;
  posts: WhopPostRecord[];
  files: Map<string, WhopFileRecord>;
  injectKind(kind: InjectedKind): void;
}

interface Grant {
  userId: string;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}
interface Token {
  grant: Grant;
  expiresAt: number;
}

const apiError = (reply: FastifyReply, status: number, type: string, message: string) => reply.status(status).send({ error: { type, message } });
const oauthError = (reply: FastifyReply, status: number, error: string, description: string) => reply.status(status).send({ error, error_description: description });
const id = (prefix: string) => `${prefix}_${randomBytes(7).toString('base64url').replace(/[-_]/g, 'x')}`;
const MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm' };

export async function startWhopSimulator(opts: WhopSimulatorOptions = {}): Promise<WhopSimulator> {
  const now = opts.now ?? (() => Date.now());
  const processingPolls = opts.processingPolls ?? 1;
  const apps = new Map<string, { clientId: string; clientSecret: string; redirectUris: string[] }>();
  const users = new Map<string, WhopUserRecord>();
  const companies = new Map<string, WhopCompanyRecord>();
  const codes = new Map<string, { grant: Grant; redirectUri: string; challenge: string }>();
  const access = new Map<string, Token>();
  const refresh = new Map<string, Grant>();
  const grants: Grant[] = [];
  const files = new Map<string, WhopFileRecord>();
  const posts: WhopPostRecord[] = [];
  let approver: { userId: string; scopes?: string[] } | undefined;
  let failNext = false;

  function issue(grant: Grant) {
    const accessToken = `whop_at_${randomBytes(18).toString('hex')}`;
    const refreshToken = `whop_rt_${randomBytes(18).toString('hex')}`;
    access.set(accessToken, { grant, expiresAt: now() + 3600_000 });
    refresh.set(refreshToken, grant);
    return { access_token: accessToken, refresh_token: refreshToken, token_type: 'Bearer', expires_in: 3600, scope: grant.scopes.join(' '), id_token: `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify({ sub: grant.userId })).toString('base64url')}.` };
  }

  /** The grant of a valid access token with `scope`, or the error already sent. */
  function authed(req: FastifyRequest, reply: FastifyReply, scope?: string): Grant | undefined {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const t = m ? access.get(m[1]!) : undefined;
    if (!t || t.grant.revoked) {
      void apiError(reply, 401, 'invalid_grant', 'The access token is invalid or has been revoked');
      return undefined;
    }
    if (t.expiresAt <= now()) {
      void apiError(reply, 401, 'invalid_token', 'The access token has expired');
      return undefined;
    }
    if (scope && !t.grant.scopes.includes(scope)) {
      void apiError(reply, 403, 'insufficient_scope', `This action requires the ${scope} scope`);
      return undefined;
    }
    return t.grant;
  }
  const experienceOf = (userId: string, experienceId: string) => {
    for (const c of companies.values()) {
      const f = c.forums.find((x) => x.experienceId === experienceId);
      if (f) return c.members.includes(userId) ? { company: c, forum: f } : undefined;
    }
    return undefined;
  };
  const postView = (p: WhopPostRecord) => {
    const u = users.get(p.userId);
    return {
      id: p.id,
      title: p.title,
      content: p.content,
      is_edited: false,
      is_poster_admin: true,
      is_pinned: false,
      parent_id: p.parentId,
      user: { id: p.userId, username: u?.username ?? null, name: u?.name ?? null },
      attachments: p.attachments.map((a) => ({ id: a })),
      view_count: 0,
      like_count: 0,
      comment_count: posts.filter((x) => x.parentId === p.id).length,
      created_at: p.createdAt,
    };
  };
  const fileView = (f: WhopFileRecord) => ({
    id: f.id,
    filename: f.filename,
    content_type: f.contentType,
    size: f.size ?? null,
    upload_status: f.status,
    url: f.status === 'ready' ? `https://assets.whop.com/uploads/${f.id}/${f.filename}` : null,
  });

  const sim = await startSimulator((app) => {
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    // ---- OAuth (OIDC)
    app.get('/oauth/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const client = q.client_id ? apps.get(q.client_id) : undefined;
      if (!client) return reply.status(400).send('Unknown client_id');
      if (!q.redirect_uri || !client.redirectUris.includes(q.redirect_uri)) return reply.status(400).send('redirect_uri is not registered for this app');
      if (q.response_type !== 'code') return reply.status(400).send('response_type must be code');
      const scopes = (q.scope ?? '').split(' ').filter(Boolean);
      if (!scopes.includes('openid')) return reply.status(400).send('The openid scope is required');
      if (!q.code_challenge || q.code_challenge_method !== 'S256') return reply.status(400).send('PKCE with S256 is required');
      if (!q.nonce) return reply.status(400).send('nonce is required');
      if (!approver) return reply.status(400).send('Nobody is signed in');
      const grant: Grant = { userId: approver.userId, clientId: client.clientId, scopes: approver.scopes ?? scopes, revoked: false };
      grants.push(grant);
      const code = randomBytes(16).toString('hex');
      codes.set(code, { grant, redirectUri: q.redirect_uri, challenge: q.code_challenge });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      if (q.state) back.searchParams.set('state', q.state);
      return reply.redirect(back.toString());
    });

    app.post('/oauth/token', async (req, reply) => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return oauthError(reply, 400, 'invalid_request', 'The request body must be JSON');
      const b = (req.body ?? {}) as Record<string, string | undefined>;
      const client = b.client_id ? apps.get(b.client_id) : undefined;
      if (!client || b.client_secret !== client.clientSecret) return oauthError(reply, 401, 'invalid_client', 'Client authentication failed');
      if (b.grant_type === 'authorization_code') {
        const c = b.code ? codes.get(b.code) : undefined;
        if (!c) return oauthError(reply, 400, 'invalid_grant', 'The authorization code is invalid or has already been used');
        codes.delete(b.code!);
        if (c.grant.clientId !== client.clientId) return oauthError(reply, 400, 'invalid_grant', 'The code was issued to another client');
        if (b.redirect_uri !== c.redirectUri) return oauthError(reply, 400, 'invalid_grant', 'redirect_uri does not match');
        if (!b.code_verifier || createHash('sha256').update(b.code_verifier).digest('base64url') !== c.challenge) return oauthError(reply, 400, 'invalid_grant', 'PKCE verification failed');
        return issue(c.grant);
      }
      if (b.grant_type === 'refresh_token') {
        const g = b.refresh_token ? refresh.get(b.refresh_token) : undefined;
        if (!g || g.revoked || g.clientId !== client.clientId) return oauthError(reply, 400, 'invalid_grant', 'The refresh token is invalid, expired or revoked');
        refresh.delete(b.refresh_token!);
        return issue(g);
      }
      return oauthError(reply, 400, 'unsupported_grant_type', `grant_type ${b.grant_type ?? '(none)'} is not supported`);
    });

    app.get('/oauth/userinfo', async (req, reply) => {
      const g = authed(req, reply, 'openid');
      if (!g) return reply;
      const u = users.get(g.userId)!;
      return { sub: u.id, name: u.name, preferred_username: u.username, ...(g.scopes.includes('profile') && u.picture ? { picture: u.picture } : {}) };
    });

    // ---- API v1
    app.get('/api/v1/companies', async (req, reply) => {
      const g = authed(req, reply, 'company:basic:read');
      if (!g) return reply;
      const mine = [...companies.values()].filter((c) => c.members.includes(g.userId));
      return { data: mine.map((c) => ({ id: c.id, title: c.title, route: c.title.toLowerCase().replace(/\W+/g, '-') })), page_info: { has_next_page: false, end_cursor: null } };
    });

    app.get('/api/v1/forums', async (req: FastifyRequest<{ Querystring: { company_id?: string } }>, reply) => {
      const g = authed(req, reply, 'forum:read');
      if (!g) return reply;
      const c = req.query.company_id ? companies.get(req.query.company_id) : undefined;
      if (!req.query.company_id) return apiError(reply, 400, 'invalid_request', 'company_id is required');
      if (!c || !c.members.includes(g.userId)) return apiError(reply, 404, 'not_found', 'Company not found');
      return { data: c.forums.map((f) => ({ id: f.id, experience: { id: f.experienceId, name: f.name } })), page_info: { has_next_page: false, end_cursor: null } };
    });

    app.post('/api/v1/files', async (req, reply) => {
      const g = authed(req, reply);
      if (!g) return reply;
      const b = (req.body ?? {}) as { filename?: unknown };
      if (typeof b.filename !== 'string' || b.filename === '') return apiError(reply, 400, 'invalid_request', 'filename is required');
      const ext = b.filename.split('.').pop()?.toLowerCase() ?? '';
      const contentType = MIME[ext] ?? 'application/octet-stream';
      const f: WhopFileRecord = { id: id('file'), owner: g.userId, filename: b.filename, contentType, signature: randomBytes(12).toString('hex'), status: 'pending', pollsLeft: processingPolls, failOnProcessing: failNext };
      failNext = false;
      files.set(f.id, f);
      return { ...fileView(f), upload_url: `${WHOP_UPLOAD_ORIGIN}/whop-files/${f.id}/${encodeURIComponent(f.filename)}?X-Amz-Signature=${f.signature}`, upload_headers: { 'Content-Type': contentType } };
    });

    app.put('/whop-files/:id/:name', async (req: FastifyRequest<{ Params: { id: string; name: string }; Querystring: { 'X-Amz-Signature'?: string } }>, reply) => {
      const f = files.get(req.params.id);
      if (!f || req.query['X-Amz-Signature'] !== f.signature) {
        return reply.status(403).header('content-type', 'application/xml').send('<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>');
      }
      if (String(req.headers['content-type'] ?? '') !== f.contentType) {
        return reply.status(403).header('content-type', 'application/xml').send('<Error><Code>SignatureDoesNotMatch</Code><Message>Content-Type is part of the signature</Message></Error>');
      }
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (bytes.length === 0) return reply.status(400).header('content-type', 'application/xml').send('<Error><Code>MissingContent</Code></Error>');
      f.sha256 = createHash('sha256').update(bytes).digest('hex');
      f.size = bytes.length;
      f.status = 'processing';
      return reply.status(200).header('etag', `"${f.sha256.slice(0, 32)}"`).send('');
    });

    app.get('/api/v1/files/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const g = authed(req, reply);
      if (!g) return reply;
      const f = files.get(req.params.id);
      if (!f || f.owner !== g.userId) return apiError(reply, 404, 'not_found', 'File not found');
      if (f.status === 'processing') {
        if (f.failOnProcessing) f.status = 'failed';
        else if (f.pollsLeft <= 0) f.status = 'ready';
        else f.pollsLeft--;
      }
      return fileView(f);
    });

    app.post('/api/v1/forum_posts', async (req, reply) => {
      const g = authed(req, reply, 'forum:post:create');
      if (!g) return reply;
      const b = (req.body ?? {}) as { experience_id?: unknown; content?: unknown; title?: unknown; attachments?: unknown; parent_id?: unknown };
      if (typeof b.experience_id !== 'string' || b.experience_id === '') return apiError(reply, 400, 'invalid_request', 'experience_id is required');
      if (!experienceOf(g.userId, b.experience_id)) return apiError(reply, 404, 'not_found', 'Experience not found');
      const content = typeof b.content === 'string' && b.content.trim() !== '' ? b.content : null;
      const attachments = Array.isArray(b.attachments) ? (b.attachments as { id?: unknown }[]) : [];
      if (!content && attachments.length === 0) return apiError(reply, 400, 'invalid_request', 'A post needs content or attachments');
      if (content && content.length > 50_000) return apiError(reply, 400, 'invalid_request', 'content is too long (maximum is 50000 characters)');
      const shas: string[] = [];
      for (const a of attachments) {
        const f = typeof a?.id === 'string' ? files.get(a.id) : undefined;
        if (!f || f.owner !== g.userId) return apiError(reply, 400, 'invalid_request', `Attachment ${String(a?.id)} not found`);
        if (f.status !== 'ready') return apiError(reply, 400, 'invalid_request', `Attachment ${f.id} is not ready (upload_status: ${f.status})`);
        shas.push(f.sha256!);
      }
      const parentId = typeof b.parent_id === 'string' && b.parent_id !== '' ? b.parent_id : null;
      if (parentId && !posts.some((p) => p.id === parentId && p.experienceId === b.experience_id)) return apiError(reply, 404, 'not_found', 'Parent post not found');
      const p: WhopPostRecord = {
        id: id('post'),
        experienceId: b.experience_id,
        userId: g.userId,
        title: typeof b.title === 'string' ? b.title : null,
        content,
        parentId,
        attachments: attachments.map((a) => String(a.id)),
        mediaSha256: shas,
        createdAt: new Date(now()).toISOString(),
      };
      posts.push(p);
      return postView(p);
    });

    app.get('/api/v1/forum_posts', async (req: FastifyRequest<{ Querystring: { experience_id?: string; parent_id?: string; first?: string } }>, reply) => {
      const g = authed(req, reply, 'forum:read');
      if (!g) return reply;
      const { experience_id: exp, parent_id: parent } = req.query;
      if (!exp) return apiError(reply, 400, 'invalid_request', 'experience_id is required');
      if (!experienceOf(g.userId, exp)) return apiError(reply, 404, 'not_found', 'Experience not found');
      const first = Math.min(Number(req.query.first ?? 20) || 20, 100);
      const list = posts.filter((p) => p.experienceId === exp && (parent ? p.parentId === parent : p.parentId === null)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      return { data: list.slice(0, first).map(postView), page_info: { has_next_page: list.length > first, end_cursor: null, start_cursor: null, has_previous_page: false } };
    });
  });

  const shapes: Record<InjectedKind, { status: number; body: unknown; headers?: Record<string, string> }> = {
    auth_expired: { status: 401, body: { error: { type: 'invalid_token', message: 'The access token has expired' } } },
    revoked: { status: 403, body: { error: { type: 'insufficient_scope', message: 'The app no longer has access to this account' } } },
    rate_limited: { status: 429, body: { error: { type: 'rate_limit_exceeded', message: 'Too many requests' } }, headers: { 'retry-after': '42' } },
    server_error: { status: 500, body: { error: { type: 'internal_server_error', message: 'Something went wrong' } } },
    rejected: { status: 400, body: { error: { type: 'invalid_request', message: 'Posting is disabled in this forum' } } },
    error_in_200: { status: 200, body: { error: { type: 'invalid_request', message: 'unused: Whop answers errors with 4xx' } } },
  };

  return Object.assign(sim, {
    posts,
    files,
    addApp: (a: { clientId: string; clientSecret: string; redirectUris: string[] }) => void apps.set(a.clientId, a),
    addUser: (u: WhopUserRecord) => void users.set(u.id, u),
    addCompany: (c: WhopCompanyRecord) => void companies.set(c.id, c),
    approveAs: (userId: string, scopes?: string[]) => {
      approver = { userId, scopes };
    },
    expireAccessTokens: () => {
      for (const t of access.values()) t.expiresAt = now() - 1;
    },
    revokeGrants: () => {
      for (const g of grants) g.revoked = true;
    },
    failNextFile: () => {
      failNext = true;
    },
    injectKind: (kind: InjectedKind) => sim.inject({ path: /^\/api\/v1\/(forum_posts|files)/, ...shapes[kind] }),
  });
}
