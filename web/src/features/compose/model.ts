import type { CreatePostsBody, Integration, IntegrationSettings, Post } from '../../api/queries.js';
import { platformName } from '../../lib/platforms.js';
import { countingUnit, htmlToPlain, lengthOnPlatform, textToHtml } from './counting.js';

/**
 * The composer's state and the pure functions around it: what each channel gets (shared text or
 * its own, thread items where the platform has them), the POST /posts body built from it, the
 * checks the server would refuse a post for, and where an API field path points in the form.
 */

/** A media item attached to one post item (from the library or just uploaded). */
export interface AttachedMedia {
  id: string;
  path: string;
  type: 'image' | 'video';
  mimeType?: string;
  thumbnail: string | null;
  alt: string;
  name?: string;
}

/** One post item: the first post (index 0) or a thread item (reply/comment) after it. */
export interface ComposeItem {
  key: string;
  text: string;
  media: AttachedMedia[];
  /** minutes after the previous item (thread items only) */
  delay: number;
}

/** A channel's own part of the post: its own text (or the shared one) and its settings. */
export interface ChannelDraft {
  custom: boolean;
  items: ComposeItem[];
  /** the settings form's data; undefined: not touched, the channel's saved defaults apply */
  settings?: Record<string, unknown>;
  /** "Shorten links" for this channel only; undefined: as the whole post (`ComposeState.shortLink`) */
  shortLink?: boolean;
}

export interface ComposeState {
  /** selected channel ids, in the order they were picked */
  channels: string[];
  /** the shared body: the first item and its thread items */
  shared: ComposeItem[];
  perChannel: Record<string, ChannelDraft>;
  /** "Shorten links": every URL is shortened at publish time (POST /posts `shortLink`) */
  shortLink?: boolean;
  /** editing an existing group: its id and, per channel, the ids of the rows by position */
  edit?: { group: string; rowIds: Record<string, string[]>; published: boolean; drafts: Record<string, string> };
}

export type PostType = NonNullable<CreatePostsBody['type']>;
export type Rules = IntegrationSettings;

let seq = 0;
export function newKey(): string {
  seq += 1;
  return `item-${seq}`;
}

export function emptyItem(delay = 0): ComposeItem {
  return { key: newKey(), text: '', media: [], delay };
}

export function emptyState(channels: string[] = []): ComposeState {
  return { channels, shared: [emptyItem()], perChannel: {} };
}

/** Whether the platform publishes thread items (unknown rules: assume so until they load). */
export function threadSupported(rules: Rules | undefined): boolean {
  return rules ? rules.thread.supported : true;
}

/** The items a channel gets: its own or the shared ones, only the first where it has no threads. */
export function itemsFor(state: ComposeState, channelId: string, rules: Rules | undefined): ComposeItem[] {
  const own = state.perChannel[channelId];
  const items = own?.custom ? own.items : state.shared;
  return threadSupported(rules) ? items : items.slice(0, 1);
}

/** Whether the channel's links are shortened: its own choice, or the post's. */
export function shortLinkOn(state: ComposeState, channelId: string): boolean {
  return state.perChannel[channelId]?.shortLink ?? state.shortLink === true;
}

/** Whether the channel uses the shared text. */
export function usesShared(state: ComposeState, channelId: string): boolean {
  return !state.perChannel[channelId]?.custom;
}

function settingsToSend(state: ComposeState, channelId: string, rules: Rules | undefined): Record<string, unknown> | undefined {
  if (!rules || typeof rules.settings === 'string') return undefined;
  const s = state.perChannel[channelId]?.settings;
  return s === undefined ? undefined : stripUndefined(s);
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
}

/**
 * The POST /posts body for the form state. `order` says which channel each `posts[i]` is (field
 * errors name `posts.N.…`). Edits send the group and each existing row's id so the API changes the
 * rows in place; rows not sent again are removed by the API.
 */
export function buildPostsBody(state: ComposeState, opts: { type: PostType; date: string | undefined; rules: Record<string, Rules | undefined> }): { body: CreatePostsBody; order: string[] } {
  const order = [...state.channels];
  const body: CreatePostsBody = {
    type: opts.type,
    // with `now` the API ignores the date
    date: opts.type === 'now' ? '' : (opts.date ?? ''),
    shortLink: state.shortLink === true,
    tags: [],
    posts: order.map((id) => {
      const rules = opts.rules[id];
      const rowIds = state.edit?.rowIds[id] ?? [];
      const settings = settingsToSend(state, id, rules);
      const own = state.perChannel[id]?.shortLink;
      return {
        integration: { id },
        value: itemsFor(state, id, rules).map((item, j) => ({
          content: textToHtml(item.text),
          image: item.media.map((m) => ({ id: m.id, path: m.path, alt: m.alt })),
          delay: j === 0 ? 0 : Math.max(0, Math.round(item.delay)),
          ...(rowIds[j] ? { id: rowIds[j] } : {}),
        })),
        ...(settings ? { settings } : {}),
        // a channel's own choice, sent where it differs from the post's
        ...(own !== undefined && own !== (state.shortLink === true) ? { shortLink: own } : {}),
        ...(state.edit && rowIds.length > 0 ? { group: state.edit.group } : {}),
      };
    }),
  };
  return { body, order };
}

// ---------------------------------------------------------------------------------------------
// Where a problem is: API field paths (`posts.1.value.0.content`, `posts.0.settings.title`) and
// `missing` fields (`value.0.image`, relative to the post) pointed at the part of the form.

export type Where =
  | { kind: 'content'; item: number }
  | { kind: 'media'; item: number; media?: number }
  | { kind: 'delay'; item: number }
  | { kind: 'item'; item: number }
  | { kind: 'settings'; path: string[] }
  | { kind: 'channel' }
  | { kind: 'date' }
  | { kind: 'other'; path: string };

export interface Problem {
  /** the channel the problem is about (absent: the whole post, e.g. its date) */
  channelId?: string;
  where: Where;
  message: string;
}

/** A path relative to one post entry (what `missing` reports and what follows `posts.N.`). */
export function locateInPost(path: string): Where {
  const parts = path.split('.');
  if (parts[0] === 'settings') return { kind: 'settings', path: parts.slice(1) };
  if (parts[0] === 'integration' || parts[0] === 'group') return { kind: 'channel' };
  if (parts[0] === 'value' && parts[1] !== undefined && /^\d+$/.test(parts[1])) {
    const item = Number(parts[1]);
    if (parts[2] === 'content') return { kind: 'content', item };
    if (parts[2] === 'image') return parts[3] !== undefined && /^\d+$/.test(parts[3]) ? { kind: 'media', item, media: Number(parts[3]) } : { kind: 'media', item };
    if (parts[2] === 'delay') return { kind: 'delay', item };
    return { kind: 'item', item };
  }
  return { kind: 'other', path };
}

/** An API field path of a POST /posts refusal, with the channel order of the request. */
export function locateApiField(path: string, order: string[]): Problem['where'] & { channelId?: string } {
  const m = /^posts\.(\d+)(?:\.(.*))?$/.exec(path);
  if (m) {
    const channelId = order[Number(m[1])];
    const where = m[2] ? locateInPost(m[2]) : ({ kind: 'channel' } as const);
    return { ...where, ...(channelId ? { channelId } : {}) };
  }
  if (path === 'date') return { kind: 'date' };
  return { kind: 'other', path };
}

export function problemsFromApi(fields: { path: string; message: string }[], order: string[]): Problem[] {
  return fields.map((f) => {
    const { channelId, ...where } = locateApiField(f.path, order);
    return { ...(channelId ? { channelId } : {}), where, message: f.message };
  });
}

/** How a place in the form is named to a person ("text of thread item 2"). */
export function describeWhere(where: Where): string {
  const itemName = (i: number) => (i === 0 ? 'the post' : `thread item ${i}`);
  switch (where.kind) {
    case 'content':
      return `text of ${itemName(where.item)}`;
    case 'media':
      return `media of ${itemName(where.item)}`;
    case 'delay':
      return `delay of ${itemName(where.item)}`;
    case 'item':
      return itemName(where.item);
    case 'settings':
      return where.path.length > 0 ? `setting “${where.path.join(' › ')}”` : 'settings';
    case 'channel':
      return 'channel';
    case 'date':
      return 'date';
    case 'other':
      return where.path;
  }
}

// ---------------------------------------------------------------------------------------------
// What the server would refuse (for schedule and post now; drafts skip these checks, as the API's).

/**
 * Length and media problems of what each channel would get, in the API's words. On a channel
 * with short links on, `shortLinkLength` (once known) makes each URL count as the short link it
 * becomes, as the server counts the shortened text.
 */
export function localProblems(state: ComposeState, rulesOf: Record<string, Rules | undefined>, channels: Integration[], shortLinkLength?: number): Problem[] {
  const out: Problem[] = [];
  for (const id of state.channels) {
    const shortened = shortLinkOn(state, id) ? shortLinkLength : undefined;
    const rules = rulesOf[id];
    const channel = channels.find((c) => c.id === id);
    if (channel?.disabled) out.push({ channelId: id, where: { kind: 'channel' }, message: `The channel "${channel.name}" is disabled` });
    else if (channel?.refreshNeeded) out.push({ channelId: id, where: { kind: 'channel' }, message: `The channel "${channel.name}" must be reconnected before it can publish` });
    if (!rules) continue;
    const items = itemsFor(state, id, rules);
    items.forEach((item, i) => {
      const length = lengthOnPlatform(item.text, rules.counting, shortened);
      if (item.text.trim() === '' && item.media.length === 0) {
        out.push({ channelId: id, where: { kind: 'content', item: i }, message: 'Your post should have at least one character or one image' });
      }
      if (length > rules.maxLength) {
        out.push({ channelId: id, where: { kind: 'content', item: i }, message: `${platformOf(channel)} allows ${rules.maxLength} ${countingUnit(rules.counting)}; this text has ${length}` });
      }
      for (const message of mediaMessages(rules, item.media, i, platformOf(channel))) out.push({ channelId: id, where: { kind: 'media', item: i }, message });
    });
    const first = items[0];
    if (first && first.media.length < rules.media.minItems) {
      const n = rules.media.minItems;
      out.push({ channelId: id, where: { kind: 'media', item: 0 }, message: `${platformOf(channel)} needs at least ${n} image or video${n > 1 ? 's' : ''} on the post` });
    }
  }
  return out;
}

function platformOf(channel: Integration | undefined): string {
  return channel ? platformName(channel.identifier) : 'This platform';
}

/** The media rules of one item (count, kinds, mixing, thread items), as the API words them. */
export function mediaMessages(rules: Rules, media: AttachedMedia[], index: number, name: string): string[] {
  const m = rules.media;
  if (media.length === 0) return [];
  if (index > 0 && !m.onThreadItems) return [`${name} replies and comments cannot carry media`];
  const out: string[] = [];
  if (media.length > m.maxItems) out.push(`${name} takes at most ${m.maxItems} media item(s) per post; this one has ${media.length}`);
  const images = media.filter((x) => x.type === 'image').length;
  const videos = media.filter((x) => x.type === 'video').length;
  if (!m.mixed && images > 0 && videos > 0) out.push(`${name} does not take images and videos in the same post`);
  for (const [kind, count] of [['image', images], ['video', videos]] as const) {
    if (count === 0) continue;
    const rule = m[kind];
    if (!rule) out.push(`${name} does not take ${kind}s`);
    else if (count > rule.maxCount) out.push(`${name} takes at most ${rule.maxCount} ${kind}(s) per post; this one has ${count}`);
  }
  return out;
}

/** How many more media the item can take on every channel it goes to (for the library picker). */
export function mediaRoom(media: AttachedMedia[], rulesList: Rules[]): number {
  if (rulesList.length === 0) return Infinity;
  return Math.max(0, Math.min(...rulesList.map((r) => r.media.maxItems)) - media.length);
}

// ---------------------------------------------------------------------------------------------
// From stored posts (editing a group, duplicating a post).

type StoredPost = Pick<Post, 'id' | 'content' | 'image' | 'settings' | 'group' | 'state' | 'publishDate' | 'integration' | 'delay'> & {
  thread: Pick<Post['thread'][number], 'id' | 'content' | 'image' | 'delay'>[];
  /** whether the row's links are shortened (read when the API answers it) */
  shortLink?: boolean;
};

function attached(img: Post['image'][number]): AttachedMedia {
  return { id: img.id, path: img.path, type: img.type ?? (img.mimeType?.startsWith('video/') ? 'video' : 'image'), ...(img.mimeType ? { mimeType: img.mimeType } : {}), thumbnail: img.thumbnail ?? null, alt: img.alt ?? '' };
}

function itemsOf(p: StoredPost): ComposeItem[] {
  return [
    { key: newKey(), text: htmlToPlain(p.content), media: p.image.map(attached), delay: 0 },
    ...p.thread.map((t) => ({ key: newKey(), text: htmlToPlain(t.content), media: t.image.map(attached), delay: t.delay })),
  ];
}

function sameItems(a: ComposeItem[], b: ComposeItem[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i]!;
      return x.text === y.text && x.delay === y.delay && x.media.length === y.media.length && x.media.every((m, k) => m.id === y.media[k]!.id && m.alt === y.media[k]!.alt);
    })
  );
}

function settingsOf(p: StoredPost): Record<string, unknown> {
  const { __type: _t, ...rest } = p.settings;
  return rest;
}

/**
 * The form for stored posts: the first channel's items become the shared text and a channel whose
 * items differ gets its own. `edit` keeps the group and the row ids (editing in place); a
 * duplicate keeps neither.
 */
export function stateFromPosts(posts: StoredPost[], mode: 'edit' | 'duplicate'): ComposeState {
  const first = posts[0];
  if (!first) return emptyState();
  const shared = itemsOf(first);
  const perChannel: Record<string, ChannelDraft> = {};
  for (const p of posts) {
    const items = p === first ? shared : itemsOf(p);
    const custom = !sameItems(items, shared);
    const ownShortLink = p.shortLink !== undefined && p.shortLink !== (first.shortLink === true) ? { shortLink: p.shortLink } : {};
    perChannel[p.integration.id] = { custom, items: custom ? items : [], settings: settingsOf(p), ...ownShortLink };
  }
  const state: ComposeState = { channels: posts.map((p) => p.integration.id), shared, perChannel, ...(first.shortLink ? { shortLink: true } : {}) };
  if (mode === 'edit') {
    state.edit = {
      group: first.group,
      rowIds: Object.fromEntries(posts.map((p) => [p.integration.id, [p.id, ...p.thread.map((t) => t.id)]])),
      published: posts.some((p) => p.state === 'PUBLISHED'),
      drafts: Object.fromEntries(posts.filter((p) => p.state === 'DRAFT').map((p) => [p.integration.id, p.id])),
    };
  }
  return state;
}

/** A nested error tree as @rjsf/core's `extraErrors` takes it, from settings problems. */
export interface ErrorTree {
  __errors?: string[];
  [key: string]: ErrorTree | string[] | undefined;
}

export function settingsErrorTree(problems: Problem[]): ErrorTree | undefined {
  const root: ErrorTree = {};
  let any = false;
  for (const p of problems) {
    if (p.where.kind !== 'settings') continue;
    any = true;
    let node = root;
    for (const seg of p.where.path) {
      const next = (node[seg] as ErrorTree | undefined) ?? {};
      node[seg] = next;
      node = next;
    }
    (node.__errors ??= []).push(p.message);
  }
  return any ? root : undefined;
}

/** Settings as stored or saved, without the platform tag the API adds. */
export function withoutTypeTag(settings: Record<string, unknown>): Record<string, unknown> {
  const { __type: _t, ...rest } = settings;
  return rest;
}
