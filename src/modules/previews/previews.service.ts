import { randomBytes } from 'node:crypto';
import { NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import { currentActor, runAsActor } from '../../core/actor.js';
import type { PreviewLinkRow } from '../../db/schema/index.js';
import { AppError, fieldError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { hashCredential } from '../../lib/tokens.js';
import type { FailureThrottle } from '../../rate-limit/failure-throttle.js';
import { parseInstant } from '../posts/posts.schemas.js';
import { hashPreviewPassword, verifyPreviewPassword } from './previews.password.js';
import type { PreviewPostRow, PreviewsRepository } from './previews.repository.js';
import {
  MAX_RANGE_DAYS,
  type CreatePreviewLinkBody,
  type PreviewApproveBody,
  type PreviewLink,
  type PreviewRequestChangesBody,
  type PreviewStatus,
  type PreviewView,
} from './previews.schemas.js';

/** Preview tokens: `tdp_` and 32 random bytes (base64url). Only their SHA-256 is stored. */
export const PREVIEW_TOKEN_PREFIX = 'tdp_';
export const newPreviewToken = () => PREVIEW_TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** Who decides through a link, as the approvals service knows them. */
export interface PreviewApprover {
  kind: 'preview_link';
  linkId: string;
  name: string;
}

/** The part of the approvals service (`modules/approvals`) a link's holder reaches. */
export interface PreviewApprovals {
  approve(organizationId: string, group: string, input: { comment?: string }, as: PreviewApprover): Promise<unknown>;
  requestChanges(organizationId: string, group: string, input: { comment: string }, as: PreviewApprover): Promise<unknown>;
}

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** `last_viewed_at` is written at most this often per link (each view need not be a write). */
const VIEW_TOUCH_MS = 60_000;

const iso = (d: Date | null) => d?.toISOString() ?? null;

function statusOfLink(row: PreviewLinkRow, now: number): PreviewLink['status'] {
  if (row.revokedAt) return 'revoked';
  return row.expiresAt.getTime() <= now ? 'expired' : 'active';
}

function toLink(row: PreviewLinkRow, now: number): PreviewLink {
  return {
    id: row.id,
    kind: row.kind,
    group: row.group,
    from: iso(row.fromDate),
    to: iso(row.toDate),
    customerId: row.customerId,
    title: row.title,
    allowApproval: row.allowApproval,
    hasPassword: row.passwordHash !== null,
    expiresAt: row.expiresAt.toISOString(),
    revokedAt: iso(row.revokedAt),
    createdBy: row.createdByName,
    createdAt: row.createdAt.toISOString(),
    lastViewedAt: iso(row.lastViewedAt),
    status: statusOfLink(row, now),
  };
}

/** What the viewer reads about a group: its approval while one is open, else where its posts are. */
function statusOfGroup(roots: PreviewPostRow[]): PreviewStatus {
  const approval = roots.find((r) => r.approval !== null)?.approval ?? null;
  if (approval === 'pending_approval' || approval === 'changes_requested') return approval;
  const states = roots.map((r) => r.state);
  if (states.includes('ERROR')) return 'error';
  if (states.includes('QUEUE')) return approval === 'approved' ? 'approved' : 'scheduled';
  if (states.includes('PUBLISHED')) return 'published';
  return approval === 'approved' ? 'approved' : 'draft';
}

/** Platform settings as the preview shows them: the service's own keys (`__type`…) left out. */
function publicSettings(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([k]) => !k.startsWith('__')));
}

function mediaOf(row: PreviewPostRow) {
  return row.image.map((m) => ({
    path: m.path,
    type: m.type ?? (m.mimeType?.startsWith('video/') ? ('video' as const) : ('image' as const)),
    thumbnail: m.thumbnail ?? null,
    alt: m.alt ?? null,
  }));
}

/** The rows of a link grouped as the page shows them: groups by time, each channel's post with its thread. */
function groupsOf(rows: PreviewPostRow[]): PreviewView['groups'] {
  const items = new Map<string, PreviewPostRow[]>();
  for (const r of rows) {
    if (r.parentPostId === null) continue;
    items.set(r.parentPostId, [...(items.get(r.parentPostId) ?? []), r]);
  }
  const byGroup = new Map<string, PreviewPostRow[]>();
  for (const r of rows) if (r.parentPostId === null) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r]);
  return [...byGroup.entries()]
    .map(([group, roots]) => ({
      group,
      publishDate: new Date(Math.min(...roots.map((r) => r.publishDate.getTime()))).toISOString(),
      status: statusOfGroup(roots),
      posts: roots.map((root) => ({
        channel: { name: root.channelName, identifier: root.channelIdentifier, picture: root.channelPicture },
        items: [root, ...(items.get(root.id) ?? []).sort((a, b) => a.position - b.position)].map((r, i) => ({ content: r.content, image: mediaOf(r), delay: i === 0 ? 0 : r.delay })),
        settings: publicSettings(root.settings),
      })),
    }))
    .sort((a, b) => a.publishDate.localeCompare(b.publishDate) || a.group.localeCompare(b.group));
}

/**
 * What a person typed, as the header carries it: as sent, and (when it differs) percent-decoded
 * (the web page encodes, since a header cannot carry characters outside Latin-1) or read as the
 * UTF-8 bytes a command-line client sends.
 */
function passwordCandidates(header: string): string[] {
  const out = [header];
  if (/[^\x20-\x7e]/.test(header)) out.push(Buffer.from(header, 'latin1').toString('utf8'));
  if (header.includes('%')) {
    try {
      out.push(decodeURIComponent(header));
    } catch {
      // not percent-encoded: the raw value alone
    }
  }
  return [...new Set(out)];
}

/**
 * Client preview links (issue 31): a link that shows one post group, or the posts of a date range,
 * to someone without an account, and (when `allowApproval`) lets them approve or ask for changes by
 * name. The token is the credential: anything wrong with it (unknown, altered, expired, revoked) is
 * NOT_FOUND, never FORBIDDEN, so a holder learns nothing about links that are not theirs.
 */
export function createPreviewsService(deps: {
  previews: PreviewsRepository;
  clock: Clock;
  /** the service's address: links are `<publicUrl>/preview/<token>` */
  publicUrl: string;
  /** wrong passwords per link (e.g. 10 per 15 minutes) */
  passwordThrottle: FailureThrottle;
  approvals: PreviewApprovals;
  /** whether the current actor approves posts on every one of these channels (the approvals service's rules) */
  canApproveAll(organizationId: string, integrationIds: string[]): Promise<boolean>;
  activity?: ActivityRecorder;
}) {
  const { previews, clock } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;
  const base = deps.publicUrl.replace(/\/+$/, '');

  const describeTarget = (row: PreviewLinkRow) =>
    row.title || (row.kind === 'group' ? `Post group ${row.group}` : `Posts ${row.fromDate?.toISOString().slice(0, 10)} – ${row.toDate?.toISOString().slice(0, 10)}`);

  async function targetOf(organizationId: string, target: CreatePreviewLinkBody['target']) {
    if (target.kind === 'group') {
      if (!(await previews.hasLiveGroup(organizationId, target.group))) throw fieldError('target.group', 'No post of the organisation in this group');
      return { kind: 'group' as const, group: target.group, fromDate: null, toDate: null, customerId: null };
    }
    const from = parseInstant(target.from);
    const to = parseInstant(target.to);
    if (to <= from) throw fieldError('target.to', 'Must be after target.from');
    if (to - from > MAX_RANGE_DAYS * DAY_MS) throw fieldError('target.to', `At most ${MAX_RANGE_DAYS} days after target.from`);
    const customerId = target.customerId ?? null;
    if (customerId !== null && !(isUuid(customerId) && (await previews.hasCustomer(organizationId, customerId)))) {
      throw fieldError('target.customerId', 'No client group of the organisation with this id (GET /groups)');
    }
    return { kind: 'range' as const, group: null, fromDate: new Date(from), toDate: new Date(to), customerId };
  }

  function postsOf(row: PreviewLinkRow) {
    if (row.kind === 'group') return previews.postsOfGroup(row.organizationId, row.group ?? '');
    return previews.postsInRange(row.organizationId, row.fromDate!, row.toDate!, row.customerId);
  }

  const throttled = (wait: number) => {
    const minutes = Math.ceil(wait / 60);
    return new AppError('LOGIN_THROTTLED', `Too many wrong passwords for this link; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`, { headers: { 'retry-after': String(wait) } });
  };

  /** The link a token opens (its password checked), or NOT_FOUND / PREVIEW_PASSWORD_REQUIRED. */
  async function openLink(token: string, password: string | undefined): Promise<PreviewLinkRow> {
    const row = token.startsWith(PREVIEW_TOKEN_PREFIX) ? await previews.findByTokenHash(hashCredential(token)) : undefined;
    if (!row || row.revokedAt !== null || row.expiresAt.getTime() <= clock.now()) throw notFound('Preview link');
    if (row.passwordHash === null) return row;
    if (password === undefined || password === '') throw new AppError('PREVIEW_PASSWORD_REQUIRED', 'This preview link asks for a password (send it in X-Preview-Password)');
    const keys = [`preview-password:${row.id}`];
    const wait = await deps.passwordThrottle.waitSeconds(keys);
    if (wait > 0) throw throttled(wait);
    for (const candidate of passwordCandidates(password)) {
      if (await verifyPreviewPassword(row.passwordHash, candidate)) return row;
    }
    await deps.passwordThrottle.recordFailure(keys);
    throw new AppError('PREVIEW_PASSWORD_REQUIRED', 'The password is not right');
  }

  async function decide(token: string, password: string | undefined, group: string, decision: { kind: 'approve'; body: PreviewApproveBody } | { kind: 'request-changes'; body: PreviewRequestChangesBody }) {
    const row = await openLink(token, password);
    if (!row.allowApproval) throw new AppError('FORBIDDEN', 'This preview link lets you look only: approving and requesting changes are not allowed through it');
    if (!(await postsOf(row)).some((r) => r.group === group)) throw notFound('Post group');
    const as: PreviewApprover = { kind: 'preview_link', linkId: row.id, name: decision.body.name };
    // The approvals service records the decision as the current actor: the named viewer, through this link.
    await runAsActor({ kind: 'preview_link', id: row.id, name: `${decision.body.name} (preview link)` }, () =>
      decision.kind === 'approve'
        ? deps.approvals.approve(row.organizationId, group, decision.body.comment ? { comment: decision.body.comment } : {}, as)
        : deps.approvals.requestChanges(row.organizationId, group, { comment: decision.body.comment }, as),
    );
    const after = groupsOf((await postsOf(row)).filter((r) => r.group === group))[0];
    if (!after) throw notFound('Post group');
    return { group, status: after.status };
  }

  return {
    /**
     * A new link; the token is in `url` and shown this once. A link that approves needs a caller who
     * approves posts on every channel it can show: the group's, or (a range) every channel of the
     * organisation or of the client group, since posts made later show there too.
     */
    async createLink(organizationId: string, input: CreatePreviewLinkBody) {
      const target = await targetOf(organizationId, input.target);
      if (input.allowApproval) {
        const channels = target.kind === 'group' ? await previews.channelsOfGroup(organizationId, target.group) : await previews.channelsOf(organizationId, target.customerId);
        // (no channel yet: nobody can be shown to approve the posts a range link will show later)
        if (channels.length === 0 || !(await deps.canApproveAll(organizationId, channels))) {
          throw new AppError('FORBIDDEN', 'Only someone who may approve these posts (an owner or admin, an approver named in their rule, or an exempt API key) can let a preview link approve');
        }
      }
      const token = newPreviewToken();
      const now = clock.now();
      const row = await previews.insertLink({
        organizationId,
        tokenHash: hashCredential(token),
        ...target,
        title: input.title ?? '',
        allowApproval: input.allowApproval,
        passwordHash: input.password === undefined ? null : await hashPreviewPassword(input.password),
        expiresAt: new Date(now + input.expiresInHours * HOUR_MS),
        createdByName: currentActor().name,
        createdAt: new Date(now),
      });
      await activity.record({
        organizationId,
        action: 'preview_link.created',
        targetKind: 'preview_link',
        targetId: row.id,
        targetName: describeTarget(row),
        details: { kind: row.kind, group: row.group, from: iso(row.fromDate), to: iso(row.toDate), customerId: row.customerId, allowApproval: row.allowApproval, protected: row.passwordHash !== null, expiresAt: row.expiresAt.toISOString() },
      });
      return { link: toLink(row, now), url: `${base}/preview/${token}` };
    },

    async listLinks(organizationId: string, group?: string) {
      const now = clock.now();
      return { links: (await previews.listLinks(organizationId, group)).map((r) => toLink(r, now)) };
    },

    /** Revokes a link (it shows nothing from now on); revoking a revoked link changes nothing. */
    async revokeLink(organizationId: string, id: string): Promise<void> {
      const row = isUuid(id) ? await previews.findLink(organizationId, id) : undefined;
      if (!row) throw notFound('Preview link');
      const revoked = await previews.revokeLink(organizationId, id, new Date(clock.now()));
      if (revoked) await activity.record({ organizationId, action: 'preview_link.revoked', targetKind: 'preview_link', targetId: id, targetName: describeTarget(revoked) });
    },

    /** What the token's holder sees: the link's posts, nothing else. */
    async view(token: string, password: string | undefined): Promise<PreviewView> {
      const row = await openLink(token, password);
      const now = clock.now();
      if (row.lastViewedAt === null || now - row.lastViewedAt.getTime() >= VIEW_TOUCH_MS) await previews.touchViewed(row.id, new Date(now));
      return {
        link: { title: row.title, expiresAt: row.expiresAt.toISOString(), allowApproval: row.allowApproval },
        organization: { name: (await previews.organizationName(row.organizationId)) ?? '' },
        groups: groupsOf(await postsOf(row)),
      };
    },

    approve(token: string, password: string | undefined, group: string, body: PreviewApproveBody) {
      return decide(token, password, group, { kind: 'approve', body });
    },

    requestChanges(token: string, password: string | undefined, group: string, body: PreviewRequestChangesBody) {
      return decide(token, password, group, { kind: 'request-changes', body });
    },
  };
}

export type PreviewsService = ReturnType<typeof createPreviewsService>;
