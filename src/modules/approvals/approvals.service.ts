import { AppError, notFound, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../lib/mailer.js';
import type { Tx } from '../../db/client.js';
import type { ApprovalRuleRow, ApprovalStatus, MemberRole } from '../../db/schema/index.js';
import type { PostRow } from '../posts/posts.repository.js';
import { currentActor, type Actor } from '../../core/actor.js';
import { excerpt, NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import type { ApprovalEventChannel, ApprovalGate, ApprovalHold, ApprovalRuleRef } from '../../core/approval-gate.js';
import { emitEvent, emitPostScheduled, postEventPayload } from '../../core/events/events.js';
import type { PublishQueue } from '../../core/queues.js';
import { parseInstant } from '../posts/posts.schemas.js';
import type { PostsRepository } from '../posts/posts.repository.js';
import type { ApprovalsRepository } from './approvals.repository.js';
import type { ApprovalRuleOut, CreateApprovalRuleBody, UpdateApprovalRuleBody } from './approvals.schemas.js';

/**
 * Who decides: the request's own actor (checked against the rule), or a client through a preview
 * link that allows it (the link was checked by the previews module; recorded under the name given).
 */
export type Approver = { kind: 'caller' } | { kind: 'preview_link'; linkId: string; name: string };

type Logger = { warn(obj: unknown, msg: string): void };

const OPEN: ApprovalStatus[] = ['pending_approval', 'changes_requested'];
const DEFAULT_ROLES: MemberRole[] = ['owner', 'admin'];

export interface ApprovalsServiceDeps {
  repo: ApprovalsRepository;
  posts: Pick<PostsRepository, 'lockGroup' | 'updateRow' | 'transaction'>;
  queue: PublishQueue;
  clock: Clock;
  /** PLAN_LIMIT_REACHED when `adding` more queued posts in `date`'s month pass the plan (the posts service's check) */
  checkPlan: (organizationId: string, date: Date, adding: number, tx: Tx) => Promise<void>;
  activity?: ActivityRecorder;
  notifyMember: (organizationId: string, userId: string, content: string, link: string) => Promise<unknown>;
  /** writes a note into a post group's comment thread (a request for changes, a decision's comment) */
  commentNote: (organizationId: string, group: string, author: { kind: Actor['kind']; id: string | null; name: string }, body: string) => Promise<unknown>;
  /** forget a cached API key (its exemption changed) */
  forgetCredential?: (id: string) => void;
  /** set only when mail really leaves (SMTP configured) */
  mailer?: Mailer;
  publicUrl: string;
  logger?: Logger;
}

/** The most specific rule of a channel: its own, else its client group's, else the organisation's. */
export function ruleOf(rules: ApprovalRuleRow[], channel: { id: string; customerId: string | null }): ApprovalRuleRow | undefined {
  return (
    rules.find((r) => r.scope === 'channel' && r.scopeId === channel.id) ??
    (channel.customerId ? rules.find((r) => r.scope === 'customer' && r.scopeId === channel.customerId) : undefined) ??
    rules.find((r) => r.scope === 'organization')
  );
}

/** Whether `actor` approves posts a rule (or, with none, the contributor role) holds: the rule's roles and named people; owners and admins when no rule names any; an exempt key. */
export function approves(rule: ApprovalRuleRow | undefined, actor: Actor): boolean {
  if (actor.approvalExempt === true && actor.credential?.kind === 'api_key') return true;
  if (actor.kind !== 'user' || !actor.role || actor.role === 'contributor') return false;
  if (!rule) return DEFAULT_ROLES.includes(actor.role);
  return rule.approverRoles.includes(actor.role) || (actor.id !== null && rule.approverUserIds.includes(actor.id));
}

/** Whether `actor` must ask before a post on a channel under `rule` is queued. */
export function mustAsk(rule: ApprovalRuleRow | undefined, actor: Actor): boolean {
  if (actor.kind === 'user' && actor.role === 'contributor') return true;
  return rule !== undefined && !approves(rule, actor);
}

const ref = (rule: ApprovalRuleRow | undefined): ApprovalRuleRef | null => (rule ? { id: rule.id, name: rule.name } : null);

function holdMessage(rule: ApprovalRuleRow | undefined, channel: { name: string }, actor: Actor) {
  const how = 'create it as a draft and submit it for approval (POST /posts/group/{group}/submit)';
  if (!rule) return `As a contributor you cannot queue posts on "${channel.name}": ${how}`;
  const who = actor.kind === 'api_key' ? ' (an owner can exempt this API key)' : '';
  return `Posts on "${channel.name}" need approval (rule "${rule.name}")${who}: ${how}`;
}

function ruleOut(r: ApprovalRuleRow): ApprovalRuleOut {
  return {
    id: r.id,
    name: r.name,
    scope: r.scope,
    scopeId: r.scopeId,
    approverRoles: r.approverRoles as ApprovalRuleOut['approverRoles'],
    approverUserIds: r.approverUserIds,
    reapproveOnEdit: r.reapproveOnEdit,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** Approval rules, the gate the posts service asks, the approval queue and its decisions (issue 31). */
export function createApprovalsService(deps: ApprovalsServiceDeps) {
  const { repo, clock } = deps;
  let mailer = deps.mailer;
  const activity = deps.activity ?? NO_ACTIVITY;
  const now = () => new Date(clock.now());

  function requireRuleManager(actor: Actor) {
    if (actor.kind !== 'user' || (actor.role !== 'owner' && actor.role !== 'admin')) {
      throw new AppError('FORBIDDEN', 'Only owners and admins of the organisation manage approval rules, from the web app');
    }
  }

  async function checkRuleTargets(organizationId: string, body: { scope?: string; scopeId?: string; approverUserIds?: string[] }) {
    if (body.scope === 'organization' && body.scopeId !== undefined) throw validationError([{ path: 'scopeId', message: 'An organisation rule has no scopeId' }]);
    if (body.scope === 'channel' && !(body.scopeId && (await repo.channelExists(organizationId, body.scopeId)))) {
      throw validationError([{ path: 'scopeId', message: 'No channel with this id in your organisation' }]);
    }
    if (body.scope === 'customer' && !(body.scopeId && (await repo.customerExists(organizationId, body.scopeId)))) {
      throw validationError([{ path: 'scopeId', message: 'No client group (customer) with this id in your organisation' }]);
    }
    if (body.approverUserIds?.length) {
      const members = new Set((await repo.membersAmong(organizationId, body.approverUserIds)).map((m) => m.userId));
      const bad = body.approverUserIds.findIndex((id) => !members.has(id));
      if (bad >= 0) throw validationError([{ path: `approverUserIds.${bad}`, message: 'Not a member of your organisation' }]);
    }
  }

  /** A notification (and a mail when SMTP is set) for each person, after the change committed. */
  async function tell(organizationId: string, people: { id: string; email: string }[], content: string, link: string) {
    for (const p of people) {
      await deps.notifyMember(organizationId, p.id, content, link);
      if (mailer) {
        mailer
          .send({ to: p.email, subject: content.length > 90 ? `${content.slice(0, 89)}…` : content, text: `${content}\n\n${deps.publicUrl}${link}\n` })
          .catch((err: unknown) => deps.logger?.warn({ err, organizationId }, 'An approval mail could not be sent'));
      }
    }
  }

  async function approversOf(organizationId: string, rule: ApprovalRuleRow | undefined, except: string | null) {
    const people = await repo.approvers(organizationId, (rule?.approverRoles as MemberRole[] | undefined) ?? DEFAULT_ROLES, rule?.approverUserIds ?? []);
    return people.filter((p) => p.id !== except && p.role !== 'contributor');
  }

  /** The person who submitted a post (when a person did), to hear of the decision. */
  async function requester(root: PostRow) {
    const by = root.approvalRequestedBy;
    return by?.kind === 'user' && by.id ? repo.user(by.id) : undefined;
  }

  /** Who hears of a decision: the submitter, unless they decided themselves (read after commit: one connection on PGlite). */
  async function requesters(root: PostRow, actor: Actor) {
    const who = await requester(root);
    return who && !(actor.kind === 'user' && actor.id === who.id) ? [who] : [];
  }

  /** Events, activity and (returned, to run after commit) notifications for posts that entered `pending_approval` (their rows already say so). */
  async function recordSubmitted(tx: Tx, organizationId: string, entries: { root: PostRow; channel: ApprovalEventChannel }[], at: Date, comment: string | null) {
    const actor = currentActor();
    const first = entries[0];
    if (!first) return async () => undefined;
    const rules = await repo.listRules(organizationId, tx);
    const rule = rules.find((r) => r.id === first.root.approvalRuleId);
    for (const e of entries) {
      const own = rules.find((r) => r.id === e.root.approvalRuleId);
      await emitEvent(tx, organizationId, 'post.approval_requested', { ...postEventPayload(e.root, e.channel), publishDate: e.root.publishDate.toISOString(), rule: ref(own), requestedBy: actor.name, comment }, at);
    }
    await activity.record(
      { organizationId, action: 'post.submitted', targetKind: 'post', targetId: first.root.id, targetName: excerpt(first.root.content), details: { group: first.root.group, channels: entries.map((e) => e.channel.id), rule: rule?.name ?? null } },
      tx,
    );
    return async () => {
      const people = await approversOf(organizationId, rule, actor.kind === 'user' ? actor.id : null);
      await tell(organizationId, people, `${actor.name} asks for approval of “${excerpt(first.root.content, 60) ?? 'a post'}” on ${entries.map((e) => e.channel.name).join(', ')}`, `/posts/${first.root.id}`);
    };
  }

  function pendingColumns(ruleId: string | null, at: Date) {
    const actor = currentActor();
    return {
      state: 'DRAFT' as const,
      approval: 'pending_approval' as const,
      approvalRuleId: ruleId,
      approvalRequestedBy: { kind: actor.kind, id: actor.id, name: actor.name },
      approvalRequestedAt: at,
      approvalDecidedBy: null,
      approvalDecidedAt: null,
    };
  }

  /** The open roots of a group, locked with their items; NOT_FOUND when the group has no live post. */
  async function lockGroup(tx: Tx, organizationId: string, group: string) {
    const rows = await deps.posts.lockGroup(tx, organizationId, group);
    if (rows.length === 0) throw notFound(`Post group ${group}`);
    const roots = rows.filter((r) => r.parentPostId === null);
    const channels = new Map((await repo.channels(organizationId, roots.map((r) => r.integrationId), tx)).map((c) => [c.id, c]));
    const rules = await repo.listRules(organizationId, tx);
    return { rows, roots, channels, rules };
  }

  function notAwaiting(roots: PostRow[]) {
    const states = [...new Set(roots.map((r) => (r.approval === 'approved' ? 'approved' : r.state.toLowerCase())))].join(', ');
    return new AppError('CONFLICT', `This post is not awaiting approval (it is ${states})`);
  }

  const gate: ApprovalGate = {
    async holds(organizationId, channels, tx) {
      const out = new Map<string, ApprovalHold>();
      if (channels.length === 0) return out;
      const actor = currentActor();
      const rules = await repo.listRules(organizationId, tx);
      if (rules.length === 0 && actor.role !== 'contributor') return out;
      for (const c of channels) {
        const rule = ruleOf(rules, c);
        if (mustAsk(rule, actor)) out.set(c.id, { rule: ref(rule), reapproveOnEdit: rule?.reapproveOnEdit ?? true, message: holdMessage(rule, c, actor) });
      }
      return out;
    },
    submitted: recordSubmitted,
    pendingColumns,
  };

  return {
    gate,

    /** Mail leaves too (SMTP configured; the mailer is made after this service). */
    setMailer(m: Mailer) {
      mailer = m;
    },

    async listRules(organizationId: string) {
      return { rules: (await repo.listRules(organizationId)).map(ruleOut) };
    },

    async createRule(organizationId: string, body: CreateApprovalRuleBody) {
      requireRuleManager(currentActor());
      await checkRuleTargets(organizationId, body);
      const at = now();
      const row = await repo.insertRule({
        organizationId,
        name: body.name,
        scope: body.scope,
        scopeId: body.scope === 'organization' ? null : body.scopeId!,
        approverRoles: body.approverRoles ?? DEFAULT_ROLES,
        approverUserIds: [...new Set(body.approverUserIds ?? [])],
        reapproveOnEdit: body.reapproveOnEdit ?? true,
        createdAt: at,
        updatedAt: at,
      });
      if (!row) throw new AppError('CONFLICT', body.scope === 'organization' ? 'The organisation already has a rule: edit it' : `This ${body.scope === 'channel' ? 'channel' : 'client group'} already has a rule: edit it`);
      if (row.approverRoles.length === 0 && row.approverUserIds.length === 0) {
        await repo.deleteRule(organizationId, row.id);
        throw validationError([{ path: 'approverRoles', message: 'A rule needs at least one approver role or named approver' }]);
      }
      await activity.record({ organizationId, action: 'approval_rule.created', targetKind: 'approval_rule', targetId: row.id, targetName: row.name, details: { scope: row.scope, scopeId: row.scopeId } });
      return ruleOut(row);
    },

    async updateRule(organizationId: string, id: string, body: UpdateApprovalRuleBody) {
      requireRuleManager(currentActor());
      const existing = await repo.findRule(organizationId, id);
      if (!existing) throw notFound(`Approval rule ${id}`);
      await checkRuleTargets(organizationId, { approverUserIds: body.approverUserIds });
      const roles = body.approverRoles ?? existing.approverRoles;
      const named = body.approverUserIds ?? existing.approverUserIds;
      if (roles.length === 0 && named.length === 0) throw validationError([{ path: 'approverRoles', message: 'A rule needs at least one approver role or named approver' }]);
      const row = await repo.updateRule(organizationId, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        approverRoles: roles,
        approverUserIds: [...new Set(named)],
        ...(body.reapproveOnEdit !== undefined ? { reapproveOnEdit: body.reapproveOnEdit } : {}),
        updatedAt: now(),
      });
      if (!row) throw notFound(`Approval rule ${id}`);
      await activity.record({ organizationId, action: 'approval_rule.updated', targetKind: 'approval_rule', targetId: row.id, targetName: row.name });
      return ruleOut(row);
    },

    async deleteRule(organizationId: string, id: string) {
      requireRuleManager(currentActor());
      const row = await repo.deleteRule(organizationId, id);
      if (!row) throw notFound(`Approval rule ${id}`);
      await activity.record({ organizationId, action: 'approval_rule.deleted', targetKind: 'approval_rule', targetId: row.id, targetName: row.name });
    },

    /** What the composer asks before it offers "Add to calendar" or "Submit for approval". */
    async check(organizationId: string, integrationIds: string[]) {
      const actor = currentActor();
      const channels = await repo.channels(organizationId, integrationIds);
      if (channels.length !== new Set(integrationIds).size) {
        throw validationError([{ path: 'integrations', message: 'No channel with one of these ids in your organisation' }]);
      }
      const rules = await repo.listRules(organizationId);
      const held = channels.map((c) => ({ c, rule: ruleOf(rules, c) })).filter((x) => mustAsk(x.rule, actor));
      return {
        required: held.length > 0,
        rule: ref(held.find((h) => h.rule)?.rule),
        canApprove: channels.every((c) => approves(ruleOf(rules, c), actor)),
        canSchedule: held.length === 0,
      };
    },

    /** Whether the current actor approves posts on every channel of a list (a preview link that lets its holder approve needs this). */
    async canApproveAll(organizationId: string, integrationIds: string[]) {
      const actor = currentActor();
      const rules = await repo.listRules(organizationId);
      const channels = await repo.channels(organizationId, integrationIds);
      return channels.every((c) => approves(ruleOf(rules, c), actor));
    },

    /** Post groups awaiting a decision, with whether the caller may decide each. */
    async list(organizationId: string, status: 'pending_approval' | 'changes_requested' | 'all' = 'all') {
      const actor = currentActor();
      const rows = await repo.openRoots(organizationId, status === 'all' ? OPEN : [status]);
      const rules = await repo.listRules(organizationId);
      const groups = new Map<string, typeof rows>();
      for (const r of rows) groups.set(r.post.group, [...(groups.get(r.post.group) ?? []), r]);
      return {
        groups: [...groups.entries()].map(([group, members]) => {
          const first = members[0]!.post;
          const rule = rules.find((r) => r.id === first.approvalRuleId);
          return {
            group,
            status: first.approval as 'pending_approval' | 'changes_requested',
            publishDate: first.publishDate.toISOString(),
            rule: ref(rule),
            requestedBy: first.approvalRequestedBy?.name ?? null,
            requestedAt: first.approvalRequestedAt?.toISOString() ?? null,
            decidedBy: first.approvalDecidedBy,
            decidedAt: first.approvalDecidedAt?.toISOString() ?? null,
            canApprove: members.every((m) => approves(ruleOf(rules, m.integration), actor)),
            posts: members.map((m) => ({ id: m.post.id, integration: { id: m.integration.id, name: m.integration.name, identifier: m.integration.identifier, picture: m.integration.picture }, content: m.post.content, image: m.post.image, state: m.post.state })),
          };
        }),
      };
    },

    /** A draft group (or one with changes requested) goes to the approvers. */
    async submit(organizationId: string, group: string, input: { comment?: string }) {
      const at = now();
      let after: (() => Promise<void>) | undefined;
      const out = await repoTransaction(async (tx) => {
        const { roots, channels, rules } = await lockGroup(tx, organizationId, group);
        const bad = roots.filter((r) => r.state !== 'DRAFT' || r.approval === 'pending_approval');
        if (bad.length > 0) {
          const what = bad.some((r) => r.approval === 'pending_approval') ? 'already awaiting approval' : `${bad[0]!.state.toLowerCase()}, not a draft`;
          throw new AppError('CONFLICT', `This post is ${what}: only drafts and posts with changes requested are submitted for approval`);
        }
        const entries = [];
        for (const root of roots) {
          const channel = channels.get(root.integrationId)!;
          const rule = ruleOf(rules, channel);
          const updated = await deps.posts.updateRow(tx, root.id, { ...pendingColumns(rule?.id ?? null, at), updatedAt: at });
          entries.push({ root: updated, channel });
        }
        after = await recordSubmitted(tx, organizationId, entries, at, input.comment ?? null);
        return entries.map((e) => ({ id: e.root.id, state: e.root.state, publishDate: e.root.publishDate.toISOString() }));
      });
      await after?.();
      if (input.comment) await deps.commentNote(organizationId, group, currentActor(), input.comment);
      return { group, status: 'pending_approval' as const, posts: out };
    },

    async approve(organizationId: string, group: string, input: { comment?: string; date?: string }, as: Approver = { kind: 'caller' }) {
      const at = now();
      const actor = currentActor();
      const by = as.kind === 'preview_link' ? `${as.name} (preview link)` : actor.name;
      let newDate: Date | undefined;
      if (input.date !== undefined) {
        const ms = parseInstant(input.date);
        if (Number.isNaN(ms)) throw validationError([{ path: 'date', message: 'Not an ISO 8601 date-time' }]);
        if (ms <= at.getTime()) throw validationError([{ path: 'date', message: 'The new date must be in the future' }]);
        newDate = new Date(ms);
      }
      const due: Date[] = [];
      const out = await repoTransaction(async (tx) => {
        const { rows, roots, channels, rules } = await lockGroup(tx, organizationId, group);
        const open = roots.filter((r) => r.approval !== null && OPEN.includes(r.approval));
        if (open.length === 0) throw notAwaiting(roots);
        if (as.kind === 'caller') {
          for (const root of open) {
            const channel = channels.get(root.integrationId)!;
            const rule = ruleOf(rules, channel);
            if (!approves(rule, actor)) {
              throw new AppError('FORBIDDEN', rule ? `You cannot approve posts on "${channel.name}": rule "${rule.name}" names its approvers` : `Only owners and admins approve posts on "${channel.name}"`);
            }
          }
        }
        const publishDate = newDate ?? open[0]!.publishDate;
        if (!newDate && open.some((r) => r.publishDate.getTime() <= at.getTime())) {
          throw new AppError('CONFLICT', `This post's time (${open[0]!.publishDate.toISOString()}) has passed while it awaited approval: approve it with a new date (field "date")`, {
            fields: [{ path: 'date', message: 'A new publish date is needed' }],
          });
        }
        await deps.checkPlan(organizationId, publishDate, open.length, tx);
        const results = [];
        for (const root of open) {
          const channel = channels.get(root.integrationId)!;
          const rule = rules.find((r) => r.id === root.approvalRuleId) ?? ruleOf(rules, channel);
          const date = newDate ?? root.publishDate;
          const updated = await deps.posts.updateRow(tx, root.id, {
            state: 'QUEUE',
            approval: 'approved',
            approvalDecidedBy: by,
            approvalDecidedAt: at,
            publishDate: date,
            error: null,
            attempts: 0,
            updatedAt: at,
          });
          for (const item of rows.filter((r) => r.parentPostId === root.id)) {
            await deps.posts.updateRow(tx, item.id, { state: 'QUEUE', publishDate: date, error: null, attempts: 0, updatedAt: at });
          }
          const dueAt = new Date(Math.max(date.getTime(), at.getTime()));
          await deps.queue.schedule(tx, root.id, dueAt);
          due.push(dueAt);
          await emitEvent(tx, organizationId, 'post.approved', { ...postEventPayload(updated, channel), publishDate: date.toISOString(), rule: ref(rule), approvedBy: by, comment: input.comment ?? null }, at);
          await emitPostScheduled(tx, updated, channel, dueAt, at);
          results.push({ id: updated.id, state: 'QUEUE', publishDate: date.toISOString() });
        }
        await activity.record(
          { organizationId, action: 'post.approved', targetKind: 'post', targetId: open[0]!.id, targetName: excerpt(open[0]!.content), details: { group, channels: open.map((r) => r.integrationId), publishDate: publishDate.toISOString(), ...(as.kind === 'preview_link' ? { previewLink: as.linkId } : {}) } },
          tx,
        );
        return { results, first: open[0]! };
      });
      for (const d of due) deps.queue.notifyScheduled(d);
      if (input.comment) await deps.commentNote(organizationId, group, as.kind === 'preview_link' ? { kind: 'preview_link', id: as.linkId, name: by } : actor, input.comment);
      await tell(organizationId, await requesters(out.first, actor), `${by} approved “${excerpt(out.first.content, 60) ?? 'your post'}”: it is queued for ${out.results[0]!.publishDate}`, `/posts/${out.first.id}`);
      return { group, status: 'approved' as const, posts: out.results };
    },

    async requestChanges(organizationId: string, group: string, input: { comment: string }, as: Approver = { kind: 'caller' }) {
      const at = now();
      const actor = currentActor();
      const by = as.kind === 'preview_link' ? `${as.name} (preview link)` : actor.name;
      const out = await repoTransaction(async (tx) => {
        const { roots, channels, rules } = await lockGroup(tx, organizationId, group);
        const open = roots.filter((r) => r.approval === 'pending_approval');
        if (open.length === 0) {
          if (roots.some((r) => r.approval === 'changes_requested')) throw new AppError('CONFLICT', 'Changes were already requested on this post: the writer submits it again when it is fixed');
          throw notAwaiting(roots);
        }
        if (as.kind === 'caller') {
          for (const root of open) {
            const channel = channels.get(root.integrationId)!;
            const rule = ruleOf(rules, channel);
            if (!approves(rule, actor)) throw new AppError('FORBIDDEN', rule ? `You cannot decide on posts on "${channel.name}": rule "${rule.name}" names its approvers` : `Only owners and admins decide on posts on "${channel.name}"`);
          }
        }
        const results = [];
        for (const root of open) {
          const channel = channels.get(root.integrationId)!;
          const rule = rules.find((r) => r.id === root.approvalRuleId) ?? ruleOf(rules, channel);
          const updated = await deps.posts.updateRow(tx, root.id, { approval: 'changes_requested', approvalDecidedBy: by, approvalDecidedAt: at, updatedAt: at });
          await emitEvent(tx, organizationId, 'post.changes_requested', { ...postEventPayload(updated, channel), publishDate: updated.publishDate.toISOString(), rule: ref(rule), requestedBy: by, comment: input.comment }, at);
          results.push({ id: updated.id, state: updated.state, publishDate: updated.publishDate.toISOString() });
        }
        await activity.record(
          { organizationId, action: 'post.changes_requested', targetKind: 'post', targetId: open[0]!.id, targetName: excerpt(open[0]!.content), details: { group, comment: excerpt(input.comment, 200), ...(as.kind === 'preview_link' ? { previewLink: as.linkId } : {}) } },
          tx,
        );
        return { results, first: open[0]! };
      });
      await deps.commentNote(organizationId, group, as.kind === 'preview_link' ? { kind: 'preview_link', id: as.linkId, name: by } : actor, input.comment);
      await tell(organizationId, await requesters(out.first, actor), `${by} asked for changes to “${excerpt(out.first.content, 60) ?? 'your post'}”: ${excerpt(input.comment, 120)}`, `/posts/${out.first.id}`);
      return { group, status: 'changes_requested' as const, posts: out.results };
    },

    /** An owner exempts an API key from approval rules (or not). */
    async setKeyExempt(organizationId: string, id: string, exempt: boolean) {
      const actor = currentActor();
      if (actor.kind !== 'user' || actor.role !== 'owner') throw new AppError('FORBIDDEN', 'Only an owner exempts API keys from approval, from the web app');
      const row = await repo.setKeyExempt(organizationId, id, exempt);
      if (!row) throw notFound(`API key ${id}`);
      deps.forgetCredential?.(row.id);
      await activity.record({ organizationId, action: exempt ? 'api_key.approval_exempted' : 'api_key.approval_required', targetKind: 'api_key', targetId: row.id, targetName: row.name });
      return row;
    },

    /**
     * Posts whose time came while they awaited approval: not published (they are drafts); each is
     * reported once per date — `post.approval_expired`, and a notification to its approvers.
     */
    async sweepExpired(limit = 200) {
      const at = now();
      const told: (() => Promise<void>)[] = [];
      const found = await repoTransaction(async (tx) => {
        const rows = await repo.lockExpired(tx, at, limit);
        // the channels and rules of each organisation found, read once
        const orgs = new Map<string, { channels: Map<string, { id: string; name: string; identifier: string; sandbox: boolean }>; rules: ApprovalRuleRow[] }>();
        for (const organizationId of new Set(rows.map((r) => r.organizationId))) {
          const ids = rows.filter((r) => r.organizationId === organizationId).map((r) => r.integrationId);
          orgs.set(organizationId, { channels: new Map((await repo.channels(organizationId, ids, tx)).map((c) => [c.id, c])), rules: await repo.listRules(organizationId, tx) });
        }
        for (const root of rows) {
          const org = orgs.get(root.organizationId)!;
          const channel = org.channels.get(root.integrationId);
          await deps.posts.updateRow(tx, root.id, { approvalReportedFor: root.publishDate });
          await emitEvent(tx, root.organizationId, 'post.approval_expired', { ...postEventPayload(root, channel), publishDate: root.publishDate.toISOString(), status: root.approval, detectedAt: at.toISOString() }, at);
          const rule = org.rules.find((r) => r.id === root.approvalRuleId);
          told.push(async () => {
            const people = await approversOf(root.organizationId, rule, null);
            const submitter = await requester(root);
            if (submitter && !people.some((p) => p.id === submitter.id)) people.push({ ...submitter, role: 'member' });
            await tell(root.organizationId, people, `“${excerpt(root.content, 60) ?? 'A post'}” on ${channel?.name ?? 'a channel'} was not published: its time (${root.publishDate.toISOString()}) came while it awaited approval`, `/posts/${root.id}`);
          });
        }
        return rows.length;
      });
      for (const t of told) await t().catch((err: unknown) => deps.logger?.warn({ err }, 'An approval expiry notice could not be sent'));
      return found;
    },
  };

  function repoTransaction<T>(fn: (tx: Tx) => Promise<T>) {
    return deps.posts.transaction(fn);
  }
}

export type ApprovalsService = ReturnType<typeof createApprovalsService>;
