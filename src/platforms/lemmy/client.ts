import { mediaFileName } from '../common/media.js';
import { PlatformError, type OperationContext, type PlatformRequest, type PlatformResponse, type PublishItem } from '../platform.js';
import { lemmyError, lemmyResult, pictrsFile, type LemmyAction } from './errors.js';

/** Lemmy's HTTP API v3 client: requests to the instance, the logged-in session, and the shapes of the answers used. */

export interface LemmyCredentials {
  instanceUrl: string;
  /** as typed at connect: a username or an email */
  username: string;
  password: string;
  jwt: string;
  personId: number;
  /** the person's name on the instance (findRecent looks the account up by it) */
  personName: string;
}

export interface Person {
  id: number;
  name: string;
  display_name?: string | null;
  avatar?: string | null;
  actor_id?: string;
}

export interface Post {
  id: number;
  name: string;
  body?: string | null;
  url?: string | null;
  community_id: number;
  published: string;
}

export interface PostView {
  post: Post;
  counts?: { score?: number; upvotes?: number; downvotes?: number; comments?: number };
}

export interface Comment {
  id: number;
  post_id: number;
  content: string;
  path: string;
  published: string;
}

export interface CommunityView {
  community: { id: number; name: string; title: string; actor_id?: string; nsfw?: boolean; description?: string | null };
  counts?: { subscribers?: number };
}

/** One request to the instance the user typed, with the session's JWT as `Authorization: Bearer`. */
export function send(ctx: Pick<OperationContext, 'http'>, instance: string, jwt: string | null, method: PlatformRequest['method'], path: string, body?: unknown) {
  return ctx.http.request({
    method,
    url: `${instance}${path}`,
    headers: { accept: 'application/json', ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) },
    body,
    // The instance is whatever the user typed: every request passes the SSRF guard.
    untrustedHost: true,
  });
}

/** A logged-in session on the instance for one operation; re-logs in mid-publish when needed. */
export class Session {
  /** something was created in this operation: an expired session is renewed here instead of failing */
  wrote = false;
  constructor(
    private readonly ctx: OperationContext,
    readonly c: LemmyCredentials,
  ) {}

  async call<T>(action: LemmyAction, method: PlatformRequest['method'], path: string, body?: unknown, parse: (res: PlatformResponse) => T = (res) => lemmyResult<T>(res, action, this.ctx.clock.now())): Promise<T> {
    const res = await send(this.ctx, this.c.instanceUrl, this.c.jwt, method, path, body);
    const err = lemmyError(res, action, this.ctx.clock.now());
    if (err?.kind === 'auth_expired' && this.wrote) {
      // Half of a post is out: failing now would have the retry post the first half twice.
      this.c.jwt = (await login(this.ctx, this.c.instanceUrl, this.c.username, this.c.password)).jwt;
      this.ctx.logger.info({ instance: this.c.instanceUrl }, 'lemmy: session renewed in the middle of a publish');
      return parse(await send(this.ctx, this.c.instanceUrl, this.c.jwt, method, path, body));
    }
    return parse(res);
  }
}

/** `POST /api/v3/user/login`: the session's JWT. */
export async function login(ctx: Pick<OperationContext, 'http' | 'clock'>, instance: string, username: string, password: string, totp?: string): Promise<{ jwt: string }> {
  const res = await send(ctx, instance, null, 'POST', '/api/v3/user/login', { username_or_email: username, password, ...(totp ? { totp_2fa_token: totp } : {}) });
  const body = lemmyResult<{ jwt?: unknown }>(res, 'login', ctx.clock.now());
  if (typeof body?.jwt !== 'string' || body.jwt === '') {
    throw new PlatformError('rejected', `${instance} did not answer like a Lemmy instance (no session from /api/v3/user/login)`, { field: 'instanceUrl', status: res.status });
  }
  return { jwt: body.jwt };
}

/** Uploads a picture to the instance's pict-rs: its public URL. */
export async function uploadPicture(s: Session, ctx: OperationContext, m: PublishItem['media'][number]): Promise<string> {
  const form = new FormData();
  form.set('images[]', await ctx.openMedia(m), mediaFileName(m));
  const file = await s.call('image', 'POST', '/pictrs/image', form, (res) => pictrsFile(res, ctx.clock.now()));
  return `${s.c.instanceUrl}/pictrs/image/${encodeURIComponent(file)}`;
}


/** The account's newest posts or comments since `since` (up to 4 pages of 50). */
export async function recentOfAccount(s: Session, since: Date, wanted: 'posts' | 'comments', limit: number): Promise<(PostView | { comment: Comment })[]> {
  const out: (PostView | { comment: Comment })[] = [];
  for (let page = 1; page <= 4; page++) {
    const q = new URLSearchParams({ username: s.c.personName, sort: 'New', limit: '50', page: String(page) });
    const res = await s.call<{ posts?: PostView[]; comments?: { comment: Comment }[] }>('message', 'GET', `/api/v3/user?${q.toString()}`);
    const list = (wanted === 'posts' ? res.posts : res.comments) ?? [];
    for (const x of list) {
      const published = 'post' in x ? x.post.published : x.comment.published;
      if (Date.parse(published) < since.getTime()) return out;
      out.push(x);
    }
    if (list.length < 50 || out.length >= limit * 4) break;
  }
  return out;
}

