import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { PlatformError, type ConnectedAccount, type Credentials, type PlatformAdapter, type PublishResult } from '../platform.js';
import { agentMe, agentProfile, agentStatus, commentsOf, commentUrl, createComment, createPost, postUrl, type MoltbookComment, type MoltbookCredentials, type MoltbookPost } from './client.js';
import { MoltbookCredentialsSchema, moltbookMetadata } from './metadata.js';

/** Titles are cut from the text's first line (as the reference implementation: 100 characters). */
export const TITLE_LENGTH = 100;

const StoredCredentials = z.object({ apiKey: z.string().min(1), agentName: z.string().min(1) });
const creds = (ctx: { credentials: Credentials }): MoltbookCredentials => readCredentials(ctx, StoredCredentials, 'Moltbook');

/**
 * Moltbook may answer a new post or comment with a verification challenge (an obfuscated
 * arithmetic puzzle) that must be answered through `POST /verify` before the item appears.
 * Tidings does not pretend to solve arbitrary puzzles: the item is refused with Moltbook's words.
 */
function challengeOf(body: Record<string, unknown>): { code: string; text: string } | undefined {
  const v = (typeof body.verification === 'object' && body.verification !== null ? body.verification : body) as Record<string, unknown>;
  const code = v.verification_code ?? v.code;
  const text = v.challenge_text ?? v.challenge;
  if (typeof code === 'string' && code !== '' && (typeof text === 'string' || body.verification_required === true)) {
    return { code, text: typeof text === 'string' ? text : '' };
  }
  return undefined;
}

function refuseChallenge(body: Record<string, unknown>, what: string): never {
  const ch = challengeOf(body)!;
  const said = typeof body.message === 'string' && body.message.trim() !== '' ? ` Moltbook said: "${body.message.trim()}".` : '';
  throw new PlatformError(
    'rejected',
    `Moltbook held the ${what} for a verification challenge (${ch.code}${ch.text ? `: "${ch.text}"` : ''}), which Tidings does not answer automatically; the ${what} stays unpublished.${said}`,
    { platformCode: 'verification_required' },
  );
}

/** The title of a text post: the text's first line, cut at a word boundary to 100 characters. */
export function titleOf(text: string): string {
  const first = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  if (first.length <= TITLE_LENGTH) return first;
  const cut = first.slice(0, TITLE_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const SINGLE_URL = /^https?:\/\/\S+$/i;
const submoltName = (s: MoltbookPost['submolt']) => (typeof s === 'string' ? s : (s?.name ?? undefined));
const at = (s: string | undefined) => {
  const t = s ? Date.parse(s) : Number.NaN;
  return Number.isNaN(t) ? undefined : t;
};

/**
 * Creates the Moltbook adapter: an agent's API key (`Authorization: Bearer`), checked at connect
 * time with `GET /agents/me` and `GET /agents/status` (an unclaimed agent cannot post); text posts
 * (`{ submolt, title, content }`, the title from the first line) or link posts (`{ submolt,
 * title, url }` when the text is a single URL) into the chosen submolt; thread items as comments,
 * nested with `parent_id`; the agent's recent posts (its profile) and its comments under a post
 * for reconciliation.
 */
export function createMoltbookAdapter(): PlatformAdapter {
  return {
    metadata: moltbookMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const apiKey = MoltbookCredentialsSchema.parse(input).apiKey;
      const asField = (e: unknown): never => {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', e.message.startsWith('Moltbook refused the API key') ? e.message : `Moltbook refused the API key: ${e.message}`, { field: 'apiKey', status: e.details.status });
        }
        throw e;
      };
      const me = await agentMe(ctx, apiKey).catch(asField);
      const agent = me.agent;
      if (!agent?.name) throw new PlatformError('rejected', 'Moltbook did not name the agent of this API key', { field: 'apiKey' });
      const status = await agentStatus(ctx, apiKey).catch(asField);
      if (status.status !== 'claimed') {
        throw new PlatformError(
          'rejected',
          `The Moltbook agent ${agent.name} must be claimed by its human first (status: ${status.status ?? 'unknown'}): open the claim URL Moltbook gave at registration, then connect again`,
          { field: 'apiKey', platformCode: status.status },
        );
      }
      return {
        internalId: agent.id ?? agent.name,
        name: agent.display_name?.trim() || agent.name,
        profile: agent.name,
        picture: agent.avatar_url ?? agent.owner?.x_avatar ?? null,
        credentials: { apiKey, agentName: agent.name } satisfies MoltbookCredentials,
        expiresAt: null,
      };
    },

    validate() {
      return [];
    },

    /**
     * Not idempotent: Moltbook has no idempotency key, a retried call posts twice (the publisher
     * reconciles with `findRecent`). Thread items are comments on the first post (`parent_id`:
     * the previous comment).
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const { apiKey } = creds(ctx);
      if (item.media.length > 0) throw new PlatformError('unsupported', 'Moltbook takes text and link posts only: it has no media uploads');
      const text = htmlToText(item.content).trim();
      if (text === '') throw new PlatformError('rejected', 'A Moltbook post or comment needs some text');

      if (replyTo) {
        const parent = replyTo.id !== replyTo.rootId ? replyTo.id : undefined;
        const body = await createComment(ctx, apiKey, replyTo.rootId, {
          content: text,
          ...(parent ? { parent_id: parent } : {}),
        });
        if (challengeOf(body)) refuseChallenge(body, 'comment');
        const id = body.comment?.id;
        if (!id) throw new PlatformError('transient', 'Moltbook accepted the comment without naming it', { outcomeUnknown: true });
        return { status: 'published', id, url: commentUrl(replyTo.rootId, id) };
      }

      const submolt = typeof settings.submolt === 'string' ? settings.submolt.trim() : '';
      if (submolt === '') throw new PlatformError('rejected', 'A Moltbook post needs a submolt (settings.submolt)');
      const link = SINGLE_URL.test(text);
      const body = await createPost(ctx, apiKey, {
        submolt,
        title: titleOf(text),
        ...(link ? { url: text } : { content: text }),
      });
      if (challengeOf(body)) refuseChallenge(body, 'post');
      const id = body.post?.id ?? body.data?.id;
      if (!id) throw new PlatformError('transient', 'Moltbook accepted the post without naming it', { outcomeUnknown: true });
      return { status: 'published', id, url: postUrl(id) };
    },

    /**
     * The agent's recent posts from its profile (`GET /agents/profile?name=` → `recentPosts`; the
     * API has no author filter on `/posts`), in the post's submolt when known. With `replyTo`: the
     * agent's comments under the thread's post (`GET /posts/{id}/comments?sort=new`, nested
     * replies included).
     */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      const { apiKey, agentName } = creds(ctx);
      const from = since.getTime();
      if (replyTo) {
        const body = await commentsOf(ctx, apiKey, replyTo.rootId);
        const flat: MoltbookComment[] = [];
        const walk = (list: MoltbookComment[] | null | undefined) => {
          for (const c of list ?? []) {
            flat.push(c);
            walk(c.replies);
          }
        };
        walk(body.comments);
        return flat
          .filter((c) => c.author?.name === agentName && (at(c.created_at) ?? Number.POSITIVE_INFINITY) >= from)
          .map((c) => ({ id: c.id, url: commentUrl(replyTo.rootId, c.id), content: c.content ?? '', createdAt: c.created_at ?? '' }))
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
          .slice(0, limit);
      }
      const body = await agentProfile(ctx, apiKey, agentName);
      const submolt = typeof settings?.submolt === 'string' && settings.submolt.trim() !== '' ? settings.submolt.trim().toLowerCase() : undefined;
      return (body.recentPosts ?? [])
        .filter((p) => (at(p.created_at) ?? Number.POSITIVE_INFINITY) >= from)
        .filter((p) => !submolt || submoltName(p.submolt)?.toLowerCase() === submolt)
        .map((p) => ({ id: p.id, url: postUrl(p.id), content: p.content ?? p.url ?? p.title ?? '', createdAt: p.created_at ?? '' }))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .slice(0, limit);
    },
  };
}
