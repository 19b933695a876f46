import type { Db, Tx } from '../../db/client.js';
import { canFit, imageTargetOf, needsFitting, type ImageTarget } from '../../core/media/image-fit.js';
import type { FittedMedia } from '../../core/media/image-fitter.js';
import { renditionFormatFor, renditionKey } from '../../core/media/renditions.js';
import { findUrls, replaceUrls, type ShortenRequest } from '../../core/short-links.js';
import { htmlToText } from '../../platforms/common/html.js';
import { PlatformError, type MediaKindRule, type PublishItem, type PublishMedia } from '../../platforms/platform.js';
import { countingUnit, countText } from '../../platforms/text-length.js';
import { adapterOrNone, channelLabel, type IntegrationRow, type PostRow, type PublisherEnv } from './publisher-env.js';

/** What a send needs, read under the row's lock before the attempt is recorded (see `claim` in publisher.ts). */
export interface SendInput {
  integration: IntegrationRow;
  item: PublishItem;
  /** bytes of the pictures re-encoded for the platform, by media id (the others are opened as stored) */
  fittedBlobs: Map<string, Blob>;
  settings: Record<string, unknown>;
  replyTo: { id: string; rootId: string } | undefined;
  idempotencyKey: string;
}

/** Pictures re-encoded for one job, or why one could not be. */
export type Fitted = Map<string, FittedMedia | Error>;

/** Pictures to re-encode before the send, and the platform's limits they must fit. */
export interface ToFit {
  toFit: PublishMedia[];
  target: ImageTarget;
}

/** URLs of a post row to shorten before the send (the job does it outside the transaction). */
export interface ToShorten {
  toShorten: ShortenRequest;
}

export type ItemContext = Awaited<ReturnType<typeof readItemContext>>;

/**
 * The row's place: its channel, the thread's first item (settings, root release id) and the item
 * before it. `known`: the channel's row when the caller read it already (with the post's lock).
 */
export async function readItemContext(env: PublisherEnv, row: PostRow, q?: Tx | Db, known?: { integration: IntegrationRow | undefined }) {
  const integration = known ? known.integration : await env.channels.findChannel(row.integrationId, q);
  const root = row.parentPostId ? await env.posts.findPost(row.parentPostId, q) : row;
  const prev = row.parentPostId ? await env.posts.findPreviousItem(row.parentPostId, row.position, q) : undefined;
  const previous = row.position === 1 ? root : prev;
  return { integration, root: root ?? row, previous };
}

/**
 * The post's media as the adapter gets them. A platform that pulls pictures from their URL
 * (`pulled`) and does not take a picture's stored type (`platformTypes`) is handed the URL of a
 * rendition in a type it takes (`core/media/renditions.ts`; the service renders it when first fetched).
 */
async function loadMedia(env: PublisherEnv, row: PostRow, q: Tx | Db, imageRule: MediaKindRule | undefined) {
  const rows = await env.posts.findMediaByIds(row.image.map((i) => i.id), q);
  const byId = new Map(rows.map((m) => [m.id, m]));
  return row.image.flatMap((img): PublishItem['media'] => {
    const m = byId.get(img.id);
    // Posts never carry audio (refused when the post is made).
    if (!m || m.type === 'audio') return [];
    const item: PublishMedia = { id: m.id, path: m.path, type: m.type, mimeType: m.mimeType, size: m.size, width: m.width, height: m.height, duration: m.duration, alt: img.alt ?? m.alt };
    const format = m.type === 'image' && imageRule?.pulled ? renditionFormatFor(m.mimeType, imageRule.platformTypes ?? imageRule.mimeTypes) : undefined;
    return [format ? { ...item, mimeType: format, path: env.mediaUrl(renditionKey(m.storageKey, format)) } : item];
  });
}

/**
 * Reads what the send needs. Pictures beyond the platform's type, size or dimension limits go as
 * re-encoded in `fitted`; when one is not there yet, the answer is the list to fit first, which
 * the job does outside the transaction (`fitPictures`: an encode can take seconds, and embedded
 * PostgreSQL has one connection) before it claims the row again. Throws
 * `PlatformError('rejected')` for a picture that could not be re-encoded (unfittable ones were
 * refused when the post was made).
 */
export async function readSendInput(
  env: PublisherEnv,
  q: Tx | Db,
  row: PostRow,
  attempts: number,
  fitted: Fitted,
  /** the row's context, when the caller has just read it in the same transaction */
  context?: ItemContext,
): Promise<SendInput | ToFit | ToShorten | undefined> {
  const { integration, root, previous } = context ?? (await readItemContext(env, row, q));
  if (!integration) return undefined;
  const rule = adapterOrNone(env, integration)?.metadata.media.image;
  const target = rule && imageTargetOf(rule);
  const fittedBlobs = new Map<string, Blob>();
  const toFit: PublishMedia[] = [];
  const media = (await loadMedia(env, row, q, rule)).map((m) => {
    if (!target || m.type !== 'image' || !needsFitting(m, target) || !canFit(m, target)) return m;
    const f = fitted.get(m.id);
    if (f instanceof Error) throw new PlatformError('rejected', `The picture ${m.id} could not be re-encoded for ${channelLabel(env, integration)}: ${f.message}`);
    if (!f) toFit.push(m);
    else fittedBlobs.set(m.id, f.blob);
    return f?.media ?? m;
  });
  if (target && toFit.length > 0) return { toFit, target };
  const content = await withShortLinks(env, q, row, integration);
  if (typeof content !== 'string') return content;
  const replyTo = previous?.releaseId && root.releaseId ? { id: previous.releaseId, rootId: root.releaseId } : undefined;
  return { integration, item: { content, media }, fittedBlobs, settings: root.settings, replyTo, idempotencyKey: `${row.id}:${attempts}` };
}

/**
 * The row's text as it is sent: with `shortLink`, every URL replaced by its short link (made
 * first, by the job, when one is missing), and the result checked against the platform's length
 * in its own counting — the check at save time estimated the short links' length.
 */
async function withShortLinks(env: PublisherEnv, q: Tx | Db, row: PostRow, integration: IntegrationRow): Promise<string | ToShorten> {
  if (!row.shortLink || !env.links) return row.content;
  const urls = findUrls(htmlToText(row.content));
  if (urls.length === 0) return row.content;
  const made = await env.links.findForPost(q, row.id);
  const missing = urls.filter((u) => !made.has(u));
  if (missing.length > 0) {
    const channel = { id: integration.id, identifier: integration.identifier, name: integration.name };
    return { toShorten: { organizationId: row.organizationId, postId: row.id, group: row.group, channel, urls: missing } };
  }
  const content = replaceUrls(row.content, made);
  const text = adapterOrNone(env, integration)?.metadata.text;
  const length = text && countText(htmlToText(content), text.counting);
  if (text && length !== undefined && length > text.maxLength) {
    throw new PlatformError('rejected', `With its links shortened the text has ${length} ${countingUnit(text.counting)}; ${channelLabel(env, integration)} allows ${text.maxLength}`);
  }
  return content;
}

/** Re-encodes `toFit` into `fitted` (each picture's result, or the error that stopped it). */
export async function fitPictures(env: PublisherEnv, { toFit, target }: ToFit, fitted: Fitted): Promise<void> {
  await Promise.all(
    toFit.map((m) =>
      env.fitter.fit(m, target).then(
        (f) => fitted.set(m.id, f),
        (e: unknown) => fitted.set(m.id, e instanceof Error ? e : new Error(String(e))),
      ),
    ),
  );
}
