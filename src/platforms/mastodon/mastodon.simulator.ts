import { countGraphemes } from '../text-length.js';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readMultipart, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of one Mastodon instance: dynamic app registration (`/api/v1/apps`), the OAuth
 * authorisation page (auto-approving as the signed-in account) and token endpoint with PKCE,
 * scoped bearer tokens, statuses with replies and the `Idempotency-Key` cache, media that are
 * processed asynchronously (202, then 206 on each poll until ready, then 200), Mastodon's
 * length rule (URLs 23, remote mentions as `@user`, graphemes) and its `{ error }` bodies.
 */

export interface SimAccount {
  id: string;
  username: string;
  display_name: string;
  avatar: string;
  followers_count: number;
  following_count: number;
  created_at: string;
}

export interface SimApp {
  id: string;
  name: string;
  website: string | null;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  scopes: string[];
}

export interface SimToken {
  token: string;
  accountId: string;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}

export interface SimMedia {
  id: string;
  accountId: string;
  type: 'image' | 'video' | 'gifv' | 'audio' | 'unknown';
  mimeType: string;
  size: number;
  sha256: string;
  description: string | null;
  /** polls still answered 206 before the attachment is processed */
  pollsLeft: number;
  state: 'processing' | 'ready';
  statusId: string | null;
}

export interface SimStatus {
  id: string;
  accountId: string;
  text: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: 'public' | 'unlisted' | 'private' | 'direct';
  language: string | null;
  inReplyToId: string | null;
  mediaIds: string[];
  /** sha256 of each attached file's bytes, in attachment order */
  mediaSha256: string[];
  createdAt: string;
  favourites: number;
  reblogs: number;
  idempotencyKey: string | null;
}

export interface MastodonSimulatorOptions {
  /** the instance's public origin, as it appears in URLs it hands out */
  publicUrl?: string;
  /** `configuration.statuses.max_characters` */
  maxCharacters?: number;
  /** GET /api/v1/media/{id} answers 206 this many times before 200; 0: uploads are processed at once (200) */
  mediaProcessingPolls?: number;
}

export interface MastodonSimulator extends Simulator {
  accounts: Map<string, SimAccount>;
  apps: Map<string, SimApp>;
  tokens: Map<string, SimToken>;
  statuses: SimStatus[];
  media: Map<string, SimMedia>;
  addAccount(a: { username: string; display_name?: string; followers_count?: number; following_count?: number }): SimAccount;
  /** the account that approves authorisation requests (the first one added by default) */
  signIn(accountId: string): void;
  setMediaProcessingPolls(n: number): void;
  /** finishes the processing of every attachment */
  finishProcessing(): void;
  /** moves the simulator's clock (idempotency keys live one hour) */
  advanceTime(ms: number): void;
  revokeAllTokens(): void;
  injectKind(kind: InjectedKind): void;
}

const IDEMPOTENCY_TTL_MS = 3600_000;
const URL_LENGTH = 23;
const MAX_ATTACHMENTS = 4;
const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;

const fail = (reply: FastifyReply, status: number, error: string) => reply.status(status).send({ error });

function scopeList(value: unknown): string[] {
  return typeof value === 'string' ? value.split(/[\s+]+/).filter(Boolean) : [];
}

/** `write` covers `write:statuses`; `read:accounts` or `profile` may read the own account. */
function allows(granted: string[], needed: string[]): boolean {
  return needed.some((n) => granted.includes(n) || granted.includes(n.split(':')[0]!));
}

/** Mastodon's countable text: URLs with a protocol → 23 characters, `@user@domain` → `@user`. */
function statusLength(text: string, spoiler: string): number {
  const countable = text
    .replace(/https?:\/\/[^\s<>"]+?(?=[.,:;!?)\]'"]*(?:\s|$))/g, 'x'.repeat(URL_LENGTH))
    .replace(/(?<![=/\p{L}\p{N}_])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)@[\p{L}\p{N}_]+(?:[.-]+[\p{L}\p{N}_]+)*/giu, '@$1');
  return countGraphemes(spoiler + countable);
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Mastodon renders plain text as paragraphs (blank lines) and line breaks. */
function renderContent(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br />')}</p>`)
    .join('');
}

/** Form bodies send arrays as `media_ids[]=…`; JSON as arrays. */
function arrayField(body: Record<string, unknown>, name: string): string[] {
  const v = body[name] ?? body[`${name}[]`];
  if (v === undefined || v === null || v === '') return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

export async function startMastodonSimulator(options: MastodonSimulatorOptions = {}): Promise<MastodonSimulator> {
  const publicUrl = options.publicUrl ?? 'https://mastodon.example';
  const domain = new URL(publicUrl).host;
  const maxCharacters = options.maxCharacters ?? 500;
  let processingPolls = options.mediaProcessingPolls ?? 1;
  let timeOffset = 0;
  const now = () => Date.now() + timeOffset;

  const accounts = new Map<string, SimAccount>();
  const apps = new Map<string, SimApp>();
  /** app-level tokens (client_credentials grant) → the app's client id */
  const appTokens = new Map<string, string>();
  const tokens = new Map<string, SimToken>();
  const codes = new Map<string, { clientId: string; redirectUri: string; accountId: string; scopes: string[]; challenge: string | null }>();
  const statuses: SimStatus[] = [];
  const media = new Map<string, SimMedia>();
  const idempotency = new Map<string, { statusId: string; expiresAt: number }>();
  let signedIn: string | null = null;
  let seq = 0;
  // Snowflake-like ids: time-ordered strings longer than a JS safe integer can hold.
  const nextId = () => (BigInt(now()) * 65536n + BigInt(++seq)).toString();

  const accountJson = (a: SimAccount) => ({
    id: a.id,
    username: a.username,
    acct: a.username,
    display_name: a.display_name,
    locked: false,
    bot: false,
    created_at: a.created_at,
    note: '',
    url: `${publicUrl}/@${a.username}`,
    avatar: a.avatar,
    avatar_static: a.avatar,
    followers_count: a.followers_count,
    following_count: a.following_count,
    statuses_count: statuses.filter((s) => s.accountId === a.id).length,
  });

  const mediaJson = (m: SimMedia) => {
    const ready = m.state === 'ready';
    return {
      id: m.id,
      type: m.type,
      url: ready ? `${publicUrl}/system/media_attachments/files/${m.id}/original/${m.sha256.slice(0, 16)}` : null,
      preview_url: `${publicUrl}/system/media_attachments/files/${m.id}/small/${m.sha256.slice(0, 16)}`,
      remote_url: null,
      description: m.description,
      blurhash: null,
    };
  };

  const statusJson = (s: SimStatus) => {
    const account = accounts.get(s.accountId)!;
    const parent = s.inReplyToId ? statuses.find((x) => x.id === s.inReplyToId) : undefined;
    return {
      id: s.id,
      created_at: s.createdAt,
      in_reply_to_id: s.inReplyToId,
      in_reply_to_account_id: parent?.accountId ?? null,
      sensitive: s.sensitive,
      spoiler_text: s.spoilerText,
      visibility: s.visibility,
      language: s.language,
      uri: `${publicUrl}/users/${account.username}/statuses/${s.id}`,
      url: `${publicUrl}/@${account.username}/${s.id}`,
      replies_count: statuses.filter((x) => x.inReplyToId === s.id).length,
      reblogs_count: s.reblogs,
      favourites_count: s.favourites,
      content: renderContent(s.text),
      reblog: null,
      account: accountJson(account),
      media_attachments: s.mediaIds.map((id) => mediaJson(media.get(id)!)),
      mentions: [],
      tags: [],
    };
  };

  /** The bearer token's grant, or the 401/403 Mastodon answers. */
  function authorize(req: FastifyRequest, reply: FastifyReply, needed: string[]): SimToken | undefined {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const token = match ? tokens.get(match[1]!) : undefined;
    if (!token) {
      void fail(reply, 401, 'The access token is invalid');
      return undefined;
    }
    if (token.revoked) {
      void fail(reply, 401, 'The access token was revoked');
      return undefined;
    }
    if (!allows(token.scopes, needed)) {
      void fail(reply, 403, 'This action is outside the authorized scopes');
      return undefined;
    }
    return token;
  }

  const sim = await startSimulator((app) => {
    app.post('/api/v1/apps', async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = typeof body.client_name === 'string' ? body.client_name.trim() : '';
      if (!name) return fail(reply, 422, "Validation failed: Application name can't be blank");
      const rawUris = Array.isArray(body.redirect_uris) ? body.redirect_uris.map(String) : typeof body.redirect_uris === 'string' ? body.redirect_uris.split(/\s+/).filter(Boolean) : [];
      if (rawUris.length === 0) return fail(reply, 422, "Validation failed: Redirect URI can't be blank");
      for (const u of rawUris) {
        if (u === 'urn:ietf:wg:oauth:2.0:oob') continue;
        try {
          if (new URL(u).hash) throw new Error('fragment');
        } catch {
          return fail(reply, 422, 'Validation failed: Redirect URI must be an absolute URI.');
        }
      }
      const scopes = scopeList(body.scopes ?? 'read');
      const registered: SimApp = {
        id: String(apps.size + 1),
        name,
        website: typeof body.website === 'string' ? body.website : null,
        clientId: randomBytes(24).toString('base64url'),
        clientSecret: randomBytes(32).toString('base64url'),
        redirectUris: rawUris,
        scopes,
      };
      apps.set(registered.clientId, registered);
      return {
        id: registered.id,
        name,
        website: registered.website,
        scopes,
        redirect_uri: rawUris.join('\n'),
        redirect_uris: rawUris,
        client_id: registered.clientId,
        client_secret: registered.clientSecret,
        vapid_key: 'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=',
      };
    });

    // The authorisation page: the signed-in user approves at once.
    app.get('/oauth/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const client = q.client_id ? apps.get(q.client_id) : undefined;
      // Doorkeeper shows an error page (no redirect) for an unknown client or a foreign redirect URI.
      if (!client) return reply.status(401).send({ error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' });
      if (!q.redirect_uri || !client.redirectUris.includes(q.redirect_uri)) {
        return reply.status(400).send({ error: 'invalid_redirect_uri', error_description: 'The requested redirect uri is malformed or doesn\'t match client redirect URI.' });
      }
      const back = new URL(q.redirect_uri);
      if (q.state !== undefined) back.searchParams.set('state', q.state);
      const deny = (error: string, description: string) => {
        back.searchParams.set('error', error);
        back.searchParams.set('error_description', description);
        return reply.redirect(back.toString(), 302);
      };
      if (q.response_type !== 'code') return deny('unsupported_response_type', 'The authorization server does not support this response type.');
      const scopes = scopeList(q.scope ?? 'read');
      if (!scopes.every((s) => client.scopes.includes(s))) return deny('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
      if (q.code_challenge && q.code_challenge_method !== 'S256') return deny('invalid_request', 'Transform algorithm not supported.');
      if (!signedIn) return reply.status(401).send({ error: 'Nobody is signed in on this instance' });
      const code = randomBytes(24).toString('base64url');
      codes.set(code, { clientId: client.clientId, redirectUri: q.redirect_uri, accountId: signedIn, scopes, challenge: q.code_challenge ?? null });
      back.searchParams.set('code', code);
      return reply.redirect(back.toString(), 302);
    });

    app.post('/oauth/token', async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const invalidGrant = () =>
        reply.status(400).send({
          error: 'invalid_grant',
          error_description:
            'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
        });
      const client = typeof body.client_id === 'string' ? apps.get(body.client_id) : undefined;
      if (!client || body.client_secret !== client.clientSecret) {
        return reply.status(401).send({ error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' });
      }
      if (body.grant_type === 'client_credentials') {
        // An app-level token (no user): what a client uses to check that its registration still exists.
        const token = randomBytes(32).toString('base64url');
        appTokens.set(token, client.clientId);
        return { access_token: token, token_type: 'Bearer', scope: scopeList(body.scope ?? 'read').join(' '), created_at: Math.floor(now() / 1000) };
      }
      if (body.grant_type !== 'authorization_code') return reply.status(400).send({ error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' });
      const code = typeof body.code === 'string' ? codes.get(body.code) : undefined;
      if (!code) return invalidGrant();
      // Single use, even when the exchange fails.
      codes.delete(body.code as string);
      if (code.clientId !== client.clientId || code.redirectUri !== body.redirect_uri) return invalidGrant();
      if (code.challenge) {
        const verifier = typeof body.code_verifier === 'string' ? body.code_verifier : '';
        if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return invalidGrant();
      }
      const token: SimToken = { token: randomBytes(32).toString('base64url'), accountId: code.accountId, clientId: client.clientId, scopes: code.scopes, revoked: false };
      tokens.set(token.token, token);
      return { access_token: token.token, token_type: 'Bearer', scope: code.scopes.join(' '), created_at: Math.floor(now() / 1000) };
    });

    app.get('/api/v1/apps/verify_credentials', async (req, reply) => {
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const clientId = bearer ? (appTokens.get(bearer) ?? tokens.get(bearer)?.clientId) : undefined;
      const registered = clientId ? apps.get(clientId) : undefined;
      if (!registered) return reply.status(401).send({ error: 'The access token is invalid' });
      return { id: registered.id, name: registered.name, website: registered.website, scopes: registered.scopes, redirect_uris: registered.redirectUris };
    });

    app.get('/api/v2/instance', async () => ({
      domain,
      title: 'Mastodon (simulated)',
      version: '4.3.0',
      configuration: {
        urls: { streaming: `wss://${domain}` },
        statuses: { max_characters: maxCharacters, max_media_attachments: MAX_ATTACHMENTS, characters_reserved_per_url: URL_LENGTH },
        media_attachments: { image_size_limit: 16 * 1024 * 1024, video_size_limit: 99 * 1024 * 1024, supported_mime_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4'] },
      },
    }));

    app.get('/api/v1/accounts/verify_credentials', async (req, reply) => {
      const t = authorize(req, reply, ['read:accounts', 'profile']);
      if (!t) return reply;
      return accountJson(accounts.get(t.accountId)!);
    });

    app.get('/api/v1/accounts/:id/statuses', async (req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      if (req.headers.authorization && !authorize(req, reply, ['read:statuses'])) return reply;
      if (!accounts.has(req.params.id)) return fail(reply, 404, 'Record not found');
      const limit = Math.min(40, Math.max(1, Number(req.query.limit ?? 20) || 20));
      const maxId = req.query.max_id ? BigInt(req.query.max_id) : undefined;
      const page = statuses
        .filter((s) => s.accountId === req.params.id && (maxId === undefined || BigInt(s.id) < maxId))
        .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
        .slice(0, limit);
      if (page.length > 0) reply.header('link', `<${publicUrl}/api/v1/accounts/${req.params.id}/statuses?max_id=${page[page.length - 1]!.id}>; rel="next"`);
      return page.map(statusJson);
    });

    app.get('/api/v1/statuses/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      if (req.headers.authorization && !authorize(req, reply, ['read:statuses'])) return reply;
      const s = statuses.find((x) => x.id === req.params.id);
      if (!s) return fail(reply, 404, 'Record not found');
      return statusJson(s);
    });

    app.post('/api/v2/media', async (req, reply) => {
      // The upload is read before the token is checked, so that a refused request is drained.
      const { fields, files } = req.isMultipart() ? await readMultipart(req) : { fields: {} as Record<string, string>, files: [] };
      const t = authorize(req, reply, ['write:media']);
      if (!t) return reply;
      const file = files.find((f) => f.field === 'file');
      if (!file) return fail(reply, 422, "Validation failed: File can't be blank");
      const type = file.mimeType.startsWith('image/') ? (file.mimeType === 'image/gif' ? 'gifv' : 'image') : file.mimeType.startsWith('video/') ? 'video' : file.mimeType.startsWith('audio/') ? 'audio' : 'unknown';
      if (type === 'unknown') return fail(reply, 422, 'Validation failed: File content type is invalid, File file type is invalid');
      if (fields.description && fields.description.length > 1500) return fail(reply, 422, 'Validation failed: Description is too long (maximum is 1500 characters)');
      const m: SimMedia = {
        id: nextId(),
        accountId: t.accountId,
        type,
        mimeType: file.mimeType,
        size: file.size,
        sha256: file.sha256,
        description: fields.description ?? null,
        pollsLeft: processingPolls,
        state: processingPolls > 0 ? 'processing' : 'ready',
        statusId: null,
      };
      media.set(m.id, m);
      return reply.status(m.state === 'ready' ? 200 : 202).send(mediaJson(m));
    });

    app.get('/api/v1/media/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply, ['write:media']);
      if (!t) return reply;
      const m = media.get(req.params.id);
      if (!m || m.accountId !== t.accountId) return fail(reply, 404, 'Record not found');
      if (m.state === 'processing') {
        if (m.pollsLeft > 0) {
          m.pollsLeft--;
          return reply.status(206).send(mediaJson(m));
        }
        m.state = 'ready';
      }
      return mediaJson(m);
    });

    app.post('/api/v1/statuses', async (req, reply) => {
      const t = authorize(req, reply, ['write:statuses']);
      if (!t) return reply;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const keyHeader = req.headers['idempotency-key'];
      const key = typeof keyHeader === 'string' && keyHeader !== '' ? `${t.accountId}:${keyHeader}` : null;
      if (key) {
        const seen = idempotency.get(key);
        if (seen && seen.expiresAt > now()) return statusJson(statuses.find((s) => s.id === seen.statusId)!);
      }
      const text = typeof body.status === 'string' ? body.status : '';
      const spoiler = typeof body.spoiler_text === 'string' ? body.spoiler_text : '';
      const visibility = (body.visibility ?? 'public') as SimStatus['visibility'];
      if (!VISIBILITIES.includes(visibility)) return fail(reply, 422, 'Validation failed: Visibility is not included in the list');
      let inReplyToId: string | null = null;
      if (body.in_reply_to_id !== undefined && body.in_reply_to_id !== null && body.in_reply_to_id !== '') {
        const parent = statuses.find((s) => s.id === String(body.in_reply_to_id));
        if (!parent) return fail(reply, 404, 'Record not found');
        inReplyToId = parent.id;
      }
      const requested = arrayField(body, 'media_ids');
      if (requested.length > MAX_ATTACHMENTS) return fail(reply, 422, `Cannot attach more than ${MAX_ATTACHMENTS} files`);
      // Like Mastodon, ids that are not the account's own unattached media are silently dropped.
      const attached = requested.map((id) => media.get(id)).filter((m): m is SimMedia => !!m && m.accountId === t.accountId && m.statusId === null);
      if (attached.some((m) => m.state !== 'ready')) return fail(reply, 422, 'Cannot attach files that have not finished processing. Try again in a moment!');
      if (attached.some((m) => m.type === 'video') && attached.length > 1) return fail(reply, 422, 'Cannot attach a video to a post that already contains images');
      if (text.trim() === '' && attached.length === 0) return fail(reply, 422, "Validation failed: Text can't be blank");
      if (statusLength(text, spoiler) > maxCharacters) return fail(reply, 422, `Validation failed: Text character limit of ${maxCharacters} exceeded`);
      const s: SimStatus = {
        id: nextId(),
        accountId: t.accountId,
        text,
        spoilerText: spoiler,
        // Mastodon marks a status with a content warning sensitive whatever `sensitive` says (Status#set_sensitive)
        sensitive: body.sensitive === true || body.sensitive === 'true' || spoiler !== '',
        visibility,
        language: typeof body.language === 'string' ? body.language : null,
        inReplyToId,
        mediaIds: attached.map((m) => m.id),
        mediaSha256: attached.map((m) => m.sha256),
        createdAt: new Date(now()).toISOString(),
        favourites: 0,
        reblogs: 0,
        idempotencyKey: typeof keyHeader === 'string' ? keyHeader : null,
      };
      for (const m of attached) m.statusId = s.id;
      statuses.push(s);
      if (key) idempotency.set(key, { statusId: s.id, expiresAt: now() + IDEMPOTENCY_TTL_MS });
      return statusJson(s);
    });
  });

  const statusesPath = /^\/api\/v1\/statuses(\?|$)/;
  return Object.assign(sim, {
    accounts,
    apps,
    tokens,
    statuses,
    media,
    addAccount(a: { username: string; display_name?: string; followers_count?: number; following_count?: number }) {
      const account: SimAccount = {
        id: nextId(),
        username: a.username,
        display_name: a.display_name ?? '',
        avatar: `${publicUrl}/system/accounts/avatars/${a.username}.png`,
        followers_count: a.followers_count ?? 0,
        following_count: a.following_count ?? 0,
        created_at: new Date(now()).toISOString(),
      };
      accounts.set(account.id, account);
      signedIn ??= account.id;
      return account;
    },
    signIn(accountId: string) {
      signedIn = accountId;
    },
    setMediaProcessingPolls(n: number) {
      processingPolls = n;
    },
    finishProcessing() {
      for (const m of media.values()) m.state = 'ready';
    },
    advanceTime(ms: number) {
      timeOffset += ms;
    },
    revokeAllTokens() {
      for (const t of tokens.values()) t.revoked = true;
    },
    injectKind(kind: InjectedKind) {
      switch (kind) {
        case 'auth_expired':
        // Mastodon tokens do not expire; the closest real answer is an unknown token.
        // falls through
        case 'revoked':
          return sim.inject({ path: statusesPath, status: 401, body: { error: kind === 'revoked' ? 'The access token was revoked' : 'The access token is invalid' } });
        case 'rate_limited': {
          // Mastodon (rack-attack) sends the reset as an ISO 8601 time at the end of the period.
          const reset = new Date(now() + 120_000).toISOString();
          return sim.inject({
            path: statusesPath,
            status: 429,
            body: { error: 'Too many requests' },
            headers: { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
          });
        }
        case 'server_error':
          return sim.inject({ path: statusesPath, status: 503, body: { error: 'There was a temporary problem serving your request, please try again' } });
        case 'rejected':
        // Mastodon never reports an error under HTTP 200: the nearest is its usual 422.
        // falls through
        case 'error_in_200':
          return sim.inject({ path: statusesPath, status: 422, body: { error: `Validation failed: Text character limit of ${maxCharacters} exceeded` } });
      }
    },
  });
}
