import { createHash } from 'node:crypto';
import { AppError, notFound, validationError, type FieldError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { runPeriodically } from '../../lib/periodic.js';
import { emitEvent, channelRef } from '../../core/events/events.js';
import { RemoteFetchError, type RemoteFetcher } from '../../core/media/remote-fetch.js';
import { countText } from '../../platforms/text-length.js';
import { isPlatformIdentifier, type PlatformAdapter, type PlatformIdentifier } from '../../platforms/platform.js';
import type { Tx } from '../../db/client.js';
import { CreatePostsBodySchema } from '../posts/posts.schemas.js';
import type { PostsService } from '../posts/posts.service.js';
import { FeedParseError, hashtagsOf, parseFeedText, type FeedItem, type ParsedFeed } from './feed-parse.js';
import type { FeedItemRow, FeedRow, FeedsRepository, NewFeedItemRow } from './feeds.repository.js';
import type { CreateFeedBody, FeedOut, FeedItemOut, UpdateFeedBody } from './feeds.schemas.js';

export const TEMPLATE_PLACEHOLDERS = ['title', 'link', 'summary', 'author', 'hashtags'] as const;
export const DEFAULT_TEMPLATE = '{title} {link}';

export interface FeedsOptions {
  /** largest feed body read (bytes) */
  maxBytes: number;
  /** consecutive failures after which the organisation is notified once (status `failing`) */
  notifyAfterFailures: number;
  /** first and largest wait after a failure (doubling in between) */
  backoffFirstMs: number;
  backoffMaxMs: number;
  /** how long a poller holds a feed it took */
  leaseMs: number;
  /** feeds one poller round takes */
  batchSize: number;
}

export const DEFAULT_FEEDS_OPTIONS: FeedsOptions = {
  maxBytes: 5 * 1024 * 1024,
  notifyAfterFailures: 5,
  backoffFirstMs: 15 * 60_000,
  backoffMaxMs: 24 * 3600_000,
  leaseMs: 10 * 60_000,
  batchSize: 20,
};

export interface FeedsServiceDeps {
  feeds: FeedsRepository;
  posts: Pick<PostsService, 'createPosts' | 'notifyScheduled'>;
  /** the next free posting slot of a channel (integrations service) */
  findSlot(organizationId: string, integrationId: string): Promise<{ date: string }>;
  /** imports an image into the media library the way `POST /upload-from-url` does */
  importImage(organizationId: string, url: string): Promise<{ id: string; path: string }>;
  notify(organizationId: string, content: string, link: string | null): Promise<unknown>;
  remote: RemoteFetcher;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  clock: Clock;
  options?: Partial<FeedsOptions>;
}

type Channel = { id: string; identifier: string; name: string; sandbox: boolean | null };

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>');
}

/** Unknown placeholders of a template (`{name}` not in TEMPLATE_PLACEHOLDERS). */
export function unknownPlaceholders(template: string): string[] {
  return [...template.matchAll(/\{([^{}\s]*)\}/g)].map((m) => m[1]!).filter((p) => !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(p));
}

function render(template: string, v: Record<(typeof TEMPLATE_PLACEHOLDERS)[number], string>): string {
  return template
    .replace(/\{(title|link|summary|author|hashtags)\}/g, (_, k: keyof typeof v) => v[k])
    .replace(/[ \t]+\n/g, '\n')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

function cut(s: string, n: number): string {
  if (n <= 0) return '';
  const chars = [...s];
  return chars.length <= n ? s : `${chars.slice(0, Math.max(0, n - 1)).join('').trimEnd()}…`;
}

/**
 * The post text of an item for one platform: the template filled in, cut to the platform's length
 * (the summary first, then the title), never cutting the link.
 */
export function renderForLimit(template: string, item: FeedItem, fits: (text: string) => boolean): string {
  const values = { title: item.title ?? '', link: item.link ?? '', summary: item.summary ?? '', author: item.author ?? '', hashtags: hashtagsOf(item.categories) };
  const full = render(template, values);
  if (fits(full)) return full;
  for (const field of ['summary', 'title', 'hashtags', 'author'] as const) {
    const original = [...values[field]].length;
    let lo = 0;
    let hi = original;
    // the longest cut of this field that fits
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(render(template, { ...values, [field]: cut(values[field], mid) }))) lo = mid;
      else hi = mid - 1;
    }
    values[field] = cut(values[field], lo);
    const text = render(template, values);
    if (fits(text)) return text;
  }
  return values.link;
}

function backoffMs(failures: number, o: FeedsOptions): number {
  return Math.min(o.backoffFirstMs * 2 ** Math.min(failures - 1, 20), o.backoffMaxMs);
}

/** RSS / Atom / JSON Feed autoposting (issue 30 part 3). */
export function createFeedsService(deps: FeedsServiceDeps) {
  const repo = deps.feeds;
  const o: FeedsOptions = { ...DEFAULT_FEEDS_OPTIONS, ...deps.options };
  const now = () => new Date(deps.clock.now());

  function adapterFor(identifier: string): PlatformAdapter | undefined {
    return isPlatformIdentifier(identifier) ? deps.adapters[identifier] : undefined;
  }

  async function loadOwned(organizationId: string, id: string): Promise<FeedRow> {
    const row = isUuid(id) ? await repo.findFeed(organizationId, id) : undefined;
    if (!row) throw notFound('Feed');
    return row;
  }

  function feedOut(f: FeedRow): FeedOut {
    return {
      id: f.id,
      url: f.url,
      title: f.title,
      integrationIds: f.integrationIds,
      template: f.template,
      mode: f.mode as FeedOut['mode'],
      pollMinutes: f.pollMinutes,
      status: f.status as FeedOut['status'],
      failures: f.failures,
      lastError: f.lastError,
      lastErrorAt: f.lastErrorAt?.toISOString() ?? null,
      lastSuccessAt: f.lastSuccessAt?.toISOString() ?? null,
      nextPollAt: f.nextPollAt.toISOString(),
      createdAt: f.createdAt.toISOString(),
      updatedAt: f.updatedAt.toISOString(),
    };
  }

  function itemOut(i: FeedItemRow): FeedItemOut {
    return {
      key: i.key,
      title: i.title,
      link: i.link,
      publishedAt: i.publishedAt?.toISOString() ?? null,
      firstSeenAt: i.firstSeenAt.toISOString(),
      outcome: i.outcome as FeedItemOut['outcome'],
      group: i.postGroup,
      posts: i.posts,
      error: i.error,
    };
  }

  async function checkChannels(organizationId: string, ids: string[], path: string): Promise<Channel[]> {
    const unique = [...new Set(ids)];
    const found = await repo.findChannels(organizationId, unique.filter(isUuid));
    const known = new Set(found.map((c) => c.id));
    const fields: FieldError[] = [];
    ids.forEach((id, i) => {
      if (!known.has(id)) fields.push({ path: `${path}.${i}`, message: 'No channel with this id in your organisation' });
    });
    if (fields.length > 0) throw validationError(fields);
    return found;
  }

  function checkTemplate(template: string) {
    const unknown = unknownPlaceholders(template);
    if (unknown.length > 0) {
      throw validationError([{ path: 'template', message: `Unknown placeholder(s) ${unknown.map((u) => `{${u}}`).join(', ')}; use ${TEMPLATE_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}` }]);
    }
    if (template.trim() === '') throw validationError([{ path: 'template', message: 'Required' }]);
  }

  type Fetched = { kind: 'not_modified' } | { kind: 'ok'; feed: ParsedFeed; etag: string | null; lastModified: string | null };

  /** One fetch of the feed: conditional when validators are known; throws FeedError-ish Errors. */
  async function fetchFeed(url: string, validators: { etag: string | null; lastModified: string | null }): Promise<Fetched> {
    const headers: Record<string, string> = {};
    if (validators.etag) headers['if-none-match'] = validators.etag;
    if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
    const file = await deps.remote.open(url, {
      maxBytes: o.maxBytes,
      headers,
      accept: 'application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5',
    });
    if (file.status === 304) return { kind: 'not_modified' };
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of file.body) {
      size += chunk.length;
      if (size > o.maxBytes) {
        file.cancel();
        throw new FeedParseError(`the feed is larger than ${o.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    const feed = parseFeedText(Buffer.concat(chunks).toString('utf8'));
    return { kind: 'ok', feed, etag: file.header('etag'), lastModified: file.header('last-modified') };
  }

  function describe(err: unknown): string {
    if (err instanceof RemoteFetchError || err instanceof FeedParseError) return err.message;
    return err instanceof Error ? err.message : String(err);
  }

  /** Items newest first (by date, else feed order), without duplicate keys. */
  function newestFirst(items: FeedItem[]): FeedItem[] {
    const seen = new Set<string>();
    const unique = items.filter((i) => (seen.has(i.key) ? false : (seen.add(i.key), true)));
    return unique
      .map((item, index) => ({ item, index }))
      .sort((a, b) => (b.item.published?.getTime() ?? -Infinity) - (a.item.published?.getTime() ?? -Infinity) || a.index - b.index)
      .map((x) => x.item);
  }

  function itemRow(feed: FeedRow, item: FeedItem, at: Date, outcome: string, extra: Partial<NewFeedItemRow> = {}): NewFeedItemRow {
    return { feedId: feed.id, key: item.key, title: item.title?.slice(0, 1000) ?? null, link: item.link?.slice(0, 2000) ?? null, publishedAt: item.published, firstSeenAt: at, outcome, ...extra };
  }

  /**
   * Posts one item on the feed's channels, once ever:
   * 1. the item row is claimed (`pending`, ON CONFLICT DO NOTHING: a racing poller finds it and stops);
   * 2. each channel's post is created through the posts service with an idempotency key of the
   *    feed, the item and the channel, saved in the same transaction as the post — so a retry of a
   *    `pending` item after a crash replays the posts made before the crash instead of making them again;
   * 3. the item gets its outcome, posts and `feed.item_posted` in one transaction.
   * (`createPosts` in our own transaction would be simpler, but it reads outside the caller's
   * transaction, which on PGlite — one connection — waits for that transaction for ever.)
   * A channel whose post validation refuses the item is left out and named in the item's error.
   */
  async function postItem(feed: FeedRow, channels: Channel[], item: FeedItem, retry: boolean) {
    const at = now();
    const claimed = await repo.insertItem(repo.db, itemRow(feed, item, at, 'pending'));
    if (!claimed && !retry) return; // another poller has it
    const row = claimed ?? (await repo.findItem(feed.id, item.key));
    if (!row || row.outcome !== 'pending') return;
    const notes: string[] = [];
    let image: { id: string; path: string } | undefined;
    if (item.image) {
      try {
        image = await deps.importImage(feed.organizationId, item.image);
      } catch (err) {
        notes.push(`image not attached (${item.image}): ${err instanceof AppError ? err.message : describe(err)}`);
      }
    }
    const type = feed.mode === 'draft' ? 'draft' : feed.mode === 'now' ? 'now' : 'schedule';
    const keyHash = createHash('sha256').update(item.key).digest('hex').slice(0, 32);
    const made: { postId: string; integration: string; group: string }[] = [];
    const scheduled: Date[] = [];
    let conflicts = 0;
    // One request per channel: each gets its own text cut to its platform, and its own slot.
    for (const channel of channels) {
      const adapter = adapterFor(channel.identifier);
      const limits = adapter?.metadata.text;
      const fits = (t: string) => !limits || countText(t, limits.counting) <= limits.maxLength;
      const text = renderForLimit(feed.template, item, fits);
      let date: string | undefined;
      if (feed.mode === 'slot') {
        try {
          date = (await deps.findSlot(feed.organizationId, channel.id)).date;
        } catch (err) {
          notes.push(`${channel.name}: ${describe(err)}`);
          continue;
        }
      } else if (type === 'draft') date = row.firstSeenAt.toISOString();
      const body = CreatePostsBodySchema.parse({
        type,
        ...(date ? { date } : {}),
        posts: [{ integration: { id: channel.id }, value: [{ content: escapeHtml(text), image: image ? [image] : [] }] }],
      });
      try {
        const result = await deps.posts.createPosts(feed.organizationId, body, { creationMethod: 'FEED', whenHeld: 'submit', idempotencyKey: `feed:${feed.id}:${keyHash}:${channel.id}` });
        made.push(...(result.body as typeof made));
        if (!result.replayed) scheduled.push(...(result.scheduled ?? []));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'CONFLICT' && retry) {
          // another poller is making it, or made it with another body (a slot taken meanwhile)
          conflicts++;
          continue;
        }
        const fields = err.extra.fields;
        notes.push(`${channel.name}: ${fields?.map((f) => f.message).join('; ') ?? err.message}`);
      }
    }
    deps.posts.notifyScheduled(scheduled);
    if (made.length === 0 && conflicts > 0) return; // left to the poller that made its posts
    const outcome = made.length === 0 ? 'failed' : feed.mode === 'draft' ? 'draft' : 'posted';
    const group = made[0]?.group ?? null;
    await repo.transaction(async (tx: Tx) => {
      const done = await repo.settleItem(tx, row.id, { outcome, posts: made, postGroup: group, error: notes.length > 0 ? notes.join('\n').slice(0, 4000) : made.length === 0 ? 'no channel to post on' : null });
      if (!done || made.length === 0) return;
      const byId = new Map(channels.map((c) => [c.id, c]));
      await emitEvent(
        tx,
        feed.organizationId,
        'feed.item_posted',
        {
          feed: { id: feed.id, url: feed.url },
          item: { key: item.key, title: item.title, link: item.link },
          group: group ?? '',
          posts: made.map((m) => ({ postId: m.postId, integration: byId.has(m.integration) ? channelRef(byId.get(m.integration)!) : { id: m.integration } })),
          mode: feed.mode,
          postedAt: at.toISOString(),
        },
        at,
      );
    });
  }

  /** The items of one successful fetch: new ones posted (or, on the first poll, recorded as skipped but the newest `backfill`). */
  async function processItems(feed: FeedRow, parsed: ParsedFeed, first: boolean) {
    const items = newestFirst(parsed.items);
    const known = await repo.knownKeys(feed.id, items.map((i) => i.key));
    // new items, and items a crashed poller left pending
    const fresh = items.filter((i) => !known.has(i.key) || known.get(i.key) === 'pending');
    if (fresh.length === 0) return;
    const at = now();
    let toPost = fresh;
    if (first) {
      toPost = fresh.slice(0, feed.backfill);
      await repo.insertItems(fresh.slice(feed.backfill).map((i) => itemRow(feed, i, at, 'skipped')));
    }
    const channels = await repo.findChannels(feed.organizationId, feed.integrationIds);
    // oldest first, so the channels show them in the feed's order
    for (const item of [...toPost].reverse()) await postItem(feed, channels, item, known.get(item.key) === 'pending');
  }

  async function recordFailure(feed: FeedRow, err: unknown) {
    const at = now();
    const failures = feed.failures + 1;
    const message = describe(err).slice(0, 1000);
    const breaking = failures >= o.notifyAfterFailures && feed.status !== 'failing';
    await repo.recordPoll(feed.id, {
      failures,
      lastError: message,
      lastErrorAt: at,
      nextPollAt: new Date(at.getTime() + backoffMs(failures, o)),
      status: breaking ? 'failing' : feed.status,
      updatedAt: at,
    });
    if (breaking) {
      await deps.notify(feed.organizationId, `The feed ${feed.title ?? feed.url} failed ${failures} times in a row: ${message}. Tidings keeps retrying with backoff.`, null);
    }
  }

  /** One poll of a leased feed. Never throws for the feed's own failures: they are recorded on it. */
  async function pollFeed(feed: FeedRow): Promise<void> {
    let fetched: Fetched;
    try {
      fetched = await fetchFeed(feed.url, { etag: feed.etag, lastModified: feed.lastModified });
    } catch (err) {
      await recordFailure(feed, err);
      return;
    }
    try {
      if (fetched.kind === 'ok') await processItems(feed, fetched.feed, feed.lastSuccessAt === null);
    } catch (err) {
      // our own trouble (the database): nothing recorded for the unposted items, so the next poll takes them again
      await recordFailure({ ...feed }, err);
      return;
    }
    const at = now();
    await repo.recordPoll(feed.id, {
      ...(fetched.kind === 'ok' ? { etag: fetched.etag, lastModified: fetched.lastModified, title: fetched.feed.title ?? feed.title } : {}),
      lastSuccessAt: at,
      failures: 0,
      status: 'active',
      nextPollAt: new Date(at.getTime() + feed.pollMinutes * 60_000),
      updatedAt: at,
    });
  }

  return {
    async createFeed(organizationId: string, body: CreateFeedBody): Promise<FeedOut> {
      const template = body.template ?? DEFAULT_TEMPLATE;
      checkTemplate(template);
      await checkChannels(organizationId, body.integrationIds, 'integrationIds');
      let fetched: Fetched;
      try {
        fetched = await fetchFeed(body.url, { etag: null, lastModified: null });
      } catch (err) {
        throw validationError([{ path: 'url', message: `Not a feed Tidings can read: ${describe(err)}` }]);
      }
      if (fetched.kind !== 'ok') throw validationError([{ path: 'url', message: 'Not a feed Tidings can read' }]);
      const at = now();
      const feed = await repo.insertFeed({
        organizationId,
        url: body.url,
        title: fetched.feed.title,
        integrationIds: [...new Set(body.integrationIds)],
        template,
        mode: body.mode ?? 'now',
        pollMinutes: body.pollMinutes ?? 15,
        backfill: body.backfill ?? 0,
        etag: fetched.etag,
        lastModified: fetched.lastModified,
        nextPollAt: new Date(at.getTime() + (body.pollMinutes ?? 15) * 60_000),
        createdAt: at,
        updatedAt: at,
      });
      // The first poll is this fetch: the back catalogue is recorded (skipped) but the newest `backfill`.
      await processItems(feed, fetched.feed, true);
      const done = await repo.recordPoll(feed.id, { lastSuccessAt: at });
      return feedOut(done ?? feed);
    },

    /** the channels a feed posts on (undefined: no such feed), for the sandbox key scope */
    async channelIdsOf(organizationId: string, id: string) {
      return (isUuid(id) ? await repo.findFeed(organizationId, id) : undefined)?.integrationIds;
    },

    async listFeeds(organizationId: string) {
      return { feeds: (await repo.listFeeds(organizationId)).map(feedOut) };
    },

    async getFeed(organizationId: string, id: string) {
      return feedOut(await loadOwned(organizationId, id));
    },

    async listItems(organizationId: string, id: string, limit: number) {
      const feed = await loadOwned(organizationId, id);
      return { items: (await repo.listItems(feed.id, limit)).map(itemOut) };
    },

    async updateFeed(organizationId: string, id: string, body: UpdateFeedBody) {
      const feed = await loadOwned(organizationId, id);
      if (body.template !== undefined) checkTemplate(body.template);
      if (body.integrationIds !== undefined) await checkChannels(organizationId, body.integrationIds, 'integrationIds');
      const at = now();
      const row = await repo.updateFeed(organizationId, feed.id, {
        ...(body.template !== undefined ? { template: body.template } : {}),
        ...(body.integrationIds !== undefined ? { integrationIds: [...new Set(body.integrationIds)] } : {}),
        ...(body.mode !== undefined ? { mode: body.mode } : {}),
        ...(body.pollMinutes !== undefined ? { pollMinutes: body.pollMinutes } : {}),
        updatedAt: at,
      });
      if (!row) throw notFound('Feed');
      return feedOut(row);
    },

    async deleteFeed(organizationId: string, id: string) {
      const feed = await loadOwned(organizationId, id);
      const at = now();
      const row = await repo.updateFeed(organizationId, feed.id, { deletedAt: at, updatedAt: at });
      if (!row) throw notFound('Feed');
      return { id: row.id, deleted: true as const };
    },

    /** `POST /feeds/{id}/poll`: polls now (conditional request, new items posted) and answers the feed. */
    async pollNow(organizationId: string, id: string) {
      await loadOwned(organizationId, id);
      const leased = await repo.leaseOne(organizationId, id, new Date(now().getTime() + o.leaseMs));
      if (!leased) throw notFound('Feed');
      await pollFeed(leased);
      return feedOut((await repo.findFeed(organizationId, id)) ?? leased);
    },

    /** One poller round: the due feeds, leased to this process, polled one after another. Answers how many. */
    async pollDue(signal?: AbortSignal): Promise<number> {
      const at = now();
      const due = await repo.leaseDue(at, new Date(at.getTime() + o.leaseMs), o.batchSize);
      for (const feed of due) {
        if (signal?.aborted) break;
        await pollFeed(feed);
      }
      return due.length;
    },
  };
}

export type FeedsService = ReturnType<typeof createFeedsService>;

/**
 * The poller of worker processes (started by `deps.startWorker`, so `serve --role worker|all`):
 * a round every `intervalMs` takes the due feeds. It lives in the feeds module, not in an engine:
 * it only calls the feeds service (which creates posts through the posts service), and an engine
 * would need a port in core/ for exactly that one call.
 */
export function startFeedPoller(service: FeedsService, opts: { firstDelayMs: number; intervalMs: number; logger: { error(obj: unknown, msg?: string): void } }) {
  return runPeriodically((signal) => service.pollDue(signal), { firstDelayMs: opts.firstDelayMs, intervalMs: opts.intervalMs, onError: (err) => opts.logger.error({ err }, 'feed poller failed; trying again next round') });
}
