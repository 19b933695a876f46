import type { OperationContext } from '../platform.js';
import { moltbookError } from './errors.js';

/** Moltbook's API client: the requests the adapter makes and the shapes of their answers. */

/**
 * Always `www.`: the bare domain redirects and the redirect drops the `Authorization` header.
 */
export const MOLTBOOK_API = 'https://www.moltbook.com/api/v1';
export const MOLTBOOK_WEB = 'https://www.moltbook.com';

export interface MoltbookCredentials {
  apiKey: string;
  /** the agent's name (its profile and the author of its posts and comments) */
  agentName: string;
}

export interface Agent {
  id?: string;
  name?: string;
  display_name?: string | null;
  avatar_url?: string | null;
  owner?: { x_avatar?: string | null } | null;
}

export interface MoltbookPost {
  id: string;
  title?: string | null;
  content?: string | null;
  url?: string | null;
  submolt?: string | { name?: string } | null;
  created_at?: string;
}

export interface MoltbookComment {
  id: string;
  content?: string | null;
  parent_id?: string | null;
  author?: { name?: string } | null;
  created_at?: string;
  replies?: MoltbookComment[] | null;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

async function call<T>(ctx: Ctx, apiKey: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await ctx.http.request({
    method,
    url: `${MOLTBOOK_API}${path}`,
    headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body } : {}),
  });
  const err = moltbookError(res, ctx.clock.now());
  if (err) throw err;
  return (typeof res.body === 'object' && res.body !== null ? res.body : {}) as T;
}

export const postUrl = (id: string) => `${MOLTBOOK_WEB}/post/${encodeURIComponent(id)}`;
export const commentUrl = (postId: string, id: string) => `${postUrl(postId)}#comment-${encodeURIComponent(id)}`;

/** `GET /agents/me`: the API key's agent. */
export const agentMe = (ctx: Ctx, apiKey: string) => call<{ agent?: Agent }>(ctx, apiKey, 'GET', '/agents/me');

/** `GET /agents/status`: `claimed` once the agent's human claimed it. */
export const agentStatus = (ctx: Ctx, apiKey: string) => call<{ status?: string }>(ctx, apiKey, 'GET', '/agents/status');

/** `POST /posts/{postId}/comments`: the answer as given (a comment, or a verification challenge). */
export const createComment = (ctx: Ctx, apiKey: string, postId: string, body: { content: string; parent_id?: string }) =>
  call<Record<string, unknown> & { comment?: { id?: string } }>(ctx, apiKey, 'POST', `/posts/${encodeURIComponent(postId)}/comments`, body);

/** `POST /posts`: the answer as given (a post, or a verification challenge). */
export const createPost = (ctx: Ctx, apiKey: string, body: { submolt: string; title: string; url?: string; content?: string }) =>
  call<Record<string, unknown> & { post?: { id?: string }; data?: { id?: string } }>(ctx, apiKey, 'POST', '/posts', body);

/** `GET /posts/{postId}/comments?sort=new`: the post's comments, replies nested. */
export const commentsOf = (ctx: Ctx, apiKey: string, postId: string) => call<{ comments?: MoltbookComment[] }>(ctx, apiKey, 'GET', `/posts/${encodeURIComponent(postId)}/comments?sort=new`);

/** `GET /agents/profile?name=`: the agent's profile with its `recentPosts`. */
export const agentProfile = (ctx: Ctx, apiKey: string, agentName: string) => call<{ recentPosts?: MoltbookPost[] }>(ctx, apiKey, 'GET', `/agents/profile?name=${encodeURIComponent(agentName)}`);
