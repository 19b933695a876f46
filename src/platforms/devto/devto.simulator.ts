import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of DEV's Forem API v1 (`https://dev.to/api`): users known by their API key (the
 * `api-key` header; a missing or unknown key → 401 `{"error":"unauthorized","status":401}`),
 * organizations with their members, tags, and articles.
 *
 * `POST /api/articles` checks what DEV checks: the `article` object (400 "param is missing…"),
 * a title (≤ 128), at most 4 tags of letters and digits, a canonical URL not already used by one of
 * the account's articles, an organization the user belongs to — each refused with DEV's
 * `422 {"error":"Validation failed: …","status":422}`. A `main_image` is FETCHED from its URL
 * (through `mediaOrigins`, public origin → where it is really served) and its bytes hashed, as
 * DEV's image pipeline pulls covers. Article creation is rate limited per user (10 per 30 s by
 * default): 429 `{"error":"Rate limit reached, try again in N seconds","status":429}` with
 * `Retry-After`. `/api/articles/me/all` lists the account's articles, published ones first by
 * publication date, then drafts, with their figures (`page_views_count`…), paginated by
 * `page`/`per_page` (1–1000).
 */

export const DEVTO_ORIGIN = 'https://dev.to';

export interface DevtoUserRecord {
  id: number;
  username: string;
  name: string;
  apiKey: string;
  profile_image?: string;
}

export interface DevtoOrgRecord {
  id: number;
  username: string;
  name: string;
  members: number[];
}

export interface DevtoCoverRecord {
  url: string;
  sha256: string;
  size: number;
  contentType: string;
}

export interface DevtoArticleRecord {
  id: number;
  userId: number;
  organizationId: number | null;
  title: string;
  slug: string;
  url: string;
  bodyMarkdown: string;
  published: boolean;
  publishedAt: string | null;
  createdAt: string;
  tags: string[];
  canonicalUrl: string | null;
  series: string | null;
  description: string;
  cover: DevtoCoverRecord | null;
  pageViews: number;
  reactions: number;
  comments: number;
}

export interface DevtoSimulatorOptions {
  /** public origin of pulled media → where it is really served */
  mediaOrigins?: Record<string, string>;
  /** article creations per user per window before 429 (default 10) */
  articlesPerWindow?: number;
  /** the window of that limit, seconds (default 30) */
  windowSeconds?: number;
}

export interface DevtoSimulator extends Simulator {
  users: Map<string, DevtoUserRecord>;
  orgs: DevtoOrgRecord[];
  articles: DevtoArticleRecord[];
  tags: { id: number; name: string }[];
  addUser(u: DevtoUserRecord): void;
  addOrg(o: DevtoOrgRecord): void;
  /** an article already on the account (not made through the API) */
  addArticle(a: Partial<DevtoArticleRecord> & { userId: number; title: string }): DevtoArticleRecord;
  setFigures(id: number, figures: { pageViews?: number; reactions?: number; comments?: number }): void;
  /** the key stops working (the user revoked it in DEV's settings) */
  revokeKey(apiKey: string): void;
  lookup(id: string): { text: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function pictureType(b: Buffer): string | undefined {
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

const slugify = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'article';

const fail = (reply: FastifyReply, status: number, error: string, headers: Record<string, string> = {}) => reply.status(status).headers(headers).send({ error, status });

export async function startDevtoSimulator(opts: DevtoSimulatorOptions = {}): Promise<DevtoSimulator> {
  const mode = currentSimulatorMode();
  const users = new Map<string, DevtoUserRecord>();
  const revoked = new Set<string>();
  const orgs: DevtoOrgRecord[] = [];
  const articles: DevtoArticleRecord[] = [];
  const tags = [
    { id: 6, name: 'javascript' },
    { id: 8, name: 'webdev' },
    { id: 555, name: 'node' },
    { id: 1234, name: 'typescript' },
    { id: 4321, name: 'postgres' },
  ];
  const creations = new Map<number, number[]>();
  let nextId = 1_900_000;
  const perWindow = opts.articlesPerWindow ?? 10;
  const windowMs = (opts.windowSeconds ?? 30) * 1000;

  function authorize(req: FastifyRequest, reply: FastifyReply): DevtoUserRecord | undefined {
    const key = req.headers['api-key'];
    const user = typeof key === 'string' && !revoked.has(key) ? users.get(key) : undefined;
    if (!user) void fail(reply, 401, 'unauthorized');
    return user;
  }

  async function pull(url: string): Promise<{ ok: true; cover: DevtoCoverRecord } | { ok: false; message: string }> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { ok: false, message: 'Validation failed: Main image is not a valid URL' };
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return { ok: false, message: 'Validation failed: Main image is not a valid URL' };
    let res: Response;
    try {
      res = await mediaFetch(mode, opts.mediaOrigins, url, { signal: AbortSignal.timeout(10_000) });
    } catch {
      return { ok: false, message: `Validation failed: Main image could not be downloaded from ${url}` };
    }
    if (!res.ok) return { ok: false, message: `Validation failed: Main image could not be downloaded from ${url} (HTTP ${res.status})` };
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = pictureType(bytes);
    if (!type) return { ok: false, message: `Validation failed: Main image is not an image: ${url}` };
    return { ok: true, cover: { url, sha256: sha256(bytes), size: bytes.length, contentType: type } };
  }

  const userOf = (id: number) => [...users.values()].find((u) => u.id === id);

  function view(a: DevtoArticleRecord) {
    const u = userOf(a.userId);
    const org = a.organizationId === null ? undefined : orgs.find((o) => o.id === a.organizationId);
    const path = new URL(a.url).pathname;
    return {
      type_of: 'article',
      id: a.id,
      title: a.title,
      description: a.description,
      published: a.published,
      published_at: a.publishedAt,
      published_timestamp: a.publishedAt ?? '',
      slug: a.slug,
      path,
      url: a.url,
      comments_count: a.comments,
      public_reactions_count: a.reactions,
      positive_reactions_count: a.reactions,
      page_views_count: a.pageViews,
      cover_image: a.cover ? `https://media2.dev.to/dynamic/image/width=1000,height=420,fit=cover/${encodeURIComponent(a.cover.url)}` : null,
      tag_list: a.tags,
      canonical_url: a.canonicalUrl ?? a.url,
      reading_time_minutes: Math.max(1, Math.round(a.bodyMarkdown.split(/\s+/).length / 275)),
      body_markdown: a.bodyMarkdown,
      user: u ? { name: u.name, username: u.username, user_id: u.id, profile_image: u.profile_image ?? null } : null,
      ...(org ? { organization: { name: org.name, username: org.username, slug: org.username, profile_image: null, profile_image_90: null } } : {}),
    };
  }

  function store(fields: Omit<DevtoArticleRecord, 'id' | 'slug' | 'url'>): DevtoArticleRecord {
    const id = nextId++;
    const slug = `${slugify(fields.title)}-${randomBytes(2).toString('hex')}`;
    const owner = fields.organizationId === null ? userOf(fields.userId)!.username : orgs.find((o) => o.id === fields.organizationId)!.username;
    const record: DevtoArticleRecord = { ...fields, id, slug, url: `${DEVTO_ORIGIN}/${owner}/${slug}` };
    articles.push(record);
    return record;
  }

  const sim = await startSimulator((app) => {
    app.get('/api/users/me', async (req, reply) => {
      const u = authorize(req, reply);
      if (!u) return reply;
      return {
        type_of: 'user',
        id: u.id,
        username: u.username,
        name: u.name,
        summary: null,
        twitter_username: null,
        github_username: null,
        website_url: null,
        location: null,
        joined_at: 'Jan 4, 2021',
        profile_image: u.profile_image ?? `https://media2.dev.to/dynamic/image/width=640,height=640,fit=cover/${u.username}.png`,
      };
    });

    app.get('/api/tags', async (req: FastifyRequest<{ Querystring: { page?: string; per_page?: string } }>, reply) => {
      if (!authorize(req, reply)) return reply;
      const perPage = Math.min(1000, Math.max(1, Number(req.query.per_page ?? 10) || 10));
      const page = Math.max(1, Number(req.query.page ?? 1) || 1);
      return tags.slice((page - 1) * perPage, page * perPage).map((t) => ({ id: t.id, name: t.name, bg_color_hex: '#000000', text_color_hex: '#ffffff' }));
    });

    app.get('/api/organizations/:username', async (req: FastifyRequest<{ Params: { username: string } }>, reply) => {
      const o = orgs.find((x) => x.username === req.params.username);
      if (!o) return fail(reply, 404, 'not found');
      return { type_of: 'organization', id: o.id, username: o.username, name: o.name, summary: null, twitter_username: null, github_username: null, url: null, location: null, joined_at: '2022-03-01T00:00:00Z', tech_stack: null, tag_line: null, story: null, profile_image: null };
    });

    app.get('/api/articles/me/all', async (req: FastifyRequest<{ Querystring: { page?: string; per_page?: string } }>, reply) => {
      const u = authorize(req, reply);
      if (!u) return reply;
      const perPage = Number(req.query.per_page ?? 30);
      if (!Number.isInteger(perPage) || perPage < 1 || perPage > 1000) return fail(reply, 400, 'per_page must be between 1 and 1000');
      const page = Math.max(1, Number(req.query.page ?? 1) || 1);
      const mine = articles.filter((a) => a.userId === u.id);
      const published = mine.filter((a) => a.published).sort((a, b) => Date.parse(b.publishedAt!) - Date.parse(a.publishedAt!) || b.id - a.id);
      const drafts = mine.filter((a) => !a.published).sort((a, b) => b.id - a.id);
      return [...published, ...drafts].slice((page - 1) * perPage, page * perPage).map(view);
    });

    app.post('/api/articles', async (req: FastifyRequest<{ Body: { article?: Record<string, unknown> } | undefined }>, reply) => {
      const u = authorize(req, reply);
      if (!u) return reply;
      const now = Date.now();
      const recent = (creations.get(u.id) ?? []).filter((t) => t > now - windowMs);
      creations.set(u.id, recent);
      if (recent.length >= perWindow) {
        const wait = Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
        return fail(reply, 429, `Rate limit reached, try again in ${wait} seconds`, { 'retry-after': String(wait) });
      }
      const a = req.body?.article;
      if (!a || typeof a !== 'object') return fail(reply, 400, 'param is missing or the value is empty: article');
      const title = typeof a.title === 'string' ? a.title.trim() : '';
      if (title === '') return fail(reply, 422, "Validation failed: Title can't be blank");
      if (title.length > 128) return fail(reply, 422, 'Validation failed: Title is too long (maximum is 128 characters)');
      const body = typeof a.body_markdown === 'string' ? a.body_markdown : '';
      const rawTags = Array.isArray(a.tags) ? a.tags.map(String) : typeof a.tags === 'string' ? a.tags.split(',') : typeof a.tag_list === 'string' ? a.tag_list.split(',') : [];
      const tagList = rawTags.map((t) => t.trim().toLowerCase()).filter(Boolean);
      if (tagList.length > 4) return fail(reply, 422, 'Validation failed: Tag list exceed the maximum of 4 tags');
      const bad = tagList.find((t) => !/^[a-z0-9]+$/.test(t));
      if (bad) return fail(reply, 422, `Validation failed: Tag "${bad}" contains non-alphanumeric or prohibited unicode characters`);
      const canonical = typeof a.canonical_url === 'string' && a.canonical_url !== '' ? a.canonical_url : null;
      if (canonical !== null) {
        if (!/^https?:\/\/\S+$/.test(canonical)) return fail(reply, 422, 'Validation failed: Canonical url is not a valid URL');
        if (articles.some((x) => x.userId === u.id && x.canonicalUrl === canonical)) return fail(reply, 422, 'Validation failed: Canonical url has already been taken');
      }
      let organizationId: number | null = null;
      if (a.organization_id !== undefined && a.organization_id !== null && a.organization_id !== '') {
        const o = orgs.find((x) => x.id === Number(a.organization_id));
        if (!o || !o.members.includes(u.id)) return fail(reply, 422, 'Validation failed: Organization is not one you are a member of');
        organizationId = o.id;
      }
      let cover: DevtoCoverRecord | null = null;
      if (typeof a.main_image === 'string' && a.main_image !== '') {
        const r = await pull(a.main_image);
        if (!r.ok) return fail(reply, 422, r.message);
        cover = r.cover;
      }
      const published = a.published === true || a.published === 'true';
      recent.push(now);
      const at = new Date(now).toISOString();
      const record = store({
        userId: u.id,
        organizationId,
        title,
        bodyMarkdown: body,
        published,
        publishedAt: published ? at : null,
        createdAt: at,
        tags: tagList,
        canonicalUrl: canonical,
        series: typeof a.series === 'string' && a.series !== '' ? a.series : null,
        description: typeof a.description === 'string' ? a.description : body.replace(/\s+/g, ' ').slice(0, 150),
        cover,
        pageViews: 0,
        reactions: 0,
        comments: 0,
      });
      return reply.status(201).send({ ...view(record), tags: record.tags, tag_list: record.tags.join(', '), body_html: `<p>${record.bodyMarkdown}</p>` });
    });
  });

  return Object.assign(sim, {
    users,
    orgs,
    articles,
    tags,
    addUser: (u: DevtoUserRecord) => void users.set(u.apiKey, u),
    addOrg: (o: DevtoOrgRecord) => void orgs.push(o),
    addArticle(a: Partial<DevtoArticleRecord> & { userId: number; title: string }) {
      const at = a.publishedAt ?? new Date().toISOString();
      return store({
        organizationId: null,
        bodyMarkdown: '',
        published: true,
        publishedAt: at,
        createdAt: at,
        tags: [],
        canonicalUrl: null,
        series: null,
        description: '',
        cover: null,
        pageViews: 0,
        reactions: 0,
        comments: 0,
        ...a,
      });
    },
    setFigures(id: number, f: { pageViews?: number; reactions?: number; comments?: number }) {
      const a = articles.find((x) => x.id === id);
      if (!a) throw new Error(`no article ${id}`);
      Object.assign(a, Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)));
    },
    revokeKey: (apiKey: string) => void revoked.add(apiKey),
    lookup(id: string) {
      const a = articles.find((x) => String(x.id) === id);
      return a ? { text: a.bodyMarkdown, mediaSha256: a.cover ? [a.cover.sha256] : [] } : undefined;
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/api\/articles(\?|$)/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 401, body: { error: 'unauthorized', status: 401 } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, headers: { 'retry-after': '30' }, body: { error: 'Rate limit reached, try again in 30 seconds', status: 429 } });
        case 'server_error':
          return sim.inject({ path, status: 500, body: { error: 'Internal Server Error', status: 500 } });
        case 'rejected':
          return sim.inject({ path, status: 422, body: { error: 'Validation failed: Canonical url has already been taken', status: 422 } });
        case 'error_in_200':
          // DEV never reports errors under HTTP 200.
          return;
      }
    },
  });
}
