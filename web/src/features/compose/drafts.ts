import { z } from 'zod';
import { newKey, type ComposeState } from './model.js';

/**
 * The composer's unsent work kept in this browser (issue 25): what the person typed or chose is
 * saved to localStorage as they go, so a closed tab, a reload or a crash loses nothing, and the
 * composer asks before it throws anything away. Pure functions (what counts as a change) and a
 * small store (one entry per person, organisation and post) that never throws: storage can be
 * full, disabled or hold something an older version (or a person with devtools) wrote, and none
 * of that may break the composer.
 */

/** What the date and time fields hold, as typed (wall clock in the person's time zone). */
export interface WhenFields {
  date: string;
  time: string;
}

/** Which post a draft belongs to: a new one, an edit of a stored group, or a copy of a post. */
export type DraftTarget = { kind: 'new' } | { kind: 'edit'; group: string } | { kind: 'duplicate'; postId: string };

const PREFIX = 'tidings.compose-draft';
const VERSION = 1;

/** The storage key: per person and organisation (a shared computer keeps them apart), per post. */
export function draftKey(userId: string, organizationId: string, target: DraftTarget): string {
  const post = target.kind === 'new' ? 'new' : target.kind === 'edit' ? `edit:${target.group}` : `duplicate:${target.postId}`;
  return `${PREFIX}:v${VERSION}:${userId}:${organizationId}:${post}`;
}

// What is stored. Media are kept by their ids, with what the composer shows of them (path,
// thumbnail, alt): the API takes them back by id when the post is sent.
const MediaSchema = z.object({
  id: z.string().min(1),
  path: z.string(),
  type: z.enum(['image', 'video']),
  mimeType: z.string().optional(),
  thumbnail: z.string().nullable(),
  alt: z.string(),
  name: z.string().optional(),
});
const ItemSchema = z.object({ text: z.string(), media: z.array(MediaSchema), delay: z.number().finite().min(0) });
const ChannelDraftSchema = z.object({ custom: z.boolean(), items: z.array(ItemSchema), settings: z.record(z.string(), z.unknown()).optional(), shortLink: z.boolean().optional() });
const StoredDraftSchema = z.object({
  version: z.literal(VERSION),
  savedAt: z.iso.datetime(),
  channels: z.array(z.string().min(1)),
  shared: z.array(ItemSchema).min(1),
  perChannel: z.record(z.string(), ChannelDraftSchema),
  shortLink: z.boolean().optional(),
  when: z.object({ date: z.string(), time: z.string() }),
});
type StoredDraft = z.infer<typeof StoredDraftSchema>;

/** A draft read back: the composer's content (no `edit`: that comes from the stored post) and its date fields. */
export interface Draft {
  savedAt: string;
  state: Omit<ComposeState, 'edit'>;
  when: WhenFields;
}

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    // a browser that refuses storage (privacy settings) throws on the property access itself
    return undefined;
  }
}

function withoutKeys(items: ComposeState['shared']) {
  return items.map(({ text, media, delay }) => ({ text, media, delay }));
}

/** Saves the draft (replacing the one before). False when the browser would not store it (full, disabled). */
export function saveDraft(key: string, state: ComposeState, when: WhenFields, now = new Date()): boolean {
  const store = storage();
  if (!store) return false;
  const stored: StoredDraft = {
    version: VERSION,
    savedAt: now.toISOString(),
    channels: state.channels,
    shared: withoutKeys(state.shared),
    perChannel: Object.fromEntries(
      Object.entries(state.perChannel).map(([id, d]) => [id, { custom: d.custom, items: withoutKeys(d.items), ...(d.settings ? { settings: d.settings } : {}), ...(d.shortLink !== undefined ? { shortLink: d.shortLink } : {}) }]),
    ),
    ...(state.shortLink ? { shortLink: true } : {}),
    when: { date: when.date, time: when.time },
  };
  try {
    store.setItem(key, JSON.stringify(stored));
    return true;
  } catch {
    return false;
  }
}

/**
 * The draft stored under `key`, or undefined. What does not parse (corrupt JSON, another
 * version's shape, values of the wrong kind) is ignored and removed: it could never be restored.
 */
export function loadDraft(key: string): Draft | undefined {
  const store = storage();
  if (!store) return undefined;
  let raw: string | null;
  try {
    raw = store.getItem(key);
  } catch {
    return undefined;
  }
  if (raw === null) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    clearDraft(key);
    return undefined;
  }
  const parsed = StoredDraftSchema.safeParse(json);
  if (!parsed.success) {
    clearDraft(key);
    return undefined;
  }
  const d = parsed.data;
  const items = (list: StoredDraft['shared']) => list.map((it) => ({ key: newKey(), text: it.text, media: it.media, delay: it.delay }));
  return {
    savedAt: d.savedAt,
    state: {
      channels: [...new Set(d.channels)],
      shared: items(d.shared),
      perChannel: Object.fromEntries(Object.entries(d.perChannel).map(([id, c]) => [id, { custom: c.custom, items: items(c.items), ...(c.settings ? { settings: c.settings } : {}), ...(c.shortLink !== undefined ? { shortLink: c.shortLink } : {}) }])),
      ...(d.shortLink ? { shortLink: true } : {}),
    },
    when: d.when,
  };
}

export function clearDraft(key: string): void {
  try {
    storage()?.removeItem(key);
  } catch {
    // nothing stored can be removed either
  }
}

// ---------------------------------------------------------------------------------------------
// What counts as a change: everything the person typed or chose, nothing the composer keeps for
// itself (item keys, settings of channels no longer selected, the order of keys in a settings object).

/** JSON with object keys sorted and undefined left out, so equal content gives the same string. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** Whether two settings objects hold the same values (key order and undefined values aside). */
export function sameSettings(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return stable(a) === stable(b);
}

function contentOf(items: ComposeState['shared']) {
  return items.map((it) => ({ text: it.text, delay: it.delay, media: it.media.map((m) => ({ id: m.id, alt: m.alt })) }));
}

/** The person's content of the composer, comparable with `===`. */
export function snapshot(state: ComposeState, when: WhenFields): string {
  return stable({
    channels: state.channels,
    shared: contentOf(state.shared),
    perChannel: state.channels.map((id) => {
      const d = state.perChannel[id];
      return { custom: Boolean(d?.custom), items: d?.custom ? contentOf(d.items) : [], settings: d?.settings ?? null, shortLink: d?.shortLink ?? null };
    }),
    shortLink: state.shortLink === true,
    when: { date: when.date, time: when.time },
  });
}

/** Whether the composer holds something the person would lose by closing it. */
export function hasChanges(baseline: string, state: ComposeState, when: WhenFields): boolean {
  return snapshot(state, when) !== baseline;
}
