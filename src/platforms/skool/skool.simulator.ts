import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A fake of Skool's private web API (api2.skool.com) and of the file storage its upload URLs point
 * to. Skool publishes no API documentation: every path, field and error word here is what the
 * reference (Postiz's working implementation) shows, and the rest is ASSUMED — the error body shape
 * `{ error }`, the 429 with Retry-After, the 5,000-character limit, slugs as post names, the checks
 * on attachments. This simulator encodes those assumptions; it does not prove Skool behaves so.
 *
 * It checks what it receives like the real service would have to: the `auth_token` and `client_id`
 * cookies of a live session on every API call, membership of the group, the poster's level for the
 * group and the label (with Skool's refusal words), a title on posts, attachments that were
 * uploaded by this user with the declared type and length, comments whose root and parent exist.
 */

/** where `write_url`s point (assumed: a signed S3 URL); tests map it with PLATFORM_ORIGINS */
export const SKOOL_UPLOAD_ORIGIN = 'https://skool-uploads.s3.amazonaws.com';
export const SKOOL_API_ORIGIN = 'https://api2.skool.com';
export const SKOOL_MAX_CONTENT = 5000;

export interface SkoolUser {
  id: string;
  /** profile slug */
  name: string;
  firstName: string;
  lastName: string;
  picture?: string;
  authToken: string;
  clientId: string;
}

export interface SkoolLabelRecord {
  id: string;
  displayName: string;
  /** only admins may post with this label */
  adminOnly?: boolean;
}

export interface SkoolGroupRecord {
  id: string;
  /** URL slug */
  name: string;
  displayName: string;
  labels: SkoolLabelRecord[];
  /** userId → level in the group; admins may always post */
  members: Map<string, { level: number; admin?: boolean }>;
  /** lowest level allowed to post (1 = everyone) */
  postLevel: number;
}

export interface SkoolFileRecord {
  id: string;
  key: string;
  ownerId: string;
  fileName: string;
  contentType: string;
  contentLength: number;
  acl: string;
  /** set once the bytes arrived */
  sha256?: string;
  size?: number;
}

export interface SkoolPostRecord {
  id: string;
  name: string;
  type: 'generic' | 'comment';
  groupId: string;
  authorId: string;
  title: string;
  content: string;
  labels?: string;
  rootId?: string;
  parentId?: string;
  attachments: { id: string; sha256: string; size: number; contentType: string }[];
  follow: boolean;
}

export interface SkoolSimulator extends Simulator {
  users: SkoolUser[];
  groups: Map<string, SkoolGroupRecord>;
  files: Map<string, SkoolFileRecord>;
  posts: SkoolPostRecord[];
  addUser(u: SkoolUser): void;
  addGroup(g: Omit<SkoolGroupRecord, 'members'> & { members: Record<string, { level: number; admin?: boolean }> }): void;
  /** the user logs out of Skool: their cookies stop working */
  logout(userId: string): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const hex = (n: number) => randomBytes(n).toString('hex');
const fail = (reply: FastifyReply, status: number, error: string, headers: Record<string, string> = {}) => reply.status(status).headers(headers).send({ error });

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

const slugify = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'post';

export async function startSkoolSimulator(): Promise<SkoolSimulator> {
  const users: SkoolUser[] = [];
  const loggedOut = new Set<string>();
  const groups = new Map<string, SkoolGroupRecord>();
  const files = new Map<string, SkoolFileRecord>();
  const posts: SkoolPostRecord[] = [];

  /** The user of a live session, or a 401 answered. */
  function session(req: FastifyRequest, reply: FastifyReply): SkoolUser | undefined {
    const c = parseCookies(req.headers.cookie);
    const user = users.find((u) => u.authToken === c.auth_token && u.clientId === c.client_id && !loggedOut.has(u.id));
    if (!user) {
      void fail(reply, 401, 'unauthorized');
      return undefined;
    }
    return user;
  }

  const labelsOf = (g: SkoolGroupRecord) => g.labels.map((l) => l.id).join(',');

  const sim = await startSimulator((app) => {
    // The storage answers the PUT with any content type; the bytes are hashed.
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    app.get('/self', (req, reply) => {
      const u = session(req, reply);
      if (!u) return;
      return { id: u.id, name: u.name, first_name: u.firstName, last_name: u.lastName, metadata: { picture_profile: u.picture ?? '' } };
    });

    app.get('/users/:id/groups', (req, reply) => {
      const u = session(req, reply);
      if (!u) return;
      const { id } = req.params as { id: string };
      if (id !== u.id) return fail(reply, 403, 'forbidden');
      const q = req.query as { offset?: string; limit?: string };
      const offset = Number(q.offset ?? 0);
      const limit = Math.min(Number(q.limit ?? 30), 100);
      const mine = [...groups.values()].filter((g) => g.members.has(u.id));
      return { groups: mine.slice(offset, offset + limit).map((g) => ({ id: g.id, name: g.name, metadata: { display_name: g.displayName, labels: labelsOf(g) } })) };
    });

    app.get('/groups/:id', (req, reply) => {
      const u = session(req, reply);
      if (!u) return;
      const g = groups.get((req.params as { id: string }).id);
      if (!g) return fail(reply, 404, 'group not found');
      if (!g.members.has(u.id)) return fail(reply, 403, 'not a member of this group');
      return { id: g.id, name: g.name, metadata: { display_name: g.displayName, labels: labelsOf(g) } };
    });

    app.get('/labels/:id', (req, reply) => {
      const u = session(req, reply);
      if (!u) return;
      const id = (req.params as { id: string }).id;
      for (const g of groups.values()) {
        const l = g.labels.find((x) => x.id === id);
        if (l && g.members.has(u.id)) return { id: l.id, group_id: g.id, metadata: { display_name: l.displayName } };
      }
      return fail(reply, 404, 'label not found');
    });

    app.post('/files', (req, reply) => {
      const u = session(req, reply);
      if (!u) return;
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (typeof b.file_name !== 'string' || !b.file_name) return fail(reply, 400, 'file_name is required');
      if (typeof b.content_type !== 'string' || !b.content_type) return fail(reply, 400, 'content_type is required');
      if (typeof b.content_length !== 'number' || !(b.content_length > 0)) return fail(reply, 400, 'content_length must be a positive number');
      if (b.owner_id !== u.id) return fail(reply, 403, 'owner_id is not the logged-in user');
      const id = hex(16);
      const key = `f/${id}/${encodeURIComponent(b.file_name)}`;
      const rec: SkoolFileRecord = { id, key, ownerId: u.id, fileName: b.file_name, contentType: b.content_type, contentLength: b.content_length, acl: 'public-read' };
      files.set(id, rec);
      return {
        file: { id, file_name: rec.fileName, content_type: rec.contentType, content_length: rec.contentLength },
        write_url: `${SKOOL_UPLOAD_ORIGIN}/${key}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${hex(32)}`,
        content_type: rec.contentType,
        acl: rec.acl,
      };
    });

    // The storage behind write_url (another origin in reality): signed, so no cookies; it checks the
    // signed headers (type, length, acl) as S3 does.
    app.put('/f/:id/:name', (req, reply) => {
      const rec = files.get((req.params as { id: string }).id);
      const q = req.query as Record<string, string | undefined>;
      if (!rec || !q['X-Amz-Signature']) return reply.status(403).type('application/xml').send('<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
      const body = req.body as Buffer | undefined;
      if (!Buffer.isBuffer(body)) return reply.status(400).type('application/xml').send('<Error><Code>MissingContent</Code></Error>');
      if (req.headers['content-type'] !== rec.contentType || req.headers['x-amz-acl'] !== rec.acl) {
        return reply.status(403).type('application/xml').send('<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>');
      }
      if (Number(req.headers['content-length']) !== rec.contentLength || body.length !== rec.contentLength) {
        return reply.status(400).type('application/xml').send('<Error><Code>IncompleteBody</Code><Message>You did not provide the number of bytes specified by the Content-Length HTTP header</Message></Error>');
      }
      rec.sha256 = createHash('sha256').update(body).digest('hex');
      rec.size = body.length;
      return reply.status(200).header('etag', `"${rec.sha256.slice(0, 32)}"`).send('');
    });

    app.post('/posts', (req, reply) => {
      const u = session(req, reply);
      if (!u) return;
      const b = (req.body ?? {}) as { post_type?: string; group_id?: string; root_id?: string; parent_id?: string; metadata?: Record<string, unknown> };
      const m = b.metadata;
      if (b.post_type !== 'generic' && b.post_type !== 'comment') return fail(reply, 400, 'invalid post_type');
      if (!m || typeof m.content !== 'string') return fail(reply, 400, 'metadata.content is required');
      const g = groups.get(b.group_id ?? '');
      if (!g) return fail(reply, 404, 'group not found');
      const member = g.members.get(u.id);
      if (!member) return fail(reply, 403, 'not a member of this group');
      if (m.content.length > SKOOL_MAX_CONTENT) return fail(reply, 400, `content is too long (max ${SKOOL_MAX_CONTENT} characters)`);
      const attachmentIds = typeof m.attachments === 'string' && m.attachments ? m.attachments.split(',') : [];
      const attachments = [];
      for (const id of attachmentIds) {
        const f = files.get(id);
        if (!f || f.ownerId !== u.id || !f.sha256) return fail(reply, 400, `attachment ${id} not found or not uploaded`);
        attachments.push({ id, sha256: f.sha256, size: f.size!, contentType: f.contentType });
      }
      const id = hex(16);
      if (b.post_type === 'generic') {
        if (typeof m.title !== 'string' || !m.title.trim()) return fail(reply, 400, 'title is required');
        if (!member.admin && member.level < g.postLevel) return fail(reply, 403, `must be admin or level ${g.postLevel} to post in this group`);
        const labels = typeof m.labels === 'string' && m.labels ? m.labels : undefined;
        if (labels) {
          const l = g.labels.find((x) => x.id === labels);
          if (!l) return fail(reply, 400, 'label not found in this group');
          if (l.adminOnly && !member.admin) return fail(reply, 403, 'cannot post to this label');
        } else if (g.labels.length > 0) {
          return fail(reply, 400, 'a label is required in this group');
        }
        let name = slugify(m.title);
        if (posts.some((p) => p.groupId === g.id && p.name === name)) name = `${name}-${id.slice(0, 4)}`;
        posts.push({ id, name, type: 'generic', groupId: g.id, authorId: u.id, title: m.title, content: m.content, labels, attachments, follow: (req.query as { follow?: string }).follow === 'true' });
        return { id, name, post_type: 'generic', group_id: g.id, metadata: { title: m.title, content: m.content } };
      }
      const root = posts.find((p) => p.id === b.root_id && p.type === 'generic' && p.groupId === g.id);
      if (!root) return fail(reply, 404, 'root post not found');
      const parent = posts.find((p) => p.id === b.parent_id && (p.id === root.id || p.rootId === root.id));
      if (!parent) return fail(reply, 404, 'parent post not found');
      if (!m.content.trim() && attachments.length === 0) return fail(reply, 400, 'comment is empty');
      posts.push({ id, name: id, type: 'comment', groupId: g.id, authorId: u.id, title: '', content: m.content, rootId: root.id, parentId: parent.id, attachments, follow: true });
      return { id, name: id, post_type: 'comment', root_id: root.id, parent_id: parent.id };
    });
  });

  return Object.assign(sim, {
    users,
    groups,
    files,
    posts,
    addUser: (u: SkoolUser) => void users.push(u),
    addGroup: (g: Omit<SkoolGroupRecord, 'members'> & { members: Record<string, { level: number; admin?: boolean }> }) => void groups.set(g.id, { ...g, members: new Map(Object.entries(g.members)) }),
    logout: (userId: string) => void loggedOut.add(userId),
    lookup(id: string) {
      const p = posts.find((x) => x.id === id);
      return p && { text: p.content, replyTo: p.parentId, mediaSha256: p.attachments.map((a) => a.sha256) };
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/posts(\?|$)/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 401, body: { error: 'unauthorized' } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, headers: { 'retry-after': '30' }, body: { error: 'too many requests' } });
        case 'server_error':
          return sim.inject({ path, status: 502, body: { error: 'bad gateway' } });
        case 'rejected':
          return sim.inject({ path, status: 403, body: { error: 'must be admin or level 2 to post in this group' } });
        case 'error_in_200':
          // Not known to happen on Skool.
          return;
      }
    },
  });
}
