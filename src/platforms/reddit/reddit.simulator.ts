import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of Reddit's OAuth API. One server stands for three hosts (map them all to it):
 * `https://www.reddit.com` (authorisation page, token endpoint), `https://oauth.reddit.com` (the
 * API) and the S3 bucket media are uploaded to. It keeps users, OAuth apps, tokens, subreddits
 * (kind of posts allowed, flairs, members, bans), submissions, comments and uploaded media (by
 * sha256), lists a user's submissions and comments (Listings of `t3`/`t1` things, newest first,
 * paged by `after`), and reproduces Reddit's quirks: errors as `json.errors` under HTTP 200, the
 * token endpoint's `{ error }` under 200, image/video submits answered without a post id (the post
 * is listed later), the RATELIMIT posting throttle, and refusal of generic User-Agents.
 */

export const S3_ORIGIN = 'https://reddit-uploaded-media.s3-accelerate.amazonaws.com';

export interface SimUser {
  id: string;
  name: string;
  icon_img: string;
}

export interface SimApp {
  clientId: string;
  secret: string;
  /** a Reddit app has exactly one redirect URI */
  redirectUri: string;
}

export interface SimFlair {
  id: string;
  text: string;
  text_editable?: boolean;
}

export interface SimSubreddit {
  id: string;
  name: string;
  title: string;
  type: 'public' | 'restricted' | 'private' | 'user';
  submission_type: 'any' | 'self' | 'link';
  allow_images: boolean;
  allow_videos: boolean;
  flairRequired: boolean;
  flairs: SimFlair[];
  /** user ids approved to post (restricted / private subreddits) */
  members: Set<string>;
  banned: Set<string>;
  /** the whole subreddit was banned by Reddit */
  bannedSubreddit?: boolean;
}

export interface SimMedia {
  assetId: string;
  key: string;
  userId: string;
  /** the type asked for in the lease */
  mimetype: string;
  filepath: string;
  /** the bytes the bucket received */
  sha256?: string;
  size?: number;
  /** the type the bucket stored them as: the form's `content-type` field (S3 ignores the part's own) */
  mimeType?: string;
}

export interface SimSubmission {
  id: string;
  name: string;
  sr: string;
  authorId: string;
  kind: string;
  title: string;
  text: string;
  url: string;
  flairId?: string;
  flairText?: string;
  nsfw: boolean;
  spoiler: boolean;
  mediaSha256: string[];
  posterSha256?: string;
  createdUtc: number;
  permalink: string;
  /** image/video posts: listing requests still to come before the post shows in `/user/…/submitted` */
  hiddenPolls: number;
}

export interface SimComment {
  id: string;
  name: string;
  parent: string;
  linkId: string;
  authorId: string;
  text: string;
  permalink: string;
  createdUtc: number;
}

interface AccessToken {
  userId: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
}

interface RefreshToken {
  userId: string;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}

export interface RedditSimState {
  users: Map<string, SimUser>;
  apps: Map<string, SimApp>;
  subreddits: Map<string, SimSubreddit>;
  submissions: SimSubmission[];
  comments: SimComment[];
  media: Map<string, SimMedia>;
  codes: Map<string, { clientId: string; redirectUri: string; userId: string; scopes: string[]; permanent: boolean }>;
  accessTokens: Map<string, AccessToken>;
  refreshTokens: Map<string, RefreshToken>;
  /** who approves on the authorisation page (default: the first user added) */
  loggedInUserId: string | null;
  /** listing requests an image/video post stays unlisted for (0: listed at the first one) */
  mediaListingDelay: number;
  /** while set, submits and comments answer RATELIMIT "try again in N minutes" */
  throttleMinutes: number | null;
  accessTokenSeconds: number;
}

export interface RedditSimulator extends Simulator {
  state: RedditSimState;
  addUser(user: { id: string; name: string; icon_img?: string }): SimUser;
  addApp(app: SimApp): void;
  addSubreddit(sr: Partial<SimSubreddit> & { name: string }): SimSubreddit;
  expireAccessTokens(): void;
  revokeRefreshTokens(): void;
  injectKind(kind: InjectedKind): void;
  /** a submission or comment by fullname (`t3_…`, `t1_…`) or bare id */
  find(id: string): { submission?: SimSubmission; comment?: SimComment };
  /** a comment under `parent` (fullname) by the user `authorId`, e.g. someone else's reply in a thread */
  addComment(parent: string, text: string, authorId: string): SimComment;
}

const SCOPES = new Set(['identity', 'edit', 'flair', 'history', 'modconfig', 'modflair', 'modlog', 'modposts', 'modwiki', 'mysubreddits', 'privatemessages', 'read', 'report', 'save', 'submit', 'subscribe', 'vote', 'wikiedit', 'wikiread', '*']);

const unauthorized = (reply: FastifyReply) =>
  reply.status(401).header('www-authenticate', 'Bearer realm="reddit", error="invalid_token"').send({ message: 'Unauthorized', error: 401 });
const jsonErrors = (errors: [string, string, string | null][]) => ({ json: { errors } });

function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 50) || '_';
}

/** Reddit limits generic User-Agents hard; it wants `<platform>:<app id>:<version> (by /u/…)` or similar. */
function descriptiveAgent(ua: string | undefined): boolean {
  return !!ua && /^[\w.-]+[:/][\w.:/-]+ .*\(.+\)/.test(ua);
}

export async function startRedditSimulator(): Promise<RedditSimulator> {
  const state: RedditSimState = {
    users: new Map(),
    apps: new Map(),
    subreddits: new Map(),
    submissions: [],
    comments: [],
    media: new Map(),
    codes: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Map(),
    loggedInUserId: null,
    mediaListingDelay: 0,
    throttleMinutes: null,
    accessTokenSeconds: 3600,
  };
  let seq = parseInt('1a2b3c', 36);
  const nextId = () => (seq++).toString(36);
  const now = () => Math.floor(Date.now() / 1000);
  const sub = (name: string) => state.subreddits.get(name.toLowerCase());

  function addSubreddit(sr: Partial<SimSubreddit> & { name: string }): SimSubreddit {
    const s: SimSubreddit = {
      id: sr.id ?? nextId(),
      title: sr.title ?? sr.name,
      type: sr.type ?? 'public',
      submission_type: sr.submission_type ?? 'any',
      allow_images: sr.allow_images ?? true,
      allow_videos: sr.allow_videos ?? true,
      flairRequired: sr.flairRequired ?? false,
      flairs: sr.flairs ?? [],
      members: sr.members ?? new Set(),
      banned: sr.banned ?? new Set(),
      ...sr,
    };
    state.subreddits.set(s.name.toLowerCase(), s);
    return s;
  }

  function find(id: string): { submission?: SimSubmission; comment?: SimComment } {
    const bare = id.replace(/^t[13]_/, '');
    if (!id.startsWith('t1_')) {
      const submission = state.submissions.find((s) => s.id === bare);
      if (submission) return { submission };
    }
    if (!id.startsWith('t3_')) {
      const comment = state.comments.find((c) => c.id === bare);
      if (comment) return { comment };
    }
    return {};
  }

  /** The user behind the bearer token, after the User-Agent and scope checks; undefined once answered. */
  function authorize(req: FastifyRequest, reply: FastifyReply, scope: string): SimUser | undefined {
    if (!descriptiveAgent(req.headers['user-agent'])) {
      void reply.status(429).type('text/html').send('<html><body><h1>whoa there, pardner!</h1><p>Your request has been blocked due to a generic User-Agent.</p></body></html>');
      return undefined;
    }
    const m = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const token = m ? state.accessTokens.get(m[1]!) : undefined;
    if (!token || token.expiresAt <= Date.now()) {
      void unauthorized(reply);
      return undefined;
    }
    if (!token.scopes.includes(scope) && !token.scopes.includes('*')) {
      void reply.status(403).header('www-authenticate', `Bearer realm="reddit", error="insufficient_scope"`).send({ message: 'Forbidden', error: 403 });
      return undefined;
    }
    return state.users.get(token.userId);
  }

  /** May `user` post to `s`? */
  function mayPost(s: SimSubreddit, user: SimUser): boolean {
    if (s.bannedSubreddit || s.banned.has(user.id)) return false;
    if (s.type === 'user') return s.name.toLowerCase() === `u_${user.name.toLowerCase()}`;
    if (s.type === 'private' || s.type === 'restricted') return s.members.has(user.id);
    return true;
  }

  /** The subreddit (by its stored name when it still exists) and author fields every listing item carries. */
  function whereAndWho(sr: string, authorId: string) {
    const s = sub(sr);
    return {
      subreddit: s?.name ?? sr,
      subreddit_name_prefixed: s?.type === 'user' ? `u/${s.name.slice(2)}` : `r/${s?.name ?? sr}`,
      author: state.users.get(authorId)?.name ?? '[deleted]',
    };
  }

  function listingItem(p: SimSubmission) {
    return {
      kind: 't3',
      data: {
        id: p.id,
        name: p.name,
        title: p.title,
        ...whereAndWho(p.sr, p.authorId),
        selftext: p.text,
        url: p.kind === 'self' ? `https://www.reddit.com${p.permalink}` : p.url,
        permalink: p.permalink,
        created_utc: p.createdUtc,
        is_self: p.kind === 'self',
        link_flair_text: p.flairText ?? null,
        link_flair_template_id: p.flairId ?? null,
        over_18: p.nsfw,
        spoiler: p.spoiler,
      },
    };
  }

  /** A comment as listings give it; without `raw_json=1` Reddit HTML-escapes `&`, `<` and `>` in the body. */
  function commentItem(c: SimComment, raw: boolean) {
    const link = find(c.linkId).submission!;
    return {
      kind: 't1',
      data: {
        id: c.id,
        name: c.name,
        body: raw ? c.text : c.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
        link_id: c.linkId,
        parent_id: c.parent,
        link_title: link.title,
        link_permalink: `https://www.reddit.com${link.permalink}`,
        ...whereAndWho(link.sr, c.authorId),
        permalink: c.permalink,
        created_utc: c.createdUtc,
        score: 1,
      },
    };
  }

  /** A comment under `parent` (a `t3_…` submission or `t1_…` comment) by `authorId`, as `/api/comment` makes it. */
  function addComment(parent: string, text: string, authorId: string): SimComment {
    const target = find(parent);
    if (!/^t[13]_/.test(parent) || (!target.submission && !target.comment)) throw new Error(`no submission or comment ${parent}`);
    if (!state.users.has(authorId)) throw new Error(`no user ${authorId}`);
    const link = target.submission ?? find(target.comment!.linkId).submission!;
    const id = nextId();
    const comment: SimComment = { id, name: `t1_${id}`, parent, linkId: link.name, authorId, text, permalink: `${link.permalink}${id}/`, createdUtc: now() };
    state.comments.push(comment);
    return comment;
  }

  /** The uploaded media a submitted URL points at, if it is one of ours. */
  function mediaAt(url: string | undefined, user: SimUser): SimMedia | undefined {
    if (!url?.startsWith(`${S3_ORIGIN}/`)) return undefined;
    const key = decodeURIComponent(url.slice(S3_ORIGIN.length + 1));
    const m = [...state.media.values()].find((x) => x.key === key);
    return m && m.userId === user.id && m.sha256 ? m : undefined;
  }

  const sim = await startSimulator((app) => {
    // ---- www.reddit.com: authorisation and tokens -------------------------------------------
    const authorizePage = async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply) => {
      const q = req.query;
      const client = state.apps.get(q.client_id ?? '');
      if (!client) return reply.status(400).type('text/html').send('<p>invalid client id</p>');
      if (q.redirect_uri !== client.redirectUri) return reply.status(400).type('text/html').send('<p>invalid redirect_uri parameter.</p>');
      const back = new URL(client.redirectUri);
      if (q.state) back.searchParams.set('state', q.state);
      const scopes = (q.scope ?? '').split(/[\s,]+/).filter(Boolean);
      if (q.response_type !== 'code') back.searchParams.set('error', 'unsupported_response_type');
      else if (scopes.length === 0 || scopes.some((s) => !SCOPES.has(s))) back.searchParams.set('error', 'invalid_scope');
      else if (!state.loggedInUserId) back.searchParams.set('error', 'access_denied');
      else {
        const code = randomBytes(15).toString('base64url');
        state.codes.set(code, { clientId: client.clientId, redirectUri: client.redirectUri, userId: state.loggedInUserId, scopes, permanent: q.duration === 'permanent' });
        back.searchParams.set('code', code);
      }
      return reply.redirect(back.toString(), 302);
    };
    app.get('/api/v1/authorize', authorizePage);
    app.get('/api/v1/authorize.compact', authorizePage);

    app.post('/api/v1/access_token', async (req: FastifyRequest<{ Body: Record<string, string | undefined> }>, reply) => {
      const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map((x) => decodeURIComponent(x)) : [];
      const client = state.apps.get(id ?? '');
      if (!client || client.secret !== secret) return reply.status(401).send({ message: 'Unauthorized', error: 401 });
      const body = req.body ?? {};
      const issue = (userId: string, scopes: string[]) => {
        const access = `${randomBytes(6).toString('hex')}-${randomBytes(12).toString('base64url')}`;
        state.accessTokens.set(access, { userId, clientId: client.clientId, scopes, expiresAt: Date.now() + state.accessTokenSeconds * 1000 });
        return { access_token: access, token_type: 'bearer', expires_in: state.accessTokenSeconds, scope: scopes.join(' ') };
      };
      // Reddit answers token errors with HTTP 200 and `{ error }`.
      if (body.grant_type === 'authorization_code') {
        const code = state.codes.get(body.code ?? '');
        state.codes.delete(body.code ?? '');
        if (!code || code.clientId !== client.clientId || code.redirectUri !== body.redirect_uri) return { error: 'invalid_grant' };
        const answer: Record<string, unknown> = issue(code.userId, code.scopes);
        if (code.permanent) {
          const refresh = `${randomBytes(6).toString('hex')}-${randomBytes(16).toString('base64url')}`;
          state.refreshTokens.set(refresh, { userId: code.userId, clientId: client.clientId, scopes: code.scopes, revoked: false });
          answer.refresh_token = refresh;
        }
        return answer;
      }
      if (body.grant_type === 'refresh_token') {
        const refresh = state.refreshTokens.get(body.refresh_token ?? '');
        if (!refresh || refresh.revoked || refresh.clientId !== client.clientId) return { error: 'invalid_grant' };
        return issue(refresh.userId, refresh.scopes);
      }
      return { error: 'unsupported_grant_type' };
    });

    // ---- oauth.reddit.com: the API --------------------------------------------------------------
    app.get('/api/v1/me', async (req, reply) => {
      const user = authorize(req, reply, 'identity');
      if (!user) return reply;
      // Without raw_json=1 Reddit HTML-escapes `&` in URLs.
      const raw = (req.query as Record<string, string>).raw_json === '1';
      return { id: user.id, name: user.name, icon_img: raw ? user.icon_img : user.icon_img.replace(/&/g, '&amp;'), created_utc: 1_500_000_000, link_karma: 1, comment_karma: 1 };
    });

    app.post('/api/media/asset.json', async (req: FastifyRequest<{ Body: Record<string, string | undefined> }>, reply) => {
      const user = authorize(req, reply, 'submit');
      if (!user) return reply;
      const { filepath, mimetype } = req.body ?? {};
      if (!filepath || !mimetype) return reply.status(400).send({ message: 'Bad Request', error: 400 });
      if (!/^(image\/(png|jpeg|gif|webp)|video\/(mp4|quicktime))$/.test(mimetype)) return jsonErrors([['INVALID_MIMETYPE', `unsupported mimetype ${mimetype}`, 'mimetype']]);
      const assetId = nextId();
      const key = `rte_images/${assetId}`;
      state.media.set(assetId, { assetId, key, userId: user.id, mimetype, filepath });
      return {
        args: {
          action: '//reddit-uploaded-media.s3-accelerate.amazonaws.com',
          fields: [
            { name: 'acl', value: 'private' },
            { name: 'key', value: key },
            { name: 'X-Amz-Credential', value: 'ASIAEXAMPLE/20260101/us-east-1/s3/aws4_request' },
            { name: 'X-Amz-Algorithm', value: 'AWS4-HMAC-SHA256' },
            { name: 'X-Amz-Date', value: '20260101T000000Z' },
            { name: 'success_action_status', value: '201' },
            { name: 'content-type', value: mimetype },
            { name: 'x-amz-storage-class', value: 'STANDARD' },
            { name: 'x-amz-meta-ext', value: filepath.split('.').pop() ?? '' },
            { name: 'policy', value: Buffer.from(JSON.stringify({ key })).toString('base64') },
            { name: 'X-Amz-Signature', value: createHash('sha256').update(key).digest('hex') },
          ],
        },
        asset: { asset_id: assetId, processing_state: 'incomplete', payload: { filepath }, websocket_url: `wss://ws.redditmedia.com/rte_images/${assetId}?m=sim` },
      };
    });

    // The S3 bucket (its own host, mapped here): a browser-style POST form upload.
    app.post('/', async (req, reply) => {
      const s3Error = (status: number, code: string, message: string) =>
        reply.status(status).type('application/xml').send(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
      if (!req.isMultipart()) return s3Error(412, 'PreconditionFailed', 'Bucket POST must be of the enclosure-type multipart/form-data');
      const fields: Record<string, string> = {};
      let file: { sha256: string; size: number } | undefined;
      let fieldAfterFile = false;
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          const hash = createHash('sha256');
          let size = 0;
          for await (const chunk of part.file) {
            hash.update(chunk as Buffer);
            size += (chunk as Buffer).length;
          }
          file = { sha256: hash.digest('hex'), size };
        } else {
          if (file) fieldAfterFile = true;
          fields[part.fieldname] = String(part.value);
        }
      }
      if (!file) return s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
      if (fieldAfterFile) return s3Error(400, 'InvalidArgument', 'Fields after the file are ignored: the file must be the last field.');
      const m = [...state.media.values()].find((x) => x.key === fields.key);
      if (!m || fields.policy !== Buffer.from(JSON.stringify({ key: m.key })).toString('base64')) {
        return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed: ["eq", "$key"]');
      }
      m.sha256 = file.sha256;
      m.size = file.size;
      m.mimeType = fields['content-type'] ?? 'binary/octet-stream';
      const location = `${S3_ORIGIN}/${encodeURIComponent(m.key)}`;
      return reply
        .status(201)
        .type('application/xml')
        .send(`<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>${location}</Location><Bucket>reddit-uploaded-media</Bucket><Key>${m.key}</Key><ETag>"${file.sha256.slice(0, 32)}"</ETag></PostResponse>`);
    });

    /** What `/api/submit` and `/api/comment` answer before reading the thing to write: the legacy jQuery shape without `api_type=json`, the RATELIMIT throttle. */
    const refuseWrite = (b: Record<string, string | undefined>) => {
      if (b.api_type !== 'json') return { jquery: [[0, 1, 'call', ['body']]], success: false };
      if (state.throttleMinutes !== null) {
        return jsonErrors([['RATELIMIT', `you are doing that too much. try again in ${state.throttleMinutes} minutes.`, 'ratelimit']]);
      }
      return undefined;
    };

    app.post('/api/submit', async (req: FastifyRequest<{ Body: Record<string, string | undefined> }>, reply) => {
      const user = authorize(req, reply, 'submit');
      if (!user) return reply;
      const b = req.body ?? {};
      const refused = refuseWrite(b);
      if (refused) return refused;
      const kind = b.kind ?? 'link';
      if (!['self', 'link', 'image', 'video', 'videogif'].includes(kind)) return jsonErrors([['INVALID_OPTION', 'that option is not valid', 'kind']]);
      if (!b.sr) return jsonErrors([['SUBREDDIT_REQUIRED', 'please enter a subreddit', 'sr']]);
      const s = sub(b.sr);
      if (!s) return jsonErrors([['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']]);
      if (!mayPost(s, user)) return jsonErrors([['SUBREDDIT_NOTALLOWED', "you aren't allowed to post there.", 'sr']]);
      const title = (b.title ?? '').trim();
      if (!title) return jsonErrors([['NO_TEXT', 'we need something here', 'title']]);
      if (title.length > 300) return jsonErrors([['TOO_LONG', 'this is too long (max: 300)', 'title']]);
      let media: SimMedia | undefined;
      let poster: SimMedia | undefined;
      if (kind === 'self') {
        if (s.submission_type === 'link') return jsonErrors([['NO_SELFS', "this community doesn't allow text posts", 'sr']]);
        if ((b.text ?? '').length > 40_000) return jsonErrors([['TOO_LONG', 'this is too long (max: 40000)', 'text']]);
      } else if (kind === 'link') {
        if (s.submission_type === 'self') return jsonErrors([['NO_LINKS', 'this community only allows text posts', 'sr']]);
        if (!b.url) return jsonErrors([['NO_URL', 'a url is required', 'url']]);
        if (!/^https?:\/\/[^\s/]+\.[^\s]+$/.test(b.url)) return jsonErrors([['BAD_URL', 'you should check that url', 'url']]);
        if (b.resubmit !== 'true' && state.submissions.some((p) => p.sr === s.name && p.kind === 'link' && p.url === b.url)) {
          return jsonErrors([['ALREADY_SUB', 'that link has already been submitted', 'url']]);
        }
      } else {
        const video = kind !== 'image';
        // (simulator's own wording: the exact code Reddit uses here is not documented)
        if (video ? !s.allow_videos : !s.allow_images) return jsonErrors([['NO_IMAGES', `this community doesn't allow ${video ? 'videos' : 'images'}`, 'sr']]);
        media = mediaAt(b.url, user);
        if (!media || (video ? !media.mimetype.startsWith('video/') : !media.mimetype.startsWith('image/'))) return jsonErrors([['BAD_URL', 'you should check that url', 'url']]);
        if (video) {
          poster = mediaAt(b.video_poster_url, user);
          if (!poster) return jsonErrors([['NO_VIDEO_POSTER', 'a video post needs a poster image', 'video_poster_url']]);
        }
      }
      let flair: SimFlair | undefined;
      if (b.flair_id) {
        flair = s.flairs.find((f) => f.id === b.flair_id);
        // (simulator's own code for an unknown template)
        if (!flair) return jsonErrors([['BAD_FLAIR_TEMPLATE_ID', 'that flair is not available in this community', 'flair']]);
      }
      if (s.flairRequired && !flair) return jsonErrors([['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']]);
      const id = nextId();
      const permalink = `/r/${s.name}/comments/${id}/${slug(title)}/`;
      const post: SimSubmission = {
        id,
        name: `t3_${id}`,
        sr: s.name,
        authorId: user.id,
        kind,
        title,
        text: kind === 'self' ? (b.text ?? '') : '',
        url: kind === 'link' ? b.url! : (b.url ?? ''),
        flairId: flair?.id,
        flairText: flair ? (flair.text_editable && b.flair_text ? b.flair_text : flair.text) : undefined,
        nsfw: b.nsfw === 'true',
        spoiler: b.spoiler === 'true',
        mediaSha256: media?.sha256 ? [media.sha256] : [],
        posterSha256: poster?.sha256,
        createdUtc: now(),
        permalink,
        hiddenPolls: media ? state.mediaListingDelay : 0,
      };
      state.submissions.push(post);
      // Media posts: no id; the post is listed once the media are processed (websocket_url tells when).
      if (media) {
        return { json: { errors: [], data: { user_submitted_page: `https://www.reddit.com/user/${user.name}/submitted/`, websocket_url: `wss://ws.redditmedia.com/rte_images/${media.assetId}?m=sim` } } };
      }
      return { json: { errors: [], data: { url: `https://www.reddit.com${permalink}`, drafts_count: 0, id, name: post.name } } };
    });

    app.post('/api/comment', async (req: FastifyRequest<{ Body: Record<string, string | undefined> }>, reply) => {
      const user = authorize(req, reply, 'submit');
      if (!user) return reply;
      const b = req.body ?? {};
      const refused = refuseWrite(b);
      if (refused) return refused;
      const target = find(b.thing_id ?? '');
      // (simulator's own code for a missing parent)
      if (!b.thing_id || !/^t[13]_/.test(b.thing_id) || (!target.submission && !target.comment)) return jsonErrors([['NO_THING_ID', "that item doesn't exist", 'parent']]);
      const text = b.text ?? '';
      if (text.trim() === '') return jsonErrors([['NO_TEXT', 'we need something here', 'text']]);
      if (text.length > 10_000) return jsonErrors([['TOO_LONG', 'this is too long (max: 10000)', 'text']]);
      const link = target.submission ?? find(target.comment!.linkId).submission!;
      const s = sub(link.sr);
      if (s && (s.banned.has(user.id) || s.bannedSubreddit)) return reply.status(403).send({ message: 'Forbidden', error: 403, reason: 'banned' });
      const comment = addComment(b.thing_id, text, user.id);
      return {
        json: {
          errors: [],
          data: {
            things: [
              {
                kind: 't1',
                data: { id: comment.id, name: comment.name, parent_id: comment.parent, link_id: comment.linkId, body: text, author: user.name, subreddit: link.sr, permalink: comment.permalink, created_utc: comment.createdUtc },
              },
            ],
          },
        },
      };
    });

    const submitted = async (req: FastifyRequest<{ Params: { name: string }; Querystring: Record<string, string | undefined> }>, reply: FastifyReply) => {
      if (!authorize(req, reply, 'history')) return reply;
      const user = [...state.users.values()].find((u) => u.name.toLowerCase() === req.params.name.toLowerCase());
      if (!user) return reply.status(404).send({ message: 'Not Found', error: 404 });
      const limit = Math.min(100, Math.max(1, Number(req.query.limit ?? 25) || 25));
      const mine = state.submissions.filter((p) => p.authorId === user.id);
      const visible = mine.filter((p) => p.hiddenPolls <= 0);
      for (const p of mine) if (p.hiddenPolls > 0) p.hiddenPolls -= 1;
      const children = visible
        .slice()
        .sort((a, b) => b.createdUtc - a.createdUtc || (parseInt(b.id, 36) - parseInt(a.id, 36)))
        .slice(0, limit)
        .map(listingItem);
      return { kind: 'Listing', data: { after: null, before: null, dist: children.length, modhash: null, children } };
    };
    app.get('/user/:name/submitted', submitted);
    app.get('/user/:name/submitted.json', submitted);

    // A user's comments, newest first, paged by `after` (the fullname of the last one seen).
    const userComments = async (req: FastifyRequest<{ Params: { name: string }; Querystring: Record<string, string | undefined> }>, reply: FastifyReply) => {
      if (!authorize(req, reply, 'history')) return reply;
      const user = [...state.users.values()].find((u) => u.name.toLowerCase() === req.params.name.toLowerCase());
      if (!user) return reply.status(404).send({ message: 'Not Found', error: 404 });
      const q = req.query;
      // Only the time order is simulated: another sort is refused rather than answered wrongly.
      if (q.sort !== undefined && q.sort !== 'new') return reply.status(400).send({ message: 'Bad Request', error: 400 });
      // (the simulator's own strictness: a malformed `after` is a caller's bug worth seeing)
      if (q.after !== undefined && !/^t1_[0-9a-z]+$/.test(q.after)) return reply.status(400).send({ message: 'Bad Request', error: 400 });
      const limit = Math.min(100, Math.max(1, Number(q.limit ?? 25) || 25));
      const mine = state.comments.filter((c) => c.authorId === user.id).sort((a, b) => b.createdUtc - a.createdUtc || parseInt(b.id, 36) - parseInt(a.id, 36));
      // (an `after` that is not in the listing answers an empty page)
      const start = q.after === undefined ? 0 : mine.findIndex((c) => c.name === q.after) + 1 || mine.length;
      const page = mine.slice(start, start + limit);
      const more = start + limit < mine.length;
      const children = page.map((c) => commentItem(c, q.raw_json === '1'));
      return { kind: 'Listing', data: { after: more ? page.at(-1)!.name : null, before: start > 0 && page[0] ? page[0].name : null, dist: children.length, modhash: null, children } };
    };
    app.get('/user/:name/comments', userComments);
    app.get('/user/:name/comments.json', userComments);

    app.get('/subreddits/search', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      if (!authorize(req, reply, 'read')) return reply;
      const q = (req.query.q ?? '').toLowerCase();
      const limit = Math.min(100, Math.max(1, Number(req.query.limit ?? 25) || 25));
      const children = [...state.subreddits.values()]
        .filter((s) => s.type !== 'user' && q !== '' && (s.name.toLowerCase().includes(q) || s.title.toLowerCase().includes(q)))
        .slice(0, limit)
        .map((s) => ({ kind: 't5', data: aboutData(s) }));
      return { kind: 'Listing', data: { after: null, before: null, dist: children.length, children } };
    });

    function aboutData(s: SimSubreddit) {
      return {
        id: s.id,
        name: `t5_${s.id}`,
        display_name: s.name,
        display_name_prefixed: s.type === 'user' ? `u/${s.name.slice(2)}` : `r/${s.name}`,
        title: s.title,
        url: s.type === 'user' ? `/user/${s.name.slice(2)}/` : `/r/${s.name}/`,
        subreddit_type: s.type,
        submission_type: s.submission_type,
        allow_images: s.allow_images,
        allow_videos: s.allow_videos,
        link_flair_enabled: s.flairs.length > 0,
        over18: false,
        subscribers: 1000,
      };
    }

    /** The subreddit of `/r/{sr}/…` if the user may see it; undefined once answered. */
    function visibleSub(req: FastifyRequest, reply: FastifyReply, name: string, scope: string): SimSubreddit | undefined {
      const user = authorize(req, reply, scope);
      if (!user) return undefined;
      const s = sub(name);
      if (!s) {
        void reply.status(404).send({ message: 'Not Found', error: 404 });
        return undefined;
      }
      if (s.bannedSubreddit) {
        void reply.status(404).send({ reason: 'banned', message: 'Not Found', error: 404 });
        return undefined;
      }
      if (s.type === 'private' && !s.members.has(user.id)) {
        void reply.status(403).send({ reason: 'private', message: 'Forbidden', error: 403 });
        return undefined;
      }
      return s;
    }

    const about = async (req: FastifyRequest<{ Params: { sr: string } }>, reply: FastifyReply) => {
      const s = visibleSub(req, reply, req.params.sr, 'read');
      if (!s) return reply;
      return { kind: 't5', data: aboutData(s) };
    };
    app.get('/r/:sr/about', about);
    app.get('/r/:sr/about.json', about);

    app.get('/api/v1/:sr/post_requirements', async (req: FastifyRequest<{ Params: { sr: string } }>, reply) => {
      const s = visibleSub(req, reply, req.params.sr, 'submit');
      if (!s) return reply;
      return {
        is_flair_required: s.flairRequired,
        title_text_max_length: null,
        title_text_min_length: null,
        body_restriction_policy: 'none',
        link_restriction_policy: 'none',
        domain_blacklist: [],
        domain_whitelist: [],
        title_required_strings: [],
        title_blacklisted_strings: [],
        body_required_strings: [],
        body_blacklisted_strings: [],
        guidelines_text: null,
      };
    });

    app.get('/r/:sr/api/link_flair_v2', async (req: FastifyRequest<{ Params: { sr: string } }>, reply) => {
      const s = visibleSub(req, reply, req.params.sr, 'flair');
      if (!s) return reply;
      // A subreddit without link flairs refuses the listing.
      if (s.flairs.length === 0) return reply.status(403).send({ message: 'Forbidden', error: 403 });
      return s.flairs.map((f) => ({
        id: f.id,
        text: f.text,
        text_editable: f.text_editable ?? false,
        type: 'text',
        allowable_content: 'all',
        css_class: '',
        background_color: '',
        text_color: 'dark',
        mod_only: false,
        max_emojis: 10,
        richtext: [],
      }));
    });
  });

  const submitOrComment = /^\/api\/(submit|comment)/;
  return Object.assign(sim, {
    state,
    addUser(u: { id: string; name: string; icon_img?: string }) {
      const user: SimUser = { id: u.id, name: u.name, icon_img: u.icon_img ?? `https://styles.redditmedia.com/t5_${u.id}/styles/profileIcon_x.png?width=256&height=256&s=abc` };
      state.users.set(user.id, user);
      state.loggedInUserId ??= user.id;
      addSubreddit({ name: `u_${user.name}`, title: user.name, type: 'user' });
      return user;
    },
    addApp: (a: SimApp) => void state.apps.set(a.clientId, a),
    addSubreddit,
    find,
    addComment,
    expireAccessTokens() {
      for (const t of state.accessTokens.values()) t.expiresAt = Date.now() - 1;
    },
    revokeRefreshTokens() {
      for (const t of state.refreshTokens.values()) t.revoked = true;
    },
    injectKind(kind: InjectedKind) {
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path: submitOrComment, status: 401, body: { message: 'Unauthorized', error: 401 }, headers: { 'www-authenticate': 'Bearer realm="reddit", error="invalid_token"' } });
        case 'rate_limited':
          return sim.inject({
            path: submitOrComment,
            status: 429,
            body: { message: 'Too Many Requests', error: 429 },
            headers: { 'x-ratelimit-used': '100', 'x-ratelimit-remaining': '0.0', 'x-ratelimit-reset': '42' },
          });
        case 'server_error':
          return sim.inject({ path: submitOrComment, status: 503, body: { message: 'Service Unavailable', error: 503 } });
        case 'rejected':
          return sim.inject({ path: submitOrComment, status: 200, body: jsonErrors([['SUBREDDIT_NOTALLOWED', "you aren't allowed to post there.", 'sr']]) });
        case 'error_in_200':
          return sim.inject({ path: submitOrComment, status: 200, body: jsonErrors([['NO_TEXT', 'we need something here', 'text']]) });
      }
    },
  });
}
