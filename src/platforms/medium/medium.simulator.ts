import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type ReceivedMedia, type Simulator } from '../simulator.js';

/**
 * A simulator of Medium's (archived, still running) API v1 at `https://api.medium.com/v1`:
 * integration tokens, `GET /v1/me`, `GET /v1/users/{userId}/publications`, and stories created
 * with `POST /v1/users/{authorId}/posts` or `POST /v1/publications/{publicationId}/posts`.
 *
 * Faithful parts: `Authorization: Bearer <token>` on every call (401 code 6000 without one, 401
 * code 6003 "Token was invalid." for an unknown or revoked one); errors as
 * `{ errors: [{ message, code }] }`; a JSON body with `title`, `contentFormat` (html|markdown) and
 * `content` required, `tags` (at most 5 accepted; only the first 3 of at most 25 characters kept,
 * as Medium says), `publishStatus` public|draft|unlisted, `canonicalUrl` a URL, `license`,
 * `notifyFollowers`; 403 when the author id is not the token's user, when the user is not a writer
 * or editor of the publication, or when a writer asks for anything but a draft. Medium side-loads
 * every `<img src>` (HTML) or `![](url)` (Markdown) picture when the story is created: the
 * simulator FETCHES each URL (through `mediaOrigins`) and keeps the sha256 of the bytes; a picture
 * it cannot fetch refuses the story. Field and permission error codes (6026, 6027) are the
 * simulator's choice: Medium does not document them.
 */

export const MEDIUM_API_ORIGIN = 'https://api.medium.com';

export interface MediumUserRecord {
  id: string;
  username: string;
  name: string;
  imageUrl?: string;
}

export interface MediumPublicationRecord {
  id: string;
  name: string;
  slug: string;
  /** userId → role */
  contributors: Record<string, 'editor' | 'writer'>;
}

export interface MediumImageRecord extends ReceivedMedia {
  url: string;
}

export interface MediumPostRecord {
  id: string;
  authorId: string;
  publicationId?: string;
  title: string;
  contentFormat: 'html' | 'markdown';
  content: string;
  /** the tags Medium keeps (first 3, ≤ 25 characters) */
  tags: string[];
  canonicalUrl?: string;
  publishStatus: 'public' | 'draft' | 'unlisted';
  notifyFollowers?: boolean;
  license: string;
  images: MediumImageRecord[];
  url: string;
}

export interface MediumSimulatorOptions {
  /** public origin → local origin, for the pictures Medium fetches (may be changed while running) */
  mediaOrigins?: Record<string, string>;
}

export interface MediumSimulator extends Simulator {
  addUser(user: MediumUserRecord, token: string): void;
  addPublication(p: MediumPublicationRecord): void;
  revokeToken(token: string): void;
  posts: MediumPostRecord[];
  lookup(id: string): { text: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const LICENSES = ['all-rights-reserved', 'cc-40-by', 'cc-40-by-sa', 'cc-40-by-nd', 'cc-40-by-nc', 'cc-40-by-nc-nd', 'cc-40-by-nc-sa', 'cc-40-zero', 'public-domain'];
const IMAGE_SIGNATURES: [string, Buffer][] = [
  ['image/png', Buffer.from('89504e470d0a1a0a', 'hex')],
  ['image/jpeg', Buffer.from('ffd8ff', 'hex')],
  ['image/gif', Buffer.from('GIF8', 'latin1')],
];

const errors = (reply: FastifyReply, status: number, code: number, message: string) => reply.status(status).send({ errors: [{ message, code }] });
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The picture URLs of a story, as Medium's importer finds them. */
export function pictureUrls(content: string, format: 'html' | 'markdown'): string[] {
  if (format === 'html') {
    return [...content.matchAll(/<img\b[^>]*\bsrc\s*=\s*"([^"]*)"/gi)].map((m) => m[1]!.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
  }
  return [...content.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

export async function startMediumSimulator(opts: MediumSimulatorOptions = {}): Promise<MediumSimulator> {
  const mode = currentSimulatorMode();
  const users = new Map<string, MediumUserRecord>();
  const tokens = new Map<string, { userId: string; revoked: boolean }>();
  const publications = new Map<string, MediumPublicationRecord>();
  const posts: MediumPostRecord[] = [];

  function authed(req: FastifyRequest, reply: FastifyReply): MediumUserRecord | undefined {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) {
      void errors(reply, 401, 6000, 'An access token is required.');
      return undefined;
    }
    const t = tokens.get(m[1]!);
    if (!t || t.revoked) {
      void errors(reply, 401, 6003, 'Token was invalid.');
      return undefined;
    }
    return users.get(t.userId);
  }

  async function fetchPicture(url: string): Promise<MediumImageRecord | string> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return `Image URL is invalid: ${url}`;
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return `Image URL is invalid: ${url}`;
    let res: Response;
    try {
      res = await mediaFetch(mode, opts.mediaOrigins, url, { signal: AbortSignal.timeout(10_000) });
    } catch {
      return `Could not fetch image: ${url}`;
    }
    if (!res.ok) return `Could not fetch image: ${url} (HTTP ${res.status})`;
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = IMAGE_SIGNATURES.find(([, sig]) => bytes.subarray(0, sig.length).equals(sig))?.[0];
    if (!type) return `The URL does not point to a supported image: ${url}`;
    return { url, sha256: sha256(bytes), size: bytes.length, mimeType: type };
  }

  const slugOf = (title: string) =>
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'untitled';

  async function createPost(req: FastifyRequest, reply: FastifyReply, user: MediumUserRecord, publication?: MediumPublicationRecord) {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return errors(reply, 400, 6026, 'Content-Type must be application/json.');
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b.title !== 'string' || b.title.trim() === '') return errors(reply, 400, 6026, 'Title is required.');
    if (b.contentFormat !== 'html' && b.contentFormat !== 'markdown') return errors(reply, 400, 6026, 'contentFormat must be "html" or "markdown".');
    if (typeof b.content !== 'string' || b.content.trim() === '') return errors(reply, 400, 6026, 'Content is required.');
    if (b.tags !== undefined && (!Array.isArray(b.tags) || b.tags.some((t) => typeof t !== 'string'))) return errors(reply, 400, 6026, 'Tags must be a list of strings.');
    const tags = (b.tags ?? []) as string[];
    if (tags.length > 5) return errors(reply, 400, 6026, 'A post can have at most 5 tags.');
    const publishStatus = b.publishStatus ?? 'public';
    if (publishStatus !== 'public' && publishStatus !== 'draft' && publishStatus !== 'unlisted') return errors(reply, 400, 6026, 'publishStatus must be "public", "draft" or "unlisted".');
    if (b.canonicalUrl !== undefined && (typeof b.canonicalUrl !== 'string' || !/^https?:\/\/\S+$/.test(b.canonicalUrl))) return errors(reply, 400, 6026, 'canonicalUrl must be a URL.');
    if (b.license !== undefined && (typeof b.license !== 'string' || !LICENSES.includes(b.license))) return errors(reply, 400, 6026, 'license is invalid.');
    if (b.notifyFollowers !== undefined && typeof b.notifyFollowers !== 'boolean') return errors(reply, 400, 6026, 'notifyFollowers must be a boolean.');
    if (publication) {
      const role = publication.contributors[user.id];
      if (!role) return errors(reply, 403, 6027, 'You are not allowed to publish in this publication.');
      if (role === 'writer' && publishStatus !== 'draft') return errors(reply, 403, 6027, 'Writers can only submit drafts to this publication.');
    }
    const images: MediumImageRecord[] = [];
    for (const url of pictureUrls(b.content, b.contentFormat)) {
      const got = await fetchPicture(url);
      if (typeof got === 'string') return errors(reply, 400, 6026, got);
      images.push(got);
    }
    const id = randomBytes(6).toString('hex');
    const slug = `${slugOf(b.title)}-${id}`;
    const url = publication ? `https://medium.com/${publication.slug}/${slug}` : `https://medium.com/@${user.username}/${slug}`;
    const record: MediumPostRecord = {
      id,
      authorId: user.id,
      ...(publication ? { publicationId: publication.id } : {}),
      title: b.title,
      contentFormat: b.contentFormat,
      content: b.content,
      tags: tags.filter((t) => t.length <= 25).slice(0, 3),
      ...(typeof b.canonicalUrl === 'string' ? { canonicalUrl: b.canonicalUrl } : {}),
      publishStatus,
      ...(typeof b.notifyFollowers === 'boolean' ? { notifyFollowers: b.notifyFollowers } : {}),
      license: typeof b.license === 'string' ? b.license : 'all-rights-reserved',
      images,
      url,
    };
    posts.push(record);
    return reply.status(201).send({
      data: {
        id,
        title: record.title,
        authorId: user.id,
        tags: record.tags,
        url,
        ...(record.canonicalUrl ? { canonicalUrl: record.canonicalUrl } : {}),
        publishStatus,
        ...(publishStatus === 'draft' ? {} : { publishedAt: Date.now() }),
        license: record.license,
        licenseUrl: 'https://policy.medium.com/medium-terms-of-service-9db0094a1e0f',
        ...(publication ? { publicationId: publication.id } : {}),
      },
    });
  }

  const sim = await startSimulator((app) => {
    app.get('/v1/me', async (req, reply) => {
      const user = authed(req, reply);
      if (!user) return reply;
      return { data: { id: user.id, username: user.username, name: user.name, url: `https://medium.com/@${user.username}`, imageUrl: user.imageUrl ?? '' } };
    });

    app.get('/v1/users/:userId/publications', async (req: FastifyRequest<{ Params: { userId: string } }>, reply) => {
      const user = authed(req, reply);
      if (!user) return reply;
      if (req.params.userId !== user.id) return errors(reply, 403, 6026, 'You may only list your own publications.');
      const mine = [...publications.values()].filter((p) => p.contributors[user.id]);
      return { data: mine.map((p) => ({ id: p.id, name: p.name, description: '', url: `https://medium.com/${p.slug}`, imageUrl: '' })) };
    });

    app.post('/v1/users/:authorId/posts', async (req: FastifyRequest<{ Params: { authorId: string } }>, reply) => {
      const user = authed(req, reply);
      if (!user) return reply;
      if (req.params.authorId !== user.id) return errors(reply, 403, 6026, 'You are not allowed to publish as this user.');
      return createPost(req, reply, user);
    });

    app.post('/v1/publications/:publicationId/posts', async (req: FastifyRequest<{ Params: { publicationId: string } }>, reply) => {
      const user = authed(req, reply);
      if (!user) return reply;
      const publication = publications.get(req.params.publicationId);
      if (!publication) return errors(reply, 403, 6027, 'You are not allowed to publish in this publication.');
      return createPost(req, reply, user, publication);
    });
  });

  return Object.assign(sim, {
    posts,
    addUser(user: MediumUserRecord, token: string) {
      users.set(user.id, user);
      tokens.set(token, { userId: user.id, revoked: false });
    },
    addPublication: (p: MediumPublicationRecord) => void publications.set(p.id, p),
    revokeToken(token: string) {
      const t = tokens.get(token);
      if (t) t.revoked = true;
    },
    lookup(id: string) {
      const p = posts.find((x) => x.id === id);
      return p ? { text: p.content, mediaSha256: p.images.map((i) => i.sha256) } : undefined;
    },
    injectKind(kind: InjectedKind) {
      const path = /\/posts$/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 401, body: { errors: [{ message: 'Token was invalid.', code: 6003 }] } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, headers: { 'retry-after': '30' }, body: { errors: [{ message: 'Too many requests.', code: 6029 }] } });
        case 'server_error':
          return sim.inject({ path, status: 500, body: { errors: [{ message: 'Something went wrong.', code: -1 }] } });
        case 'rejected':
          return sim.inject({ path, status: 400, body: { errors: [{ message: 'Title is required.', code: 6026 }] } });
        case 'error_in_200':
          return sim.inject({ path, status: 200, body: { errors: [{ message: 'Content is required.', code: 6026 }] } });
      }
    },
  });
}
