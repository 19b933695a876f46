import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of Moltbook's API (`https://www.moltbook.com/api/v1`), for the calls Tidings makes:
 *
 * - every call reads `Authorization: Bearer <api key>`; none or an unknown key → 401
 *   `{ success: false, error, hint }`;
 * - `GET /agents/me` → `{ success, agent }`, `GET /agents/status` → `{ status: "pending_claim" |
 *   "claimed" }`, `GET /agents/profile?name=` → `{ success, agent, recentPosts }`;
 * - `POST /posts { submolt, title, content | url }`: an unclaimed agent is refused (403), the
 *   submolt must exist (404), the title is required and ≤ 300 characters, exactly one of content
 *   and url (a url must be http(s)), content ≤ 40,000; one post per agent per `postCooldownSeconds`
 *   (default 30 minutes: 429 with `retry_after_minutes`) → `{ success, message, post }`, or, when
 *   `challengeNextWrite()` was called, the post held with `verification_required` and a
 *   `verification: { verification_code, challenge_text, expires_at }`;
 * - `POST /posts/{id}/comments { content, parent_id? }`: the post must exist, a parent must be a
 *   comment of the same post (404), one comment per `commentCooldownSeconds` (default 20: 429 with
 *   `retry_after_seconds` and `daily_remaining`), 50 a day → `{ success, comment }`;
 * - `GET /posts/{id}/comments?sort=new|top` → `{ success, comments }` nested by `replies`.
 *
 * Time comes from `now` (tests drive the cooldowns without sleeping).
 */

export const MOLTBOOK_ORIGIN = 'https://www.moltbook.com';

export interface MoltbookAgentRecord {
  id: string;
  name: string;
  displayName?: string;
  apiKey: string;
  claimed: boolean;
  avatarUrl?: string;
}

export interface MoltbookPostRecord {
  id: string;
  agent: string;
  submolt: string;
  title: string;
  content: string | null;
  url: string | null;
  createdAt: string;
  verified: boolean;
}

export interface MoltbookCommentRecord {
  id: string;
  postId: string;
  parentId: string | null;
  agent: string;
  content: string;
  createdAt: string;
}

export interface MoltbookSimulatorOptions {
  now?: () => number;
  postCooldownSeconds?: number;
  commentCooldownSeconds?: number;
}

export interface MoltbookSimulator extends Simulator {
  addAgent(agent: MoltbookAgentRecord): void;
  addSubmolt(name: string): void;
  claim(name: string): void;
  revoke(apiKey: string): void;
  /** the next post or comment is held for a verification challenge */
  challengeNextWrite(): void;
  posts: MoltbookPostRecord[];
  comments: MoltbookCommentRecord[];
  injectKind(kind: InjectedKind): void;
}

const fail = (reply: FastifyReply, status: number, error: string, extra: Record<string, unknown> = {}) => reply.status(status).send({ success: false, error, ...extra });

export async function startMoltbookSimulator(opts: MoltbookSimulatorOptions = {}): Promise<MoltbookSimulator> {
  const now = opts.now ?? (() => Date.now());
  const postCooldown = (opts.postCooldownSeconds ?? 30 * 60) * 1000;
  const commentCooldown = (opts.commentCooldownSeconds ?? 20) * 1000;
  const agents = new Map<string, MoltbookAgentRecord>();
  const submolts = new Set<string>();
  const posts: MoltbookPostRecord[] = [];
  const comments: MoltbookCommentRecord[] = [];
  const lastPost = new Map<string, number>();
  const lastComment = new Map<string, number>();
  let challenge = false;

  function agentOf(req: FastifyRequest, reply: FastifyReply): MoltbookAgentRecord | undefined {
    const auth = req.headers.authorization;
    if (!auth) {
      void fail(reply, 401, 'No API key provided', { hint: 'Add an Authorization: Bearer <api_key> header' });
      return undefined;
    }
    const m = /^Bearer (\S+)$/.exec(auth);
    const agent = m ? [...agents.values()].find((a) => a.apiKey === m[1]) : undefined;
    if (!agent) {
      void fail(reply, 401, 'Invalid API key', { hint: 'Check your API key; register at POST /api/v1/agents/register' });
      return undefined;
    }
    return agent;
  }

  const agentView = (a: MoltbookAgentRecord) => ({
    id: a.id,
    name: a.name,
    display_name: a.displayName ?? null,
    description: `${a.name} posts from Tidings`,
    karma: 0,
    is_claimed: a.claimed,
    is_active: true,
    avatar_url: a.avatarUrl ?? null,
  });
  const postView = (p: MoltbookPostRecord) => ({
    id: p.id,
    title: p.title,
    content: p.content,
    url: p.url,
    submolt: { name: p.submolt },
    author: { name: p.agent },
    upvotes: 0,
    downvotes: 0,
    comment_count: comments.filter((c) => c.postId === p.id).length,
    created_at: p.createdAt,
  });
  const commentView = (c: MoltbookCommentRecord): Record<string, unknown> => ({
    id: c.id,
    content: c.content,
    parent_id: c.parentId,
    author: { name: c.agent },
    upvotes: 0,
    created_at: c.createdAt,
    replies: comments.filter((r) => r.parentId === c.id).sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map(commentView),
  });
  const held = () => {
    challenge = false;
    return {
      verification_required: true,
      verification: {
        verification_code: `moltbook_verify_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
        challenge_text: 'A lObStEr sWiMs aT tWeNtY mEtErS pEr SeCoNd AnD sLoWs bY fIvE, wHaT iS iTs NeW sPeEd?',
        expires_at: new Date(now() + 5 * 60_000).toISOString(),
        instructions: 'Solve the math problem and respond with ONLY the number (with 2 decimal places)',
      },
    };
  };

  const sim = await startSimulator((app) => {
    app.get('/api/v1/agents/me', async (req, reply) => {
      const a = agentOf(req, reply);
      if (!a) return reply;
      return { success: true, agent: agentView(a) };
    });
    app.get('/api/v1/agents/status', async (req, reply) => {
      const a = agentOf(req, reply);
      if (!a) return reply;
      return { status: a.claimed ? 'claimed' : 'pending_claim' };
    });
    app.get('/api/v1/agents/profile', async (req: FastifyRequest<{ Querystring: { name?: string } }>, reply) => {
      if (!agentOf(req, reply)) return reply;
      const a = [...agents.values()].find((x) => x.name === req.query.name);
      if (!a) return fail(reply, 404, 'Agent not found');
      const mine = posts.filter((p) => p.agent === a.name && p.verified).sort((x, y) => y.createdAt.localeCompare(x.createdAt));
      return { success: true, agent: agentView(a), recentPosts: mine.slice(0, 10).map(postView) };
    });

    app.post('/api/v1/posts', async (req, reply) => {
      const a = agentOf(req, reply);
      if (!a) return reply;
      if (!a.claimed) return fail(reply, 403, 'Agent not yet claimed', { hint: 'Have your human visit the claim URL' });
      const b = (req.body ?? {}) as Record<string, unknown>;
      const submolt = typeof b.submolt === 'string' ? b.submolt : typeof b.submolt_name === 'string' ? b.submolt_name : '';
      if (submolt === '') return fail(reply, 400, 'submolt is required');
      if (!submolts.has(submolt.toLowerCase())) return fail(reply, 404, 'Submolt not found', { hint: `m/${submolt} does not exist` });
      const title = typeof b.title === 'string' ? b.title.trim() : '';
      if (title === '') return fail(reply, 400, 'Title is required');
      if (title.length > 300) return fail(reply, 400, 'Title must be 300 characters or less');
      const content = typeof b.content === 'string' && b.content !== '' ? b.content : null;
      const url = typeof b.url === 'string' && b.url !== '' ? b.url : null;
      if ((content === null) === (url === null)) return fail(reply, 400, 'Provide either content or url', { hint: 'Text posts take content, link posts take url' });
      if (url !== null && !/^https?:\/\/[^\s/]+/i.test(url)) return fail(reply, 400, 'Invalid URL');
      if (content !== null && content.length > 40_000) return fail(reply, 400, 'Content must be 40000 characters or less');
      const last = lastPost.get(a.id);
      if (last !== undefined && now() - last < postCooldown) {
        const minutes = Math.ceil((postCooldown - (now() - last)) / 60_000);
        return fail(reply, 429, 'You can only post once every 30 minutes', { retry_after_minutes: minutes, hint: `Wait ${minutes} minutes` });
      }
      lastPost.set(a.id, now());
      const p: MoltbookPostRecord = { id: randomUUID(), agent: a.name, submolt: submolt.toLowerCase(), title, content, url, createdAt: new Date(now()).toISOString(), verified: !challenge };
      posts.push(p);
      if (challenge) return { success: true, message: 'Post created! Complete verification to publish. 🦞', post: { ...postView(p), verification_status: 'pending' }, ...held() };
      return { success: true, message: 'Post created! 🦞', post: postView(p) };
    });

    app.post('/api/v1/posts/:id/comments', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const a = agentOf(req, reply);
      if (!a) return reply;
      const post = posts.find((p) => p.id === req.params.id);
      if (!post) return fail(reply, 404, 'Post not found');
      const b = (req.body ?? {}) as Record<string, unknown>;
      const content = typeof b.content === 'string' ? b.content.trim() : '';
      if (content === '') return fail(reply, 400, 'Content is required');
      if (content.length > 10_000) return fail(reply, 400, 'Comment must be 10000 characters or less');
      const parentId = typeof b.parent_id === 'string' && b.parent_id !== '' ? b.parent_id : null;
      if (parentId && !comments.some((c) => c.id === parentId && c.postId === post.id)) return fail(reply, 404, 'Parent comment not found');
      const today = comments.filter((c) => c.agent === a.name && now() - Date.parse(c.createdAt) < 86_400_000).length;
      if (today >= 50) return fail(reply, 429, 'Daily comment limit reached', { retry_after_seconds: 3600, daily_remaining: 0 });
      const last = lastComment.get(a.id);
      if (last !== undefined && now() - last < commentCooldown) {
        const seconds = Math.ceil((commentCooldown - (now() - last)) / 1000);
        return fail(reply, 429, 'You can only comment once every 20 seconds', { retry_after_seconds: seconds, daily_remaining: 50 - today });
      }
      lastComment.set(a.id, now());
      const c: MoltbookCommentRecord = { id: randomUUID(), postId: post.id, parentId, agent: a.name, content, createdAt: new Date(now()).toISOString() };
      if (challenge) return { success: true, message: 'Comment created! Complete verification to publish.', comment: { id: c.id, verification_status: 'pending' }, ...held() };
      comments.push(c);
      return { success: true, message: 'Comment added! 🦞', comment: { ...commentView(c), post_id: post.id } };
    });

    app.get('/api/v1/posts/:id/comments', async (req: FastifyRequest<{ Params: { id: string }; Querystring: { sort?: string } }>, reply) => {
      if (!agentOf(req, reply)) return reply;
      const post = posts.find((p) => p.id === req.params.id);
      if (!post) return fail(reply, 404, 'Post not found');
      const top = comments.filter((c) => c.postId === post.id && c.parentId === null).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      return { success: true, post_id: post.id, sort: req.query.sort ?? 'top', comments: top.map(commentView) };
    });
  });

  const shapes: Record<InjectedKind, { status: number; body: unknown }> = {
    auth_expired: { status: 401, body: { success: false, error: 'Invalid API key', hint: 'Check your API key' } },
    revoked: { status: 401, body: { success: false, error: 'Invalid API key', hint: 'Check your API key' } },
    rate_limited: { status: 429, body: { success: false, error: 'You can only post once every 30 minutes', retry_after_minutes: 27, hint: 'Wait 27 minutes' } },
    server_error: { status: 500, body: { success: false, error: 'Internal server error' } },
    rejected: { status: 400, body: { success: false, error: 'Post content violates community guidelines', hint: 'Remove spam links' } },
    error_in_200: { status: 200, body: { success: false, error: 'Submolt is archived and no longer accepts posts' } },
  };

  return Object.assign(sim, {
    posts,
    comments,
    addAgent: (agent: MoltbookAgentRecord) => void agents.set(agent.name, { ...agent }),
    addSubmolt: (name: string) => void submolts.add(name.toLowerCase()),
    claim: (name: string) => {
      const a = agents.get(name);
      if (a) a.claimed = true;
    },
    revoke: (apiKey: string) => {
      for (const a of agents.values()) if (a.apiKey === apiKey) a.apiKey = `revoked-${randomUUID()}`;
    },
    challengeNextWrite: () => {
      challenge = true;
    },
    injectKind: (kind: InjectedKind) => sim.inject({ path: /^\/api\/v1\/posts/, ...shapes[kind] }),
  });
}
