/**
 * Slack's Web API client: one call (`call`), the conversations a bot sees, joining a channel,
 * the external file upload, permalinks and the thread replies `findRecent` looks for.
 */
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { mediaFileName } from '../common/media.js';
import { errorFromResponse } from '../http-errors.js';
import { PlatformError, type Credentials, type OperationContext, type PublishItem } from '../platform.js';
import { slackResult } from './errors.js';

const API = 'https://slack.com/api';
/** Slack truncates `text` past 40,000 characters (and may refuse it with msg_too_long). */
export const SLACK_TEXT_LIMIT = 40_000;
export const PAGE = 200;
const MAX_PAGES = 20;

/** What a Slack channel stores: the workspace's bot token and what URLs need. */
export interface SlackCredentials {
  accessToken: string;
  teamId: string;
  /** `acme` of acme.slack.com, for permalinks when chat.getPermalink fails */
  teamDomain: string | null;
  botUserId: string | null;
}

export interface Conversation {
  id: string;
  name: string;
  is_general?: boolean;
  is_archived?: boolean;
  is_private?: boolean;
  /** the bot is a member */
  is_member?: boolean;
}

export interface HistoryMessage {
  ts: string;
  text?: string;
  user?: string;
  bot_id?: string;
  thread_ts?: string;
}

/** A page of conversations.replies: the thread oldest first, its parent message included. */
export interface RepliesPage {
  messages: HistoryMessage[];
  has_more?: boolean;
  response_metadata?: { next_cursor?: string };
}

/** conversations.replies errors meaning "the thread is not in this channel": look in the next one. */
const THREAD_ELSEWHERE = new Set(['thread_not_found', 'channel_not_found', 'not_in_channel']);

export interface SharedFile {
  id: string;
  shares?: Record<string, Record<string, { ts: string }[] | undefined> | undefined>;
}

export type Ctx = Pick<OperationContext, 'http' | 'clock'>;
type Args = Record<string, string | number | boolean | undefined>;

/** What a Slack channel stores, read with readCredentials (teamDomain and botUserId may be absent: null). */
export const SlackCredentialsSchema = z.object({
  accessToken: z.string().min(1),
  teamId: z.string().min(1),
  teamDomain: z.string().nullish().transform((v) => v ?? null),
  botUserId: z.string().nullish().transform((v) => v ?? null),
});

export const creds = (ctx: { credentials: Credentials }): SlackCredentials => readCredentials(ctx, SlackCredentialsSchema, 'Slack');

const defined = (args: Args) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));

/**
 * One Web API call. `get` puts the arguments in the query (read methods), `form` sends them
 * form-encoded (accepted by every method; the upload methods take nothing else), `json` as JSON.
 */
export async function call<T>(ctx: Ctx, token: string, method: string, args: Args, how: 'get' | 'form' | 'json'): Promise<T> {
  const headers = { authorization: `Bearer ${token}` };
  const res =
    how === 'get'
      ? await ctx.http.request({ method: 'GET', url: `${API}/${method}?${new URLSearchParams(defined(args)).toString()}`, headers })
      : how === 'form'
        ? await ctx.http.request({ method: 'POST', url: `${API}/${method}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(defined(args)).toString() })
        : await ctx.http.request({ method: 'POST', url: `${API}/${method}`, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined))) });
  return slackResult<T>(res, ctx.clock.now());
}

/** `https://acme.slack.com/archives/C1/p1712345678123456` (what chat.getPermalink builds for a top-level message). */
export function slackArchiveUrl(c: Pick<SlackCredentials, 'teamDomain' | 'teamId'>, channel: string, ts: string): string {
  if (!c.teamDomain) return `https://app.slack.com/client/${c.teamId}/${channel}`;
  return `https://${c.teamDomain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
}

/**
 * The link chat.getPermalink gives a thread reply (what `publish` answers for one):
 * `https://acme.slack.com/archives/C1/p1712345678123456?thread_ts=1712345600.000100&cid=C1`.
 */
export function slackReplyUrl(c: Pick<SlackCredentials, 'teamDomain' | 'teamId'>, channel: string, ts: string, threadTs: string): string {
  const base = slackArchiveUrl(c, channel, ts);
  return c.teamDomain ? `${base}?thread_ts=${threadTs}&cid=${channel}` : base;
}

/** The message `ts` of a file shared in `channel`, from `shares.public|private[channel][0].ts`. */
export function shareTs(file: SharedFile | undefined, channel: string): string | undefined {
  for (const kind of ['public', 'private']) {
    const ts = file?.shares?.[kind]?.[channel]?.[0]?.ts;
    if (ts) return ts;
  }
  return undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

export async function conversations(ctx: Ctx, c: SlackCredentials, types: string, stop?: (c: Conversation) => boolean): Promise<Conversation[]> {
  const all: Conversation[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await call<{ channels: Conversation[]; response_metadata?: { next_cursor?: string } }>(
      ctx,
      c.accessToken,
      'conversations.list',
      { types, exclude_archived: true, limit: PAGE, cursor },
      'get',
    );
    all.push(...res.channels);
    if (stop && res.channels.some(stop)) break;
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return all;
}

export async function generalChannel(ctx: Ctx, c: SlackCredentials): Promise<string | undefined> {
  return (await conversations(ctx, c, 'public_channel', (x) => x.is_general === true)).find((x) => x.is_general)?.id;
}

export async function targetChannel(ctx: Ctx, c: SlackCredentials, settings: Record<string, unknown>): Promise<string> {
  const chosen = typeof settings.channel === 'string' ? settings.channel.trim() : '';
  if (chosen) return chosen;
  const general = await generalChannel(ctx, c);
  if (!general) throw new PlatformError('rejected', 'No channel chosen, and the app cannot see the workspace’s general channel');
  return general;
}

/**
 * Runs `send`; when Slack says the bot is not in the (public) channel, joins it and sends once
 * more. `not_in_channel` means nothing was posted, so the second call cannot double-post.
 */
export async function inChannel<T>(ctx: Ctx, c: SlackCredentials, channel: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    if (!(e instanceof PlatformError) || e.details.platformCode !== 'not_in_channel') throw e;
    try {
      await call(ctx, c.accessToken, 'conversations.join', { channel }, 'json');
    } catch (joinErr) {
      // A private channel cannot be joined: the user must invite the app, as the error says.
      if (joinErr instanceof PlatformError && joinErr.kind === 'rejected') throw e;
      throw joinErr;
    }
    return send();
  }
}

export async function uploadFiles(ctx: OperationContext, c: SlackCredentials, item: PublishItem): Promise<{ id: string; title: string }[]> {
  const files: { id: string; title: string }[] = [];
  for (const m of item.media) {
    const blob = await ctx.openMedia(m);
    const filename = mediaFileName(m);
    const target = await call<{ upload_url: string; file_id: string }>(
      ctx,
      c.accessToken,
      'files.getUploadURLExternal',
      { filename, length: blob.size, alt_txt: m.alt ?? undefined },
      'form',
    );
    const form = new FormData();
    form.set('file', blob, filename);
    const res = await ctx.http.request({ method: 'POST', url: target.upload_url, body: form });
    const err = errorFromResponse(res, ctx.clock.now());
    if (err) throw err.kind === 'auth_expired' ? new PlatformError('rejected', `Slack refused the upload: ${err.message}`, err.details) : err;
    files.push({ id: target.file_id, title: filename });
  }
  return files;
}

/**
 * Slack shares uploaded files asynchronously: the completion answer may not list the share yet,
 * so files.info is asked a few times. Still nothing: the files are posted but the message is
 * unknown, which the publisher must reconcile rather than re-send.
 */
export async function fileMessageTs(ctx: OperationContext, c: SlackCredentials, file: SharedFile | undefined, channel: string): Promise<string> {
  let ts = shareTs(file, channel);
  for (let attempt = 0; !ts && file && attempt < 3; attempt++) {
    if (attempt > 0) await sleep(1000 * attempt, ctx.signal);
    ts = shareTs((await call<{ file: SharedFile }>(ctx, c.accessToken, 'files.info', { file: file.id }, 'get')).file, channel);
  }
  if (!ts) throw new PlatformError('transient', 'Slack accepted the files but has not shared them in the channel yet', { outcomeUnknown: true });
  return ts;
}

export async function permalink(ctx: OperationContext, c: SlackCredentials, channel: string, ts: string): Promise<string> {
  try {
    return (await call<{ permalink: string }>(ctx, c.accessToken, 'chat.getPermalink', { channel, message_ts: ts }, 'get')).permalink;
  } catch (e) {
    // The message is posted: a missing link must not turn it into a failure.
    ctx.logger.warn({ err: e, channel, ts }, 'slack: chat.getPermalink failed, building the URL');
    return slackArchiveUrl(c, channel, ts);
  }
}

/** The bot's user id, which its messages carry as `user`: kept at connect, else asked of auth.test. */
export async function botUser(ctx: Ctx, c: SlackCredentials): Promise<string> {
  return c.botUserId ?? (await call<{ user_id: string }>(ctx, c.accessToken, 'auth.test', {}, 'get')).user_id;
}

/**
 * The conversations a thread of the bot's may be in: a thread item knows only its root's `ts`,
 * not the channel, and the bot can only have posted where it is a member. The general channel
 * comes first (posts without a chosen channel go there), private channels last: reading them
 * takes groups:history, which installs made before it was asked for lack (`missing_scope`).
 */
export async function memberChannels(ctx: Ctx, c: SlackCredentials): Promise<string[]> {
  const member = (await conversations(ctx, c, 'public_channel,private_channel')).filter((x) => x.is_member === true);
  const rank = (x: Conversation) => (x.is_general ? 0 : x.is_private ? 2 : 1);
  return member.sort((a, b) => rank(a) - rank(b)).map((x) => x.id);
}

/**
 * The bot's replies in `channel` to the thread of `rootTs` posted since `oldest`, oldest first,
 * across pages; undefined when the thread is not this channel's (a `ts` is unique only within a
 * channel, so a parent with that `ts` by someone else is another channel's message, not ours).
 */
export async function botRepliesIn(ctx: Ctx, c: SlackCredentials, channel: string, rootTs: string, oldest: string, bot: string): Promise<HistoryMessage[] | undefined> {
  const found: HistoryMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    let res: RepliesPage;
    try {
      res = await call<RepliesPage>(ctx, c.accessToken, 'conversations.replies', { channel, ts: rootTs, oldest, limit: PAGE, cursor }, 'get');
    } catch (e) {
      if (page === 0 && e instanceof PlatformError && THREAD_ELSEWHERE.has(e.details.platformCode ?? '')) return undefined;
      throw e;
    }
    const root = res.messages.find((m) => m.ts === rootTs);
    if (root && root.user !== bot) return undefined;
    found.push(...res.messages.filter((m) => m.ts !== rootTs && m.user === bot));
    cursor = res.has_more ? res.response_metadata?.next_cursor || undefined : undefined;
    if (!cursor) break;
  }
  return found;
}

/**
 * The bot's replies to the thread of `rootTs` since `since`, newest first, with the id and URL
 * `publish` gives a reply. The thread is looked for in each channel the bot is in until found;
 * none has it: the root is gone, so no reply can have been posted to it.
 */
export async function threadReplies(ctx: Ctx, c: SlackCredentials, rootTs: string, since: Date, limit: number, chosen: string | undefined) {
  const bot = await botUser(ctx, c);
  const oldest = (since.getTime() / 1000).toFixed(6);
  // The post's own channel when known (its settings); else every channel the bot is in.
  for (const channel of chosen ? [chosen] : await memberChannels(ctx, c)) {
    const replies = await botRepliesIn(ctx, c, channel, rootTs, oldest, bot);
    if (!replies) continue;
    return replies
      .reverse()
      .slice(0, limit)
      .map((m) => ({ id: m.ts, url: slackReplyUrl(c, channel, m.ts, rootTs), content: m.text ?? '', createdAt: new Date(Number(m.ts) * 1000).toISOString() }));
  }
  return [];
}

