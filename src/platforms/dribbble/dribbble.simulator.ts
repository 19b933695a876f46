import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from '../common/oauth2.simulator.js';
import { fixedWindowCounter } from '../common/rate-limit.simulator.js';

/**
 * A simulator of Dribbble's API v2, one server standing for `https://dribbble.com` (the
 * authorisation page `GET /oauth/authorize` and the token endpoint `POST /oauth/token`) and
 * `https://api.dribbble.com` (`/v2/…`); map both to it.
 *
 * Faithful parts: the token endpoint (Doorkeeper) takes its parameters in the query or a form
 * body, checks the client secret, the redirect URI and the code (single use, ten minutes) and
 * answers `{ access_token, token_type, scope, created_at }` — no expiry, no refresh token.
 * `GET /v2/user` gives the profile with its teams. `POST /v2/shots` wants multipart with one
 * `image` file, which it reads: GIF, JPEG or PNG by its bytes, at most 8 MB, and EXACTLY
 * 400×300, 800×600 or 1600×1200 (the dimensions read from the file's own header), a `title`,
 * at most 12 `tags[]`, a `team_id` of a team the user belongs to; it needs the `upload` scope and
 * an account allowed to upload. It answers 202 Accepted, empty body, with the shot's API URL in
 * `Location`; `GET /v2/shots/{id}` answers 404 while the picture is processed (a configurable
 * number of reads), then the shot. `GET /v2/user/shots` lists the user's shots newest first
 * (`page`, `per_page` ≤ 100). Errors are `{ message }` and for refused fields 422
 * `{ message: "Validation failed", errors: [{ attribute, message }] }`; every API answer carries
 * `X-RateLimit-Limit/Remaining/Reset` (epoch seconds), 429 past the per-minute limit. Dribbble's
 * exact error wording is not all documented: the messages are approximate, statuses and shapes
 * are Dribbble's.
 */

export const DRIBBBLE_WWW = 'https://dribbble.com';
export const DRIBBBLE_API = 'https://api.dribbble.com';
export const DRIBBBLE_ORIGINS = [DRIBBBLE_WWW, DRIBBBLE_API] as const;
const MAX_BYTES = 8 * 1024 * 1024;
const SIZES = ['400x300', '800x600', '1600x1200'];

export interface DribbbleAppRecord {
  clientId: string;
  clientSecret: string;
  redirectUris?: string[];
}
export interface DribbbleTeamRecord {
  id: number;
  name: string;
  login: string;
  members: number[];
}
export interface DribbbleUserRecord {
  id: number;
  name: string;
  login: string;
  avatar_url: string;
  can_upload_shot: boolean;
}
export interface DribbbleShotRecord {
  id: number;
  userId: number;
  title: string;
  description: string | null;
  tags: string[];
  teamId: number | null;
  image: { sha256: string; size: number; contentType: string; width: number; height: number; filename: string };
  readsUntilProcessed: number;
  publishedAt: string;
}
interface TokenRecord {
  userId: number;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}

export interface DribbbleSimulatorOptions {
  /** reads of a new shot that still answer 404 (processing); default 0 */
  processingReads?: number;
  /** requests per user and minute (default 60, Dribbble's) */
  perMinute?: number;
}

export interface DribbbleSimulator extends Simulator, Pick<OAuth2Controls<number, DribbbleAppRecord>, 'apps' | 'addApp' | 'approveAs' | 'grantOnly'> {
  users: Map<number, DribbbleUserRecord>;
  teams: DribbbleTeamRecord[];
  shots: DribbbleShotRecord[];
  addUser(user: DribbbleUserRecord): void;
  addTeam(team: DribbbleTeamRecord): void;
  /** the user revokes the app: its tokens stop working */
  revokeGrants(): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const secret = (n: number) => randomBytes(n).toString('hex');

/** The picture's type and dimensions from its own header, or undefined when it is not a GIF, JPEG or PNG. */
export function readPicture(b: Buffer): { type: string; width: number; height: number } | undefined {
  if (b.length >= 24 && b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) && b.subarray(12, 16).toString('latin1') === 'IHDR') {
    return { type: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 10 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1'))) return { type: 'image/gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      const len = b.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { type: 'image/jpeg', width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      i += 2 + len;
    }
  }
  return undefined;
}

export async function startDribbbleSimulator(opts: DribbbleSimulatorOptions = {}): Promise<DribbbleSimulator> {
  const apps = new Map<string, DribbbleAppRecord>();
  const users = new Map<number, DribbbleUserRecord>();
  const teams: DribbbleTeamRecord[] = [];
  const shots: DribbbleShotRecord[] = [];
  const tokens = new Map<string, TokenRecord>();
  const codes = new Map<string, { clientId: string; redirectUri: string; userId: number; scopes: string[]; expiresAt: number; used: boolean }>();
  const calls = fixedWindowCounter<number>();
  const perMinute = opts.perMinute ?? 60;
  let approver: number | undefined;
  let granted: string[] | undefined;
  let seq = 23_456_780;
  /**
   * Failures queued by `injectKind`, answered by the shot routes themselves (before reading the
   * body, as Dribbble answers a refused token): the harness's own queue drains multipart requests
   * without reading their files, which never ends for a shot upload.
   */
  const injected: { status: number; headers?: Record<string, string>; body: unknown }[] = [];
  const answerInjected = (reply: FastifyReply) => {
    const next = injected.shift();
    return next ? reply.status(next.status).headers(next.headers ?? {}).send(next.body) : undefined;
  };

  const message = (reply: FastifyReply, status: number, text: string) => reply.status(status).send({ message: text });
  const invalid = (reply: FastifyReply, attribute: string, text: string) => reply.status(422).send({ message: 'Validation failed', errors: [{ attribute, message: text }] });

  function authorize(req: FastifyRequest, reply: FastifyReply): TokenRecord | undefined {
    const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t || t.revoked) return void message(reply, 401, 'Bad credentials.');
    const window = calls.hit(t.userId);
    void reply.headers({
      'x-ratelimit-limit': String(perMinute),
      'x-ratelimit-remaining': String(Math.max(0, perMinute - window.count)),
      'x-ratelimit-reset': String(Math.ceil(calls.endOf(window) / 1000)),
    });
    if (window.count > perMinute) return void message(reply, 429, 'API rate limit exceeded.');
    return t;
  }

  const teamsOf = (userId: number) => teams.filter((t) => t.members.includes(userId));
  const teamView = (t: DribbbleTeamRecord) => ({ id: t.id, name: t.name, login: t.login, html_url: `${DRIBBBLE_WWW}/${t.login}`, avatar_url: `https://cdn.dribbble.com/users/${t.id}/avatars/normal/team.png`, type: 'Team' });
  const shotView = (s: DribbbleShotRecord) => {
    const team = s.teamId ? teams.find((t) => t.id === s.teamId) : undefined;
    return {
      id: s.id,
      title: s.title,
      description: s.description === null ? null : `<p>${s.description.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\n/g, '<br>')}</p>`,
      width: s.image.width,
      height: s.image.height,
      images: { hidpi: s.image.width >= 800 ? `https://cdn.dribbble.com/shots/${s.id}/original.png` : null, normal: `https://cdn.dribbble.com/shots/${s.id}/normal.png`, teaser: `https://cdn.dribbble.com/shots/${s.id}/teaser.png` },
      published_at: s.publishedAt,
      updated_at: s.publishedAt,
      html_url: `${DRIBBBLE_WWW}/shots/${s.id}-${s.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`,
      animated: s.image.contentType === 'image/gif',
      tags: s.tags,
      attachments: [],
      projects: [],
      team: team ? teamView(team) : null,
      video: null,
      low_profile: false,
    };
  };

  const sim = await startSimulator((app) => {
    // ---- dribbble.com: the authorisation page and the token endpoint
    app.get('/oauth/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const a = q.client_id ? apps.get(q.client_id) : undefined;
      if (!a) return reply.status(401).type('text/html').send('<h1>Client authentication failed due to unknown client.</h1>');
      if (!q.redirect_uri || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) {
        return reply.status(400).type('text/html').send('<h1>The redirect uri included is not valid.</h1>');
      }
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      const asked = (q.scope ?? 'public').split(/[ +]/).filter(Boolean);
      const unknown = asked.find((s) => !['public', 'upload'].includes(s));
      if (unknown) {
        back.searchParams.set('error', 'invalid_scope');
        return reply.redirect(back.toString(), 302);
      }
      const userId = approver ?? users.keys().next().value;
      if (userId === undefined) return reply.status(400).type('text/html').send('<p>No Dribbble user is signed in</p>');
      const scopes = granted ? asked.filter((s) => granted!.includes(s)) : asked;
      const code = secret(32);
      codes.set(code, { clientId: a.clientId, redirectUri: q.redirect_uri, userId, scopes, expiresAt: Date.now() + 10 * 60_000, used: false });
      back.searchParams.set('code', code);
      return reply.redirect(back.toString(), 302);
    });

    app.post('/oauth/token', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const p = { ...req.query, ...((req.body ?? {}) as Record<string, string | undefined>) };
      const a = p.client_id ? apps.get(p.client_id) : undefined;
      if (!a || p.client_secret !== a.clientSecret) {
        return reply.status(401).send({ error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' });
      }
      const c = p.code ? codes.get(p.code) : undefined;
      if (!c || c.used || c.expiresAt < Date.now() || c.clientId !== a.clientId || c.redirectUri !== p.redirect_uri) {
        return reply.status(400).send({
          error: 'invalid_grant',
          error_description: 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
        });
      }
      c.used = true;
      const token = secret(32);
      tokens.set(token, { userId: c.userId, clientId: a.clientId, scopes: c.scopes, revoked: false });
      return { access_token: token, token_type: 'bearer', scope: c.scopes.join(' '), created_at: Math.floor(Date.now() / 1000) };
    });

    // ---- api.dribbble.com
    app.get('/v2/user', async (req, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const u = users.get(t.userId)!;
      return {
        id: u.id,
        name: u.name,
        login: u.login,
        html_url: `${DRIBBBLE_WWW}/${u.login}`,
        avatar_url: u.avatar_url,
        bio: '',
        location: null,
        links: {},
        can_upload_shot: u.can_upload_shot,
        pro: u.can_upload_shot,
        followers_count: 12,
        created_at: '2020-01-01T00:00:00Z',
        type: 'Player',
        teams: teamsOf(u.id).map(teamView),
      };
    });

    app.post('/v2/shots', async (req, reply) => {
      if (answerInjected(reply)) return reply;
      const t = authorize(req, reply);
      if (!t) return reply;
      if (!t.scopes.includes('upload')) return message(reply, 403, 'You must have the upload scope to create shots.');
      if (!users.get(t.userId)!.can_upload_shot) return message(reply, 403, 'You are not allowed to upload shots.');
      if (!req.isMultipart()) return invalid(reply, 'image', "can't be blank");
      const fields: Record<string, string> = {};
      const tags: string[] = [];
      let image: { bytes: Buffer; filename: string; count: number } | undefined;
      let tooBig = false;
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          const chunks: Buffer[] = [];
          let size = 0;
          for await (const chunk of part.file) {
            size += (chunk as Buffer).length;
            if (size <= MAX_BYTES + 1) chunks.push(chunk as Buffer);
          }
          if (part.fieldname !== 'image') continue;
          if (size > MAX_BYTES) tooBig = true;
          image = { bytes: Buffer.concat(chunks), filename: part.filename, count: (image?.count ?? 0) + 1 };
        } else if (part.fieldname === 'tags[]' || part.fieldname === 'tags') {
          tags.push(...String(part.value).split(',').map((s) => s.trim()).filter(Boolean));
        } else {
          fields[part.fieldname] = String(part.value);
        }
      }
      if (!fields.title?.trim()) return invalid(reply, 'title', "can't be blank");
      if (!image) return invalid(reply, 'image', "can't be blank");
      if (image.count > 1) return invalid(reply, 'image', 'only one image may be uploaded');
      if (tooBig) return invalid(reply, 'image', 'must be no larger than 8 MB');
      const pic = readPicture(image.bytes);
      if (!pic) return invalid(reply, 'image', 'must be a GIF, JPG, or PNG');
      if (!SIZES.includes(`${pic.width}x${pic.height}`)) return invalid(reply, 'image', `must be exactly 400x300, 800x600, or 1600x1200 (it is ${pic.width}x${pic.height})`);
      if (tags.length > 12) return invalid(reply, 'tags', 'must have at most 12 tags');
      let teamId: number | null = null;
      if (fields.team_id !== undefined) {
        const team = teams.find((x) => String(x.id) === fields.team_id);
        if (!team || !team.members.includes(t.userId)) return invalid(reply, 'team_id', 'is not a team you are a member of');
        teamId = team.id;
      }
      const record: DribbbleShotRecord = {
        id: ++seq,
        userId: t.userId,
        title: fields.title.trim(),
        description: fields.description ?? null,
        tags: tags.map((x) => x.toLowerCase()),
        teamId,
        image: { sha256: createHash('sha256').update(image.bytes).digest('hex'), size: image.bytes.length, contentType: pic.type, width: pic.width, height: pic.height, filename: image.filename },
        readsUntilProcessed: opts.processingReads ?? 0,
        publishedAt: new Date(Date.now() + shots.length).toISOString(),
      };
      shots.push(record);
      return reply.status(202).header('location', `${DRIBBBLE_API}/v2/shots/${record.id}`).send();
    });

    app.get('/v2/shots/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const s = shots.find((x) => String(x.id) === req.params.id);
      if (!s) return message(reply, 404, 'Not found.');
      if (s.readsUntilProcessed > 0) {
        s.readsUntilProcessed--;
        return message(reply, 404, 'Not found.');
      }
      return shotView(s);
    });

    app.get('/v2/user/shots', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const page = Math.max(1, Number(req.query.page ?? 1) || 1);
      const per = Math.min(100, Math.max(1, Number(req.query.per_page ?? 30) || 30));
      const mine = shots.filter((s) => s.userId === t.userId).sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
      return mine.slice((page - 1) * per, page * per).map(shotView);
    });
  });

  return Object.assign(sim, {
    apps,
    users,
    teams,
    shots,
    addApp: (a: DribbbleAppRecord) => void apps.set(a.clientId, a),
    addUser: (u: DribbbleUserRecord) => void users.set(u.id, u),
    addTeam: (team: DribbbleTeamRecord) => void teams.push(team),
    approveAs(userId: number) {
      approver = userId;
    },
    grantOnly(scopes: string[] | undefined) {
      granted = scopes;
    },
    revokeGrants() {
      for (const t of tokens.values()) t.revoked = true;
    },
    lookup(id: string) {
      const s = shots.find((x) => String(x.id) === id);
      return s ? { text: s.description ?? '', mediaSha256: [s.image.sha256] } : undefined;
    },
    injectKind(kind: InjectedKind) {
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return void injected.push({ status: 401, body: { message: 'Bad credentials.' } });
        case 'rate_limited':
          return void injected.push({
            status: 429,
            headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 42) },
            body: { message: 'API rate limit exceeded.' },
          });
        case 'server_error':
          return void injected.push({ status: 500, body: { message: 'Internal Server Error' } });
        case 'rejected':
          return void injected.push({ status: 422, body: { message: 'Validation failed', errors: [{ attribute: 'title', message: 'has already been taken' }] } });
        case 'error_in_200':
          // Dribbble never reports errors under HTTP 200: nothing to inject.
          return;
      }
    },
  });
}
