import { DateTime } from 'luxon';
import { AppError, notFound, validationError, type FieldError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Tx } from '../../db/client.js';
import type { PublishQueue } from '../../core/queues.js';
import { emitEvent, notifyIn, postEventPayload } from '../../core/events/events.js';
import type { PostsService } from '../posts/posts.service.js';
import type { CreatePostsBody } from '../posts/posts.schemas.js';
import { occurrencesOf } from './series-rule.js';
import type { CreateSeriesBody, SeriesRule } from './series.schemas.js';
import type { SeriesRepository, SeriesRow } from './series.repository.js';

/** How far ahead occurrences are created by default (days). */
export const DEFAULT_HORIZON_DAYS = 30;
const DAY_MS = 24 * 3600_000;
const LIST_MAX = 500;

type Template = Pick<CreateSeriesBody, 'shortLink' | 'tags' | 'posts'>;
type OccurrenceOut = { index: number; publishDate: string; posts: { postId: string; integration: string; group: string }[] };

export interface SeriesServiceDeps {
  series: SeriesRepository;
  posts: Pick<PostsService, 'createPosts' | 'notifyScheduled'>;
  queue: PublishQueue;
  clock: Clock;
  options?: { horizonDays?: number };
}

/**
 * Recurring posts (issue 30, part 1). A series is a rule and a post body; its occurrences are real
 * posts created ahead through the posts service (`createPosts` in this service's transaction) for a
 * rolling horizon. Every materialisation locks the series row first and reads `next_index` under
 * that lock, so two workers (or a restart) never create an occurrence twice; the unique index on
 * (series_id, series_index, integration_id, position) is the backstop. An occurrence edited or
 * deleted on its own is never re-created: indexes only move forward.
 */
export function createSeriesService(deps: SeriesServiceDeps) {
  const { series: repo, clock } = deps;
  const horizonDays = deps.options?.horizonDays ?? DEFAULT_HORIZON_DAYS;
  const now = () => new Date(clock.now());

  function out(row: SeriesRow) {
    return {
      id: row.id,
      rule: row.rule as SeriesRule,
      type: row.type,
      template: row.template,
      horizonDays: row.horizonDays,
      materializedThrough: row.materializedThrough?.toISOString() ?? null,
      nextIndex: row.nextIndex,
      completed: row.completedAt !== null,
      broken: row.brokenReason !== null && row.brokenAt !== null ? { reason: row.brokenReason, at: row.brokenAt.toISOString() } : null,
      previousSeriesId: row.previousSeriesId,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** A series body may only create posts: ids and groups would edit existing ones. */
  function assertCreatesOnly(body: Pick<CreateSeriesBody, 'posts'>) {
    const fields: FieldError[] = [];
    body.posts.forEach((p, i) => {
      if (p.group !== undefined) fields.push({ path: `posts.${i}.group`, message: 'Not in a series: every occurrence is a new group' });
      p.value.forEach((v, j) => {
        if (v.id !== undefined) fields.push({ path: `posts.${i}.value.${j}.id`, message: 'Not in a series: every occurrence is a new post' });
      });
    });
    if (fields.length > 0) throw validationError(fields);
  }

  function bodyAt(template: Template, type: 'schedule' | 'draft', at: Date): CreatePostsBody {
    return { type, date: at.toISOString(), shortLink: template.shortLink, tags: template.tags, posts: template.posts };
  }

  /**
   * Creates the occurrences of a locked series from `next_index` up to the horizon (at least the
   * next one), in `tx`. Occurrences already past are skipped (counted, not created). An occurrence
   * the posts service refuses (a channel disconnected, media deleted…) marks the series broken with
   * the reason and notifies the organisation, once: a broken series is not extended again.
   */
  async function materialise(tx: Tx, row: SeriesRow, at: Date) {
    const created: OccurrenceOut[] = [];
    const scheduled: Date[] = [];
    if (row.completedAt || row.brokenAt || row.deletedAt) return { row, created, scheduled };
    const through = new Date(at.getTime() + row.horizonDays * DAY_MS);
    const needNext = row.materializedThrough === null || row.materializedThrough <= at;
    // Occurrences already past (a start date in the past, a long outage) are passed over, not created.
    const { occurrences, exhausted } = occurrencesOf(row.rule as SeriesRule, { fromIndex: row.nextIndex, from: at, through, atLeast: needNext ? 1 : 0 });
    let nextIndex = row.nextIndex;
    let last: Date | undefined;
    let broken: string | undefined;
    for (const o of occurrences) {
      try {
        const r = await deps.posts.createPosts(row.organizationId, bodyAt(row.template as Template, row.type, o.at), {
          creationMethod: 'SERIES', whenHeld: 'submit',
          tx,
          rowExtras: { seriesId: row.id, seriesIndex: o.index },
          // A repeating post was counted when it was made; occurrences are not refused one by one.
          skipPlanCheck: true,
        });
        created.push({ index: o.index, publishDate: o.at.toISOString(), posts: r.body as OccurrenceOut['posts'] });
        scheduled.push(...(r.scheduled ?? []));
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        const fields = e.extra.fields;
        broken = `Occurrence ${o.index + 1} (${o.at.toISOString()}) could not be created: ${fields?.length ? fields.map((f) => `${f.path}: ${f.message}`).join('; ') : e.message}`;
        break;
      }
      nextIndex = o.index + 1;
      last = o.at;
    }
    const patch: Partial<SeriesRow> = { nextIndex, updatedAt: at };
    if (broken) {
      Object.assign(patch, { brokenReason: broken, brokenAt: at });
      await notifyIn(tx, row.organizationId, `A repeating post stopped: ${broken}. Edit the series (PATCH /series/${row.id}) or create it again.`, null, at);
    } else {
      patch.materializedThrough = last && last > through ? last : through;
      if (exhausted) patch.completedAt = at;
    }
    const updated = await repo.update(tx, row.id, patch);
    return { row: updated, created, scheduled };
  }

  /** Removes the unpublished occurrences of `seriesId` from `fromIndex` on, in `tx` (published and failed ones stay as history). */
  async function dropUnpublished(tx: Tx, seriesId: string, fromIndex: number, at: Date) {
    const rows = await repo.lockOccurrenceRows(tx, seriesId, fromIndex);
    const roots = new Map(rows.filter((r) => r.parentPostId === null).map((r) => [r.id, r]));
    const removable = rows.filter((r) => {
      const root = roots.get(r.parentPostId ?? r.id);
      return root !== undefined && (root.state === 'QUEUE' || root.state === 'DRAFT') && r.state !== 'PUBLISHED';
    });
    if (removable.some((r) => r.attemptState !== null)) throw new AppError('CONFLICT', 'An occurrence of this series is being published right now; try again when it has finished');
    for (const r of removable) if (r.publishJobId) await deps.queue.cancel(tx, r.id);
    await repo.softDeletePosts(tx, removable.map((r) => r.id), at);
    for (const r of removable.filter((x) => x.parentPostId === null)) {
      const channel = await repo.findChannel(tx, r.integrationId);
      await emitEvent(tx, r.organizationId, 'post.deleted', { ...postEventPayload(r, channel), deletedAt: at.toISOString() }, at);
    }
    const kept = [...roots.values()].filter((r) => !removable.includes(r)).length;
    return { deleted: removable.filter((r) => r.parentPostId === null).map((r) => r.id), kept };
  }

  /** Creates a series and its first occurrences in one transaction, with `series.created`. */
  async function create(organizationId: string, input: { rule: SeriesRule; type: 'schedule' | 'draft'; template: Template }, previousSeriesId: string | null = null) {
    assertCreatesOnly(input.template);
    const at = now();
    const first = occurrencesOf(input.rule, { fromIndex: 0, from: at, through: at, atLeast: 1 }).occurrences[0];
    if (!first) throw validationError([{ path: 'rule', message: 'This rule has no occurrence from now on (check startDate, until and count)' }]);
    // Everything a request can be checked for (channels, media, platform rules, the plan) before writing.
    await deps.posts.createPosts(organizationId, bodyAt(input.template, input.type, first.at), { creationMethod: 'SERIES', dryRun: true, whenHeld: 'submit' });
    const result = await repo.transaction(async (tx) => {
      const row = await repo.insert(tx, {
        organizationId,
        rule: input.rule,
        template: input.template,
        type: input.type,
        horizonDays,
        previousSeriesId,
        createdAt: at,
        updatedAt: at,
      });
      const m = await materialise(tx, row, at);
      if (m.row.brokenAt) throw new AppError('VALIDATION_FAILED', m.row.brokenReason ?? 'The first occurrence could not be created');
      await emitEvent(
        tx,
        organizationId,
        'series.created',
        {
          series: { id: row.id, frequency: input.rule.frequency, interval: input.rule.interval, time: input.rule.time, timeZone: input.rule.timeZone },
          occurrences: m.created.length,
          createdAt: at.toISOString(),
        },
        at,
      );
      return m;
    });
    deps.posts.notifyScheduled(result.scheduled);
    return { series: out(result.row), occurrences: result.created };
  }

  return {
    horizonDays,

    async createSeries(organizationId: string, body: CreateSeriesBody) {
      return create(organizationId, { rule: body.rule, type: body.type, template: { shortLink: body.shortLink, tags: body.tags, posts: body.posts } });
    },

    /**
     * Postiz `inter: N` on POST /posts: a daily series every N days from the post's date (its UTC
     * time, zone UTC), answering what POST /posts answers: the first occurrence's posts.
     */
    async createFromInter(organizationId: string, body: CreatePostsBody & { inter: number }) {
      const date = new Date(Date.parse(body.date!));
      const d = DateTime.fromJSDate(date, { zone: 'UTC' });
      if (d.second !== 0 || d.millisecond !== 0) {
        throw validationError([{ path: 'date', message: 'With inter, the date is a whole minute (the series repeats at that minute)' }]);
      }
      const rule: SeriesRule = { frequency: 'daily', interval: body.inter, time: d.toFormat('HH:mm'), timeZone: 'UTC', startDate: d.toFormat('yyyy-MM-dd') };
      const r = await create(organizationId, { rule, type: body.type === 'draft' ? 'draft' : 'schedule', template: { shortLink: body.shortLink, tags: body.tags, posts: body.posts } });
      return r.occurrences[0]?.posts ?? [];
    },

    /** the channels a series posts on (undefined: no such series), for the sandbox key scope */
    async channelIdsOf(organizationId: string, id: string) {
      const row = await repo.find(organizationId, id);
      return row ? (row.template as Template).posts.map((p) => p.integration.id) : undefined;
    },

    async listSeries(organizationId: string) {
      return { series: (await repo.list(organizationId, LIST_MAX)).map(out) };
    },

    async getSeries(organizationId: string, id: string) {
      const row = await repo.find(organizationId, id);
      if (!row) throw notFound('Series');
      const counts = { created: 0, queued: 0, published: 0, failed: 0, drafts: 0 };
      for (const c of await repo.countByState(row.id)) {
        counts.created += c.n;
        if (c.state === 'QUEUE') counts.queued += c.n;
        else if (c.state === 'PUBLISHED') counts.published += c.n;
        else if (c.state === 'ERROR') counts.failed += c.n;
        else counts.drafts += c.n;
      }
      const upcoming = await repo.occurrencePosts(row.id, undefined, { from: now() });
      const byIndex = new Map<number, { index: number; publishDate: string; posts: { postId: string; integration: string; state: string }[] }>();
      for (const p of upcoming) {
        const k = p.seriesIndex ?? -1;
        const entry = byIndex.get(k) ?? { index: k, publishDate: p.publishDate.toISOString(), posts: [] };
        entry.posts.push({ postId: p.id, integration: p.integrationId, state: p.state });
        byIndex.set(k, entry);
      }
      return { ...out(row), counts, nextOccurrences: [...byIndex.values()].slice(0, 20) };
    },

    /**
     * "This and following": the series ends before the occurrence `fromPostId` (its unpublished
     * occurrences from there on are deleted) and a new series starts there with the new rule or
     * body, all in one transaction.
     */
    async updateFollowing(
      organizationId: string,
      id: string,
      body: { fromPostId: string; rule?: SeriesRule; type?: 'schedule' | 'draft'; shortLink?: boolean; tags?: CreateSeriesBody['tags']; posts?: CreateSeriesBody['posts'] },
    ) {
      const old = await repo.find(organizationId, id);
      if (!old) throw notFound('Series');
      const post = await repo.findPost(organizationId, body.fromPostId);
      if (!post || post.seriesId !== old.id || post.seriesIndex === null || post.parentPostId !== null) {
        throw validationError([{ path: 'fromPostId', message: 'No occurrence (post) of this series with this id' }]);
      }
      const oldRule = old.rule as SeriesRule;
      const fromIndex = post.seriesIndex;
      const localDay = DateTime.fromJSDate(post.publishDate, { zone: oldRule.timeZone }).toFormat('yyyy-MM-dd');
      const rule: SeriesRule = body.rule ?? { ...oldRule, startDate: localDay, ...(oldRule.count !== undefined ? { count: Math.max(1, oldRule.count - fromIndex) } : {}) };
      const template = old.template as Template;
      const next = { shortLink: body.shortLink ?? template.shortLink, tags: body.tags ?? template.tags, posts: body.posts ?? template.posts };
      assertCreatesOnly(next);
      const type = body.type ?? old.type;
      const at = now();
      const first = occurrencesOf(rule, { fromIndex: 0, from: at, through: at, atLeast: 1 }).occurrences[0];
      if (!first) throw validationError([{ path: 'rule', message: 'This rule has no occurrence from now on (check startDate, until and count)' }]);
      await deps.posts.createPosts(organizationId, bodyAt(next, type, first.at), { creationMethod: 'SERIES', dryRun: true, whenHeld: 'submit' });
      const result = await repo.transaction(async (tx) => {
        const locked = await repo.lock(tx, old.id, organizationId);
        if (!locked) throw notFound('Series');
        const dropped = await dropUnpublished(tx, old.id, fromIndex, at);
        await repo.update(tx, old.id, { completedAt: at, nextIndex: Math.max(locked.nextIndex, fromIndex), updatedAt: at });
        const row = await repo.insert(tx, { organizationId, rule: rule, template: next, type, horizonDays, previousSeriesId: old.id, createdAt: at, updatedAt: at });
        const m = await materialise(tx, row, at);
        if (m.row.brokenAt) throw new AppError('VALIDATION_FAILED', m.row.brokenReason ?? 'The first occurrence could not be created');
        await emitEvent(
          tx,
          organizationId,
          'series.created',
          { series: { id: row.id, frequency: rule.frequency, interval: rule.interval, time: rule.time, timeZone: rule.timeZone }, occurrences: m.created.length, createdAt: at.toISOString() },
          at,
        );
        return { m, dropped };
      });
      deps.posts.notifyScheduled(result.m.scheduled);
      return { series: out(result.m.row), occurrences: result.m.created, endedSeriesId: old.id, deleted: result.dropped.deleted };
    },

    /** Deletes the series and its unpublished occurrences; published ones (and failed ones) stay with their history. */
    async deleteSeries(organizationId: string, id: string) {
      const at = now();
      return repo.transaction(async (tx) => {
        const row = await repo.lock(tx, id, organizationId);
        if (!row) throw notFound('Series');
        const r = await dropUnpublished(tx, row.id, 0, at);
        await repo.update(tx, row.id, { deletedAt: at, updatedAt: at });
        return { id: row.id, deleted: r.deleted, kept: r.kept };
      });
    },

    /** Creates the occurrences of one series up to the horizon; answers how many were created. */
    async extend(id: string) {
      const at = now();
      const r = await repo.transaction(async (tx) => {
        const row = await repo.lock(tx, id);
        if (!row) return { created: [] as OccurrenceOut[], scheduled: [] as Date[] };
        return materialise(tx, row, at);
      });
      deps.posts.notifyScheduled(r.scheduled);
      return r.created.length;
    },

    /** One round of the extender: every series whose occurrences end within the horizon (less a day of slack). */
    async extendDue(onError: (err: unknown, seriesId: string) => void = () => undefined) {
      const at = now();
      const ids = await repo.dueForExtension(new Date(at.getTime() + (horizonDays - 1) * DAY_MS), 200);
      let created = 0;
      for (const id of ids) {
        try {
          created += await this.extend(id);
        } catch (e) {
          onError(e, id);
        }
      }
      return created;
    },
  };
}

export type SeriesService = ReturnType<typeof createSeriesService>;
