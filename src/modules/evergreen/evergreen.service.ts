import { createHash } from 'node:crypto';
import { AppError, notFound, validationError, type FieldError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import { CreatePostsBodySchema } from '../posts/posts.schemas.js';
import type { PostsService } from '../posts/posts.service.js';
import type { EvergreenRepository, ItemRow, QueueRow } from './evergreen.repository.js';
import type { CreateItemBody, CreateQueueBody, UpdateItemBody, UpdateQueueBody } from './evergreen.schemas.js';

const DAY_MS = 86_400_000;
/** A channel whose evergreen posts failed this many times in a row is paused in that queue. */
export const PAUSE_AFTER_FAILURES = 3;
/** A claim without a post this old was left by a version that claimed and created in two transactions: released. */
const STALE_CLAIM_MS = 10 * 60_000;

/** A number in [0, 1) from a seed: the same seed always gives the same number, so a plan shows what the fill will do. */
export function seededRandom(seed: string): number {
  return createHash('sha256').update(seed).digest().readUInt32BE(0) / 2 ** 32;
}

interface Channel {
  id: string;
  identifier: string;
  name: string;
  disabled: boolean;
}

interface Planned {
  integrationId: string;
  at: number;
  item: ItemRow | undefined;
  variation: number;
}

/** The texts of an item in rotation order: its content, then each variation. */
const textsOf = (item: ItemRow) => [item.content, ...item.variations];

/**
 * Chooses the item for one slot of a channel: not used on the channel within the gap (by item, so
 * its variations count as the same), in turn by position (`sequence`) or picked by `random`
 * (`shuffle`); undefined when none is eligible.
 */
export function chooseItem(input: {
  order: 'sequence' | 'shuffle';
  items: ItemRow[];
  history: { itemId: string; at: number }[];
  lastItemId: string | undefined;
  slot: number;
  gapMs: number;
  random: () => number;
}): ItemRow | undefined {
  const { items, history, slot, gapMs } = input;
  const eligible = (item: ItemRow) => !history.some((h) => h.itemId === item.id && Math.abs(h.at - slot) < gapMs);
  if (input.order === 'shuffle') {
    const candidates = items.filter(eligible);
    return candidates.length === 0 ? undefined : candidates[Math.min(candidates.length - 1, Math.floor(input.random() * candidates.length))];
  }
  const start = input.lastItemId === undefined ? 0 : items.findIndex((i) => i.id === input.lastItemId) + 1;
  for (let k = 0; k < items.length; k++) {
    const item = items[(start + k) % items.length]!;
    if (eligible(item)) return item;
  }
  return undefined;
}

/**
 * Evergreen queues (issue 30 part 2): posts recycled into each channel's free posting-time slots
 * (`IntegrationsService.channelSlots`), each fill a real scheduled post made by the posts service in
 * the transaction that records it (one fill per channel slot, by a unique key), with a channel
 * paused in a queue after `PAUSE_AFTER_FAILURES` failed posts in a row.
 */
export function createEvergreenService(deps: {
  evergreen: EvergreenRepository;
  posts: Pick<PostsService, 'createPosts' | 'notifyScheduled'>;
  integrations: Pick<IntegrationsService, 'channelSlots'>;
  clock: Clock;
  /** writes an organisation notification */
  notify: (organizationId: string, content: string) => Promise<unknown>;
  /** the shuffle's randomness, from a seed naming the queue, channel and slot (default: a hash of it) */
  random?: (seed: string) => number;
}) {
  const { evergreen: repo, clock } = deps;
  const random = deps.random ?? seededRandom;
  const now = () => new Date(clock.now());

  async function getQueueRow(organizationId: string, id: string) {
    const row = isUuid(id) ? await repo.findQueue(organizationId, id) : undefined;
    if (!row) throw notFound('Evergreen queue');
    return row;
  }

  async function view(row: QueueRow) {
    const states = await repo.listChannelStates(row.id);
    return {
      id: row.id,
      name: row.name,
      integrations: row.integrationIds,
      order: row.order,
      minGapDays: row.minGapDays,
      horizonDays: row.horizonDays,
      enabled: row.enabled,
      channels: states
        .filter((s) => s.consecutiveFailures > 0 || s.pausedAt !== null)
        .map((s) => ({
          integrationId: s.integrationId,
          consecutiveFailures: s.consecutiveFailures,
          paused: s.pausedAt !== null,
          pausedAt: s.pausedAt?.toISOString() ?? null,
          pausedReason: s.pausedReason,
        })),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  function itemView(row: ItemRow) {
    return {
      id: row.id,
      position: row.position,
      content: row.content,
      variations: row.variations,
      media: row.media.map((m) => m.id),
      settings: row.settings,
      createdAt: row.createdAt.toISOString(),
    };
  }

  /** Every id must be a live channel of the organisation; each unknown one is named (`integrations.N`). */
  async function checkIntegrations(organizationId: string, ids: string[]) {
    const unique = [...new Set(ids)];
    const known = new Set((await repo.listChannels(organizationId, unique.filter(isUuid))).map((c) => c.id));
    const unknown = ids.flatMap((id, i) => (known.has(id) ? [] : [{ path: `integrations.${i}`, message: `Unknown channel ${id}` }]));
    if (unknown.length > 0) throw validationError(unknown);
    return unique;
  }

  async function channelsOf(queue: QueueRow): Promise<Channel[]> {
    const all = await repo.listChannels(queue.organizationId, queue.integrationIds.length > 0 ? queue.integrationIds : undefined);
    return all.filter((c) => !c.disabled);
  }

  function postBody(channel: Channel, item: Pick<ItemRow, 'media' | 'settings'>, text: string, at: number) {
    return CreatePostsBodySchema.parse({
      type: 'schedule',
      date: new Date(at).toISOString(),
      posts: [{ integration: { id: channel.id }, value: [{ content: text, image: item.media.map((m) => m.id) }], settings: item.settings[channel.identifier] }],
    });
  }

  /**
   * Checks an item against the platform rules of each channel of the queue (the posts service's dry
   * run), its content and each variation; problems are named by the item's own fields.
   */
  async function checkItem(queue: QueueRow, item: Pick<ItemRow, 'content' | 'variations' | 'media' | 'settings'>) {
    const channels = await channelsOf(queue);
    if (channels.length === 0) return;
    const fields: FieldError[] = [];
    const texts = [item.content, ...item.variations];
    const at = clock.now() + DAY_MS;
    for (const [k, text] of texts.entries()) {
      const textPath = k === 0 ? 'content' : `variations.${k - 1}`;
      for (const channel of channels) {
        try {
          await deps.posts.createPosts(queue.organizationId, postBody(channel, item, text, at), { creationMethod: 'EVERGREEN', dryRun: true, skipPlanCheck: true, whenHeld: 'submit' });
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== 'VALIDATION_FAILED') throw e;
          const issues = e.extra.fields ?? [];
          for (const f of issues) {
            const rest = f.path.replace(/^posts\.0\./, '');
            const path = rest.startsWith('value.0.content')
              ? textPath
              : rest.startsWith('value.0.image.')
                ? `media.${rest.slice('value.0.image.'.length)}`
                : rest.startsWith('settings')
                  ? `settings.${channel.identifier}${rest.slice('settings'.length)}`
                  : rest.startsWith('value.0') ? textPath : rest;
            const message = `${channel.name} (${channel.identifier}): ${f.message}`;
            if (!fields.some((x) => x.path === path && x.message === message)) fields.push({ path, message });
          }
        }
      }
    }
    if (fields.length > 0) throw validationError(fields);
  }

  /**
   * What the queue would put into each free slot of its channels up to `untilMs` (paused channels
   * left out): read only. Slots a fill already took, or other posts hold, are not free.
   */
  async function planQueue(queue: QueueRow, untilMs: number): Promise<{ channel: Channel; slots: Planned[] }[]> {
    const items = await repo.listItems(queue.id);
    const paused = new Set((await repo.listChannelStates(queue.id)).filter((s) => s.pausedAt !== null).map((s) => s.integrationId));
    const from = clock.now();
    const gapMs = queue.minGapDays * DAY_MS;
    const out: { channel: Channel; slots: Planned[] }[] = [];
    for (const channel of await channelsOf(queue)) {
      if (paused.has(channel.id)) continue;
      const uses = await repo.listUses(channel.id, new Date(Math.min(from - gapMs, from)));
      const used = new Set(uses.map((u) => u.slotAt.getTime()));
      const free = (await deps.integrations.channelSlots(queue.organizationId, channel.id, from, untilMs)).filter((s) => !s.taken && !used.has(s.at));
      const history = uses.map((u) => ({ itemId: u.itemId, at: u.slotAt.getTime() }));
      let lastItemId = (await repo.lastUse(queue.id, channel.id))?.itemId;
      const lastVariation = await repo.lastVariations(queue.id, channel.id);
      const slots: Planned[] = [];
      for (const { at } of free) {
        const item = items.length === 0 ? undefined : chooseItem({ order: queue.order, items, history, lastItemId, slot: at, gapMs, random: () => random(`${queue.id}:${channel.id}:${at}`) });
        if (!item) {
          slots.push({ integrationId: channel.id, at, item: undefined, variation: 0 });
          continue;
        }
        const previous = lastVariation.get(item.id);
        const variation = previous === undefined ? 0 : (previous + 1) % textsOf(item).length;
        history.push({ itemId: item.id, at });
        lastItemId = item.id;
        lastVariation.set(item.id, variation);
        slots.push({ integrationId: channel.id, at, item, variation });
      }
      out.push({ channel, slots });
    }
    return out;
  }

  /** Records how the queue's ended posts went; a channel failing `PAUSE_AFTER_FAILURES` times in a row is paused (one notification). */
  async function recordOutcomes(queue: QueueRow) {
    const ended = await repo.unrecordedOutcomes(queue.id);
    for (const use of ended) {
      const outcome = use.state === null || use.deletedAt !== null ? 'cancelled' : use.state === 'PUBLISHED' ? 'published' : 'failed';
      const pausedNow = await repo.transaction(async (tx) => {
        const at = now();
        const state = await repo.lockChannelState(tx, queue.id, use.integrationId, at);
        await repo.setOutcome(tx, use.id, outcome);
        if (outcome === 'published') {
          await repo.updateChannelState(tx, queue.id, use.integrationId, { consecutiveFailures: 0, updatedAt: at });
        } else if (outcome === 'failed') {
          const failures = state.consecutiveFailures + 1;
          const pause = failures >= PAUSE_AFTER_FAILURES && state.pausedAt === null;
          await repo.updateChannelState(tx, queue.id, use.integrationId, {
            consecutiveFailures: failures,
            updatedAt: at,
            ...(pause ? { pausedAt: at, pausedReason: `${failures} evergreen posts failed in a row (last: ${use.error ?? 'unknown error'})` } : {}),
          });
          return pause;
        }
        return false;
      });
      if (pausedNow) {
        const [channel] = await repo.listChannels(queue.organizationId, [use.integrationId]);
        await deps.notify(
          queue.organizationId,
          `Evergreen queue ${queue.name}: channel ${channel?.name ?? use.integrationId} is paused after ${PAUSE_AFTER_FAILURES} failed posts in a row (resume it in the queue)`,
        );
      }
    }
  }

  /** One fill of a queue: outcomes first, then every free slot within the horizon gets its item as a scheduled post. */
  async function fillQueue(queue: QueueRow) {
    await repo.releaseStaleClaims(queue.id, new Date(clock.now() - STALE_CLAIM_MS));
    await recordOutcomes(queue);
    const plan = await planQueue(queue, clock.now() + queue.horizonDays * DAY_MS);
    const created: { integrationId: string; at: string; itemId: string; variation: number; postId: string }[] = [];
    const empty: { integrationId: string; at: string }[] = [];
    for (const { channel, slots } of plan) {
      for (const slot of slots) {
        if (!slot.item) {
          empty.push({ integrationId: channel.id, at: new Date(slot.at).toISOString() });
          continue;
        }
        const item = slot.item;
        // One transaction: the slot is claimed (a unique key per channel slot, so racing fills take
        // each slot once), the post created by the posts service and the claim pointed at it. A
        // crash anywhere in between leaves neither; a refusal rolls the claim back.
        let result: { postId: string; scheduled: Date[] } | undefined;
        try {
          result = await repo.transaction(async (tx) => {
            const claim = await repo.claimSlot(tx, { queueId: queue.id, itemId: item.id, variation: slot.variation, integrationId: channel.id, slotAt: new Date(slot.at), createdAt: now() });
            if (!claim) return undefined;
            const text = textsOf(item)[slot.variation] ?? item.content;
            const r = await deps.posts.createPosts(queue.organizationId, postBody(channel, item, text, slot.at), { creationMethod: 'EVERGREEN', tx, whenHeld: 'submit' });
            const postId = (r.body as { postId: string }[])[0]!.postId;
            await repo.setUsePost(tx, claim.id, postId);
            return { postId, scheduled: r.scheduled ?? [] };
          });
        } catch (e) {
          // The post was refused before it existed (the channel's rules changed, the plan's limit):
          // a failure of this channel; the next slots would be refused alike.
          if (!(e instanceof AppError)) throw e;
          await countRefusal(queue, channel, e.message);
          break;
        }
        // Another fill took this slot: it is filling this channel now.
        if (!result) break;
        deps.posts.notifyScheduled(result.scheduled);
        created.push({ integrationId: channel.id, at: new Date(slot.at).toISOString(), itemId: item.id, variation: slot.variation, postId: result.postId });
      }
    }
    return { created, empty };
  }

  async function countRefusal(queue: QueueRow, channel: Channel, message: string) {
    const pausedNow = await repo.transaction(async (tx) => {
      const at = now();
      const state = await repo.lockChannelState(tx, queue.id, channel.id, at);
      const failures = state.consecutiveFailures + 1;
      const pause = failures >= PAUSE_AFTER_FAILURES && state.pausedAt === null;
      await repo.updateChannelState(tx, queue.id, channel.id, {
        consecutiveFailures: failures,
        updatedAt: at,
        ...(pause ? { pausedAt: at, pausedReason: `${failures} evergreen posts failed in a row (last: ${message})` } : {}),
      });
      return pause;
    });
    if (pausedNow) await deps.notify(queue.organizationId, `Evergreen queue ${queue.name}: channel ${channel.name} is paused after ${PAUSE_AFTER_FAILURES} failed posts in a row (resume it in the queue)`);
  }

  return {
    /** the channels a queue fills (empty: all; undefined: no such queue), for the sandbox key scope */
    channelIdsOf: async (organizationId: string, id: string) => (isUuid(id) ? (await repo.findQueue(organizationId, id))?.integrationIds : undefined),
    listQueues: async (organizationId: string) => Promise.all((await repo.listQueues(organizationId)).map(view)),

    getQueue: async (organizationId: string, id: string) => view(await getQueueRow(organizationId, id)),

    async createQueue(organizationId: string, body: CreateQueueBody) {
      const integrationIds = await checkIntegrations(organizationId, body.integrations ?? []);
      const at = now();
      const row = await repo.insertQueue({
        organizationId,
        name: body.name,
        integrationIds,
        order: body.order,
        minGapDays: body.minGapDays,
        horizonDays: body.horizonDays,
        enabled: body.enabled,
        createdAt: at,
        updatedAt: at,
      });
      return view(row);
    },

    async updateQueue(organizationId: string, id: string, body: UpdateQueueBody) {
      await getQueueRow(organizationId, id);
      const integrationIds = body.integrations !== undefined ? await checkIntegrations(organizationId, body.integrations) : undefined;
      const row = await repo.updateQueue(organizationId, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(integrationIds !== undefined ? { integrationIds } : {}),
        ...(body.order !== undefined ? { order: body.order } : {}),
        ...(body.minGapDays !== undefined ? { minGapDays: body.minGapDays } : {}),
        ...(body.horizonDays !== undefined ? { horizonDays: body.horizonDays } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
        updatedAt: now(),
      });
      if (!row) throw notFound('Evergreen queue');
      return view(row);
    },

    /** Deletes the queue; the posts it already created stay scheduled (delete them as posts). */
    async deleteQueue(organizationId: string, id: string) {
      const row = isUuid(id) ? await repo.softDeleteQueue(organizationId, id, now()) : undefined;
      if (!row) throw notFound('Evergreen queue');
      return { id: row.id, deleted: true as const };
    },

    async listItems(organizationId: string, id: string) {
      const queue = await getQueueRow(organizationId, id);
      return (await repo.listItems(queue.id)).map(itemView);
    },

    async getItem(organizationId: string, id: string, itemId: string) {
      const queue = await getQueueRow(organizationId, id);
      const row = isUuid(itemId) ? await repo.findItem(queue.id, itemId) : undefined;
      if (!row) throw notFound('Evergreen item');
      return itemView(row);
    },

    async addItem(organizationId: string, id: string, body: CreateItemBody) {
      const queue = await getQueueRow(organizationId, id);
      const item = { content: body.content, variations: body.variations, media: body.media.map((m) => ({ id: m })), settings: body.settings };
      await checkItem(queue, item);
      return itemView(await repo.insertItem({ queueId: queue.id, ...item, createdAt: now() }));
    },

    async updateItem(organizationId: string, id: string, itemId: string, body: UpdateItemBody) {
      const queue = await getQueueRow(organizationId, id);
      const existing = isUuid(itemId) ? await repo.findItem(queue.id, itemId) : undefined;
      if (!existing) throw notFound('Evergreen item');
      const next = {
        content: body.content ?? existing.content,
        variations: body.variations ?? existing.variations,
        media: body.media !== undefined ? body.media.map((m) => ({ id: m })) : existing.media,
        settings: body.settings ?? existing.settings,
      };
      if (body.content !== undefined || body.variations !== undefined || body.media !== undefined || body.settings !== undefined) await checkItem(queue, next);
      const row = await repo.updateItem(queue.id, itemId, { ...next, ...(body.position !== undefined ? { position: body.position } : {}) });
      if (!row) throw notFound('Evergreen item');
      return itemView(row);
    },

    async deleteItem(organizationId: string, id: string, itemId: string) {
      const queue = await getQueueRow(organizationId, id);
      const row = isUuid(itemId) ? await repo.softDeleteItem(queue.id, itemId, now()) : undefined;
      if (!row) throw notFound('Evergreen item');
      return { id: row.id, deleted: true as const };
    },

    /** Fills the queue now (also when disabled): what it created and the free slots it left empty. */
    async fill(organizationId: string, id: string) {
      return fillQueue(await getQueueRow(organizationId, id));
    },

    /** The slots the queue would fill in the next `days` days beyond what it already created; writes nothing. */
    async plan(organizationId: string, id: string, days: number) {
      const queue = await getQueueRow(organizationId, id);
      const plan = await planQueue(queue, clock.now() + days * DAY_MS);
      return {
        slots: plan
          .flatMap((c) => c.slots)
          .sort((a, b) => a.at - b.at || a.integrationId.localeCompare(b.integrationId))
          .map((s) => ({
            integrationId: s.integrationId,
            at: new Date(s.at).toISOString(),
            itemId: s.item?.id ?? null,
            variation: s.item ? s.variation : null,
            content: s.item ? (textsOf(s.item)[s.variation] ?? s.item.content) : null,
          })),
      };
    },

    /** Resumes a channel paused in the queue (its failure count starts again). */
    async resumeChannel(organizationId: string, id: string, integrationId: string) {
      const queue = await getQueueRow(organizationId, id);
      const [channel] = isUuid(integrationId) ? await repo.listChannels(organizationId, [integrationId]) : [];
      if (!channel) throw notFound('Integration');
      await repo.updateChannelState(undefined, queue.id, integrationId, { consecutiveFailures: 0, pausedAt: null, pausedReason: null, updatedAt: now() });
      return view(queue);
    },

    /** The periodic fill: every enabled queue of every organisation; answers how many posts it created. */
    async fillAll(signal?: AbortSignal, onError: (err: unknown, queueId: string) => void = () => undefined) {
      let created = 0;
      for (const queue of await repo.listEnabledQueues()) {
        if (signal?.aborted) break;
        try {
          created += (await fillQueue(queue)).created.length;
        } catch (err) {
          // One queue's trouble (a database hiccup) does not hold up the others.
          onError(err, queue.id);
        }
      }
      return created;
    },
  };
}

export type EvergreenService = ReturnType<typeof createEvergreenService>;
