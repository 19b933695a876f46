import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of one self-hosted WordPress site (6.x) and its REST API (`wp/v2`), built from
 * WordPress's own code paths:
 * - the front page announces the REST root in `Link: <…>; rel="https://api.w.org/"`: `/wp-json/`
 *   with pretty permalinks, `/index.php?rest_route=/` without (then `/wp-json/…` is a 404 page);
 *   `?rest_route=` works in both, as in WordPress;
 * - Basic auth with application passwords (`wp_authenticate_application_password`: user by login
 *   or e-mail, everything but letters and digits stripped from the password), its 401 errors
 *   (`invalid_username`, `invalid_email`, `incorrect_password`) on any route, roles and their
 *   capabilities (`rest_cannot_create`, `rest_cannot_publish`, `rest_forbidden_context`);
 * - raw media uploads needing Content-Type, Content-Disposition with a filename, an allowed
 *   extension and bytes that really are a picture (else 500 `rest_upload_sideload_error`, as
 *   WordPress answers), renamed when the bytes are another picture type;
 * - posts and pages with WordPress's argument validation (`rest_invalid_param` with `params`),
 *   unknown term ids and featured media silently dropped (WordPress 6 does that on create),
 *   `future`/`publish` switched by the date, the default category, permalinks by structure;
 * - collections with `per_page` ≤ 100, `page`, `X-WP-Total`/`X-WP-TotalPages`,
 *   `rest_post_invalid_page_number`, `author`, `status` (incl. `any`), `after`, `context=edit`.
 */

export type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';

export interface WpSimUser {
  id: number;
  username: string;
  email: string;
  name: string;
  role: Role;
  /** application passwords as WordPress shows them once (`abcd EFGH 1234 …`) */
  appPasswords: string[];
}

export interface WpSimMedia {
  id: number;
  author: number;
  filename: string;
  mimeType: string;
  size: number;
  sha256: string;
  sourceUrl: string;
  altText: string;
  dateGmt: string;
}

export interface WpSimPost {
  id: number;
  /** `post`, `page`… */
  type: string;
  author: number;
  title: string;
  content: string;
  status: string;
  dateGmt: string;
  slug: string;
  categories: number[];
  tags: number[];
  featuredMedia: number;
}

export interface WpSimTerm {
  id: number;
  taxonomy: 'category' | 'post_tag';
  name: string;
  slug: string;
  parent: number;
}

export interface WordpressSimulatorOptions {
  /** the site's public address (home URL), maybe in a folder */
  publicUrl?: string;
  permalinks?: 'pretty' | 'plain';
  users?: WpSimUser[];
  terms?: WpSimTerm[];
  /** a server that drops the Authorization header (CGI setups without the rewrite rule) */
  dropsAuthorization?: boolean;
  /**
   * `reported` (WordPress's code path): a wrong user or password answers 401 `invalid_username` /
   * `incorrect_password`. `anonymous`: the request goes on as a visitor's (`rest_not_logged_in`,
   * 401 `rest_cannot_create`), as a real WordPress 6.1 site here answered when the login was
   * tried before the request was known to be a REST one.
   */
  authFailures?: 'reported' | 'anonymous';
}

export interface WordpressSimulator extends Simulator {
  readonly publicUrl: string;
  users: WpSimUser[];
  posts: WpSimPost[];
  media: WpSimMedia[];
  terms: WpSimTerm[];
  injectKind(kind: InjectedKind): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  /** the sha256 of the featured image and of the pictures in the content, in that order */
  mediaOf(post: WpSimPost): { featured: string | null; inContent: string[] };
  setNow(ms: number | null): void;
}

type Json = Record<string, unknown>;

const CAPS: Record<Role, string[]> = {
  administrator: ['edit_posts', 'publish_posts', 'upload_files', 'edit_pages', 'publish_pages', 'list_users', 'manage_categories', 'edit_others_posts'],
  editor: ['edit_posts', 'publish_posts', 'upload_files', 'edit_pages', 'publish_pages', 'manage_categories', 'edit_others_posts'],
  author: ['edit_posts', 'publish_posts', 'upload_files'],
  contributor: ['edit_posts'],
  subscriber: ['read'],
};

const STATUSES = ['publish', 'future', 'draft', 'pending', 'private'];
const EXT_TYPES: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', jpe: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', mp4: 'video/mp4', pdf: 'application/pdf' };
const TYPE_EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp', 'image/bmp': 'bmp' };

function wpError(reply: FastifyReply, status: number, code: string, message: string, extra: Json = {}) {
  return reply.status(status).header('content-type', 'application/json; charset=UTF-8').send({ code, message, data: { status, ...extra } });
}

/** The picture type of the first bytes, as PHP's getimagesize sees it. */
function sniff(head: Buffer): string | null {
  if (head.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (head.subarray(0, 2).toString('latin1') === 'BM') return 'image/bmp';
  return null;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function slugify(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/<[^>]*>/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'post'
  );
}

/** WordPress's local date strings (the simulated site runs on UTC). */
const local = (iso: string) => iso.slice(0, 19);

interface RawBody {
  raw: true;
  sha256: string;
  size: number;
  head: Buffer;
}

export const DEFAULT_USERS: WpSimUser[] = [
  { id: 1, username: 'admin', email: 'admin@blog.example.com', name: 'Site Admin', role: 'administrator', appPasswords: ['AAAA bbbb CCCC dddd EEEE ffff'] },
];
export const DEFAULT_TERMS: WpSimTerm[] = [{ id: 1, taxonomy: 'category', name: 'Uncategorized', slug: 'uncategorized', parent: 0 }];

export async function startWordpressSimulator(options: WordpressSimulatorOptions = {}): Promise<WordpressSimulator> {
  const publicUrl = (options.publicUrl ?? 'https://blog.example.com').replace(/\/+$/, '');
  const basePath = new URL(publicUrl).pathname.replace(/\/+$/, '');
  const permalinks = options.permalinks ?? 'pretty';
  const users = options.users ?? structuredClone(DEFAULT_USERS);
  const terms = options.terms ?? structuredClone(DEFAULT_TERMS);
  const posts: WpSimPost[] = [];
  const media: WpSimMedia[] = [];
  let nextId = 100;
  let nowOverride: number | null = null;
  const now = () => nowOverride ?? Date.now();
  const restRoot = permalinks === 'pretty' ? `${publicUrl}/wp-json/` : `${publicUrl}/index.php?rest_route=/`;

  const permalink = (p: WpSimPost) => {
    if (p.status !== 'publish' && p.status !== 'private') return p.type === 'page' ? `${publicUrl}/?page_id=${p.id}` : `${publicUrl}/?p=${p.id}`;
    if (permalinks === 'plain') return p.type === 'page' ? `${publicUrl}/?page_id=${p.id}` : `${publicUrl}/?p=${p.id}`;
    return `${publicUrl}/${p.slug}/`;
  };

  const postView = (p: WpSimPost, context: string): Json => ({
    id: p.id,
    date: local(p.dateGmt),
    date_gmt: p.status === 'draft' || p.status === 'pending' ? null : local(p.dateGmt),
    guid: { rendered: `${publicUrl}/?p=${p.id}`, ...(context === 'edit' ? { raw: `${publicUrl}/?p=${p.id}` } : {}) },
    modified: local(p.dateGmt),
    modified_gmt: local(p.dateGmt),
    slug: p.slug,
    status: p.status,
    type: p.type,
    link: permalink(p),
    title: { rendered: escapeHtml(p.title), ...(context === 'edit' ? { raw: p.title } : {}) },
    content: { rendered: p.content, protected: false, ...(context === 'edit' ? { raw: p.content, block_version: p.content.includes('<!-- wp:') ? 1 : 0 } : {}) },
    excerpt: { rendered: '', protected: false },
    author: p.author,
    featured_media: p.featuredMedia,
    comment_status: 'open',
    ping_status: 'open',
    template: '',
    meta: [],
    ...(p.type === 'page' ? { parent: 0, menu_order: 0 } : { sticky: false, format: 'standard', categories: p.categories, tags: p.tags }),
  });

  const mediaView = (m: WpSimMedia): Json => ({
    id: m.id,
    date: local(m.dateGmt),
    date_gmt: local(m.dateGmt),
    slug: m.filename.replace(/\.[^.]+$/, ''),
    status: 'inherit',
    type: 'attachment',
    link: `${publicUrl}/${m.filename.replace(/\.[^.]+$/, '')}/`,
    title: { rendered: m.filename.replace(/\.[^.]+$/, ''), raw: m.filename.replace(/\.[^.]+$/, '') },
    author: m.author,
    alt_text: m.altText,
    media_type: 'image',
    mime_type: m.mimeType,
    media_details: { filesize: m.size, file: m.sourceUrl.split('/wp-content/uploads/')[1], sizes: {} },
    source_url: m.sourceUrl,
  });

  const termView = (t: WpSimTerm): Json => ({
    id: t.id,
    count: posts.filter((p) => (t.taxonomy === 'category' ? p.categories : p.tags).includes(t.id)).length,
    description: '',
    link: `${publicUrl}/${t.taxonomy === 'category' ? 'category' : 'tag'}/${t.slug}/`,
    name: escapeHtml(t.name).replace(/&quot;/g, '"'),
    slug: t.slug,
    taxonomy: t.taxonomy,
    ...(t.taxonomy === 'category' ? { parent: t.parent } : {}),
    meta: [],
  });

  const sim = await startSimulator((app) => {
    // Raw bodies (media uploads): hashed as they stream in, the first bytes kept for the type check.
    app.addContentTypeParser('*', (_req, payload, done) => {
      const hash = createHash('sha256');
      let size = 0;
      const head: Buffer[] = [];
      let headLen = 0;
      payload.on('data', (c: Buffer) => {
        hash.update(c);
        size += c.length;
        if (headLen < 16) {
          head.push(c.subarray(0, 16 - headLen));
          headLen += Math.min(c.length, 16 - headLen);
        }
      });
      payload.on('end', () => done(null, { raw: true, sha256: hash.digest('hex'), size, head: Buffer.concat(head) } satisfies RawBody));
      payload.on('error', (e: Error) => done(e, undefined));
    });

    const frontPage = (reply: FastifyReply, status = 200) =>
      reply
        .status(status)
        .header('content-type', 'text/html; charset=UTF-8')
        .header('link', `<${restRoot}>; rel="https://api.w.org/"`)
        .send(`<!doctype html><html><head><title>Acme Blog</title><link rel="https://api.w.org/" href="${restRoot}" /></head><body>${status === 404 ? 'Page not found' : 'Acme Blog'}</body></html>`);

    /** The user of the request, `null` when anonymous, or the authentication error WordPress answers on any route. */
    function authenticate(req: FastifyRequest): { user: WpSimUser | null } | { error: [number, string, string] } {
      const header = options.dropsAuthorization ? undefined : req.headers.authorization;
      if (!header || !/^Basic /i.test(header)) return { user: null };
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return { user: null };
      const login = decoded.slice(0, colon);
      const password = decoded.slice(colon + 1);
      const isEmail = /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(login);
      const user = users.find((u) => u.username === login) ?? (isEmail ? users.find((u) => u.email === login) : undefined);
      if (options.authFailures === 'anonymous') {
        const ok = user?.appPasswords.some((p) => p.replace(/[^a-z\d]/gi, '') === password.replace(/[^a-z\d]/gi, ''));
        return { user: ok ? user! : null };
      }
      if (!user) {
        return isEmail
          ? { error: [401, 'invalid_email', '<strong>Error:</strong> Unknown email address. Check again or try your username.'] }
          : { error: [401, 'invalid_username', '<strong>Error:</strong> Unknown username. Check again or try your email address.'] };
      }
      const given = password.replace(/[^a-z\d]/gi, '');
      if (!user.appPasswords.some((p) => p.replace(/[^a-z\d]/gi, '') === given)) {
        return { error: [401, 'incorrect_password', 'The provided password is an invalid application password.'] };
      }
      return { user };
    }

    const can = (u: WpSimUser | null, cap: string) => !!u && CAPS[u.role].includes(cap);
    const authCode = (u: WpSimUser | null) => (u ? 403 : 401);

    function paged<T>(reply: FastifyReply, q: URLSearchParams, items: T[], view: (t: T) => Json) {
      const perPage = q.has('per_page') ? Number(q.get('per_page')) : 10;
      const page = q.has('page') ? Number(q.get('page')) : 1;
      if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
        return wpError(reply, 400, 'rest_invalid_param', 'Invalid parameter(s): per_page', { params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' }, details: {} });
      }
      if (!Number.isInteger(page) || page < 1) return wpError(reply, 400, 'rest_invalid_param', 'Invalid parameter(s): page', { params: { page: 'page must be greater than or equal to 1' }, details: {} });
      const totalPages = Math.ceil(items.length / perPage);
      if (page > 1 && page > totalPages) return wpError(reply, 400, 'rest_post_invalid_page_number', 'The page number requested is larger than the number of pages available.');
      return reply
        .header('x-wp-total', String(items.length))
        .header('x-wp-totalpages', String(totalPages))
        .send(items.slice((page - 1) * perPage, page * perPage).map(view));
    }

    function listPosts(reply: FastifyReply, q: URLSearchParams, user: WpSimUser | null, type: string) {
      const context = q.get('context') ?? 'view';
      const editCap = type === 'page' ? 'edit_pages' : 'edit_posts';
      if (context === 'edit' && !can(user, editCap)) return wpError(reply, authCode(user), 'rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.');
      const authors = q.get('author')?.split(',').filter(Boolean) ?? [];
      const badAuthor = authors.findIndex((a) => !/^\d+$/.test(a));
      if (badAuthor >= 0) return wpError(reply, 400, 'rest_invalid_param', 'Invalid parameter(s): author', { params: { author: `author[${badAuthor}] is not of type integer.` }, details: {} });
      const statuses = (q.get('status') ?? 'publish').split(',').filter(Boolean);
      for (const s of statuses) {
        if (![...STATUSES, 'any', 'trash'].includes(s)) return wpError(reply, 400, 'rest_invalid_param', 'Invalid parameter(s): status', { params: { status: `status[0] is not one of ${STATUSES.join(', ')}, any.` }, details: {} });
        if (s !== 'publish' && !can(user, editCap)) return wpError(reply, authCode(user), 'rest_forbidden_status', 'Status is forbidden.');
      }
      const after = q.get('after');
      if (after !== null && !/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}(?::\d{2})?)?$/.test(after)) {
        return wpError(reply, 400, 'rest_invalid_param', 'Invalid parameter(s): after', { params: { after: 'Invalid date.' }, details: {} });
      }
      const afterMs = after ? Date.parse(/Z|[+-]\d{2}(:\d{2})?$/.test(after) ? after : `${after}Z`) : null;
      const found = posts
        .filter((p) => p.type === type)
        .filter((p) => (statuses.includes('any') ? p.status !== 'trash' : statuses.includes(p.status)))
        .filter((p) => authors.length === 0 || authors.includes(String(p.author)))
        .filter((p) => afterMs === null || Date.parse(p.dateGmt) > afterMs)
        .sort((a, b) => (q.get('order') === 'asc' ? 1 : -1) * (Date.parse(a.dateGmt) - Date.parse(b.dateGmt) || a.id - b.id));
      return paged(reply, q, found, (p) => postView(p, context));
    }

    function createPost(reply: FastifyReply, body: Json, user: WpSimUser | null, type: string) {
      const label = type === 'page' ? 'pages' : 'posts';
      const editCap = type === 'page' ? 'edit_pages' : 'edit_posts';
      if (!can(user, editCap)) return wpError(reply, authCode(user), 'rest_cannot_create', `Sorry, you are not allowed to create ${label} as this user.`);
      const params: Record<string, string> = {};
      const status = body.status === undefined ? 'draft' : body.status;
      if (typeof status !== 'string' || !STATUSES.includes(status)) params.status = `status is not one of ${STATUSES.join(', ')}.`;
      for (const key of type === 'page' ? [] : ['categories', 'tags']) {
        const v = body[key];
        if (v === undefined) continue;
        if (!Array.isArray(v)) params[key] = `${key} is not of type array.`;
        else {
          const bad = v.findIndex((x) => !(typeof x === 'number' && Number.isInteger(x)) && !(typeof x === 'string' && /^\d+$/.test(x)));
          if (bad >= 0) params[key] = `${key}[${bad}] is not of type integer.`;
        }
      }
      if (body.featured_media !== undefined && !Number.isInteger(Number(body.featured_media))) params.featured_media = 'featured_media is not of type integer.';
      for (const key of ['title', 'content']) {
        const v = body[key];
        if (v !== undefined && typeof v !== 'string' && !(v && typeof v === 'object' && typeof (v as Json).raw === 'string')) params[key] = `${key} is not of type object,string.`;
      }
      let dateGmt = new Date(now()).toISOString();
      for (const key of ['date', 'date_gmt']) {
        const v = body[key];
        if (v === undefined || v === null) continue;
        if (typeof v !== 'string' || Number.isNaN(Date.parse(/Z|[+-]\d{2}:?\d{2}$/.test(v) ? v : `${v}Z`))) params[key] = 'Invalid date.';
        else dateGmt = new Date(Date.parse(/Z|[+-]\d{2}:?\d{2}$/.test(v) ? v : `${v}Z`)).toISOString();
      }
      if (Object.keys(params).length > 0) return wpError(reply, 400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, { params, details: {} });
      const publishCap = type === 'page' ? 'publish_pages' : 'publish_posts';
      if ((status === 'publish' || status === 'future' || status === 'private') && !can(user, publishCap)) {
        return wpError(reply, 403, 'rest_cannot_publish', 'Sorry, you are not allowed to publish posts in this post type.');
      }
      const text = (v: unknown) => (typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as Json).raw === 'string' ? ((v as Json).raw as string) : '');
      const title = text(body.title);
      const content = text(body.content);
      if (title.trim() === '' && content.trim() === '') return wpError(reply, 400, 'empty_content', 'Content, title, and excerpt are empty.');
      // wp_insert_post: a publish date a minute or more ahead makes it future, a future one in the past publishes.
      let finalStatus = status as string;
      const ahead = Date.parse(dateGmt) - now();
      if (finalStatus === 'publish' && ahead >= 60_000) finalStatus = 'future';
      else if (finalStatus === 'future' && ahead < 60_000) finalStatus = 'publish';
      const known = (ids: unknown, taxonomy: WpSimTerm['taxonomy']) =>
        Array.isArray(ids) ? [...new Set(ids.map(Number))].filter((id) => terms.some((t) => t.id === id && t.taxonomy === taxonomy)) : [];
      let categories = type === 'page' ? [] : known(body.categories, 'category');
      if (type !== 'page' && categories.length === 0) categories = [1];
      const fm = Number(body.featured_media ?? 0);
      const post: WpSimPost = {
        id: nextId++,
        type,
        author: user!.id,
        title,
        content,
        status: finalStatus,
        dateGmt,
        slug: `${slugify(title)}${posts.some((p) => p.slug === slugify(title)) ? `-${nextId}` : ''}`,
        categories,
        tags: type === 'page' ? [] : known(body.tags, 'post_tag'),
        // WordPress 6 ignores the result of set_post_thumbnail on create: an unknown id leaves none.
        featuredMedia: media.some((m) => m.id === fm) ? fm : 0,
      };
      posts.push(post);
      return reply.status(201).header('location', `${restRoot}wp/v2/${label}/${post.id}`).send(postView(post, 'edit'));
    }

    function upload(reply: FastifyReply, req: FastifyRequest, body: unknown, user: WpSimUser | null, q: URLSearchParams) {
      if (!can(user, 'upload_files')) return wpError(reply, authCode(user), 'rest_cannot_create', 'Sorry, you are not allowed to upload media as this user.');
      const raw = body as RawBody | undefined;
      if (!raw?.raw || raw.size === 0) return wpError(reply, 400, 'rest_upload_no_data', 'No data supplied.');
      const type = req.headers['content-type'];
      if (!type) return wpError(reply, 400, 'rest_upload_no_content_type', 'No Content-Type supplied.');
      const disposition = req.headers['content-disposition'];
      if (!disposition) return wpError(reply, 400, 'rest_upload_no_content_disposition', 'No Content-Disposition supplied.');
      const fn = /filename\*?=(?:UTF-8'')?(?:"([^"]+)"|([^;\s]+))/i.exec(disposition);
      const filename = (fn?.[1] ?? fn?.[2] ?? '').trim();
      if (!filename) {
        return wpError(reply, 400, 'rest_upload_invalid_disposition', 'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.');
      }
      const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? '';
      const real = sniff(raw.head);
      // wp_check_filetype_and_ext: an allowed extension, and bytes that are a picture (this site takes pictures only).
      if (!EXT_TYPES[ext] || !real) {
        return wpError(reply, 500, 'rest_upload_sideload_error', 'Sorry, you are not allowed to upload this file type.');
      }
      // A picture of another type than its extension says is renamed to its real type.
      const stem = filename.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9._-]/g, '-');
      let name = `${stem}.${EXT_TYPES[ext] === real ? ext : TYPE_EXT[real]}`;
      const d = new Date(now());
      const folder = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
      for (let i = 1; media.some((m) => m.sourceUrl.endsWith(`/${folder}/${name}`)); i++) name = `${stem}-${i}.${name.split('.').pop()}`;
      const m: WpSimMedia = {
        id: nextId++,
        author: user!.id,
        filename: name,
        mimeType: real,
        size: raw.size,
        sha256: raw.sha256,
        sourceUrl: `${publicUrl}/wp-content/uploads/${folder}/${name}`,
        altText: q.get('alt_text') ?? '',
        dateGmt: d.toISOString(),
      };
      media.push(m);
      return reply.status(201).header('location', `${restRoot}wp/v2/media/${m.id}`).send(mediaView(m));
    }

    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const url = new URL(req.url, 'http://sim');
      let path = url.pathname;
      if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) path = path.slice(basePath.length) || '/';
      const q = url.searchParams;
      let route: string | null = null;
      if (q.has('rest_route') && (path === '/' || path === '/index.php')) {
        route = q.get('rest_route') || '/';
        q.delete('rest_route');
      } else if (permalinks === 'pretty' && (path === '/wp-json' || path.startsWith('/wp-json/'))) {
        route = path.slice('/wp-json'.length) || '/';
      }
      if (route === null) {
        if (req.method === 'GET' && (path === '/' || path === '/index.php')) return frontPage(reply);
        return frontPage(reply, 404);
      }
      route = `/${route.replace(/^\/+/, '')}`.replace(/\/+$/, '') || '/';
      const auth = authenticate(req);
      if ('error' in auth) return wpError(reply, auth.error[0], auth.error[1], auth.error[2]);
      const user = auth.user;
      const method = req.method;
      const body = (req.body ?? {}) as Json;

      if (method === 'GET' && route === '/') {
        return reply.send({
          name: 'Acme Blog',
          description: 'News from Acme',
          url: publicUrl,
          home: publicUrl,
          gmt_offset: '0',
          timezone_string: 'UTC',
          namespaces: ['oembed/1.0', 'wp/v2', 'wp-site-health/v1', 'wp-block-editor/v1'],
          authentication: { 'application-passwords': { endpoints: { authorization: `${publicUrl}/wp-admin/authorize-application.php` } } },
          routes: {},
        });
      }
      if (method === 'GET' && route === '/wp/v2/users/me') {
        if (!user) return wpError(reply, 401, 'rest_not_logged_in', 'You are not currently logged in.');
        const edit = q.get('context') === 'edit';
        const hash = createHash('md5').update(user.email).digest('hex');
        return reply.send({
          id: user.id,
          name: user.name,
          url: '',
          description: '',
          link: `${publicUrl}/author/${user.username}/`,
          slug: user.username,
          avatar_urls: { 24: `https://secure.gravatar.com/avatar/${hash}?s=24&d=mm&r=g`, 48: `https://secure.gravatar.com/avatar/${hash}?s=48&d=mm&r=g`, 96: `https://secure.gravatar.com/avatar/${hash}?s=96&d=mm&r=g` },
          ...(edit
            ? { username: user.username, email: user.email, roles: [user.role], capabilities: Object.fromEntries(CAPS[user.role].map((c) => [c, true])), registered_date: '2024-01-01T00:00:00+00:00', locale: 'en_US', nickname: user.username }
            : {}),
          meta: [],
        });
      }
      if (method === 'GET' && route === '/wp/v2/types') {
        const type = (slug: string, name: string, restBase: string) => ({ description: '', hierarchical: slug === 'page', name, slug, rest_base: restBase, rest_namespace: 'wp/v2', taxonomies: slug === 'post' ? ['category', 'post_tag'] : [] });
        return reply.send({
          post: type('post', 'Posts', 'posts'),
          page: type('page', 'Pages', 'pages'),
          attachment: type('attachment', 'Media', 'media'),
          nav_menu_item: type('nav_menu_item', 'Navigation Menu Items', 'menu-items'),
          wp_block: type('wp_block', 'Reusable blocks', 'blocks'),
          wp_template: type('wp_template', 'Templates', 'templates'),
        });
      }
      const terms_ = /^\/wp\/v2\/(categories|tags)$/.exec(route);
      if (method === 'GET' && terms_) {
        const taxonomy = terms_[1] === 'categories' ? 'category' : 'post_tag';
        const hideEmpty = q.get('hide_empty') === 'true' || q.get('hide_empty') === '1';
        const list = terms
          .filter((t) => t.taxonomy === taxonomy)
          .filter((t) => !hideEmpty || posts.some((p) => (taxonomy === 'category' ? p.categories : p.tags).includes(t.id)))
          .sort((a, b) => (q.get('orderby') === 'id' ? a.id - b.id : a.name.localeCompare(b.name)));
        return paged(reply, q, list, termView);
      }
      const coll = /^\/wp\/v2\/(posts|pages)$/.exec(route);
      if (coll) {
        const type = coll[1] === 'pages' ? 'page' : 'post';
        if (method === 'GET') return listPosts(reply, q, user, type);
        if (method === 'POST') return createPost(reply, { ...Object.fromEntries(q), ...body }, user, type);
      }
      const one = /^\/wp\/v2\/(posts|pages)\/(\d+)$/.exec(route);
      if (one && method === 'GET') {
        const p = posts.find((x) => x.id === Number(one[2]) && x.type === (one[1] === 'pages' ? 'page' : 'post'));
        if (!p || (p.status !== 'publish' && !can(user, 'edit_posts'))) return wpError(reply, 404, 'rest_post_invalid_id', 'Invalid post ID.');
        return reply.send(postView(p, q.get('context') ?? 'view'));
      }
      if (route === '/wp/v2/media' && method === 'POST') return upload(reply, req, req.body, user, q);
      const oneMedia = /^\/wp\/v2\/media\/(\d+)$/.exec(route);
      if (oneMedia && method === 'GET') {
        const m = media.find((x) => x.id === Number(oneMedia[1]));
        if (!m) return wpError(reply, 404, 'rest_post_invalid_id', 'Invalid post ID.');
        return reply.send(mediaView(m));
      }
      return wpError(reply, 404, 'rest_no_route', 'No route was found matching the URL and request method.');
    };
    app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'], url: '/', handler });
    app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'], url: '/*', handler });
  });

  const mediaOf = (p: WpSimPost) => {
    const featured = media.find((m) => m.id === p.featuredMedia)?.sha256 ?? null;
    const inContent = [...p.content.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => media.find((x) => x.sourceUrl === m[1])?.sha256).filter((x): x is string => !!x);
    return { featured, inContent };
  };

  const POSTS = /wp\/v2\/(posts|pages)/;
  return {
    ...sim,
    publicUrl,
    users,
    posts,
    media,
    terms,
    mediaOf,
    setNow: (ms) => {
      nowOverride = ms;
    },
    injectKind(kind) {
      const shapes: Record<InjectedKind, { status: number; body: unknown; headers?: Record<string, string> }> = {
        auth_expired: { status: 401, body: { code: 'incorrect_password', message: 'The provided password is an invalid application password.', data: { status: 401 } } },
        revoked: { status: 401, body: { code: 'incorrect_password', message: 'The provided password is an invalid application password.', data: { status: 401 } } },
        // Core WordPress has no rate limit; hosts and security plugins answer 429 with Retry-After.
        rate_limited: { status: 429, body: { code: 'rest_too_many_requests', message: 'Too many requests. Please try again later.', data: { status: 429 } }, headers: { 'retry-after': '120' } },
        server_error: {
          status: 500,
          body: { code: 'internal_server_error', message: '<p>There has been a critical error on this website.</p><p><a href="https://wordpress.org/support/article/faq-troubleshooting/">Learn more about troubleshooting WordPress.</a></p>', data: { status: 500 }, additional_errors: [] },
        },
        rejected: { status: 403, body: { code: 'rest_cannot_create', message: 'Sorry, you are not allowed to create posts as this user.', data: { status: 403 } } },
        // WordPress does not report errors inside HTTP 200; the nearest is a refusal.
        error_in_200: { status: 403, body: { code: 'rest_cannot_create', message: 'Sorry, you are not allowed to create posts as this user.', data: { status: 403 } } },
      };
      const s = shapes[kind];
      sim.inject({ path: POSTS, status: s.status, body: s.body, headers: { 'content-type': 'application/json; charset=UTF-8', ...s.headers } });
    },
    lookup(id) {
      const p = posts.find((x) => String(x.id) === id);
      if (!p) return undefined;
      const { featured, inContent } = mediaOf(p);
      return { text: `${p.title}\n${p.content}`, mediaSha256: [...(featured ? [featured] : []), ...inContent] };
    },
  };
}
