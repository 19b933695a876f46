import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { OperationContext, PlatformResponse } from '../platform.js';
import { tumblrOk } from './errors.js';

/** Tumblr's API client: the requests the adapter makes and the shapes of their answers. */

export const TUMBLR_API = 'https://api.tumblr.com';
export const TUMBLR_WWW = 'https://www.tumblr.com';

/** Largest page of `GET /v2/blog/{blog}/posts`. */
export const PAGE = 20;
/** A post with media carries the files in the same request: the attempt's own timeout bounds it. */
const UPLOAD_TIMEOUT_MS = 30 * 60_000;
const USER_AGENT = 'Tidings (+https://github.com/tidings)';

/** A blog as `GET /v2/user/info` lists it. */
export interface TumblrBlog {
  uuid: string;
  name: string;
  title?: string;
  url?: string;
  primary?: boolean;
  avatar?: { width?: number; height?: number; url?: string }[];
}

export interface TumblrPost {
  id?: number | string;
  id_string?: string;
  timestamp?: number;
  post_url?: string;
  state?: string;
  note_count?: number;
  content?: { type: string; text?: string }[];
  summary?: string;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

/** The access token the requests carry, and whether a refresh token is stored (which shapes a 401's error). */
export interface TumblrAuth {
  accessToken: string;
  refreshToken: string | null;
}

/** A file of a post with media: the multipart part named `identifier`. */
export interface TumblrFilePart {
  identifier: string;
  name: string;
  type: string;
  blob: Blob;
}

/** The post's address: Tumblr serves every blog at `https://<name>.tumblr.com` (custom domains redirect from it). */
export const postUrl = (blogName: string, id: string) => `https://${blogName}.tumblr.com/post/${id}`;

/** A blog identifier in a path: the uuid (`t:…`), which survives a rename of the blog. */
const blogPath = (uuid: string) => `/v2/blog/${/^t:[A-Za-z0-9_-]+$/.test(uuid) ? uuid : encodeURIComponent(uuid)}`;

export const postId = (p: TumblrPost) => p.id_string ?? (p.id === undefined ? '' : String(p.id));

function api(ctx: Ctx, token: string, canRefresh: boolean) {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'user-agent': USER_AGENT };
  const check = (res: PlatformResponse) => tumblrOk(res, { now: ctx.clock.now(), canRefresh });
  return {
    async get<T>(pathAndQuery: string): Promise<T> {
      const res = check(await ctx.http.request({ method: 'GET', url: `${TUMBLR_API}${pathAndQuery}`, headers }));
      return (res.body as { response: T }).response;
    },
    async post<T>(path: string, body: unknown, opts: { timeoutMs?: number; headers?: Record<string, string> } = {}): Promise<T> {
      const res = check(
        await ctx.http.request({ method: 'POST', url: `${TUMBLR_API}${path}`, headers: { ...headers, ...opts.headers }, body, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}) }),
      );
      return (res.body as { response: T }).response;
    },
  };
}

const apiFor = (ctx: Ctx, auth: TumblrAuth) => api(ctx, auth.accessToken, auth.refreshToken !== null);

/** `GET /v2/user/info`: the account's name and its blogs (those without a uuid or name left out). */
export async function userInfo(ctx: Ctx, token: string, canRefresh: boolean): Promise<{ name: string; blogs: TumblrBlog[] }> {
  const r = await api(ctx, token, canRefresh).get<{ user?: { name?: string; blogs?: TumblrBlog[] } }>('/v2/user/info');
  return { name: r?.user?.name ?? '', blogs: (r?.user?.blogs ?? []).filter((b) => typeof b.uuid === 'string' && typeof b.name === 'string') };
}

/**
 * The multipart body of a post with media, streamed: first the `json` part with the post
 * (`Content-Type: application/json`, no file name, as Tumblr wants it), then one part per file
 * named by its block's identifier, each read from its Blob chunk by chunk as it is sent.
 */
export function npfMultipart(post: Record<string, unknown>, files: TumblrFilePart[]) {
  const boundary = `----tidings${randomBytes(12).toString('hex')}`;
  const quote = (s: string) => s.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="json"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(post)}\r\n`, 'utf8');
  const fileHeads = files.map((f) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(f.identifier)}"; filename="${quote(f.name)}"\r\nContent-Type: ${f.type}\r\n\r\n`, 'utf8'));
  const crlf = Buffer.from('\r\n');
  const tail = Buffer.from(`--${boundary}--\r\n`, 'utf8');
  async function* chunks() {
    yield head;
    for (const [i, f] of files.entries()) {
      yield fileHeads[i]!;
      for await (const chunk of f.blob.stream()) yield chunk;
      yield crlf;
    }
    yield tail;
  }
  const length = head.length + tail.length + files.reduce((n, f, i) => n + fileHeads[i]!.length + f.blob.size + crlf.length, 0);
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, body: Readable.from(chunks()) };
}

/**
 * `POST /v2/blog/{blog}/posts`: the NPF post as JSON, or — with files — as a streamed multipart
 * body (the `json` part, then the files) under the long upload timeout.
 */
export async function createPost(ctx: Ctx, auth: TumblrAuth, blogUuid: string, body: Record<string, unknown>, files: TumblrFilePart[]): Promise<TumblrPost> {
  const t = apiFor(ctx, auth);
  if (files.length === 0) return t.post<TumblrPost>(`${blogPath(blogUuid)}/posts`, body);
  const form = npfMultipart(body, files);
  return t.post<TumblrPost>(`${blogPath(blogUuid)}/posts`, form.body, {
    timeoutMs: UPLOAD_TIMEOUT_MS,
    headers: { 'content-type': form.contentType, 'content-length': String(form.length) },
  });
}

/** `GET /v2/blog/{blog}/posts?id=…`: the posts Tumblr answers for that id (the post itself, when it exists). */
export async function postsById(ctx: Ctx, auth: TumblrAuth, blogUuid: string, id: string): Promise<TumblrPost[]> {
  const r = await apiFor(ctx, auth).get<{ posts?: TumblrPost[] }>(`${blogPath(blogUuid)}/posts?${new URLSearchParams({ id, npf: 'true' }).toString()}`);
  return r?.posts ?? [];
}

/** The list a post in `state` is found in: the blog's posts, its queue or its drafts. */
export function listingOf(state: unknown): string {
  if (state === 'queue') return '/posts/queue';
  if (state === 'draft') return '/posts/draft';
  return '/posts';
}

/** One page (`PAGE` posts from `offset`) of the blog's posts, queue or drafts (`listing`, from `listingOf`). */
export async function listPosts(ctx: Ctx, auth: TumblrAuth, blogUuid: string, listing: string, offset: number): Promise<TumblrPost[]> {
  const q = new URLSearchParams({ npf: 'true', limit: String(PAGE), offset: String(offset) });
  const r = await apiFor(ctx, auth).get<{ posts?: TumblrPost[] }>(`${blogPath(blogUuid)}${listing}?${q.toString()}`);
  return r?.posts ?? [];
}
