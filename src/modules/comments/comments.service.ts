import { AppError, notFound, validationError, type FieldError } from '../../errors.js';
import type { ActorKind, MemberRole, PostCommentRow } from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { Mailer } from '../../lib/mailer.js';
import type { CommentsRepository } from './comments.repository.js';
import type { Comment, CreateCommentBody, UpdateCommentBody } from './comments.schemas.js';

/**
 * Who writes, edits or deletes a comment: a signed-in person (with their role) or a credential
 * (an API key or an OAuth app's token), whose readable name the service looks up.
 */
export type CommentCaller = { kind: 'user'; id: string; name: string; role: MemberRole } | { kind: 'api_key' | 'oauth_app'; id: string };

interface Author {
  kind: ActorKind;
  id: string | null;
  name: string;
}

const SNIPPET = 140;
const snippet = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET - 1)}…` : flat;
};

export function createCommentsService(deps: {
  comments: CommentsRepository;
  clock: Clock;
  /** writes a notification for one member */
  notifyMember(organizationId: string, userId: string, content: string, link: string): Promise<unknown>;
  /** set only when mail really leaves (SMTP configured) */
  mailer?: Mailer;
  /** the service's address, for links in mail */
  publicUrl: string;
  logger?: { warn(obj: unknown, msg?: string): void };
}) {
  const { comments, clock } = deps;
  const now = () => new Date(clock.now());

  async function authorOf(organizationId: string, caller: CommentCaller): Promise<Author> {
    if (caller.kind === 'user') return { kind: 'user', id: caller.id, name: caller.name };
    if (caller.kind === 'api_key') {
      const name = await comments.apiKeyName(organizationId, caller.id);
      return { kind: 'api_key', id: caller.id, name: name ? `API key “${name}”` : 'API key' };
    }
    return { kind: 'oauth_app', id: caller.id, name: 'OAuth app' };
  }

  const isAuthor = (row: PostCommentRow, caller: CommentCaller) => row.authorKind === caller.kind && row.authorId === caller.id;

  /** The group's first live post (where links go); NOT_FOUND when the organisation has no live post in it. */
  async function liveGroup(organizationId: string, group: string) {
    const first = await comments.firstPostOfGroup(organizationId, group);
    if (!first) throw notFound('Post group');
    return first;
  }

  async function findComment(organizationId: string, id: string) {
    const row = isUuid(id) ? await comments.findComment(organizationId, id) : undefined;
    // A comment on a group whose posts were all deleted goes with them.
    if (!row || !(await comments.firstPostOfGroup(organizationId, row.group))) throw notFound('Comment');
    return row;
  }

  /** The members named (400 naming `<field>.N` for one that is not a member), without repeats. */
  async function checkMentions(organizationId: string, ids: string[], field: string) {
    const unique = [...new Set(ids)];
    const members = await comments.membersAmong(organizationId, unique.filter(isUuid));
    const known = new Set(members.map((m) => m.id));
    const fields: FieldError[] = ids.flatMap((id, i) => (known.has(id) ? [] : [{ path: `${field}.${i}`, message: `No member of the organisation with user id ${id}` }]));
    if (fields.length > 0) throw validationError(fields);
    return members;
  }

  async function present(rows: PostCommentRow[]): Promise<Comment[]> {
    const names = new Map((await comments.userNames([...new Set(rows.flatMap((r) => r.mentions))].filter(isUuid))).map((u) => [u.id, u.name || u.email]));
    return rows.map((r) => ({
      id: r.id,
      group: r.group,
      postId: r.postId,
      author: { kind: r.authorKind, id: r.authorId, name: r.authorName },
      body: r.body,
      mentions: r.mentions.map((id) => ({ id, name: names.get(id) ?? 'Former member' })),
      resolved: r.resolvedAt !== null,
      resolvedAt: r.resolvedAt?.toISOString() ?? null,
      resolvedBy: r.resolvedAt ? r.resolvedByName : null,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
      edited: r.updatedAt.getTime() > r.createdAt.getTime(),
    }));
  }

  /** One notification (and a mail when SMTP is set) for each member newly mentioned; never the writer. */
  async function notifyMentions(organizationId: string, row: PostCommentRow, members: { id: string; name: string; email: string }[], author: Author) {
    const postId = row.postId ?? (await comments.firstPostOfGroup(organizationId, row.group));
    const link = `/posts/${postId}`;
    const text = snippet(row.body);
    for (const m of members) {
      if (author.kind === 'user' && author.id === m.id) continue;
      await deps.notifyMember(organizationId, m.id, `${author.name} mentioned you in a comment: “${text}”`, link);
      if (deps.mailer) {
        const url = `${deps.publicUrl.replace(/\/$/, '')}${link}`;
        deps.mailer
          .send({
            to: m.email,
            subject: `${author.name} mentioned you in a comment`,
            text: `${author.name} mentioned you in a comment on a post:\n\n${row.body}\n\nOpen the post: ${url}\n`,
          })
          .catch((err: unknown) => deps.logger?.warn({ err, commentId: row.id }, 'The mention mail could not be sent'));
      }
    }
  }

  return {
    /** The thread of a post group (or of one of its posts), oldest first. */
    async listComments(organizationId: string, group: string, postId?: string) {
      await liveGroup(organizationId, group);
      if (postId !== undefined && !isUuid(postId)) return { comments: [] };
      return { comments: await present(await comments.listComments(organizationId, group, postId)) };
    },

    async createComment(organizationId: string, group: string, caller: CommentCaller, input: CreateCommentBody) {
      await liveGroup(organizationId, group);
      if (input.postId !== undefined && !(isUuid(input.postId) && (await comments.isPostOfGroup(organizationId, group, input.postId)))) {
        throw validationError([{ path: 'postId', message: 'Not a post of this group' }]);
      }
      const members = await checkMentions(organizationId, input.mentions ?? [], 'mentions');
      const author = await authorOf(organizationId, caller);
      const at = now();
      const row = await comments.insertComment({
        organizationId,
        group,
        postId: input.postId ?? null,
        authorKind: author.kind,
        authorId: author.id,
        authorName: author.name,
        body: input.body,
        mentions: [...new Set(input.mentions ?? [])],
        createdAt: at,
        updatedAt: at,
      });
      await notifyMentions(organizationId, row, members, author);
      return (await present([row]))[0]!;
    },

    /** A note written by the service for someone (a request for changes, a decision's comment; issue 31): no mentions, no notifications. */
    async postNote(organizationId: string, group: string, author: Author, body: string) {
      const at = now();
      return comments.insertComment({ organizationId, group, postId: null, authorKind: author.kind, authorId: author.id, authorName: author.name, body, mentions: [], createdAt: at, updatedAt: at });
    },

    /** Text and mentions: the author only; resolving: anyone in the organisation. */
    async updateComment(organizationId: string, id: string, caller: CommentCaller, input: UpdateCommentBody) {
      const row = await findComment(organizationId, id);
      const editing = input.body !== undefined || input.mentions !== undefined;
      if (editing && !isAuthor(row, caller)) throw new AppError('FORBIDDEN', 'Only the author of a comment may change its text or mentions');
      const members = input.mentions ? await checkMentions(organizationId, input.mentions, 'mentions') : [];
      const changes: Parameters<CommentsRepository['updateComment']>[2] = {};
      const at = now();
      if (input.body !== undefined && input.body !== row.body) changes.body = input.body;
      const nextMentions = input.mentions ? [...new Set(input.mentions)] : row.mentions;
      const added = members.filter((m) => !row.mentions.includes(m.id));
      if (input.mentions && (nextMentions.length !== row.mentions.length || added.length > 0)) changes.mentions = nextMentions;
      if (changes.body !== undefined || changes.mentions !== undefined) changes.updatedAt = at;
      if (input.resolved === true && row.resolvedAt === null) {
        changes.resolvedAt = at;
        changes.resolvedByName = (await authorOf(organizationId, caller)).name;
      } else if (input.resolved === false && row.resolvedAt !== null) {
        changes.resolvedAt = null;
        changes.resolvedByName = null;
      }
      if (Object.keys(changes).length === 0) return (await present([row]))[0]!;
      const updated = await comments.updateComment(organizationId, id, changes);
      if (!updated) throw notFound('Comment');
      if (added.length > 0) await notifyMentions(organizationId, updated, added, { kind: row.authorKind, id: row.authorId, name: row.authorName });
      return (await present([updated]))[0]!;
    },

    /** Its author, or an owner or admin of the organisation. */
    async deleteComment(organizationId: string, id: string, caller: CommentCaller) {
      const row = await findComment(organizationId, id);
      const admin = caller.kind === 'user' && (caller.role === 'owner' || caller.role === 'admin');
      if (!isAuthor(row, caller) && !admin) throw new AppError('FORBIDDEN', 'Only the author of a comment, or an owner or admin, may delete it');
      await comments.updateComment(organizationId, id, { deletedAt: now() });
      return { id, deleted: true as const };
    },

    /** The group a comment belongs to (undefined when there is no such comment): the sandbox scope checks it. */
    async groupOf(organizationId: string, id: string) {
      return isUuid(id) ? (await comments.findComment(organizationId, id))?.group : undefined;
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
