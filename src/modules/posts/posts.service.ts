import { createHash, randomUUID } from 'node:crypto';
import { AppError, notFound, validationError, type FieldError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { isPlatformIdentifier, type PlatformAdapter, type PlatformIdentifier, type PostDraft } from '../../platforms/platform.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import { platformErrorToAppError } from '../../core/channels/platform-errors.js';
import type { PublishQueue } from '../../core/queues.js';
import { excerpt, NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import type { PlansService } from '../plans/plans.service.js';
import { emitEvent, emitPostScheduled, postEventPayload } from '../../core/events/events.js';
import { NO_APPROVALS, type ApprovalGate, type ApprovalHold } from '../../core/approval-gate.js';
import { currentActor } from '../../core/actor.js';
import { normaliseSettings, validatePostForPlatform, type ChannelState, type DraftMedia } from './post-validation.js';
import type { Tx } from '../../db/client.js';
import type { MediaRepository } from '../media/media.repository.js';
import { LIST_LIMIT, type IntegrationRow, type MediaRow, type NewPostRow, type PostRow, type PostsRepository } from './posts.repository.js';
import { MAX_INSTANT_MS, parseInstant, type CreatePostsBody, type PostOut } from './posts.schemas.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

type StoredImage = { id: string; path: string; type?: 'image' | 'video'; mimeType?: string; alt?: string | null; thumbnail?: string | null };

/** How `createPosts` is called: by a front door (`creationMethod`), and what it may do differently. */
export interface CreatePostsOptions {
  idempotencyKey?: string;
  creationMethod: NewPostRow['creationMethod'] & string;
  /** check only: nothing is written (answers status 200 and no body) */
  dryRun?: boolean;
  /** write in the caller's transaction (the caller calls `notifyScheduled(result.scheduled)` after its commit) */
  tx?: Tx;
  /** columns set on every new row (a series' link, an import's id…) */
  rowExtras?: Partial<NewPostRow>;
  /** the caller counted the plan's scheduled-post limit itself (a bulk import counts all its rows at once) */
  skipPlanCheck?: boolean;
  /**
   * A post an approval rule holds (issue 31): `refuse` answers APPROVAL_REQUIRED naming the rule
   * (a person's or a key's request), `submit` writes it awaiting approval (what the service makes
   * on its own: feeds, repeating posts, evergreen, imports). Default `refuse`.
   */
  whenHeld?: 'refuse' | 'submit';
}

export interface PostsServiceDeps {
  posts: PostsRepository;
  /** the media library's rows that posts attach */
  media: Pick<MediaRepository, 'findLive' | 'findByIds'>;
  queue: PublishQueue;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  plans: PlansService;
  access: ChannelAccess;
  clock: Clock;
  /** the activity log (none: nothing recorded) */
  activity?: ActivityRecorder;
  /** approval rules (issue 31; none: every post is queued when asked) */
  approvals?: ApprovalGate;
  /** short links (issue 32): how long the organisation's are, for length checks before they exist (none: URLs count as written) */
  shortLinks?: { sampleShortUrl(organizationId: string, tx?: Tx): Promise<string> };
}

/** Posts: create, edit, list, delete, status and settings changes, readiness (API.md §5, §6). */
export function createPostsService(deps: PostsServiceDeps) {
  const { posts: repo, queue, clock } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;
  const approvals = deps.approvals ?? NO_APPROVALS;
  /** One activity entry about a post (its root row), in the transaction that changes it. */
  const recordPost = (tx: Tx, root: Pick<PostRow, 'id' | 'organizationId' | 'content' | 'group' | 'integrationId'>, action: string, details: Record<string, unknown> = {}) =>
    activity.record({ organizationId: root.organizationId, action, targetKind: 'post', targetId: root.id, targetName: excerpt(root.content), details: { group: root.group, channel: root.integrationId, ...details } }, tx);
  const now = () => new Date(clock.now());

  function adapterFor(identifier: string): PlatformAdapter | undefined {
    return isPlatformIdentifier(identifier) ? deps.adapters[identifier] : undefined;
  }

  function channelState(i: IntegrationRow): ChannelState {
    return { name: i.name, disabled: i.disabled, refreshNeeded: i.refreshNeeded, connected: i.credentials !== null };
  }

  function draftMedia(m: MediaRow): DraftMedia {
    return { type: m.type as 'image' | 'video', mimeType: m.mimeType, size: m.size, width: m.width, height: m.height, duration: m.duration };
  }

  function storedImage(m: MediaRow, ref: { alt?: string; thumbnail?: string }): StoredImage {
    return { id: m.id, path: m.path, type: m.type as 'image' | 'video', mimeType: m.mimeType, alt: ref.alt ?? m.alt, thumbnail: ref.thumbnail ?? m.thumbnail };
  }

  /** Validation issues of a stored tree, as `missing` reports them (paths relative to the post). */
  async function storedIssues(root: PostRow, items: PostRow[], integration: IntegrationRow, tx?: Tx) {
    const adapter = adapterFor(integration.identifier);
    if (!adapter) return [{ path: 'integration.id', code: 'unknown_platform', message: `Unknown platform ${integration.identifier}` }];
    const rows = [root, ...items];
    const mediaIds = rows.flatMap((r) => r.image.map((i) => i.id));
    const found = new Map((await deps.media.findByIds(mediaIds, tx)).map((m) => [m.id, m]));
    const issues = [];
    const draft: PostDraft = { settings: root.settings, items: [] };
    rows.forEach((r, k) => {
      const media: DraftMedia[] = [];
      r.image.forEach((img, j) => {
        const m = found.get(img.id);
        if (!m || m.deletedAt) issues.push({ path: `value.${k}.image.${j}`, code: 'media_missing', message: 'This media item was deleted from the library' });
        else media.push(draftMedia(m));
      });
      draft.items.push({ content: r.content, media });
    });
    const sample = root.shortLink && deps.shortLinks ? await deps.shortLinks.sampleShortUrl(root.organizationId, tx) : undefined;
    issues.push(...validatePostForPlatform(adapter, channelState(integration), draft, sample));
    return issues;
  }

  function listedOut(listed: { roots: { post: PostRow; integration: Parameters<typeof toOut>[2]; inter?: number | null }[]; items: PostRow[] }) {
  const byRoot = new Map<string, PostRow[]>();
  for (const it of listed.items) {
    const list = byRoot.get(it.parentPostId!) ?? [];
    list.push(it);
    byRoot.set(it.parentPostId!, list);
  }
  return listed.roots.map((r) => toOut(r.post, byRoot.get(r.post.id) ?? [], r.integration, r.inter ?? null));
}

function toOut(root: PostRow, items: PostRow[], integration: { id: string; identifier: string; name: string; picture: string | null }, inter: number | null = null): PostOut {
    return {
      seriesId: root.seriesId,
      inter,
      shortLink: root.shortLink,
      id: root.id,
      content: root.content,
      publishDate: root.publishDate.toISOString(),
      releaseURL: root.releaseUrl,
      releaseId: root.releaseId,
      state: root.state,
      intervalInDays: inter,
      group: root.group,
      creationMethod: root.creationMethod,
      settings: root.settings,
      tags: (root.tags as { value?: string; label?: string }[]).map((t) => ({ tag: { id: String(t.value ?? t.label ?? ''), name: String(t.label ?? t.value ?? '') } })),
      integration: { id: integration.id, providerIdentifier: integration.identifier as PlatformIdentifier, name: integration.name, picture: integration.picture },
      image: root.image,
      error: root.error,
      delay: root.delay,
      publishedAt: root.publishedAt?.toISOString() ?? null,
      thread: items.map((r) => ({
        id: r.id,
        content: r.content,
        image: r.image,
        delay: r.delay,
        state: r.state,
        releaseId: r.releaseId,
        releaseURL: r.releaseUrl,
        error: r.error,
        publishedAt: r.publishedAt?.toISOString() ?? null,
      })),
      createdAt: root.createdAt.toISOString(),
      updatedAt: root.updatedAt.toISOString(),
      approval: root.approval
        ? {
            status: root.approval,
            ruleId: root.approvalRuleId,
            requestedBy: root.approvalRequestedBy?.name ?? null,
            requestedAt: root.approvalRequestedAt?.toISOString() ?? null,
            decidedBy: root.approvalDecidedBy,
            decidedAt: root.approvalDecidedAt?.toISOString() ?? null,
          }
        : null,
    };
  }

  /**
   * A contributor (issue 31) moves drafts only: a queued post was approved for its time, and moving
   * it would publish it at another one nobody approved.
   */
  function assertMayMove(roots: PostRow[]) {
    const actor = currentActor();
    if (actor.kind === 'user' && actor.role === 'contributor' && roots.some((r) => r.state === 'QUEUE')) {
      throw new AppError('FORBIDDEN', 'As a contributor you move drafts only: a queued post was approved for its time, so a member or above moves it');
    }
  }

  function inFlight(rows: PostRow[]): PostRow | undefined {
    return rows.find((r) => r.attemptState !== null);
  }

  function conflictInFlight(): AppError {
    return new AppError('CONFLICT', 'This post is being published right now; try again when it has finished');
  }

  /** PLAN_LIMIT_REACHED when `adding` more scheduled posts in the month of `date` pass the plan's limit. */
  async function assertScheduledWithinPlan(organizationId: string, date: Date, adding: number, tx?: Tx) {
    const month = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
    // Capped: after December 9999 comes year 10000, which PostgreSQL does not accept as written.
    const next = new Date(Math.min(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1), MAX_INSTANT_MS));
    await deps.plans.assertWithinLimit(organizationId, 'scheduledPostsPerMonth', () => repo.countScheduledInMonth(organizationId, month, next, tx), adding, tx);
  }

  /** What a request is checked for once its channels and media are read: the field errors go into `fields`. */
  /** A URL as long as the organisation's short links, when any post of `bodies` shortens its links (one read). */
  async function shortLinkSampleFor(organizationId: string, bodies: CreatePostsBody[], tx?: Tx): Promise<string | undefined> {
    const shortens = bodies.some((b) => b.type !== 'draft' && b.posts.some((p) => p.shortLink ?? b.shortLink));
    return shortens && deps.shortLinks ? deps.shortLinks.sampleShortUrl(organizationId, tx) : undefined;
  }

  function checkRequest(body: CreatePostsBody, type: CreatePostsBody['type'], channels: Map<string, IntegrationRow>, mediaRows: MediaRow[], fields: FieldError[], shortLinkSample?: string) {
    body.posts.forEach((p, i) => {
      if (!channels.has(p.integration.id)) fields.push({ path: `posts.${i}.integration.id`, message: 'No channel with this id in your organisation' });
    });
    const seen = new Set<string>();
    body.posts.forEach((p, i) => {
      if (seen.has(p.integration.id)) fields.push({ path: `posts.${i}.integration.id`, message: 'This channel appears twice in the request' });
      seen.add(p.integration.id);
    });

    const byId = new Map(mediaRows.map((m) => [m.id, m]));
    const byPath = new Map(mediaRows.map((m) => [m.path, m]));
    const resolved = body.posts.map((p, i) =>
      p.value.map((v, j) =>
        v.image.map((img, k) => {
          const ref = typeof img === 'string' ? { id: img } : img;
          const m = (ref.id !== undefined ? byId.get(ref.id) : undefined) ?? (ref.path !== undefined ? byPath.get(ref.path) : undefined);
          if (!m) fields.push({ path: `posts.${i}.value.${j}.image.${k}`, message: 'No media item with this id or path in your library' });
          else if (m.type === 'audio') fields.push({ path: `posts.${i}.value.${j}.image.${k}`, message: 'This media item is an audio file: posts carry pictures and videos (audio is for generated videos)' });
          return m && m.type !== 'audio' ? { row: m, ref } : undefined;
        }),
      ),
    );

    const settingsOf = body.posts.map((p) => {
      const channel = channels.get(p.integration.id);
      return normaliseSettings(p.settings ?? channel?.defaultSettings ?? {}, channel?.identifier ?? '');
    });

    // Platform rules (not for drafts: API.md §6).
    if (type !== 'draft') {
      body.posts.forEach((p, i) => {
        const channel = channels.get(p.integration.id);
        const adapter = channel && adapterFor(channel.identifier);
        if (!channel || !adapter) return;
        const draft: PostDraft = {
          settings: settingsOf[i]!,
          items: p.value.map((v, j) => ({
            content: v.content,
            media: resolved[i]![j]!.filter((x): x is NonNullable<typeof x> => x !== undefined).map((x) => draftMedia(x.row)),
          })),
        };
        for (const issue of validatePostForPlatform(adapter, channelState(channel), draft, (p.shortLink ?? body.shortLink) ? shortLinkSample : undefined)) {
          fields.push({ path: `posts.${i}.${issue.path}`, message: issue.message });
        }
      });
    }
    return { resolved, settingsOf };
  }

  /** The media a request names: by id, else by the path the service gave it. */
  function mediaRefs(body: CreatePostsBody) {
    const refs = body.posts.flatMap((p) => p.value.flatMap((v) => v.image.map((img) => (typeof img === 'string' ? { id: img } : img))));
    return { ids: refs.map((r) => r.id).filter((x): x is string => typeof x === 'string'), paths: refs.map((r) => r.path).filter((x): x is string => typeof x === 'string') };
  }

  /** `post.scheduled`, in the transaction that queues the post (or moves it). */
  async function emitScheduled(tx: Tx, root: PostRow, channel: IntegrationRow, dueAt: Date, at: Date) {
    await emitPostScheduled(tx, root, channel, dueAt, at);
  }

  /**
   * What approval does to one post of a request (issue 31), given the state it would take:
   * - a draft: an approved post becomes a plain draft again; one awaiting a decision keeps waiting;
   * - queued by someone a rule holds: a new post is refused (`refuse`) or awaits approval (`submit`);
   *   a queued post edited goes back for approval when its rule says so, else stays queued;
   * - queued by someone free to: a post that awaited approval is approved by it.
   */
  function approvalOf(existing: PostRow | undefined, state: PostRow['state'], hold: ApprovalHold | undefined, whenHeld: 'refuse' | 'submit', at: Date) {
    const none = { pending: false, approvedNow: false, columns: {} as Partial<NewPostRow> };
    const awaiting = existing?.approval === 'pending_approval' || existing?.approval === 'changes_requested';
    if (state !== 'QUEUE') return existing?.approval === 'approved' && state === 'DRAFT' ? { ...none, columns: { approval: null } } : none;
    if (!hold) {
      if (!awaiting) return none;
      return { pending: false, approvedNow: true, columns: { approval: 'approved' as const, approvalDecidedBy: currentActor().name, approvalDecidedAt: at } };
    }
    const pending = { pending: true, approvedNow: false, columns: approvals.pendingColumns(hold.rule?.id ?? null, at) };
    if (existing?.state === 'QUEUE') return hold.reapproveOnEdit ? pending : none;
    if (whenHeld === 'refuse') throw new AppError('APPROVAL_REQUIRED', hold.message);
    return pending;
  }

  /** `post.deleted` for each post (root row) among `rows`, in the transaction that deletes them. */
  async function emitDeleted(tx: Tx, rows: PostRow[], at: Date) {
    for (const r of rows.filter((x) => x.parentPostId === null)) {
      const channel = await repo.findIntegration(r.integrationId, tx);
      await emitEvent(tx, r.organizationId, 'post.deleted', { ...postEventPayload(r, channel), deletedAt: at.toISOString() }, at);
    }
  }

  async function loadTreeOut(organizationId: string, id: string) {
    const tree = await repo.findTree(organizationId, id);
    if (!tree) throw notFound('Post');
    const integration = await repo.findIntegration(tree.root.integrationId);
    if (!integration) throw notFound('Post');
    return { tree, integration };
  }


  /** A post's tree locked for a change: 404 when it is gone, 409 while a publish of it is in flight. */
  async function lockForChange(tx: Tx, organizationId: string, id: string) {
    const tree = await repo.lockTree(tx, organizationId, id);
    if (!tree) throw notFound('Post');
    const rows = [tree.root, ...tree.items];
    if (inFlight(rows)) throw conflictInFlight();
    return { tree, rows };
  }
  return {
    /**
     * `POST /posts`: creates (or, with `group` / `value[].id`, edits) the posts of one request, all
     * in one transaction with their publish jobs. Field errors name `posts.N.…` paths.
     *
     * For the other front doors (imports, feeds, series — `CreatePostsOptions`): `dryRun` checks
     * everything a request can be checked for without writing (edits' rows are checked only when
     * written) and answers 200 with no body; `tx` writes in the caller's transaction, which then
     * calls `notifyScheduled(result.scheduled)` once it committed; `rowExtras` are set on every new row.
     */
    async createPosts(organizationId: string, body: CreatePostsBody, opts: CreatePostsOptions) {
      const requestHash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
      if (opts.idempotencyKey !== undefined) {
        const previous = await repo.findIdempotency(organizationId, opts.idempotencyKey, new Date(clock.now() - IDEMPOTENCY_TTL_MS));
        if (previous) {
          if (previous.requestHash !== requestHash) {
            throw new AppError('CONFLICT', 'This Idempotency-Key was already used with a different request body');
          }
          return { replayed: true, status: previous.statusCode, body: previous.response };
        }
      }

      const at = now();
      const type = body.type;
      const publishDate = type === 'now' || body.date === undefined ? at : new Date(parseInstant(body.date));
      const fields: FieldError[] = [];

      const channels = new Map((await repo.findIntegrations(organizationId, body.posts.map((p) => p.integration.id), opts.tx)).map((i) => [i.id, i]));
      // Media: by id, else by the path the service gave it. In the caller's transaction when it gave
      // one (PGlite runs one transaction at a time: a read beside it would wait for it).
      const refs = mediaRefs(body);
      const mediaRows = await deps.media.findLive(organizationId, refs.ids, refs.paths, opts.tx);
      const { resolved, settingsOf } = checkRequest(body, type, channels, mediaRows, fields, await shortLinkSampleFor(organizationId, [body], opts.tx));
      if (fields.length > 0) throw validationError(fields);

      // Approval rules (issue 31): the channels the caller may not queue on without approval — asked
      // in the writing transaction (a dry run asks here), so it costs no commit of its own.
      const whenHeld = opts.whenHeld ?? 'refuse';
      const askHolds = async (tx?: Tx) => {
        const found = type === 'draft' ? new Map<string, ApprovalHold>() : await approvals.holds(organizationId, [...channels.values()], tx);
        if (whenHeld === 'refuse' && type !== 'update') {
          const held = body.posts.find((p) => p.value[0]?.id === undefined && found.has(p.integration.id));
          if (held) throw new AppError('APPROVAL_REQUIRED', found.get(held.integration.id)!.message);
        }
        return found;
      };
      if (opts.dryRun) await askHolds(opts.tx);

      if (type !== 'draft' && opts.skipPlanCheck !== true) {
        const newRoots = body.posts.filter((p) => p.value[0]?.id === undefined).length;
        if (newRoots > 0) await assertScheduledWithinPlan(organizationId, publishDate, newRoots, opts.tx);
      }
      if (opts.dryRun) return { replayed: false, status: 200, body: undefined as unknown, scheduled: [] as Date[] };

      // An edit keeps its group (comments, preview links and approvals hang on it); a new post gets one.
      let group: string = randomUUID();
      const creationMethod = opts.creationMethod;
      const scheduled: Date[] = [];

      let afterCommit: (() => Promise<void>) | undefined;
      const inTransaction = <T>(fn: (tx: Tx) => Promise<T>) => (opts.tx ? fn(opts.tx) : repo.transaction(fn));
      const result = await inTransaction(async (tx) => {
        const holds = await askHolds(tx);
        // Edits: the rows being replaced, locked.
        const editedIds = body.posts.flatMap((p) => p.value.map((v) => v.id).filter((x): x is string => typeof x === 'string'));
        const oldGroups = [...new Set(body.posts.map((p) => p.group).filter((g): g is string => typeof g === 'string' && g.length > 0))];
        const locked = new Map((await repo.lockRows(tx, organizationId, editedIds)).map((r) => [r.id, r]));
        // A group spans the channels of one request; an edit replaces only the rows of the channels it
        // names (as Postiz clients expect: editing one channel leaves the others alone).
        const groupRows = new Map<string, PostRow[]>();
        for (const g of oldGroups) {
          const channelsOfGroup = new Set(body.posts.filter((p) => p.group === g).map((p) => p.integration.id));
          groupRows.set(g, (await repo.lockGroup(tx, organizationId, g)).filter((r) => channelsOfGroup.has(r.integrationId)));
        }
        for (const rows of groupRows.values()) for (const r of rows) locked.set(r.id, r);
        group = oldGroups[0] ?? [...locked.values()][0]?.group ?? group;

        const editFields: FieldError[] = [];
        const usedIds = new Set<string>();
        body.posts.forEach((p, i) => {
          // The rows an entry edits must come from one post: a row given twice would become its own
          // parent, and another post's root taken in as a thread item would keep its own items and job.
          const trees = new Set<string>();
          p.value.forEach((v, j) => {
            if (v.id === undefined) return;
            const row = locked.get(v.id);
            if (usedIds.has(v.id)) {
              editFields.push({ path: `posts.${i}.value.${j}.id`, message: 'This id appears more than once in the request' });
              return;
            }
            usedIds.add(v.id);
            if (row) trees.add(row.parentPostId ?? row.id);
            if (!row || row.integrationId !== p.integration.id) {
              editFields.push({ path: `posts.${i}.value.${j}.id`, message: 'No post of this channel with this id in your organisation' });
            } else if (row.state === 'PUBLISHED' && type !== 'update' && type !== 'draft' && body.republish !== true) {
              editFields.push({
                path: `posts.${i}.value.${j}.id`,
                message: 'This post is already published: use type "update" to change the record only, or pass republish: true to publish it again',
              });
            } else if (trees.size > 1) {
              editFields.push({ path: `posts.${i}.value.${j}.id`, message: 'This row belongs to another post: the items of one entry must all come from the post being edited' });
            }
          });
          if (p.group !== undefined && p.group !== '' && (groupRows.get(p.group) ?? []).length === 0) {
            editFields.push({ path: `posts.${i}.group`, message: 'No posts of this channel with this group in your organisation' });
          }
        });
        if (editFields.length > 0) throw validationError(editFields);
        if (inFlight([...locked.values()])) throw conflictInFlight();

        const out: { postId: string; integration: string; group: string }[] = [];
        const keptIds = new Set(editedIds);
        const submitted: { root: PostRow; channel: IntegrationRow }[] = [];
        for (const [i, p] of body.posts.entries()) {
          const channel = channels.get(p.integration.id)!;
          const existingRoot = p.value[0]?.id !== undefined ? locked.get(p.value[0].id) : undefined;
          let state: PostRow['state'] =
            type === 'draft' ? 'DRAFT' : type === 'update' ? (existingRoot?.state ?? 'QUEUE') : 'QUEUE';
          const approval = approvalOf(existingRoot, state, holds.get(channel.id), whenHeld, at);
          if (approval.pending) state = 'DRAFT';
          let rootId: string | undefined;
          let rootRow: PostRow | undefined;
          for (const [j, v] of p.value.entries()) {
            const image = resolved[i]![j]!.filter((x): x is NonNullable<typeof x> => x !== undefined).map((x) => storedImage(x.row, x.ref));
            const existing = v.id !== undefined ? locked.get(v.id) : undefined;
            const values: Partial<NewPostRow> = {
              group,
              content: v.content,
              image,
              settings: settingsOf[i]!,
              tags: body.tags,
              shortLink: p.shortLink ?? body.shortLink,
              publishDate,
              delay: j === 0 ? 0 : v.delay,
              position: j,
              parentPostId: j === 0 ? null : rootId!,
              updatedAt: at,
            };
            const keepPublished = existing?.state === 'PUBLISHED' && (type === 'update' || (type === 'draft' && body.republish !== true));
            const rowState = keepPublished ? 'PUBLISHED' : approval.pending ? 'DRAFT' : type === 'update' ? (existing?.state ?? state) : state;
            if (j === 0) Object.assign(values, approval.columns);
            if (!keepPublished && existing?.state === 'PUBLISHED') Object.assign(values, { releaseId: null, releaseUrl: null, publishedAt: null });
            if (rowState !== existing?.state && rowState !== 'ERROR') Object.assign(values, { error: null, attempts: 0 });
            values.state = rowState;
            let row: PostRow;
            if (existing) {
              row = await repo.updateRow(tx, existing.id, values);
              // A row leaving the queue, or becoming a thread item, loses its job; a queued root is rescheduled below.
              if (existing.publishJobId && (rowState !== 'QUEUE' || j > 0)) await queue.cancel(tx, existing.id);
            } else {
              [row] = (await repo.insertRows(tx, [
                { ...(values as NewPostRow), ...opts.rowExtras, organizationId, integrationId: channel.id, creationMethod, createdAt: at },
              ])) as [PostRow];
            }
            if (j === 0) {
              rootId = row.id;
              rootRow = row;
            }
          }
          const dueAt = new Date(Math.max(publishDate.getTime(), at.getTime()));
          const rootState = approval.pending ? 'DRAFT' : type === 'update' ? (existingRoot?.state ?? 'QUEUE') : state;
          if (rootState === 'QUEUE') {
            await queue.schedule(tx, rootId!, dueAt);
            scheduled.push(dueAt);
            await emitScheduled(tx, rootRow!, channel, dueAt, at);
          }
          if (approval.pending) submitted.push({ root: rootRow!, channel });
          if (approval.approvedNow) await recordPost(tx, rootRow!, 'post.approved', { by: 'queued by an approver' });
          out.push({ postId: rootId!, integration: channel.id, group });
        }

        // Rows of the edited groups that were not sent again are removed.
        const dropped = [...groupRows.values()].flat().filter((r) => !keptIds.has(r.id));
        for (const r of dropped) if (r.publishJobId) await queue.cancel(tx, r.id);
        await repo.softDelete(tx, dropped.map((r) => r.id), at);
        await emitDeleted(tx, dropped, at);

        afterCommit = await approvals.submitted(tx, organizationId, submitted, at, null);

        // One entry for the request's group (its first post the target).
        const first = body.posts[0]?.value[0]?.content;
        const edited = editedIds.length > 0 || oldGroups.length > 0;
        if (out[0]) {
          await activity.record(
            {
              organizationId,
              action: edited ? 'post.edited' : 'post.created',
              targetKind: 'post',
              targetId: out[0].postId,
              targetName: excerpt(first),
              details: { group, type, creationMethod, channels: out.map((o) => o.integration), posts: out.map((o) => o.postId), publishDate: publishDate.toISOString() },
            },
            tx,
          );
        }
        if (opts.idempotencyKey !== undefined) {
          const saved = await repo.saveIdempotency(tx, { organizationId, key: opts.idempotencyKey, requestHash, statusCode: 201, response: out, createdAt: at });
          if (!saved) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is being processed or was already processed; retry to get its response');
        }
        return out;
      });
      if (!opts.tx) for (const d of scheduled) queue.notifyScheduled(d);
      await afterCommit?.();
      return { replayed: false, status: 201, body: result as unknown, scheduled };
    },

    /**
     * Many new post groups in the caller's transaction (a bulk import): each body is checked as
     * `createPosts` checks it, and when none is refused all are written together — their rows in a
     * few multi-row inserts, their publish jobs in one statement per thousand, a `post.scheduled`
     * event each — instead of several round trips per post. Only new posts of type `schedule` or
     * `draft` (no ids, no group, no idempotency key); the caller checked the plan's limit. Answers
     * the refusals by body index (then nothing is written; `dryRun`: nothing is written either
     * way), else each body's posts; the caller calls `notifyScheduled(scheduled)` once it committed.
     */
    async createPostsMany(
      organizationId: string,
      bodies: CreatePostsBody[],
      opts: { creationMethod: CreatePostsOptions['creationMethod']; rowExtras?: Partial<NewPostRow> } & ({ tx: Tx; dryRun?: false } | { tx?: Tx; dryRun: true }),
    ) {
      const at = now();
      const ids = [...new Set(bodies.flatMap((b) => b.posts.map((p) => p.integration.id)))];
      const channels = new Map((await repo.findIntegrations(organizationId, ids, opts.tx)).map((i) => [i.id, i]));
      const refs = bodies.map(mediaRefs);
      const mediaRows = await deps.media.findLive(organizationId, refs.flatMap((r) => r.ids), refs.flatMap((r) => r.paths), opts.tx);
      const refused: { index: number; error: AppError }[] = [];
      const sample = await shortLinkSampleFor(organizationId, bodies, opts.tx);
      const checked = bodies.map((body, index) => {
        if (body.type !== 'schedule' && body.type !== 'draft') throw new Error('createPostsMany takes new posts to schedule or keep as drafts only');
        if (body.posts.some((p) => (p.group !== undefined && p.group !== '') || p.value.some((v) => v.id !== undefined))) throw new Error('createPostsMany makes new posts only');
        const fields: FieldError[] = [];
        const r = checkRequest(body, body.type, channels, mediaRows, fields, sample);
        if (fields.length > 0) refused.push({ index, error: validationError(fields) });
        return r;
      });
      if (refused.length > 0 || opts.dryRun) return { refused, created: [], scheduled: [] as Date[] };
      const tx = opts.tx;
      // Posts an approval rule holds are written awaiting approval (issue 31), never refused in bulk.
      const holds = bodies.some((b) => b.type !== 'draft') ? await approvals.holds(organizationId, [...channels.values()], tx) : new Map<string, ApprovalHold>();
      const submitted: { root: PostRow; channel: IntegrationRow }[] = [];

      const rows: NewPostRow[] = [];
      const jobs: Parameters<PublishQueue['sendNew']>[1] = [];
      const events: { root: NewPostRow & { id: string }; channel: IntegrationRow; dueAt: Date }[] = [];
      const created = bodies.map((body, n) => {
        const publishDate = body.date === undefined ? at : new Date(parseInstant(body.date));
        const dueAt = new Date(Math.max(publishDate.getTime(), at.getTime()));
        const group = randomUUID();
        return body.posts.map((p, i) => {
          const channel = channels.get(p.integration.id)!;
          const hold = body.type === 'draft' ? undefined : holds.get(channel.id);
          const state: PostRow['state'] = body.type === 'draft' || hold ? 'DRAFT' : 'QUEUE';
          const rootId = randomUUID();
          const queued = state === 'QUEUE' ? deps.queue.queuedColumns(dueAt) : undefined;
          p.value.forEach((v, j) => {
            const row = {
              id: j === 0 ? rootId : randomUUID(),
              group,
              content: v.content,
              image: checked[n]!.resolved[i]![j]!.filter((x): x is NonNullable<typeof x> => x !== undefined).map((x) => storedImage(x.row, x.ref)),
              settings: checked[n]!.settingsOf[i]!,
              tags: body.tags,
              shortLink: p.shortLink ?? body.shortLink,
              publishDate,
              delay: j === 0 ? 0 : v.delay,
              position: j,
              parentPostId: j === 0 ? null : rootId,
              state,
              updatedAt: at,
              ...opts.rowExtras,
              organizationId,
              integrationId: channel.id,
              creationMethod: opts.creationMethod,
              createdAt: at,
              ...(j === 0 && queued ? queued : {}),
              ...(j === 0 && hold ? approvals.pendingColumns(hold.rule?.id ?? null, at) : {}),
            } satisfies NewPostRow;
            rows.push(row);
            if (j === 0 && hold) submitted.push({ root: row as PostRow, channel });
            if (j === 0 && queued) {
              jobs.push({ postId: rootId, ...queued });
              events.push({ root: row, channel, dueAt });
            }
          });
          return { postId: rootId, integration: channel.id, group };
        });
      });
      // 500 rows a statement keeps within PostgreSQL's 65,535 parameters
      for (let i = 0; i < rows.length; i += 500) await repo.insertRows(tx, rows.slice(i, i + 500));
      await deps.queue.sendNew(tx, jobs);
      // One activity entry per group, all in one insert.
      await activity.record(
        created.map((posts, n) => ({
          organizationId,
          action: 'post.created',
          targetKind: 'post',
          targetId: posts[0]?.postId ?? null,
          targetName: excerpt(bodies[n]!.posts[0]?.value[0]?.content),
          details: { group: posts[0]?.group, type: bodies[n]!.type, creationMethod: opts.creationMethod, channels: posts.map((p) => p.integration), posts: posts.map((p) => p.postId) },
        })),
        tx,
      );
      for (const e of events) await emitPostScheduled(tx, { ...e.root, parentPostId: null, position: 0, integrationId: e.channel.id }, e.channel, e.dueAt, at);
      // Events and activity of the posts awaiting approval; their approvers are not notified one
      // post at a time (the import tells its own people when it ends; approvers see the queue).
      await approvals.submitted(tx, organizationId, submitted, at, null);
      return { refused, created, scheduled: events.map((e) => e.dueAt) };
    },

    /** Wakes this process's publisher for posts written by `createPosts` in a caller's transaction (after it committed). */
    notifyScheduled(dates: Date[]) {
      for (const d of dates) queue.notifyScheduled(d);
    },

    async listPosts(organizationId: string, q: { startDate: string; endDate: string; customer?: string }) {
      const start = new Date(parseInstant(q.startDate));
      const end = new Date(parseInstant(q.endDate));
      if (end < start) throw validationError([{ path: 'endDate', message: 'Must not be before startDate' }]);
      if (q.customer !== undefined && !isUuid(q.customer)) return { posts: [] };
      const listed = await repo.listRoots(organizationId, { start, end, customerId: q.customer });
      if (listed.tooMany) {
        throw validationError([
          { path: 'endDate', message: `This window holds more than ${LIST_LIMIT} posts; ask for a shorter one (a day or a week)` },
        ]);
      }
      return { posts: listedOut(listed) };
    },

    /** The posts of one group (one per channel), with their thread items: what a client edits together. */
    async getGroup(organizationId: string, group: string) {
      // No stored group holds U+0000 (PostgreSQL text cannot), and comparing with one is an error.
      const listed = group.includes('\u0000') ? { roots: [], items: [] } : await repo.listRoots(organizationId, { group });
      if (listed.roots.length === 0) throw notFound('Group of posts');
      return { posts: listedOut(listed) };
    },

    async getPost(organizationId: string, id: string) {
      const { tree, integration } = await loadTreeOut(organizationId, id);
      const rows = [tree.root, ...tree.items];
      const pending = rows.find((r) => r.state === 'QUEUE' && r.dueAt !== null);
      return {
        ...toOut(tree.root, tree.items, integration),
        // Each thread item is sent (and retried) on its own: the post took as many attempts as the
        // item that needed the most, not their sum (a two-item thread published at once is 1, not 2).
        attempts: rows.reduce((n, r) => Math.max(n, r.attempts), 0),
        lastAttemptAt: rows.map((r) => r.lastAttemptAt).filter((d): d is Date => d !== null).sort((a, b) => b.getTime() - a.getTime())[0]?.toISOString() ?? null,
        nextAttemptAt: pending?.dueAt?.toISOString() ?? null,
      };
    },

    /** Deletes one post with its thread items (only the service's record of a published post). */
    async deletePost(organizationId: string, id: string) {
      return repo.transaction(async (tx) => {
        const { tree, rows } = await lockForChange(tx, organizationId, id);
        for (const r of rows) if (r.publishJobId) await queue.cancel(tx, r.id);
        const at = now();
        await repo.softDelete(tx, rows.map((r) => r.id), at);
        await emitDeleted(tx, rows, at);
        await recordPost(tx, tree.root, 'post.deleted', { state: tree.root.state });
        return { deleted: rows.map((r) => r.id) };
      });
    },

    async deleteGroup(organizationId: string, group: string) {
      return repo.transaction(async (tx) => {
        const rows = await repo.lockGroup(tx, organizationId, group);
        if (rows.length === 0) throw notFound('Group of posts');
        if (inFlight(rows)) throw conflictInFlight();
        for (const r of rows) if (r.publishJobId) await queue.cancel(tx, r.id);
        const at = now();
        await repo.softDelete(tx, rows.map((r) => r.id), at);
        await emitDeleted(tx, rows, at);
        const roots = rows.filter((r) => r.parentPostId === null);
        await activity.record(
          roots.map((r) => ({ organizationId, action: 'post.deleted', targetKind: 'post', targetId: r.id, targetName: excerpt(r.content), details: { group, channel: r.integrationId, state: r.state } })),
          tx,
        );
        return { deleted: rows.map((r) => r.id) };
      });
    },

    /** `draft` pulls a queued post out of the queue; `schedule` validates and queues it (API.md §6). */
    /** PLAN_LIMIT_REACHED when `adding` more queued posts in `date`'s month pass the plan (approving queues posts too). */
    checkPlan(organizationId: string, date: Date, adding: number, tx?: Tx) {
      return assertScheduledWithinPlan(organizationId, date, adding, tx);
    },

    async changeStatus(organizationId: string, id: string, status: 'draft' | 'schedule') {
      const at = now();
      let dueAt: Date | undefined;
      if (status === 'schedule') {
        // A draft is not counted against the plan's scheduled posts; scheduling it adds one. Checked
        // before the transaction, as for new posts (one connection on PGlite: no query beside it).
        const current = await repo.findTree(organizationId, id);
        if (current?.root.state === 'DRAFT') await assertScheduledWithinPlan(organizationId, current.root.publishDate, 1);
      }
      const result = await repo.transaction(async (tx) => {
        const { tree, rows } = await lockForChange(tx, organizationId, id);
        const { root } = tree;
        if (status === 'draft') {
          if (root.state === 'PUBLISHED') throw new AppError('CONFLICT', 'This post is already published; it cannot become a draft');
          for (const r of rows) {
            if (r.state === 'PUBLISHED') continue;
            if (r.publishJobId) await queue.cancel(tx, r.id);
            await repo.updateRow(tx, r.id, { state: 'DRAFT', error: null, updatedAt: at, ...(r.id === root.id && root.approval === 'approved' ? { approval: null } : {}) });
          }
          await recordPost(tx, root, 'post.made_draft', { from: root.state });
          return { id: root.id, state: 'DRAFT' as const };
        }
        // schedule
        const integration = await repo.findIntegration(root.integrationId, tx);
        if (!integration || integration.deletedAt) throw new AppError('CONFLICT', 'The channel of this post was disconnected');
        const unpublished = rows.filter((r) => r.state !== 'PUBLISHED');
        if (unpublished.length === 0) throw new AppError('CONFLICT', 'This post is already published');
        // Approval rules (issue 31): held → refused naming the rule; free → a post that awaited approval is approved by it.
        const hold = (await approvals.holds(organizationId, [integration], tx)).get(integration.id);
        if (hold && root.state !== 'QUEUE') throw new AppError('APPROVAL_REQUIRED', hold.message);
        if (!hold && (root.approval === 'pending_approval' || root.approval === 'changes_requested')) {
          await repo.updateRow(tx, root.id, { approval: 'approved', approvalDecidedBy: currentActor().name, approvalDecidedAt: at });
          await recordPost(tx, root, 'post.approved', { by: 'queued by an approver' });
        }
        const issues = await storedIssues(root, tree.items, integration, tx);
        if (issues.length > 0) throw validationError(issues.map((i) => ({ path: i.path, message: i.message })));
        dueAt = new Date(Math.max(root.publishDate.getTime(), at.getTime()));
        for (const r of unpublished) {
          await repo.updateRow(tx, r.id, { state: 'QUEUE', error: null, attempts: 0, attemptState: null, pendingToken: null, updatedAt: at });
        }
        // The first row not yet published is the one the publisher takes next.
        const first = unpublished[0]!;
        if (first.id !== root.id) {
          const prev = rows[rows.indexOf(first) - 1]!;
          dueAt = new Date(Math.max(at.getTime(), (prev.publishedAt?.getTime() ?? at.getTime()) + first.delay * 60_000));
        }
        await queue.schedule(tx, first.id, dueAt);
        await emitScheduled(tx, root, integration, dueAt, at);
        await recordPost(tx, root, 'post.scheduled', { from: root.state, dueAt: dueAt.toISOString() });
        return { id: root.id, state: 'QUEUE' as const };
      });
      if (dueAt) queue.notifyScheduled(dueAt);
      return result;
    },

    /**
     * Moves a queued post or draft (with its thread items) to another time: the calendar's drag
     * and drop. A queued post is put back on the queue for the new time (a past time publishes
     * now); published and failed posts do not move.
     */
    async reschedule(organizationId: string, id: string, date: string) {
      const at = now();
      const publishDate = new Date(parseInstant(date));
      // The month of a queued post counts against the plan's scheduled posts (checked before the
      // transaction, as for new posts: one connection on PGlite).
      const current = await repo.findTree(organizationId, id);
      if (!current) throw notFound('Post');
      const month = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
      if (current.root.state === 'QUEUE' && month(current.root.publishDate) !== month(publishDate)) await assertScheduledWithinPlan(organizationId, publishDate, 1);
      let dueAt: Date | undefined;
      const result = await repo.transaction(async (tx) => {
        const { tree, rows } = await lockForChange(tx, organizationId, id);
        const { root } = tree;
        if (root.state !== 'QUEUE' && root.state !== 'DRAFT') {
          throw new AppError('CONFLICT', root.state === 'PUBLISHED' ? 'This post is published: it stays where it went out' : 'This post failed: retry it or make it a draft before moving it');
        }
        assertMayMove([root]);
        for (const r of rows) await repo.updateRow(tx, r.id, { publishDate, updatedAt: at });
        if (root.state === 'QUEUE') {
          const integration = await repo.findIntegration(root.integrationId, tx);
          if (!integration) throw notFound('Post');
          dueAt = new Date(Math.max(publishDate.getTime(), at.getTime()));
          await queue.schedule(tx, root.id, dueAt);
          await emitScheduled(tx, { ...root, publishDate }, integration, dueAt, at);
        }
        await recordPost(tx, root, 'post.moved', { from: root.publishDate.toISOString(), to: publishDate.toISOString() });
        return { id: root.id, state: root.state, publishDate: publishDate.toISOString() };
      });
      if (dueAt) queue.notifyScheduled(dueAt);
      return result;
    },

    /**
     * Moves every post of a group (one per channel, with their thread items) to another time: the
     * calendar shows a group as one event and drags it whole. The group moves only as a whole, so
     * it stays one event: when any of its posts has published (it stays where it went out) or
     * failed (retry it or make it a draft first), nothing moves and the answer (409) names the
     * channel. Queued posts are put back on the queue for the new time; drafts only change date.
     */
    async moveGroup(organizationId: string, group: string, date: string) {
      const at = now();
      const publishDate = new Date(parseInstant(date));
      // Queued posts moving into another month count against the plan's scheduled posts (checked
      // before the transaction, as for new posts: one connection on PGlite).
      const current = group.includes('\u0000') ? [] : (await repo.listRoots(organizationId, { group })).roots.map((r) => r.post);
      const month = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
      const entering = current.filter((p) => p.state === 'QUEUE' && month(p.publishDate) !== month(publishDate)).length;
      if (entering > 0) await assertScheduledWithinPlan(organizationId, publishDate, entering);
      const due: Date[] = [];
      const result = await repo.transaction(async (tx) => {
        const rows = await repo.lockGroup(tx, organizationId, group);
        if (rows.length === 0) throw notFound('Group of posts');
        if (inFlight(rows)) throw conflictInFlight();
        const roots = rows.filter((r) => r.parentPostId === null);
        const channels = new Map<string, IntegrationRow | undefined>();
        for (const r of roots) channels.set(r.integrationId, await repo.findIntegration(r.integrationId, tx));
        const named = (state: PostRow['state']) =>
          roots
            .filter((r) => r.state === state)
            .map((r) => channels.get(r.integrationId)?.name ?? 'a channel')
            .join(', ');
        if (roots.some((r) => r.state === 'PUBLISHED')) {
          throw new AppError('CONFLICT', `Already published on ${named('PUBLISHED')}: a published post stays where it went out, so this group does not move`);
        }
        if (roots.some((r) => r.state === 'ERROR')) {
          throw new AppError('CONFLICT', `Failed on ${named('ERROR')}: retry it or make it a draft before moving this group`);
        }
        assertMayMove(roots);
        for (const r of rows) await repo.updateRow(tx, r.id, { publishDate, updatedAt: at });
        for (const root of roots) {
          if (root.state !== 'QUEUE') continue;
          const channel = channels.get(root.integrationId);
          if (!channel) continue;
          const dueAt = new Date(Math.max(publishDate.getTime(), at.getTime()));
          await queue.schedule(tx, root.id, dueAt);
          await emitScheduled(tx, { ...root, publishDate }, channel, dueAt, at);
          due.push(dueAt);
        }
        await activity.record(
          roots.map((r) => ({
            organizationId,
            action: 'post.moved',
            targetKind: 'post',
            targetId: r.id,
            targetName: excerpt(r.content),
            details: { group, channel: r.integrationId, from: r.publishDate.toISOString(), to: publishDate.toISOString() },
          })),
          tx,
        );
        return {
          group,
          publishDate: publishDate.toISOString(),
          posts: roots.map((r) => ({ id: r.id, integration: { id: r.integrationId }, state: r.state as 'DRAFT' | 'QUEUE', publishDate: publishDate.toISOString() })),
        };
      });
      for (const d of due) queue.notifyScheduled(d);
      return result;
    },

    /** Replaces the settings of a post that has not published (validated unless it is a draft). */
    async replaceSettings(organizationId: string, id: string, settings: Record<string, unknown>) {
      return repo.transaction(async (tx) => {
        const { tree, rows } = await lockForChange(tx, organizationId, id);
        if (tree.root.state === 'PUBLISHED' || tree.root.state === 'ERROR') {
          throw new AppError('CONFLICT', `Only queued posts and drafts can change settings; this one is ${tree.root.state}`);
        }
        const integration = await repo.findIntegration(tree.root.integrationId, tx);
        if (!integration) throw notFound('Post');
        const next = normaliseSettings(settings, integration.identifier);
        if (tree.root.state !== 'DRAFT') {
          const issues = (await storedIssues({ ...tree.root, settings: next }, tree.items, integration, tx)).filter((i) => i.path.startsWith('settings'));
          if (issues.length > 0) throw validationError(issues.map((i) => ({ path: i.path, message: i.message })));
        }
        const at = now();
        for (const r of rows) await repo.updateRow(tx, r.id, { settings: next, updatedAt: at });
        await recordPost(tx, tree.root, 'post.settings_changed');
        return { postId: tree.root.id, publishDate: tree.root.publishDate.toISOString(), settings: next };
      });
    },

    /**
     * Records the platform's own id (and URL) of a post: a published post whose id is unknown
     * (`missing`), or one that failed with an unknown outcome but did reach the platform.
     */
    async recordReleaseId(organizationId: string, id: string, releaseId: string, releaseUrl: string | undefined) {
      await repo.transaction(async (tx) => {
        const rows = await repo.lockRows(tx, organizationId, [id]);
        const row = rows[0];
        if (!row) throw notFound('Post');
        if (row.attemptState !== null) throw conflictInFlight();
        if (row.state === 'QUEUE' || row.state === 'DRAFT') {
          throw new AppError('CONFLICT', `This post is ${row.state === 'QUEUE' ? 'queued' : 'a draft'}; a platform id can be recorded only on a published or failed post`);
        }
        const at = now();
        if (row.publishJobId) await queue.cancel(tx, row.id);
        await repo.updateRow(tx, row.id, {
          releaseId,
          releaseUrl: releaseUrl ?? row.releaseUrl,
          state: 'PUBLISHED',
          error: null,
          publishedAt: row.publishedAt ?? at,
          updatedAt: at,
        });
      });
      return this.getPost(organizationId, id);
    },

    /** What keeps the post from publishing; recent platform posts when its platform id is unknown. */
    async missing(organizationId: string, id: string) {
      const { tree, integration } = await loadTreeOut(organizationId, id);
      const issues = await storedIssues(tree.root, tree.items, integration);
      const result: { ready: boolean; missing: { field: string; code: string; message: string }[]; candidates?: { id: string; url: string }[] } = {
        ready: issues.length === 0,
        missing: issues.map((i) => ({ field: i.path, code: i.code, message: i.message })),
      };
      if (tree.root.state === 'PUBLISHED' && (tree.root.releaseId === null || tree.root.releaseId === 'missing')) {
        result.ready = true;
        result.missing = [];
        const adapter = adapterFor(integration.identifier);
        if (adapter?.findRecent && integration.credentials && !integration.refreshNeeded) {
          try {
            const since = new Date(tree.root.publishDate.getTime() - 24 * 3600_000);
            const recent = await deps.access.run(integration, (a, ctx) => a.findRecent!({ since, limit: 20 }, ctx));
            result.candidates = recent.map((r) => ({ id: r.id, url: r.url }));
          } catch (e) {
            throw platformErrorToAppError(e, adapter.metadata.displayName);
          }
        } else {
          result.candidates = [];
        }
      }
      return result;
    },
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
