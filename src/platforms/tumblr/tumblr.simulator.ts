import { createHash, randomBytes } from 'node:crypto';
import type { Multipart } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import { createOAuth2Simulator, type OAuth2AppRecord, type OAuth2TokenRecord, type OAuth2Controls } from '../common/oauth2.simulator.js';
import { fixedWindowCounter } from '../common/rate-limit.simulator.js';

/**
 * A simulator of Tumblr's API v2 with OAuth 2. One server stands for two hosts (map both to it):
 * `https://www.tumblr.com` (the authorisation page `/oauth2/authorize`) and
 * `https://api.tumblr.com` (`/v2/…`, the token endpoint `/v2/oauth2/token` included).
 *
 * Faithful parts: the token endpoint takes the client in the form (`client_id`,
 * `client_secret`), checks the code (single use, ten minutes, same redirect URI) and issues
 * access tokens of 2,520 s with refresh tokens that rotate (each refresh retires the old one);
 * OAuth errors are `{ error, error_description }`. The API answers `{ meta: { status, msg },
 * response }`, failures with `errors: [{ title, code, detail }]`; every answer carries the
 * `X-Ratelimit-Perday-*` / `X-Ratelimit-Perhour-*` headers and a 429 comes when they run out.
 * A post (`POST /v2/blog/{blog}/posts`) must be on a blog of the token's user and is checked as
 * NPF: known block types only, text blocks ≤ 4,096 code points with known subtypes, indent
 * levels only on lists/indented (≤ 7), formatting ranges of known types inside the text (counted
 * in code points, as Tumblr counts), link ranges and link blocks with a URL, image blocks with a
 * media array, video blocks with a media object; with media the post comes as multipart, its
 * `json` part sent as `application/json`, and media given by `identifier` must arrive as a part
 * of that name (and every file part must be used), its bytes of the declared kind
 * (PNG/JPEG/GIF/WebP magic for pictures, an MP4 `ftyp` for videos). `state` is one of
 * published/queue/draft/private, `tags` a comma string. Posts, queue and drafts are listed newest
 * first (`npf=true` answers NPF content, `id=` one post). Records keep the sha256 of each file.
 */

export const TUMBLR_WWW_ORIGIN = 'https://www.tumblr.com';
export const TUMBLR_API_ORIGIN = 'https://api.tumblr.com';

const ACCESS_SECONDS = 2520;
const CODE_MS = 10 * 60_000;
const TEXT_MAX = 4096;
const BLOCK_TYPES = new Set(['text', 'image', 'link', 'audio', 'video', 'paywall']);
const SUBTYPES = new Set(['heading1', 'heading2', 'quirky', 'quote', 'indented', 'chat', 'ordered-list-item', 'unordered-list-item']);
const INDENTABLE = new Set(['indented', 'ordered-list-item', 'unordered-list-item']);
const FORMAT_TYPES = new Set(['bold', 'italic', 'strikethrough', 'small', 'link', 'mention', 'color']);
const STATES = new Set(['published', 'queue', 'draft', 'private']);

export type TumblrAppRecord = OAuth2AppRecord;

export interface TumblrBlogRecord {
  uuid: string;
  name: string;
  title: string;
  primary: boolean;
}

export interface TumblrUserRecord {
  name: string;
  blogs: TumblrBlogRecord[];
}

/** A token of a user, named by the user's name. */
type TokenRecord = OAuth2TokenRecord<string>;

export interface TumblrFileRecord {
  identifier: string;
  sha256: string;
  size: number;
  contentType: string;
}

export interface TumblrPostRecord {
  id: string;
  blogUuid: string;
  blogName: string;
  content: Record<string, unknown>[];
  state: string;
  tags: string[];
  sourceUrl: string | null;
  /** files in the order of the blocks that use them */
  files: TumblrFileRecord[];
  noteCount: number;
  createdAt: number;
}

export interface TumblrSimulatorOptions {
  /** posts a user may make per day before Tumblr's 8023 (default 250) */
  postsPerDay?: number;
  /** calls per hour before 429 (default 1000) */
  callsPerHour?: number;
}

export interface TumblrSimulator extends Simulator, OAuth2Controls<string> {
  users: Map<string, TumblrUserRecord>;
  posts: TumblrPostRecord[];
  addUser(user: TumblrUserRecord): void;
  setNoteCount(postId: string, n: number): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const secret = (n = 30) => randomBytes(n).toString('base64url');
const cpLength = (s: string) => [...s].length;
const show = (v: unknown) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

function kindOfBytes(head: Buffer): 'image' | 'video' | undefined {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image';
  if (head.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image';
  if (head.subarray(4, 8).toString('latin1') === 'ftyp') return 'video';
  return undefined;
}

export async function startTumblrSimulator(opts: TumblrSimulatorOptions = {}): Promise<TumblrSimulator> {
  const users = new Map<string, TumblrUserRecord>();
  const posts: TumblrPostRecord[] = [];
  const hourly = fixedWindowCounter<string>(3_600_000);
  const perHour = opts.callsPerHour ?? 1000;
  const postsPerDay = opts.postsPerDay ?? 250;
  let approver: string | undefined;
  let seq = 0;

  const meta = (status: number, msg: string) => ({ status, msg });
  const fail = (reply: FastifyReply, status: number, msg: string, errors: { title: string; code: number; detail: string }[]) =>
    reply.status(status).send({ meta: meta(status, msg), response: [], errors });
  const badRequest = (reply: FastifyReply, detail: string, code = 8001) => fail(reply, 400, 'Bad Request', [{ title: 'Bad Request', code, detail }]);
  const ok = (reply: FastifyReply, response: unknown, status = 200, msg = 'OK') => reply.status(status).send({ meta: meta(status, msg), response });

  // OAuth 2: the authorisation page answers HTML errors; the token endpoint takes the client in the
  // form and answers `{ error, error_description }`; refresh tokens rotate and come only with the
  // `offline_access` scope.
  const page = (reply: FastifyReply, text: string) => reply.status(400).type('text/html').send(`<h1>${text}</h1>`);
  const oauthError = (reply: FastifyReply, status: number, error: string, description: string) => reply.status(status).send({ error, error_description: description });
  const oauth = createOAuth2Simulator<string>({
    paths: { authorize: '/oauth2/authorize', token: '/v2/oauth2/token' },
    accessSeconds: ACCESS_SECONDS,
    codeMs: CODE_MS,
    accessToken: () => secret(),
    refreshToken: () => secret(20),
    code: () => secret(16),
    pkce: false,
    requireState: false,
    redirectScope: false,
    rotateRefreshTokens: true,
    scopeSeparator: /[\s,]+/,
    knownScopes: ['basic', 'write', 'offline_access'],
    approver: () => approver ?? [...users.keys()][0],
    tokenBody: ({ access, refresh }) => ({
      access_token: access.token,
      expires_in: ACCESS_SECONDS,
      token_type: 'bearer',
      scope: access.scopes.join(' '),
      ...(access.scopes.includes('offline_access') ? { refresh_token: refresh.token } : {}),
    }),
    fail: (reply, failure, req) => {
      switch (failure) {
        case 'unknown_client':
          return page(reply, 'Invalid client_id');
        case 'bad_response_type':
          return page(reply, 'response_type must be code');
        case 'bad_redirect_uri':
          return page(reply, 'redirect_uri does not match the app');
        case 'bad_scope':
          return page(reply, 'invalid scope');
        case 'missing_state': // (no state or PKCE check: never sent)
        case 'missing_pkce':
          return page(reply, 'invalid request');
        case 'no_user':
          return reply.status(500).send('no user');
        case 'not_form':
          return oauthError(reply, 400, 'invalid_request', 'The request must be form encoded');
        case 'token_unknown_client':
        case 'wrong_secret':
          return oauthError(reply, 401, 'invalid_client', 'Client authentication failed');
        case 'bad_code':
        case 'bad_verifier':
          return oauthError(reply, 400, 'invalid_grant', 'The authorization code is invalid or expired');
        case 'code_redirect_mismatch':
          return oauthError(reply, 400, 'invalid_grant', 'The redirect_uri does not match');
        case 'bad_refresh_token':
          return oauthError(reply, 400, 'invalid_grant', 'The refresh token is invalid');
        case 'unsupported_grant':
          return oauthError(reply, 400, 'unsupported_grant_type', `Unsupported grant_type ${String((req.body as Record<string, unknown> | undefined)?.grant_type)}`);
      }
    },
  });

  /** The bearer token's record when valid, else the 401 already sent; counts the call against the hourly limit. */
  function authorize(req: FastifyRequest, reply: FastifyReply, need: string[]): TokenRecord | undefined {
    const t = oauth.bearer(req);
    if (!t) return void fail(reply, 401, 'Unauthorized', [{ title: 'Unauthorized', code: 1016, detail: 'Unable to authorize' }]);
    const missing = need.filter((s) => !t.scopes.includes(s));
    if (missing.length > 0) return void fail(reply, 403, 'Forbidden', [{ title: 'Forbidden', code: 1017, detail: `This action requires the ${missing.join(', ')} scope` }]);
    const now = Date.now();
    const window = hourly.hit(t.userId, now);
    const dayPosts = posts.filter((p) => users.get(t.userId)?.blogs.some((b) => b.uuid === p.blogUuid) && now - p.createdAt < 86_400_000).length;
    void reply.headers({
      'x-ratelimit-perhour-limit': String(perHour),
      'x-ratelimit-perhour-remaining': String(Math.max(0, perHour - window.count)),
      'x-ratelimit-perhour-reset': String(Math.max(1, Math.ceil((hourly.endOf(window) - now) / 1000))),
      'x-ratelimit-perday-limit': String(postsPerDay),
      'x-ratelimit-perday-remaining': String(Math.max(0, postsPerDay - dayPosts)),
      'x-ratelimit-perday-reset': '86400',
    });
    if (window.count > perHour) return void fail(reply, 429, 'Limit Exceeded', [{ title: 'Limit Exceeded', code: 0, detail: 'You have exceeded the rate limit' }]);
    return t;
  }

  /** The token user's blog named by a path identifier (uuid, name or `name.tumblr.com`), or the error already sent. */
  function ownBlog(reply: FastifyReply, t: TokenRecord, identifier: string): TumblrBlogRecord | undefined {
    const name = identifier.replace(/\.tumblr\.com$/, '');
    const all = [...users.values()].flatMap((u) => u.blogs);
    const blog = all.find((b) => b.uuid === identifier || b.name === name);
    if (!blog) return void fail(reply, 404, 'Not Found', [{ title: 'Not Found', code: 0, detail: 'Blog not found' }]);
    if (!users.get(t.userId)?.blogs.some((b) => b.uuid === blog.uuid)) return void fail(reply, 403, 'Forbidden', [{ title: 'Forbidden', code: 0, detail: 'You do not have permission to post to this blog' }]);
    return blog;
  }

  function blogView(b: TumblrBlogRecord) {
    return {
      name: b.name,
      title: b.title,
      uuid: b.uuid,
      url: `https://${b.name}.tumblr.com/`,
      primary: b.primary,
      admin: true,
      type: 'public',
      followers: 12,
      avatar: [512, 128, 64].map((w) => ({ width: w, height: w, url: `https://64.media.tumblr.com/avatar_${b.uuid.slice(2, 10)}_${w}.png` })),
    };
  }

  function postView(p: TumblrPostRecord, npf: boolean) {
    const view: Record<string, unknown> = {
      object_type: 'post',
      type: npf ? 'blocks' : 'text',
      id: Number(p.id),
      id_string: p.id,
      blog_name: p.blogName,
      blog: { name: p.blogName, uuid: p.blogUuid, url: `https://${p.blogName}.tumblr.com/` },
      post_url: `https://${p.blogName}.tumblr.com/post/${p.id}`,
      timestamp: Math.floor(p.createdAt / 1000),
      state: p.state,
      tags: p.tags,
      note_count: p.noteCount,
      summary: p.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join(' ').slice(0, 140),
      ...(p.sourceUrl ? { source_url: p.sourceUrl } : {}),
    };
    if (npf) {
      view.content = p.content.map((b) => (b.type === 'image' ? { ...b, media: [{ type: 'image/png', url: `https://64.media.tumblr.com/${p.id}/s1280x1920/x.png`, width: 1280, height: 960 }] } : b));
      view.layout = [];
      view.trail = [];
    } else {
      view.body = p.content.filter((b) => b.type === 'text').map((b) => `<p>${String(b.text)}</p>`).join('');
    }
    return view;
  }

  /** What is wrong with a post's NPF content (Tumblr's 400 detail), or undefined. Collects the identifiers it uses. */
  function checkContent(content: unknown, used: { identifier: string; kind: 'image' | 'video'; type: string }[]): string | undefined {
    if (!Array.isArray(content) || content.length === 0) return 'Posts must have content';
    for (const [i, block] of (content as unknown[]).entries()) {
      if (!block || typeof block !== 'object') return `content[${i}] is not a block`;
      const b = block as Record<string, unknown>;
      if (typeof b.type !== 'string' || !BLOCK_TYPES.has(b.type)) return `Unknown content block type "${String(b.type)}" at content[${i}]`;
      if (b.type === 'text') {
        if (typeof b.text !== 'string') return `content[${i}].text is required`;
        const len = cpLength(b.text);
        if (len > TEXT_MAX) return `content[${i}].text is longer than ${TEXT_MAX} characters`;
        if (b.subtype !== undefined && (typeof b.subtype !== 'string' || !SUBTYPES.has(b.subtype))) return `Unknown text subtype "${show(b.subtype)}" at content[${i}]`;
        if (b.indent_level !== undefined) {
          if (!Number.isInteger(b.indent_level) || (b.indent_level as number) < 0 || (b.indent_level as number) > 7) return `content[${i}].indent_level must be 0 to 7`;
          if (!INDENTABLE.has(String(b.subtype))) return `content[${i}].indent_level is only allowed on list items and indented blocks`;
        }
        if (b.formatting !== undefined) {
          if (!Array.isArray(b.formatting)) return `content[${i}].formatting must be an array`;
          for (const [j, f] of (b.formatting as Record<string, unknown>[]).entries()) {
            const at = `content[${i}].formatting[${j}]`;
            if (typeof f.type !== 'string' || !FORMAT_TYPES.has(f.type)) return `Unknown formatting type "${String(f.type)}" at ${at}`;
            if (!Number.isInteger(f.start) || !Number.isInteger(f.end)) return `${at} needs integer start and end`;
            const [s, e] = [f.start as number, f.end as number];
            if (s < 0 || e <= s || e > len) return `${at} range ${s}-${e} is outside the text (${len} characters)`;
            if (f.type === 'link' && (typeof f.url !== 'string' || !/^(https?:\/\/|mailto:)/.test(f.url))) return `${at} link needs a url`;
          }
        }
      } else if (b.type === 'link') {
        if (typeof b.url !== 'string' || !/^https?:\/\//.test(b.url)) return `content[${i}] link block needs a url`;
      } else if (b.type === 'image') {
        if (!Array.isArray(b.media) || b.media.length === 0) return `content[${i}] image block needs a media array`;
        for (const m of b.media as Record<string, unknown>[]) {
          if (typeof m.identifier === 'string') used.push({ identifier: m.identifier, kind: 'image', type: typeof m.type === 'string' ? m.type : '' });
          else if (typeof m.url !== 'string') return `content[${i}] image media needs a url or an identifier`;
        }
        if (b.alt_text !== undefined && (typeof b.alt_text !== 'string' || cpLength(b.alt_text) > 4096)) return `content[${i}].alt_text is longer than 4096 characters`;
      } else if (b.type === 'video') {
        const m = b.media as Record<string, unknown> | undefined;
        if (m !== undefined && (typeof m !== 'object' || Array.isArray(m))) return `content[${i}] video media must be an object`;
        if (m && typeof m.identifier === 'string') used.push({ identifier: m.identifier, kind: 'video', type: typeof m.type === 'string' ? m.type : '' });
        else if (typeof b.url !== 'string' && typeof m?.url !== 'string') return `content[${i}] video block needs a url or a media identifier`;
      }
    }
    return undefined;
  }

  const sim = await startSimulator((app) => {
    oauth.register(app);

    // ---- The account
    app.get('/v2/user/info', async (req, reply) => {
      const t = authorize(req, reply, ['basic']);
      if (!t) return reply;
      const u = users.get(t.userId)!;
      return ok(reply, { user: { name: u.name, likes: 0, following: 3, default_post_format: 'html', blogs: u.blogs.map(blogView) } });
    });

    // ---- Posts
    app.post('/v2/blog/:blog/posts', async (req: FastifyRequest<{ Params: { blog: string } }>, reply) => {
      const drain = async () => {
        if (req.isMultipart()) for await (const part of req.parts()) if (part.type === 'file') for await (const _ of part.file) void _;
      };
      const t = authorize(req, reply, ['write']);
      if (!t) return drain().then(() => reply);
      const blog = ownBlog(reply, t, req.params.blog);
      if (!blog) return drain().then(() => reply);
      let body: Record<string, unknown>;
      const files = new Map<string, TumblrFileRecord & { kind?: 'image' | 'video' }>();
      if (req.isMultipart()) {
        let json: string | undefined;
        const parts: AsyncIterator<Multipart> = req.parts()[Symbol.asyncIterator]();
        let refusal: string | undefined;
        for (;;) {
          let r: IteratorResult<Multipart>;
          try {
            r = await parts.next();
          } catch {
            // @fastify/multipart refuses a part declared application/json that does not parse.
            refusal = 'The "json" part is not valid JSON';
            break;
          }
          if (r.done) break;
          const part = r.value;
          if (part.type === 'file' && part.fieldname === 'json') {
            // The post may also come as a file part, if it says it is JSON.
            const chunks: Buffer[] = [];
            for await (const chunk of part.file) chunks.push(chunk as Buffer);
            if (part.mimetype !== 'application/json') refusal ??= 'The "json" part must be sent with Content-Type: application/json';
            json = Buffer.concat(chunks).toString('utf8');
          } else if (part.type === 'file') {
            const hash = createHash('sha256');
            let size = 0;
            const head: Buffer[] = [];
            for await (const chunk of part.file) {
              hash.update(chunk as Buffer);
              if (size < 16) head.push(chunk as Buffer);
              size += (chunk as Buffer).length;
            }
            files.set(part.fieldname, { identifier: part.fieldname, sha256: hash.digest('hex'), size, contentType: part.mimetype, kind: kindOfBytes(Buffer.concat(head).subarray(0, 16)) });
          } else if (part.fieldname === 'json') {
            // @fastify/multipart has parsed a part sent as application/json already.
            if (part.mimetype !== 'application/json') refusal ??= 'The "json" part must be sent with Content-Type: application/json';
            json = JSON.stringify(part.value);
          }
        }
        if (refusal) return badRequest(reply, refusal);
        if (json === undefined) return badRequest(reply, 'A multipart post needs a "json" part with the post');
        try {
          body = JSON.parse(json) as Record<string, unknown>;
        } catch {
          return badRequest(reply, 'The "json" part is not valid JSON');
        }
      } else {
        if (!String(req.headers['content-type'] ?? '').includes('application/json')) return badRequest(reply, 'Send the post as JSON or multipart/form-data');
        body = (req.body ?? {}) as Record<string, unknown>;
      }
      const used: { identifier: string; kind: 'image' | 'video'; type: string }[] = [];
      const problem = checkContent(body.content, used);
      if (problem) return badRequest(reply, problem);
      for (const u of used) {
        const f = files.get(u.identifier);
        if (!f) return badRequest(reply, `No file was uploaded for media identifier "${u.identifier}"`, 8005);
        if (f.kind !== u.kind) return badRequest(reply, `The file "${u.identifier}" is not ${u.kind === 'image' ? 'an image' : 'a video'}`, 8005);
        if (u.type && !u.type.startsWith(`${u.kind}/`)) return badRequest(reply, `Media "${u.identifier}" declares type ${u.type} in a ${u.kind} block`, 8005);
      }
      const unused = [...files.keys()].filter((k) => !used.some((u) => u.identifier === k));
      if (unused.length > 0) return badRequest(reply, `Uploaded files not referenced by any block: ${unused.join(', ')}`, 8005);
      const state = body.state === undefined ? 'published' : body.state;
      if (typeof state !== 'string' || !STATES.has(state)) return badRequest(reply, `Invalid state "${show(state)}"`);
      if (body.tags !== undefined && typeof body.tags !== 'string') return badRequest(reply, 'tags must be a comma-separated string');
      if (body.source_url !== undefined && (typeof body.source_url !== 'string' || !/^https?:\/\//.test(body.source_url))) return badRequest(reply, 'source_url must be a URL');
      const now = Date.now();
      const today = posts.filter((p) => users.get(t.userId)!.blogs.some((b) => b.uuid === p.blogUuid) && now - p.createdAt < 86_400_000).length;
      if (today >= postsPerDay) return badRequest(reply, 'You have reached your daily post limit', 8023);
      const record: TumblrPostRecord = {
        id: (748_912_345_678_900_000n + BigInt(++seq)).toString(),
        blogUuid: blog.uuid,
        blogName: blog.name,
        content: body.content as Record<string, unknown>[],
        state,
        tags: typeof body.tags === 'string' ? body.tags.split(',').map((s) => s.trim()).filter(Boolean) : [],
        sourceUrl: typeof body.source_url === 'string' ? body.source_url : null,
        files: used.map((u) => {
          const { kind: _k, ...f } = files.get(u.identifier)!;
          return f;
        }),
        noteCount: 0,
        createdAt: now,
      };
      posts.push(record);
      return ok(reply, { id: record.id, state, display_text: state === 'queue' ? 'Added to queue.' : state === 'draft' ? 'Saved as draft.' : `Posted to ${blog.name}.` }, 201, 'Created');
    });

    const listing = (which: 'published' | 'queue' | 'draft') =>
      async (req: FastifyRequest<{ Params: { blog: string }; Querystring: Record<string, string | undefined> }>, reply: FastifyReply) => {
        const t = authorize(req, reply, ['basic']);
        if (!t) return reply;
        const blog = ownBlog(reply, t, req.params.blog);
        if (!blog) return reply;
        const limit = req.query.limit === undefined ? 20 : Number(req.query.limit);
        const offset = req.query.offset === undefined ? 0 : Number(req.query.offset);
        if (!Number.isInteger(limit) || limit < 1 || limit > 20) return badRequest(reply, 'limit must be 1 to 20', 0);
        if (!Number.isInteger(offset) || offset < 0) return badRequest(reply, 'offset must be a positive number', 0);
        const npf = req.query.npf === 'true';
        let list = posts
          .filter((p) => p.blogUuid === blog.uuid && (which === 'published' ? p.state === 'published' || p.state === 'private' : p.state === which))
          .sort((a, b) => b.createdAt - a.createdAt || Number(BigInt(b.id) - BigInt(a.id)));
        if (req.query.id !== undefined) list = list.filter((p) => p.id === req.query.id);
        const page = list.slice(offset, offset + limit);
        return ok(reply, { blog: blogView(blog), posts: page.map((p) => postView(p, npf)), total_posts: list.length });
      };
    app.get('/v2/blog/:blog/posts', listing('published'));
    app.get('/v2/blog/:blog/posts/queue', listing('queue'));
    app.get('/v2/blog/:blog/posts/draft', listing('draft'));
  });

  return Object.assign(sim, {
    ...oauth.controls,
    users,
    posts,
    addUser: (u: TumblrUserRecord) => void users.set(u.name, u),
    approveAs(name: string) {
      approver = name;
    },
    setNoteCount(postId: string, n: number) {
      const p = posts.find((x) => x.id === postId);
      if (p) p.noteCount = n;
    },
    lookup(id: string) {
      const p = posts.find((x) => x.id === id);
      if (!p) return undefined;
      const text = p.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join('\n');
      return { text, mediaSha256: p.files.map((f) => f.sha256) };
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/v2\/blog\/[^/]+\/posts(\?|$)/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          // Tumblr answers an expired and a revoked token alike; the refused refresh tells them apart.
          return sim.inject({ path, status: 401, body: { meta: meta(401, 'Unauthorized'), response: [], errors: [{ title: 'Unauthorized', code: 1016, detail: 'Unable to authorize' }] } });
        case 'rate_limited':
          return sim.inject({
            path,
            status: 429,
            headers: { 'x-ratelimit-perhour-limit': '1000', 'x-ratelimit-perhour-remaining': '0', 'x-ratelimit-perhour-reset': '1800', 'x-ratelimit-perday-limit': '5000', 'x-ratelimit-perday-remaining': '4000', 'x-ratelimit-perday-reset': '50000' },
            body: { meta: meta(429, 'Limit Exceeded'), response: [], errors: [{ title: 'Limit Exceeded', code: 0, detail: 'You have exceeded the rate limit' }] },
          });
        case 'server_error':
          return sim.inject({ path, status: 503, body: { meta: meta(503, 'Service Unavailable'), response: [], errors: [{ title: 'Service Unavailable', code: 0, detail: 'Tumblr is down for maintenance' }] } });
        case 'rejected':
          return sim.inject({ path, status: 400, body: { meta: meta(400, 'Bad Request'), response: [], errors: [{ title: 'Bad Request', code: 8001, detail: 'Posts must have content and each block must be valid' }] } });
        case 'error_in_200':
          // Tumblr reports failures with their HTTP status, never under 200: nothing to inject.
          return;
      }
    },
  });
}
