import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from '../common/oauth2.simulator.js';

/**
 * A simulator of VK: one server stands for four hosts (map them all to it):
 * `https://id.vk.com` (VK ID: the authorisation page `/authorize`, the token endpoint
 * `/oauth2/auth`, `/oauth2/user_info`), `https://api.vk.com` (`/method/<name>`), and the upload
 * hosts VK hands out, `https://pu.vkuserphoto.ru` (photos) and `https://vu.vkuserphoto.ru` (videos).
 *
 * Faithful parts: VK ID wants PKCE S256, a registered redirect URI, a single-use ten-minute code,
 * a `state` of at least 32 characters at the token endpoint (echoed back); the redirect carries
 * `code`, `state`, `device_id`, `type=code_v2`; refresh tokens are single use and bound to the
 * device id. Every API method needs `v` (error 8) and a valid token (error 5, "…access_token has
 * expired." once the hour is over), the scope its section needs (error 15), and answers HTTP 200
 * with `{ response }` or `{ error: { error_code, error_msg, request_params } }`; a per-token rate
 * of requests per second answers error 6. Photos: `photos.getWallUploadServer` → multipart `photo`
 * to the upload host → `{ server, photo, hash }` which `photos.saveWallPhoto` verifies (error 121
 * "Invalid hash"; single use) → `photo{owner}_{id}`. Video: `video.save` → multipart `video_file`
 * → `video{owner}_{id}`. `wall.post` checks the wall is the user's or one of their communities
 * (error 214), the attachments exist, belong there and were uploaded, and that there is a message
 * or an attachment (error 100). Records keep the sha256 of every byte received.
 */

export const VK_ID_ORIGIN = 'https://id.vk.com';
export const VK_API_ORIGIN = 'https://api.vk.com';
export const VK_PHOTO_UPLOAD_ORIGIN = 'https://pu.vkuserphoto.ru';
export const VK_VIDEO_UPLOAD_ORIGIN = 'https://vu.vkuserphoto.ru';

const ACCESS_SECONDS = 3600;
const CODE_MS = 10 * 60_000;
const SCOPE_OF: Record<string, string> = { wall: 'wall', photos: 'photos', video: 'video', groups: 'groups' };

export interface VkAppRecord {
  clientId: string;
  /** the app's protected key (VK ID's code exchange does not need it; checked when sent) */
  clientSecret?: string;
  redirectUris?: string[];
}

export interface VkUserRecord {
  id: string;
  first_name: string;
  last_name: string;
  avatar?: string;
}

export interface VkGroupRecord {
  id: string;
  name: string;
  screen_name: string;
  /** user id → role */
  managers: Record<string, 'admin' | 'editor' | 'moderator'>;
}

interface TokenRecord {
  token: string;
  userId: string;
  clientId: string;
  scopes: string[];
  deviceId: string;
  expiresAt: number;
  revoked: boolean;
}

interface RefreshRecord {
  token: string;
  userId: string;
  clientId: string;
  scopes: string[];
  deviceId: string;
  used: boolean;
  revoked: boolean;
}

interface PhotoUpload {
  key: string;
  userId: string;
  groupId: string | null;
  server: string;
  /** set once the file arrived */
  result?: { photo: string; hash: string; sha256: string; size: number };
  saved: boolean;
}

export interface VkPhotoRecord {
  id: number;
  ownerId: string;
  sha256: string;
  size: number;
}

export interface VkVideoRecord {
  id: number;
  ownerId: string;
  userId: string;
  name: string;
  key: string;
  sha256?: string;
  size?: number;
}

export interface VkPostRecord {
  ownerId: string;
  id: number;
  fromId: string;
  text: string;
  attachments: string[];
  date: number;
  views: number;
  likes: number;
  reposts: number;
}

export interface VkCommentRecord {
  ownerId: string;
  postId: number;
  id: number;
  fromId: string;
  text: string;
  attachments: string[];
  replyToComment: number | null;
  /** the top-level comment this one is under (VK's thread) */
  threadOf: number | null;
  date: number;
}

export interface VkSimulatorOptions {
  /** requests per second per token before error 6 (VK: 3; the default leaves room for test bursts) */
  rateLimitPerSecond?: number;
  /** VK ID refuses token requests without `device_id` (the real service does; see docs/platforms.md) */
  requireDeviceId?: boolean;
  /** the simulator's clock (ms), for rate windows and dates */
  now?: () => number;
}

export interface VkSimulator extends Simulator, OAuth2Controls<string, VkAppRecord> {
  users: Map<string, VkUserRecord>;
  groups: Map<string, VkGroupRecord>;
  photos: Map<string, VkPhotoRecord>;
  videos: Map<string, VkVideoRecord>;
  posts: VkPostRecord[];
  comments: VkCommentRecord[];
  addUser(user: VkUserRecord): void;
  addGroup(group: VkGroupRecord): void;
  /** the device ids handed out on redirects, in order */
  deviceIds: string[];
  setPostStats(id: string, stats: { views?: number; likes?: number; reposts?: number }): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

function isPicture(b: Buffer): boolean {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return true;
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return true;
  const gif = b.subarray(0, 6).toString('latin1');
  return gif === 'GIF87a' || gif === 'GIF89a';
}
const isVideo = (b: Buffer) => b.subarray(4, 8).toString('latin1') === 'ftyp' || b.subarray(0, 4).equals(Buffer.from('1a45dfa3', 'hex'));

type Params = Record<string, string | undefined>;

class VkFailure extends Error {
  constructor(
    readonly code: number,
    readonly msg: string,
  ) {
    super(msg);
  }
}
const fail = (code: number, msg: string): never => {
  throw new VkFailure(code, msg);
};
const invalid = (what: string): never => fail(100, `One of the parameters specified was missing or invalid: ${what}`);

export async function startVkSimulator(opts: VkSimulatorOptions = {}): Promise<VkSimulator> {
  const now = opts.now ?? (() => Date.now());
  const perSecond = opts.rateLimitPerSecond ?? 50;
  const apps = new Map<string, VkAppRecord>();
  const users = new Map<string, VkUserRecord>();
  const groups = new Map<string, VkGroupRecord>();
  const tokens = new Map<string, TokenRecord>();
  const refreshTokens = new Map<string, RefreshRecord>();
  const codes = new Map<string, { clientId: string; redirectUri: string; userId: string; scopes: string[]; challenge: string; deviceId: string; expiresAt: number; used: boolean }>();
  const photoUploads = new Map<string, PhotoUpload>();
  const photos = new Map<string, VkPhotoRecord>();
  const videos = new Map<string, VkVideoRecord>();
  const posts: VkPostRecord[] = [];
  const comments: VkCommentRecord[] = [];
  const deviceIds: string[] = [];
  const windows = new Map<string, { second: number; count: number }>();
  const counters = new Map<string, number>();
  let approver: string | undefined;
  let granted: string[] | undefined;
  let refreshes = 0;
  const next = (scope: string, start = 0) => {
    const n = (counters.get(scope) ?? start) + 1;
    counters.set(scope, n);
    return n;
  };
  const sec = () => Math.floor(now() / 1000);

  const tokenError = (reply: FastifyReply, status: number, error: string, description: string, state?: string) =>
    reply.status(status).send({ error, error_description: description, ...(state ? { state } : {}) });

  function issue(userId: string, clientId: string, scopes: string[], deviceId: string) {
    const access: TokenRecord = { token: secret('vk2.a.'), userId, clientId, scopes, deviceId, expiresAt: Date.now() + ACCESS_SECONDS * 1000, revoked: false };
    const refresh: RefreshRecord = { token: secret('vk2.r.'), userId, clientId, scopes, deviceId, used: false, revoked: false };
    tokens.set(access.token, access);
    refreshTokens.set(refresh.token, refresh);
    return {
      access_token: access.token,
      refresh_token: refresh.token,
      id_token: `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: userId, iss: 'VK', app: clientId })).toString('base64url')}.sig`,
      token_type: 'Bearer',
      expires_in: ACCESS_SECONDS,
      user_id: Number(userId),
      scope: scopes.join(' '),
    };
  }

  function managerOf(groupId: string, userId: string, roles: string[] = ['admin', 'editor']) {
    const g = groups.get(groupId);
    return g && roles.includes(g.managers[userId] ?? '') ? g : undefined;
  }

  /** `-gid` walls need the user to manage the community; a user's wall is only their own. */
  function checkWall(ownerId: string, userId: string) {
    if (ownerId.startsWith('-')) {
      if (!groups.has(ownerId.slice(1))) fail(100, 'One of the parameters specified was missing or invalid: owner_id is incorrect');
      if (!managerOf(ownerId.slice(1), userId)) fail(214, 'Access to adding post denied: you are not an admin or editor of this community');
    } else if (ownerId !== userId) {
      fail(214, 'Access to adding post denied: access to the wall is closed');
    }
  }

  function checkAttachments(raw: string | undefined, allowedOwners: string[]): string[] {
    if (!raw) return [];
    const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
    if (list.length > 10) invalid('attachments: too many attachments (10 at most)');
    for (const a of list) {
      const m = /^(photo|video)(-?\d+)_(\d+)$/.exec(a);
      if (!m) invalid(`attachments: "${a}" is not an attachment`);
      const [, kind, owner, id] = m!;
      const key = `${owner}_${id}`;
      if (kind === 'photo' && !photos.has(key)) invalid(`attachments: photo ${key} not found`);
      if (kind === 'video') {
        const v = videos.get(key);
        if (!v) invalid(`attachments: video ${key} not found`);
        if (!v!.sha256) invalid(`attachments: video ${key} has not been uploaded`);
      }
      if (!allowedOwners.includes(owner!)) fail(15, `Access denied: ${a} does not belong to you`);
    }
    return list;
  }

  const shaOf = (attachment: string) => {
    const m = /^(photo|video)(-?\d+_\d+)$/.exec(attachment)!;
    return (m[1] === 'photo' ? photos.get(m[2]!)?.sha256 : videos.get(m[2]!)?.sha256) ?? '';
  };

  const postView = (p: VkPostRecord) => ({
    id: p.id,
    owner_id: Number(p.ownerId),
    from_id: Number(p.fromId),
    date: p.date,
    post_type: 'post',
    text: p.text,
    attachments: p.attachments.map((a) => {
      const [, type, owner, id] = /^(photo|video)(-?\d+)_(\d+)$/.exec(a)!;
      return { type, [type!]: { id: Number(id), owner_id: Number(owner) } };
    }),
    comments: { count: comments.filter((c) => c.ownerId === p.ownerId && c.postId === p.id).length, can_post: 1 },
    likes: { count: p.likes, user_likes: 0, can_like: 1 },
    reposts: { count: p.reposts, user_reposted: 0 },
    views: { count: p.views },
  });

  const commentView = (c: VkCommentRecord, threadItems: number): Record<string, unknown> => {
    const sub = comments.filter((x) => x.ownerId === c.ownerId && x.postId === c.postId && x.threadOf === c.id);
    return {
      id: c.id,
      from_id: Number(c.fromId),
      post_id: c.postId,
      owner_id: Number(c.ownerId),
      parents_stack: c.threadOf ? [c.threadOf] : [],
      date: c.date,
      text: c.text,
      ...(c.replyToComment ? { reply_to_comment: c.replyToComment } : {}),
      thread: { count: sub.length, items: sub.slice(0, threadItems).map((s) => commentView(s, 0)), can_post: true, show_reply_button: true },
    };
  };

  const METHODS: Record<string, (p: Params, t: TokenRecord) => unknown> = {
    'users.get': (_p, t) => {
      const u = users.get(t.userId)!;
      return [{ id: Number(u.id), first_name: u.first_name, last_name: u.last_name }];
    },
    'groups.get': (p, t) => {
      if (p.user_id && p.user_id !== t.userId) fail(15, 'Access denied: only the current user\'s communities can be listed with filter');
      const filters = (p.filter ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      const roles = filters.length === 0 ? ['admin', 'editor', 'moderator', 'member'] : filters.flatMap((f) => (f === 'moder' ? ['moderator'] : [f]));
      const list = [...groups.values()].filter((g) => roles.includes(g.managers[t.userId] ?? ''));
      if (p.extended !== '1') return { count: list.length, items: list.map((g) => Number(g.id)) };
      return {
        count: list.length,
        items: list.map((g) => ({
          id: Number(g.id),
          name: g.name,
          screen_name: g.screen_name,
          is_closed: 0,
          type: 'group',
          is_admin: 1,
          admin_level: g.managers[t.userId] === 'admin' ? 3 : 2,
          is_member: 1,
          photo_100: `https://sun1-1.userapi.com/s/v1/ig2/${g.id}.jpg?size=100x100`,
        })),
      };
    },
    'photos.getWallUploadServer': (p, t) => {
      const groupId = p.group_id ?? null;
      if (groupId && !managerOf(groupId, t.userId)) fail(15, 'Access denied: you are not an admin or editor of this community');
      const key = randomBytes(16).toString('hex');
      const server = String(800_000 + next('server'));
      photoUploads.set(key, { key, userId: t.userId, groupId, server, saved: false });
      return {
        album_id: -14,
        upload_url: `${VK_PHOTO_UPLOAD_ORIGIN}/c${server}/upload.php?act=do_add&mid=${t.userId}&aid=-14&gid=${groupId ?? 0}&hash=${key}&rhash=${randomBytes(8).toString('hex')}&swfupload=1&api=1&wallphoto=1`,
        user_id: Number(t.userId),
      };
    },
    'photos.saveWallPhoto': (p, t) => {
      if (!p.photo || !p.server || !p.hash) invalid('photo, server and hash are required');
      const up = [...photoUploads.values()].find((u) => u.result && u.result.photo === p.photo);
      if (!up || up.server !== p.server || up.result!.hash !== p.hash || up.userId !== t.userId) fail(121, 'Invalid hash');
      if ((p.group_id ?? null) !== up!.groupId) fail(121, 'Invalid hash');
      if (up!.saved) fail(100, 'One of the parameters specified was missing or invalid: photo is already saved');
      up!.saved = true;
      const ownerId = up!.groupId ? `-${up!.groupId}` : t.userId;
      const id = next(`photo${ownerId}`, 457_239_000);
      photos.set(`${ownerId}_${id}`, { id, ownerId, sha256: up!.result!.sha256, size: up!.result!.size });
      return [{ album_id: -14, date: sec(), id, owner_id: Number(ownerId), access_key: randomBytes(9).toString('hex'), sizes: [{ type: 's', width: 75, height: 75, url: `https://sun9-1.userapi.com/${id}.jpg` }], text: p.caption ?? '', has_tags: false }];
    },
    'video.save': (p, t) => {
      const groupId = p.group_id ?? null;
      if (groupId && !managerOf(groupId, t.userId)) fail(15, 'Access denied: you are not an admin or editor of this community');
      const ownerId = groupId ? `-${groupId}` : t.userId;
      const id = next(`video${ownerId}`, 456_239_000);
      const key = randomBytes(16).toString('hex');
      videos.set(`${ownerId}_${id}`, { id, ownerId, userId: t.userId, name: p.name ?? 'Video', key });
      return {
        access_key: randomBytes(9).toString('hex'),
        description: p.description ?? '',
        owner_id: Number(ownerId),
        title: p.name ?? 'Video',
        upload_url: `${VK_VIDEO_UPLOAD_ORIGIN}/upload.php?act=add_video&mid=${t.userId}&oid=${ownerId}&vid=${id}&fid=0&tag=${key.slice(0, 8)}&hash=${key}&swfupload=1&api=1`,
        video_id: id,
      };
    },
    'wall.post': (p, t) => {
      const ownerId = p.owner_id ?? t.userId;
      checkWall(ownerId, t.userId);
      const fromGroup = ownerId.startsWith('-') && p.from_group === '1';
      const attachments = checkAttachments(p.attachments, [t.userId, ownerId]);
      const text = p.message ?? '';
      if (text.trim() === '' && attachments.length === 0) invalid('message is empty or invalid');
      if (text.length > 16_384) invalid('message is too long');
      const id = next(`wall${ownerId}`);
      posts.push({ ownerId, id, fromId: fromGroup ? ownerId : t.userId, text, attachments, date: sec(), views: 0, likes: 0, reposts: 0 });
      return { post_id: id };
    },
    'wall.createComment': (p, t) => {
      const ownerId = p.owner_id ?? t.userId;
      const postId = Number(p.post_id);
      const post = posts.find((x) => x.ownerId === ownerId && x.id === postId);
      if (!post) invalid('post_id is undefined');
      let fromId = t.userId;
      if (p.from_group) {
        if (`-${p.from_group}` !== ownerId || !managerOf(p.from_group, t.userId)) fail(15, 'Access denied: you cannot comment on behalf of this community');
        fromId = ownerId;
      }
      let threadOf: number | null = null;
      let replyTo: number | null = null;
      if (p.reply_to_comment) {
        replyTo = Number(p.reply_to_comment);
        const parent = comments.find((c) => c.ownerId === ownerId && c.postId === postId && c.id === replyTo);
        if (!parent) invalid('reply_to_comment is invalid');
        threadOf = parent!.threadOf ?? parent!.id;
      }
      const attachments = checkAttachments(p.attachments, [t.userId, ownerId]);
      const text = p.message ?? '';
      if (text.trim() === '' && attachments.length === 0) invalid('message is empty or invalid');
      const id = next(`comment${ownerId}`, post!.id * 100);
      comments.push({ ownerId, postId, id, fromId, text, attachments, replyToComment: replyTo, threadOf, date: sec() });
      return { comment_id: id, parents_stack: threadOf ? [threadOf] : [] };
    },
    'wall.get': (p, t) => {
      const ownerId = p.owner_id ?? t.userId;
      const count = p.count === undefined ? 20 : Number(p.count);
      if (!Number.isInteger(count) || count < 0 || count > 100) invalid('count should be less or equal to 100');
      const offset = Number(p.offset ?? 0);
      let list = posts.filter((x) => x.ownerId === ownerId);
      if (p.filter === 'owner') list = list.filter((x) => x.fromId === ownerId);
      else if (p.filter === 'others') list = list.filter((x) => x.fromId !== ownerId);
      list = list.sort((a, b) => b.date - a.date || b.id - a.id);
      return { count: list.length, items: list.slice(offset, offset + count).map(postView) };
    },
    'wall.getById': (p) => {
      if (!p.posts) invalid('posts is undefined');
      const items = p
        .posts!.split(',')
        .map((s) => /^(-?\d+)_(\d+)$/.exec(s.trim()))
        .flatMap((m) => (m ? posts.filter((x) => x.ownerId === m[1] && x.id === Number(m[2])) : []));
      return { items: items.map(postView), profiles: [], groups: [] };
    },
    'wall.getComments': (p, t) => {
      const ownerId = p.owner_id ?? t.userId;
      const postId = Number(p.post_id);
      if (!posts.some((x) => x.ownerId === ownerId && x.id === postId)) invalid('post_id is undefined');
      const count = p.count === undefined ? 10 : Number(p.count);
      if (!Number.isInteger(count) || count < 0 || count > 100) invalid('count should be less or equal to 100');
      const threadItems = Math.min(10, Number(p.thread_items_count ?? 0));
      let top = comments.filter((c) => c.ownerId === ownerId && c.postId === postId && c.threadOf === null);
      top = top.sort((a, b) => (p.sort === 'desc' ? b.id - a.id : a.id - b.id));
      return { count: top.length, items: top.slice(0, count).map((c) => commentView(c, threadItems)), current_level_count: top.length, can_post: true, show_reply_button: true, groups_can_post: true };
    },
  };

  const sim = await startSimulator((app) => {
    // ---- VK ID
    app.get('/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const a = q.client_id ? apps.get(q.client_id) : undefined;
      if (!a) return reply.status(400).type('text/plain').send('invalid_client: client_id is invalid');
      if (!q.redirect_uri || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) {
        return reply.status(400).type('text/plain').send('invalid_request: redirect_uri is not a trusted redirect URL of the app');
      }
      const back = new URL(q.redirect_uri);
      const refuse = (error: string, description: string) => {
        back.searchParams.set('error', error);
        back.searchParams.set('error_description', description);
        if (q.state) back.searchParams.set('state', q.state);
        return reply.redirect(back.toString(), 302);
      };
      if (q.response_type !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
      if (!q.state) return refuse('invalid_request', 'state is required');
      if (!q.code_challenge || (q.code_challenge_method ?? '').toLowerCase() !== 's256') return refuse('invalid_request', 'code_challenge with code_challenge_method=s256 is required');
      const userId = approver ?? [...users.keys()][0];
      if (!userId) return refuse('access_denied', 'no user');
      const asked = (q.scope ?? '').split(' ').filter(Boolean);
      const scopes = granted ? asked.filter((s) => granted!.includes(s)) : asked;
      const code = secret('vk2.c.');
      const deviceId = `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}`;
      deviceIds.push(deviceId);
      codes.set(code, { clientId: a.clientId, redirectUri: q.redirect_uri, userId, scopes, challenge: q.code_challenge, deviceId, expiresAt: Date.now() + CODE_MS, used: false });
      back.searchParams.set('code', code);
      back.searchParams.set('expires_in', '600');
      back.searchParams.set('device_id', deviceId);
      back.searchParams.set('state', q.state);
      back.searchParams.set('type', 'code_v2');
      return reply.redirect(back.toString(), 302);
    });

    app.post('/oauth2/auth', async (req: FastifyRequest<{ Body: Record<string, string | undefined> | undefined }>, reply) => {
      const b = req.body ?? {};
      const a = b.client_id ? apps.get(b.client_id) : undefined;
      if (!a) return tokenError(reply, 401, 'invalid_client', 'client_id is invalid');
      if (b.client_secret !== undefined && a.clientSecret !== undefined && b.client_secret !== a.clientSecret) return tokenError(reply, 401, 'invalid_client', 'client_secret is invalid');
      if (!b.state || b.state.length < 32) return tokenError(reply, 400, 'invalid_request', 'state is required and must be at least 32 characters');
      if (opts.requireDeviceId && !b.device_id) return tokenError(reply, 400, 'invalid_request', 'device_id is required', b.state);
      if (b.grant_type === 'authorization_code') {
        const c = b.code ? codes.get(b.code) : undefined;
        if (!c || c.used || c.expiresAt <= Date.now() || c.clientId !== a.clientId) return tokenError(reply, 400, 'invalid_grant', 'code is invalid or expired', b.state);
        c.used = true;
        if (b.redirect_uri !== c.redirectUri) return tokenError(reply, 400, 'invalid_grant', 'redirect_uri does not match', b.state);
        if (!b.code_verifier || createHash('sha256').update(b.code_verifier).digest('base64url') !== c.challenge) return tokenError(reply, 400, 'invalid_grant', 'code_verifier is invalid', b.state);
        if (b.device_id && b.device_id !== c.deviceId) return tokenError(reply, 400, 'invalid_grant', 'device_id does not match the code', b.state);
        return { ...issue(c.userId, c.clientId, c.scopes, c.deviceId), state: b.state };
      }
      if (b.grant_type === 'refresh_token') {
        const r = b.refresh_token ? refreshTokens.get(b.refresh_token) : undefined;
        if (!r || r.used || r.revoked || r.clientId !== a.clientId) return tokenError(reply, 400, 'invalid_grant', 'refresh_token is invalid or already used', b.state);
        if (b.device_id && b.device_id !== r.deviceId) return tokenError(reply, 400, 'invalid_grant', 'device_id does not match the refresh token', b.state);
        r.used = true;
        refreshes++;
        return { ...issue(r.userId, r.clientId, r.scopes, r.deviceId), state: b.state };
      }
      return tokenError(reply, 400, 'unsupported_grant_type', `grant_type ${b.grant_type ?? ''} is not supported`, b.state);
    });

    app.post('/oauth2/user_info', async (req: FastifyRequest<{ Body: Record<string, string | undefined> | undefined }>, reply) => {
      const b = req.body ?? {};
      const t = b.access_token ? tokens.get(b.access_token) : undefined;
      if (!t || t.revoked || t.expiresAt <= Date.now() || t.clientId !== b.client_id) return tokenError(reply, 401, 'invalid_token', 'access_token is invalid or expired');
      const u = users.get(t.userId)!;
      return { user: { user_id: u.id, first_name: u.first_name, last_name: u.last_name, avatar: u.avatar ?? '', sex: 0, verified: false, birthday: '' } };
    });

    // ---- The API
    const handle = async (req: FastifyRequest<{ Params: { method: string }; Querystring: Params; Body: Params | undefined }>) => {
      const params: Params = { ...req.query, ...(typeof req.body === 'object' && req.body ? req.body : {}) };
      const method = req.params.method;
      const requestParams = [
        { key: 'method', value: method },
        ...Object.entries(params)
          .filter(([k]) => k !== 'access_token')
          .map(([key, value]) => ({ key, value: String(value) })),
      ];
      try {
        if (!params.v) fail(8, 'Invalid request: v (version) is required');
        if (!params.access_token) fail(5, 'User authorization failed: no access_token passed.');
        const t = tokens.get(params.access_token!);
        if (!t || t.revoked) fail(5, 'User authorization failed: invalid access_token (4).');
        if (t!.expiresAt <= Date.now()) fail(5, 'User authorization failed: access_token has expired.');
        const w = windows.get(t!.token);
        const second = sec();
        const win = w && w.second === second ? w : { second, count: 0 };
        win.count++;
        windows.set(t!.token, win);
        if (win.count > perSecond) fail(6, 'Too many requests per second');
        const run = METHODS[method];
        if (!run) fail(3, 'Unknown method passed');
        const section = SCOPE_OF[method.split('.')[0]!];
        if (section && !t!.scopes.includes(section)) fail(15, `Access denied: no access to call this method (scope ${section} was not granted)`);
        return { response: run!(params, t!) };
      } catch (e) {
        if (e instanceof VkFailure) return { error: { error_code: e.code, error_msg: e.msg, request_params: requestParams } };
        throw e;
      }
    };
    app.get('/method/:method', handle);
    app.post('/method/:method', handle);

    // ---- Upload hosts
    app.post('/:server/upload.php', async (req: FastifyRequest<{ Params: { server: string }; Querystring: Params }>, reply) => {
      const up = req.query.hash ? photoUploads.get(req.query.hash) : undefined;
      if (!up || `c${up.server}` !== req.params.server) return reply.type('application/json').send({ error: 'ERR_UPLOAD_BAD_HASH: upload hash is invalid', error_descr: 'hash' });
      if (!req.isMultipart()) return reply.send({ server: Number(up.server), photo: '[]', hash: randomBytes(16).toString('hex') });
      let file: { sha256: string; size: number; picture: boolean } | undefined;
      for await (const part of req.parts()) {
        if (part.type !== 'file') continue;
        const chunks: Buffer[] = [];
        for await (const c of part.file) chunks.push(c as Buffer);
        if (part.fieldname !== 'photo') continue;
        const bytes = Buffer.concat(chunks);
        file = { sha256: sha256(bytes), size: bytes.length, picture: isPicture(bytes) };
      }
      // VK answers a missing or unreadable file with an empty photo list.
      if (!file || !file.picture) return reply.send({ server: Number(up.server), photo: '[]', hash: randomBytes(16).toString('hex') });
      const photo = JSON.stringify([{ markers_restarted: true, photo: `${randomBytes(5).toString('hex')}:w`, sizes: [], latitude: 0, longitude: 0, kid: randomBytes(16).toString('hex') }]);
      up.result = { photo, hash: randomBytes(16).toString('hex'), sha256: file.sha256, size: file.size };
      // The real host labels this JSON as text/html.
      return reply.type('text/html; charset=utf-8').send(JSON.stringify({ server: Number(up.server), photo, hash: up.result.hash }));
    });

    app.post('/upload.php', async (req: FastifyRequest<{ Querystring: Params }>, reply) => {
      const v = [...videos.values()].find((x) => x.key === req.query.hash && String(x.id) === req.query.vid);
      if (!v) return reply.send({ error: 'ERR_UPLOAD_BAD_HASH: upload hash is invalid' });
      if (!req.isMultipart()) return reply.send({ error: 'ERR_UPLOAD_NO_FILE: no file' });
      let file: { sha256: string; size: number; video: boolean } | undefined;
      for await (const part of req.parts()) {
        if (part.type !== 'file') continue;
        const chunks: Buffer[] = [];
        for await (const c of part.file) chunks.push(c as Buffer);
        if (part.fieldname !== 'video_file') continue;
        const bytes = Buffer.concat(chunks);
        file = { sha256: sha256(bytes), size: bytes.length, video: isVideo(bytes) };
      }
      if (!file) return reply.send({ error: 'ERR_UPLOAD_NO_FILE: video_file is missing' });
      if (!file.video) return reply.send({ error: 'ERR_UPLOAD_BAD_FILE: the file is not a video' });
      v.sha256 = file.sha256;
      v.size = file.size;
      return { size: file.size, owner_id: Number(v.ownerId), video_id: v.id, video_hash: randomBytes(8).toString('hex') };
    });
  });

  return Object.assign(sim, {
    apps,
    users,
    groups,
    photos,
    videos,
    posts,
    comments,
    deviceIds,
    addApp: (a: VkAppRecord) => void apps.set(a.clientId, a),
    addUser: (u: VkUserRecord) => void users.set(u.id, u),
    addGroup: (g: VkGroupRecord) => void groups.set(g.id, g),
    approveAs(userId: string) {
      approver = userId;
    },
    grantOnly(scopes: string[] | undefined) {
      granted = scopes;
    },
    expireAccessTokens() {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1000;
    },
    revokeGrant() {
      for (const t of tokens.values()) t.revoked = true;
      for (const r of refreshTokens.values()) r.revoked = true;
    },
    refreshCount: () => refreshes,
    setPostStats(id: string, stats: { views?: number; likes?: number; reposts?: number }) {
      const [o, p] = id.split('_');
      const post = posts.find((x) => x.ownerId === o && x.id === Number(p));
      if (post) Object.assign(post, stats);
    },
    lookup(id: string) {
      const m = /^(-?\d+)_(\d+)(?:_(\d+))?$/.exec(id);
      if (!m) return undefined;
      const [, owner, post, comment] = m;
      if (comment) {
        const c = comments.find((x) => x.ownerId === owner && x.postId === Number(post) && x.id === Number(comment));
        if (!c) return undefined;
        return { text: c.text, replyTo: c.replyToComment ? `${owner}_${post}_${c.replyToComment}` : `${owner}_${post}`, mediaSha256: c.attachments.map(shaOf) };
      }
      const p = posts.find((x) => x.ownerId === owner && x.id === Number(post));
      return p ? { text: p.text, mediaSha256: p.attachments.map(shaOf) } : undefined;
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/method\//;
      const error = (error_code: number, error_msg: string) => sim.inject({ path, status: 200, body: { error: { error_code, error_msg, request_params: [{ key: 'v', value: '5.199' }] } } });
      switch (kind) {
        case 'auth_expired':
          return error(5, 'User authorization failed: access_token has expired.');
        case 'revoked':
          return error(5, 'User authorization failed: invalid access_token (4).');
        case 'rate_limited':
          return error(6, 'Too many requests per second');
        case 'server_error':
          return error(10, 'Internal server error');
        case 'rejected':
          return error(214, 'Access to adding post denied: access to the wall is closed');
        case 'error_in_200':
          return error(100, 'One of the parameters specified was missing or invalid: message is empty or invalid');
      }
    },
  });
}
