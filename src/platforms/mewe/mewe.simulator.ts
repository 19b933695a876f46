import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readMultipart, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A fake of MeWe's developer API at https://mewe.com. MeWe publishes no documentation of it: the
 * paths, fields and error words are what the reference (Postiz's working implementation) shows,
 * and the rest is ASSUMED — the `{ message }` error bodies and their statuses, the single-use login
 * request token, the ISO `expiresAt`, the post's `postItemId`, the image types, `Retry-After` on 420.
 * This simulator encodes those assumptions; its tests do not show that MeWe behaves so.
 *
 * It checks what it receives: the app's X-App-Id / X-Api-Key pair on every API call (and the
 * client_id on the login page), the user's Bearer apiToken (live, not expired), a login request
 * token used once by the app it was issued to (pending until the user approves), a multipart
 * `file` that is an image, a post text or photos, photo ids uploaded by this user and not used
 * before, membership of the group ("Forbidden" otherwise), the text length.
 */

export const MEWE_ORIGIN = 'https://mewe.com';
export const MEWE_MAX_TEXT = 63_206;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

export interface MeweApp {
  appId: string;
  apiKey: string;
}

export interface MeweUser {
  userId: string;
  firstName: string;
  lastName: string;
  handle: string;
  /** groups the user belongs to */
  groups: string[];
}

export interface MewePhoto {
  id: string;
  ownerId: string;
  sha256: string;
  size: number;
  mimeType: string;
  used: boolean;
}

export interface MewePost {
  postItemId: string;
  userId: string;
  /** null: the user's timeline */
  groupId: string | null;
  text: string;
  photos: MewePhoto[];
}

export interface MeweSimulatorOptions {
  /** the login page leaves requests pending until `approve(token)` is called */
  holdApproval?: boolean;
  /** answer posts with 204 and no body (as the reference says MeWe may) */
  postsWithoutId?: boolean;
  /** who logs in on the login page */
  loginAs?: string;
}

export interface MeweSimulator extends Simulator {
  apps: MeweApp[];
  users: MeweUser[];
  groups: Map<string, { groupId: string; name: string }>;
  photos: Map<string, MewePhoto>;
  posts: MewePost[];
  addApp(a: MeweApp): void;
  addUser(u: MeweUser): void;
  addGroup(g: { groupId: string; name: string }): void;
  /** the login request tokens handed out, newest last */
  loginRequests: { token: string; appId: string; userId: string; approved: boolean; used: boolean }[];
  approve(token: string): void;
  /** who logs in on the login page from now on (the `loginAs` option, changed) */
  loginAs(userId: string): void;
  /** every apiToken expires now */
  expireAccessTokens(): void;
  /** the user removes the app's access */
  revoke(userId: string): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const hex = (n: number) => randomBytes(n).toString('hex');
const fail = (reply: FastifyReply, status: number, message: string, headers: Record<string, string> = {}) => reply.status(status).headers(headers).send({ message });

export async function startMeweSimulator(opts: MeweSimulatorOptions = {}): Promise<MeweSimulator> {
  const apps: MeweApp[] = [];
  const users: MeweUser[] = [];
  const groups = new Map<string, { groupId: string; name: string }>();
  const photos = new Map<string, MewePhoto>();
  const posts: MewePost[] = [];
  const loginRequests: MeweSimulator['loginRequests'] = [];
  const tokens = new Map<string, { userId: string; appId: string; expiresAt: number }>();
  let loginAs = opts.loginAs;

  const appOf = (req: FastifyRequest) => apps.find((a) => a.appId === req.headers['x-app-id'] && a.apiKey === req.headers['x-api-key']);

  /** The user of a valid app + apiToken, or a 401 answered. */
  function user(req: FastifyRequest, reply: FastifyReply): MeweUser | undefined {
    const app = appOf(req);
    const auth = req.headers.authorization ?? '';
    const t = auth.startsWith('Bearer ') ? tokens.get(auth.slice(7)) : undefined;
    if (!app || !t || t.appId !== app.appId || t.expiresAt <= Date.now()) {
      void fail(reply, 401, 'Unauthorized');
      return undefined;
    }
    return users.find((u) => u.userId === t.userId);
  }

  const sim = await startSimulator((app) => {
    app.get('/login', (req, reply) => {
      const q = req.query as { client_id?: string; redirect_uri?: string; state?: string };
      if (!apps.some((a) => a.appId === q.client_id)) return reply.status(400).type('text/html').send('<p>Unknown application</p>');
      if (!q.redirect_uri || !/^https?:\/\//.test(q.redirect_uri)) return reply.status(400).type('text/html').send('<p>Invalid redirect_uri</p>');
      const u = users.find((x) => x.userId === loginAs) ?? users[0]!;
      const token = hex(20);
      loginRequests.push({ token, appId: q.client_id!, userId: u.userId, approved: !opts.holdApproval, used: false });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('loginRequestToken', token);
      if (q.state) back.searchParams.set('state', q.state);
      return reply.redirect(back.toString(), 302);
    });

    app.get('/api/dev/token', (req, reply) => {
      const a = appOf(req);
      if (!a) return fail(reply, 401, 'Unauthorized');
      const q = req.query as { loginRequestToken?: string };
      const r = loginRequests.find((x) => x.token === q.loginRequestToken && x.appId === a.appId);
      if (!r || r.used) return fail(reply, 400, 'Invalid login request token');
      if (!r.approved) return { pending: true };
      r.used = true;
      const apiToken = hex(24);
      const expiresAt = Date.now() + 30 * 86_400_000;
      tokens.set(apiToken, { userId: r.userId, appId: a.appId, expiresAt });
      return { apiToken, expiresAt: new Date(expiresAt).toISOString(), pending: false };
    });

    app.get('/api/dev/me', (req, reply) => {
      const u = user(req, reply);
      if (!u) return;
      return { userId: u.userId, firstName: u.firstName, lastName: u.lastName, handle: u.handle };
    });

    app.get('/api/dev/groups', (req, reply) => {
      const u = user(req, reply);
      if (!u) return;
      const page = Number((req.query as { page?: string }).page ?? 1);
      const mine = u.groups.map((id) => groups.get(id)!).filter(Boolean);
      const size = 2;
      const slice = mine.slice((page - 1) * size, page * size);
      return { groups: slice, nextPage: page * size < mine.length ? `/api/dev/groups?page=${page + 1}` : null };
    });

    app.post('/api/dev/photo/upload', async (req, reply) => {
      const u = user(req, reply);
      if (!u) {
        if (req.isMultipart()) for await (const _ of req.parts()) void _;
        return;
      }
      if (!req.isMultipart()) return fail(reply, 400, 'Expected multipart/form-data');
      const { files } = await readMultipart(req);
      const f = files.find((x) => x.field === 'file');
      if (!f || files.length !== 1) return fail(reply, 400, 'Expected one file in the field "file"');
      if (!IMAGE_TYPES.includes(f.mimeType)) return fail(reply, 415, 'Unsupported media type');
      const id = hex(12);
      photos.set(id, { id, ownerId: u.userId, sha256: f.sha256, size: f.size, mimeType: f.mimeType, used: false });
      return { id };
    });

    const createPost = (groupId: string | null) => (req: FastifyRequest, reply: FastifyReply) => {
      const u = user(req, reply);
      if (!u) return;
      if (groupId !== null && (!groups.has(groupId) || !u.groups.includes(groupId))) return fail(reply, 403, 'Forbidden');
      const b = (req.body ?? {}) as { text?: unknown; uploadedPhotoIds?: unknown };
      const ids = b.uploadedPhotoIds === undefined ? [] : b.uploadedPhotoIds;
      if (typeof b.text !== 'string' || !Array.isArray(ids)) return fail(reply, 400, 'Bad request');
      if (!b.text.trim() && ids.length === 0) return fail(reply, 400, 'Post is empty');
      if (b.text.length > MEWE_MAX_TEXT) return fail(reply, 400, 'Text is too long');
      const used: MewePhoto[] = [];
      for (const id of ids) {
        const p = photos.get(String(id));
        if (!p || p.ownerId !== u.userId || p.used) return fail(reply, 400, `Unknown photo ${String(id)}`);
        used.push(p);
      }
      for (const p of used) p.used = true;
      const postItemId = hex(12);
      posts.push({ postItemId, userId: u.userId, groupId, text: b.text, photos: used });
      if (opts.postsWithoutId) return reply.status(204).send();
      return { postItemId };
    };
    app.post('/api/dev/me/post', (req, reply) => createPost(null)(req, reply));
    app.post('/api/dev/group/:groupId/post', (req, reply) => createPost((req.params as { groupId: string }).groupId)(req, reply));
  });

  return Object.assign(sim, {
    apps,
    users,
    groups,
    photos,
    posts,
    loginRequests,
    addApp: (a: MeweApp) => void apps.push(a),
    addUser: (u: MeweUser) => void users.push(u),
    addGroup: (g: { groupId: string; name: string }) => void groups.set(g.groupId, g),
    loginAs(userId: string) {
      loginAs = userId;
    },
    approve(token: string) {
      const r = loginRequests.find((x) => x.token === token);
      if (r) r.approved = true;
    },
    expireAccessTokens() {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1;
    },
    revoke(userId: string) {
      for (const [k, t] of tokens) if (t.userId === userId) tokens.delete(k);
    },
    lookup(id: string) {
      const p = posts.find((x) => x.postItemId === id);
      return p && { text: p.text, mediaSha256: p.photos.map((x) => x.sha256) };
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/api\/dev\/(me|group\/[^/]+)\/post$/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 401, body: { message: 'Unauthorized' } });
        case 'rate_limited':
          return sim.inject({ path, status: 420, headers: { 'retry-after': '30' }, body: { message: 'Enhance Your Calm' } });
        case 'server_error':
          return sim.inject({ path, status: 503, body: { message: 'Service Unavailable' } });
        case 'rejected':
          return sim.inject({ path, status: 403, body: { message: 'Forbidden' } });
        case 'error_in_200':
          // Not known to happen on MeWe.
          return;
      }
    },
  });
}
