import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of one Lemmy 0.19 instance: the HTTP API v3 (`/api/v3/...`) and its pict-rs image
 * host behind `/pictrs/image`. It checks what it receives the way Lemmy does:
 *
 * - login with username or email + password (+ TOTP code for 2FA accounts) → a JWT; every call
 *   reads `Authorization: Bearer <jwt>` (or the `jwt` cookie). An unknown or invalidated token is
 *   ignored, as Lemmy's session middleware does, so calls that need a user answer `not_logged_in`
 *   (400) and `GET /site` answers without `my_user`;
 * - posts: the community must exist (`couldnt_find_community`), the account must not be banned
 *   there, mods-only communities refuse others; title 3–200 characters on one line
 *   (`invalid_post_title`), body ≤ 50,000 (`invalid_body_field`), url http(s) (`invalid_url`);
 * - comments: the post must exist and be unlocked, a parent must exist on the same post; content
 *   ≤ 10,000; nesting kept as Lemmy's ltree path `0.<parent…>.<id>`;
 * - pict-rs: multipart field `images[]`, real image bytes (PNG, JPEG, GIF, WebP) hashed by sha256,
 *   answered `{ msg: "ok", files: [{ file, delete_token }] }`;
 * - errors as `{ error: "<snake_case_code>" }` with Lemmy's statuses (401 `incorrect_login`, 404
 *   for missing records, 429 `rate_limit_error`, 400 for the rest).
 *
 * Ids, `ap_id`s and image URLs use the instance's public origin (`https://lemmy.example` by
 * default), the address users type; tests map it to this server with `PLATFORM_ORIGINS`.
 */

export interface LemmyPerson {
  id: number;
  name: string;
  displayName?: string;
  avatar?: string;
  email?: string;
  password: string;
  /** the current TOTP code for a 2FA account (fixed, for tests) */
  totp?: string;
  emailVerified?: boolean;
  banned?: boolean;
}

export interface LemmyCommunity {
  id: number;
  name: string;
  title: string;
  description?: string;
  nsfw?: boolean;
  postingRestrictedToMods?: boolean;
  moderators?: number[];
  banned?: number[];
  subscribers?: number;
  /** host of a federated community (defaults to this instance) */
  host?: string;
}

export interface LemmyPostRecord {
  id: number;
  name: string;
  body: string | null;
  url: string | null;
  altText: string | null;
  nsfw: boolean;
  communityId: number;
  creatorId: number;
  published: string;
  locked: boolean;
  counts: { score: number; upvotes: number; downvotes: number; comments: number };
}

export interface LemmyCommentRecord {
  id: number;
  postId: number;
  parentId: number | null;
  content: string;
  path: string;
  creatorId: number;
  published: string;
}

export interface LemmyImageRecord {
  file: string;
  deleteToken: string;
  sha256: string;
  size: number;
  mimeType: string;
  uploaderId: number;
}

export interface LemmySimulator extends Simulator {
  /** the instance's public origin (ids, ap_ids, image URLs) */
  readonly publicOrigin: string;
  addPerson(p: LemmyPerson): void;
  addCommunity(c: LemmyCommunity): void;
  posts: LemmyPostRecord[];
  comments: LemmyCommentRecord[];
  images: Map<string, LemmyImageRecord>;
  /** the sha256 of the instance images a text or URL refers to, in order */
  imagesIn(...texts: (string | null | undefined)[]): string[];
  /** invalidates every session (as a logout everywhere would) */
  expireAccessTokens(): void;
  /** changes a password: Lemmy invalidates the person's sessions too */
  changePassword(personId: number, password: string): void;
  /** the next `max` calls of `action` pass, later ones get `rate_limit_error` */
  setRateLimit(action: 'post' | 'comment' | 'image', max: number): void;
  setCounts(postId: number, counts: Partial<LemmyPostRecord['counts']>): void;
  /** every session ends right after the next `n` posts are created (a logout in the middle of a publish) */
  expireSessionsAfterPosts(n: number): void;
  logins(): number;
  injectKind(kind: InjectedKind): void;
}

const fail = (reply: FastifyReply, status: number, error: string) => reply.status(status).send({ error });

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** Sniffs the image type of the first bytes, as pict-rs does before it accepts a file. */
function sniff(head: Buffer): { mime: string; ext: string } | undefined {
  if (head.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return { mime: 'image/png', ext: 'png' };
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { mime: 'image/jpeg', ext: 'jpg' };
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return { mime: 'image/gif', ext: 'gif' };
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return { mime: 'image/webp', ext: 'webp' };
  return undefined;
}

const POST_BODY_MAX = 50_000;
const COMMENT_MAX = 10_000;

export async function startLemmySimulator(opts: { publicOrigin?: string; version?: string } = {}): Promise<LemmySimulator> {
  const publicOrigin = opts.publicOrigin ?? 'https://lemmy.example';
  const host = new URL(publicOrigin).host;
  const persons = new Map<number, LemmyPerson>();
  const communities = new Map<number, LemmyCommunity>();
  const tokens = new Map<string, number>();
  const posts: LemmyPostRecord[] = [];
  const comments: LemmyCommentRecord[] = [];
  const images = new Map<string, LemmyImageRecord>();
  const limits = new Map<string, number>();
  let postSeq = 4200;
  let commentSeq = 91_000;
  let loginCount = 0;
  let expireAfterPosts: number | undefined;

  const person = (p: LemmyPerson) => ({
    id: p.id,
    name: p.name,
    display_name: p.displayName ?? null,
    avatar: p.avatar ?? null,
    banned: p.banned ?? false,
    published: '2024-03-01T10:00:00.000000Z',
    updated: null,
    actor_id: `${publicOrigin}/u/${p.name}`,
    bio: null,
    local: true,
    banner: null,
    deleted: false,
    matrix_user_id: null,
    bot_account: false,
    ban_expires: null,
    instance_id: 1,
  });
  const community = (c: LemmyCommunity) => ({
    id: c.id,
    name: c.name,
    title: c.title,
    description: c.description ?? null,
    removed: false,
    published: '2024-01-01T00:00:00.000000Z',
    updated: null,
    deleted: false,
    nsfw: c.nsfw ?? false,
    actor_id: `https://${c.host ?? host}/c/${c.name}`,
    local: !c.host || c.host === host,
    icon: null,
    banner: null,
    hidden: false,
    posting_restricted_to_mods: c.postingRestrictedToMods ?? false,
    instance_id: 1,
    visibility: 'Public',
  });
  const communityView = (c: LemmyCommunity) => ({
    community: community(c),
    subscribed: 'NotSubscribed',
    blocked: false,
    counts: {
      community_id: c.id,
      subscribers: c.subscribers ?? 0,
      posts: posts.filter((p) => p.communityId === c.id).length,
      comments: 0,
      published: '2024-01-01T00:00:00.000000Z',
      users_active_day: 0,
      users_active_week: 0,
      users_active_month: 0,
      users_active_half_year: 0,
      hot_rank: 0,
      subscribers_local: c.subscribers ?? 0,
    },
    banned_from_community: false,
  });
  const postObject = (p: LemmyPostRecord) => ({
    id: p.id,
    name: p.name,
    url: p.url,
    body: p.body,
    creator_id: p.creatorId,
    community_id: p.communityId,
    removed: false,
    locked: p.locked,
    published: p.published,
    updated: null,
    deleted: false,
    nsfw: p.nsfw,
    embed_title: null,
    embed_description: null,
    thumbnail_url: p.url && p.url.startsWith(`${publicOrigin}/pictrs/`) ? p.url : null,
    ap_id: `${publicOrigin}/post/${p.id}`,
    local: true,
    embed_video_url: null,
    language_id: 0,
    featured_community: false,
    featured_local: false,
    url_content_type: null,
    alt_text: p.altText,
  });
  const postView = (p: LemmyPostRecord) => ({
    post: postObject(p),
    creator: person(persons.get(p.creatorId)!),
    community: community(communities.get(p.communityId)!),
    image_details: null,
    creator_banned_from_community: false,
    banned_from_community: false,
    creator_is_moderator: false,
    creator_is_admin: false,
    counts: { post_id: p.id, ...p.counts, published: p.published, newest_comment_time: p.published },
    subscribed: 'NotSubscribed',
    saved: false,
    read: false,
    hidden: false,
    creator_blocked: false,
    my_vote: null,
    unread_comments: 0,
  });
  const commentView = (c: LemmyCommentRecord) => {
    const post = posts.find((p) => p.id === c.postId)!;
    return {
      comment: {
        id: c.id,
        creator_id: c.creatorId,
        post_id: c.postId,
        content: c.content,
        removed: false,
        published: c.published,
        updated: null,
        deleted: false,
        ap_id: `${publicOrigin}/comment/${c.id}`,
        local: true,
        path: c.path,
        distinguished: false,
        language_id: 0,
      },
      creator: person(persons.get(c.creatorId)!),
      post: postObject(post),
      community: community(communities.get(post.communityId)!),
      counts: { comment_id: c.id, score: 1, upvotes: 1, downvotes: 0, published: c.published, child_count: comments.filter((x) => x.parentId === c.id).length },
      creator_banned_from_community: false,
      banned_from_community: false,
      creator_is_moderator: false,
      creator_is_admin: false,
      subscribed: 'NotSubscribed',
      saved: false,
      creator_blocked: false,
      my_vote: null,
    };
  };

  /** The person of the request's JWT (header or cookie); an invalid token is ignored, as Lemmy does. */
  function userOf(req: FastifyRequest): LemmyPerson | undefined {
    const auth = req.headers.authorization;
    let jwt = typeof auth === 'string' && /^Bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
    if (!jwt) jwt = /(?:^|;\s*)jwt=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const id = jwt ? tokens.get(jwt) : undefined;
    return id === undefined ? undefined : persons.get(id);
  }

  /** Counts a rate-limited action; true when the instance refuses it. */
  function limited(action: string): boolean {
    const left = limits.get(action);
    if (left === undefined) return false;
    if (left <= 0) return true;
    limits.set(action, left - 1);
    return false;
  }

  function issueJwt(p: LemmyPerson): string {
    const jwt = `${b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }))}.${b64url(JSON.stringify({ sub: String(p.id), iss: host, iat: Math.floor(Date.now() / 1000) }))}.${b64url(randomBytes(32))}`;
    tokens.set(jwt, p.id);
    return jwt;
  }

  const imageFileRe = new RegExp(`${publicOrigin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/pictrs/image/([A-Za-z0-9._-]+)`, 'g');
  function imagesIn(...texts: (string | null | undefined)[]): string[] {
    const out: string[] = [];
    for (const t of texts) for (const m of (t ?? '').matchAll(imageFileRe)) {
      const img = images.get(m[1]!);
      if (img) out.push(img.sha256);
    }
    return out;
  }

  const sim = await startSimulator((app) => {
    app.post('/api/v3/user/login', async (req, reply) => {
      const body = (req.body ?? {}) as { username_or_email?: unknown; password?: unknown; totp_2fa_token?: unknown };
      if (typeof body.username_or_email !== 'string' || typeof body.password !== 'string') return fail(reply, 400, 'incorrect_login');
      if (limited('login')) return fail(reply, 429, 'rate_limit_error');
      const who = body.username_or_email.toLowerCase();
      const p = [...persons.values()].find((x) => x.name.toLowerCase() === who || x.email?.toLowerCase() === who);
      // Lemmy checks the password before anything else, and says the same for an unknown user.
      if (!p || p.password !== body.password) return fail(reply, 401, 'incorrect_login');
      if (p.banned) return fail(reply, 400, 'site_ban');
      if (p.emailVerified === false) return fail(reply, 400, 'email_not_verified');
      if (p.totp) {
        if (typeof body.totp_2fa_token !== 'string' || body.totp_2fa_token === '') return fail(reply, 400, 'missing_totp_token');
        if (body.totp_2fa_token !== p.totp) return fail(reply, 400, 'incorrect_totp_token');
      }
      loginCount++;
      return { jwt: issueJwt(p), registration_created: false, verify_email_sent: false };
    });

    app.get('/api/v3/site', async (req) => {
      const me = userOf(req);
      return {
        site_view: { site: { id: 1, name: 'Lemmy Example', actor_id: `${publicOrigin}/` }, local_site: { id: 1 }, local_site_rate_limit: { post: 6, post_per_second: 600, comment: 6, comment_per_second: 600, image: 6, image_per_second: 3600 }, counts: { users: persons.size } },
        admins: [],
        version: opts.version ?? '0.19.5',
        ...(me
          ? {
              my_user: {
                local_user_view: { local_user: { id: me.id, person_id: me.id, email: me.email ?? null, totp_2fa_enabled: !!me.totp }, person: person(me), counts: { person_id: me.id, post_count: posts.filter((p) => p.creatorId === me.id).length, comment_count: comments.filter((c) => c.creatorId === me.id).length } },
                follows: [],
                moderates: [],
                community_blocks: [],
                instance_blocks: [],
                person_blocks: [],
                discussion_languages: [],
              },
            }
          : {}),
        all_languages: [],
        discussion_languages: [],
        taglines: [],
        custom_emojis: [],
        blocked_urls: [],
      };
    });

    app.get('/api/v3/user', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      const q = req.query;
      const name = q.username?.replace(new RegExp(`@${host.replace(/\./g, '\\.')}$`), '');
      const p = q.person_id ? persons.get(Number(q.person_id)) : [...persons.values()].find((x) => x.name === name);
      if (!p) return fail(reply, 404, 'couldnt_find_that_username_or_email');
      const limit = Math.min(Number(q.limit ?? 10), 50);
      if (!(limit > 0)) return fail(reply, 400, 'couldnt_parse_pagination_token');
      const page = Math.max(1, Number(q.page ?? 1));
      const newest = <T extends { published: string; id: number }>(list: T[]) =>
        [...list].sort((a, b) => b.published.localeCompare(a.published) || b.id - a.id).slice((page - 1) * limit, page * limit);
      return {
        person_view: { person: person(p), counts: { person_id: p.id, post_count: 0, comment_count: 0 }, is_admin: false },
        comments: newest(comments.filter((c) => c.creatorId === p.id)).map(commentView),
        posts: newest(posts.filter((x) => x.creatorId === p.id)).map(postView),
        moderates: [],
      };
    });

    app.get('/api/v3/search', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      const q = (req.query.q ?? '').toLowerCase();
      if (req.query.type_ && !['All', 'Communities', 'Posts', 'Comments', 'Users', 'Url'].includes(req.query.type_)) return fail(reply, 400, 'invalid_query');
      const found = req.query.type_ === 'Communities' || req.query.type_ === 'All' || !req.query.type_
        ? [...communities.values()].filter((c) => c.name.toLowerCase().includes(q) || c.title.toLowerCase().includes(q))
        : [];
      const limit = Math.min(Number(req.query.limit ?? 10), 50);
      return { type_: req.query.type_ ?? 'All', comments: [], posts: [], communities: found.slice(0, limit).map(communityView), users: [] };
    });

    app.get('/api/v3/community/list', async (req: FastifyRequest<{ Querystring: Record<string, string> }>) => {
      const limit = Math.min(Number(req.query.limit ?? 10), 50);
      return { communities: [...communities.values()].sort((a, b) => (b.subscribers ?? 0) - (a.subscribers ?? 0)).slice(0, limit).map(communityView) };
    });

    app.get('/api/v3/post', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      const p = posts.find((x) => x.id === Number(req.query.id));
      if (!p) return fail(reply, 404, 'couldnt_find_post');
      return { post_view: postView(p), community_view: communityView(communities.get(p.communityId)!), moderators: [], cross_posts: [] };
    });

    app.post('/api/v3/post', async (req, reply) => {
      const me = userOf(req);
      if (!me) return fail(reply, 400, 'not_logged_in');
      if (limited('post')) return fail(reply, 429, 'rate_limit_error');
      const b = (req.body ?? {}) as { name?: unknown; community_id?: unknown; body?: unknown; url?: unknown; nsfw?: unknown; alt_text?: unknown; honeypot?: unknown };
      if (typeof b.community_id !== 'number' || typeof b.name !== 'string') return reply.status(400).send('Json deserialize error: missing field `name` or `community_id`');
      const name = b.name;
      const length = [...name.trim()].length;
      if (length < 3 || length > 200 || /[\n\r]/.test(name)) return fail(reply, 400, 'invalid_post_title');
      if (b.body !== undefined && b.body !== null && (typeof b.body !== 'string' || b.body.length > POST_BODY_MAX)) return fail(reply, 400, 'invalid_body_field');
      if (b.url !== undefined && b.url !== null) {
        let ok = typeof b.url === 'string' && b.url.length <= 2000;
        try {
          ok = ok && ['http:', 'https:'].includes(new URL(b.url).protocol);
        } catch {
          ok = false;
        }
        if (!ok) return fail(reply, 400, 'invalid_url');
      }
      if (b.alt_text !== undefined && b.alt_text !== null && (typeof b.alt_text !== 'string' || b.alt_text.length > 1500)) return fail(reply, 400, 'alt_text_length_overflow');
      if (b.honeypot) return fail(reply, 400, 'honeypot_failed');
      const c = communities.get(b.community_id);
      if (!c) return fail(reply, 400, 'couldnt_find_community');
      if (c.banned?.includes(me.id)) return fail(reply, 400, 'banned_from_community');
      if (c.postingRestrictedToMods && !c.moderators?.includes(me.id)) return fail(reply, 400, 'only_mods_can_post_in_community');
      const record: LemmyPostRecord = {
        id: ++postSeq,
        name,
        body: typeof b.body === 'string' ? b.body : null,
        url: typeof b.url === 'string' ? b.url : null,
        altText: typeof b.alt_text === 'string' ? b.alt_text : null,
        nsfw: b.nsfw === true,
        communityId: c.id,
        creatorId: me.id,
        published: new Date().toISOString().replace('Z', '000Z'),
        locked: false,
        counts: { score: 1, upvotes: 1, downvotes: 0, comments: 0 },
      };
      posts.push(record);
      const view = postView(record);
      if (expireAfterPosts !== undefined && --expireAfterPosts <= 0) {
        expireAfterPosts = undefined;
        tokens.clear();
      }
      return { post_view: view };
    });

    app.post('/api/v3/comment', async (req, reply) => {
      const me = userOf(req);
      if (!me) return fail(reply, 400, 'not_logged_in');
      if (limited('comment')) return fail(reply, 429, 'rate_limit_error');
      const b = (req.body ?? {}) as { content?: unknown; post_id?: unknown; parent_id?: unknown };
      if (typeof b.content !== 'string' || typeof b.post_id !== 'number') return reply.status(400).send('Json deserialize error: missing field `content` or `post_id`');
      if (b.content.length > COMMENT_MAX) return fail(reply, 400, 'invalid_body_field');
      const post = posts.find((p) => p.id === b.post_id);
      if (!post) return fail(reply, 400, 'couldnt_find_post');
      if (post.locked) return fail(reply, 400, 'locked');
      if (communities.get(post.communityId)?.banned?.includes(me.id)) return fail(reply, 400, 'banned_from_community');
      let parent: LemmyCommentRecord | undefined;
      if (b.parent_id !== undefined && b.parent_id !== null) {
        parent = comments.find((c) => c.id === b.parent_id);
        if (!parent) return fail(reply, 400, 'couldnt_find_comment');
        if (parent.postId !== post.id) return fail(reply, 400, 'couldnt_create_comment');
      }
      const id = ++commentSeq;
      const record: LemmyCommentRecord = {
        id,
        postId: post.id,
        parentId: parent?.id ?? null,
        content: b.content,
        path: `${parent ? parent.path : '0'}.${id}`,
        creatorId: me.id,
        published: new Date().toISOString().replace('Z', '000Z'),
      };
      comments.push(record);
      post.counts.comments++;
      return { comment_view: commentView(record), recipient_ids: [] };
    });

    app.post('/pictrs/image', async (req, reply) => {
      const me = userOf(req);
      if (!req.isMultipart()) {
        return reply.status(400).send({ msg: 'Content type error', code: 'content-type' });
      }
      const files: LemmyImageRecord[] = [];
      let refusal: { status: number; body: unknown } | undefined;
      for await (const part of req.parts()) {
        if (part.type !== 'file') continue;
        const hash = createHash('sha256');
        let head = Buffer.alloc(0);
        let size = 0;
        for await (const chunk of part.file) {
          const b = chunk as Buffer;
          if (head.length < 16) head = Buffer.concat([head, b.subarray(0, 16 - head.length)]);
          hash.update(b);
          size += b.length;
        }
        if (refusal) continue;
        if (part.fieldname !== 'images[]') {
          refusal = { status: 400, body: { msg: `Unexpected field ${part.fieldname}`, code: 'upload-field' } };
          continue;
        }
        const kind = sniff(head);
        if (!kind) {
          refusal = { status: 415, body: { msg: 'Unsupported media type', code: 'unsupported-media-type' } };
          continue;
        }
        files.push({ file: `${randomUUID()}.${kind.ext}`, deleteToken: randomUUID(), sha256: hash.digest('hex'), size, mimeType: kind.mime, uploaderId: me?.id ?? 0 });
      }
      // Lemmy reads the session before forwarding to pict-rs (the body is drained either way).
      if (!me) return fail(reply, 400, 'not_logged_in');
      if (limited('image')) return fail(reply, 429, 'rate_limit_error');
      if (refusal) return reply.status(refusal.status).send(refusal.body);
      if (files.length === 0) return reply.status(400).send({ msg: 'No files present in upload', code: 'no-files' });
      for (const f of files) images.set(f.file, f);
      return { msg: 'ok', files: files.map((f) => ({ file: f.file, delete_token: f.deleteToken })) };
    });
  });

  return Object.assign(sim, {
    publicOrigin,
    posts,
    comments,
    images,
    imagesIn,
    addPerson: (p: LemmyPerson) => void persons.set(p.id, { ...p }),
    addCommunity: (c: LemmyCommunity) => void communities.set(c.id, { ...c }),
    expireAccessTokens: () => tokens.clear(),
    changePassword(personId: number, password: string) {
      persons.get(personId)!.password = password;
      for (const [jwt, id] of tokens) if (id === personId) tokens.delete(jwt);
    },
    setRateLimit: (action: 'post' | 'comment' | 'image', max: number) => void limits.set(action, max),
    setCounts(postId: number, counts: Partial<LemmyPostRecord['counts']>) {
      const p = posts.find((x) => x.id === postId)!;
      p.counts = { ...p.counts, ...counts };
    },
    logins: () => loginCount,
    expireSessionsAfterPosts: (n: number) => void (expireAfterPosts = n),
    injectKind(kind: InjectedKind) {
      const path = /^\/api\/v3\/post$/;
      switch (kind) {
        case 'auth_expired':
          // The session was ended (logout everywhere): a new login fixes it.
          return sim.inject({ path, status: 400, body: { error: 'not_logged_in' } });
        case 'revoked':
          // The account was banned from the instance: no new login helps.
          return sim.inject({ path, status: 400, body: { error: 'site_ban' } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, body: { error: 'rate_limit_error' } });
        case 'server_error':
          // What nginx in front of a Lemmy that is restarting answers.
          return sim.inject({ path, status: 502, body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>', headers: { 'content-type': 'text/html' } });
        case 'rejected':
          return sim.inject({ path, status: 400, body: { error: 'only_mods_can_post_in_community' } });
        case 'error_in_200':
          // Lemmy itself never does this; a caching proxy replaying an error body with 200 does.
          return sim.inject({ path, status: 200, body: { error: 'invalid_post_title' } });
      }
    },
  });
}
