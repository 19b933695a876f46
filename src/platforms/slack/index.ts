import { buildAuthorizeUrl, exchangeCode, type OAuthApp } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type PlatformAdapter, type PublishResult, type ValidationIssue } from '../platform.js';
import {
  call,
  conversations,
  creds,
  fileMessageTs,
  generalChannel,
  inChannel,
  PAGE,
  permalink,
  SLACK_TEXT_LIMIT,
  slackArchiveUrl,
  targetChannel,
  threadReplies,
  uploadFiles,
  type HistoryMessage,
  type SharedFile,
  type SlackCredentials,
} from './client.js';
import { explainSlack } from './errors.js';
import { slackMetadata } from './metadata.js';
import { htmlToMrkdwn } from './mrkdwn.js';

export { SLACK_TEXT_LIMIT, shareTs, slackArchiveUrl, slackReplyUrl } from './client.js';

export interface SlackConfig {
  app?: OAuthApp;
}

/**
 * Creates the Slack adapter (OAuth v2, bot token `xoxb-…`). The workspace is the account; posts
 * go to `settings.channel`, or without one (the shared contract publishes with `{}`) to the
 * workspace's general channel (`conversations.list` → `is_general`). Text is converted to mrkdwn.
 * Bot tokens do not expire; workspaces with token rotation turned on are not supported (their
 * tokens end in `token_expired` → reconnect).
 */
export function createSlackAdapter(config: SlackConfig = {}): PlatformAdapter {
  return {
    metadata: slackMetadata,

    async beginConnect({ state, redirectUri }) {
      if (!config.app) throw new PlatformError('unsupported', 'Slack is not configured');
      return { url: buildAuthorizeUrl(slackMetadata.oauth!, { clientId: config.app.clientId, redirectUri, state }) };
    },

    async completeConnect({ code, redirectUri }, ctx): Promise<ConnectedAccount> {
      if (!config.app) throw new PlatformError('unsupported', 'Slack is not configured');
      let tokens;
      try {
        tokens = await exchangeCode(ctx.http, { tokenUrl: slackMetadata.oauth!.tokenUrl, app: config.app, code, redirectUri, clientAuth: 'body', now: ctx.clock.now() });
      } catch (e) {
        // Slack reports `{ ok: false, error: 'invalid_code' }` under HTTP 200.
        if (e instanceof PlatformError && e.kind === 'rejected') throw new PlatformError('rejected', `Slack refused the authorisation: ${explainSlack(e.message)}`, e.details);
        throw e;
      }
      const raw = tokens.raw as { token_type?: string; bot_user_id?: string; team?: { id?: string; name?: string } | null };
      if (!raw.team?.id) throw new PlatformError('rejected', 'Organisation-wide installs are not supported: install the app in one workspace');
      if (raw.token_type !== undefined && raw.token_type !== 'bot') throw new PlatformError('rejected', `Slack returned a ${raw.token_type} token, not a bot token`);
      const { team } = await call<{ team: { id: string; name: string; domain?: string; icon?: Record<string, unknown> } }>(ctx, tokens.accessToken, 'team.info', { team: raw.team.id }, 'get');
      const icon = team.icon ?? {};
      const picture = [icon.image_132, icon.image_88, icon.image_68, icon.image_44].find((x): x is string => typeof x === 'string') ?? null;
      return {
        internalId: team.id,
        name: team.name ?? raw.team.name ?? team.id,
        profile: team.domain ?? null,
        picture: icon.image_default === true ? null : picture,
        credentials: { accessToken: tokens.accessToken, teamId: team.id, teamDomain: team.domain ?? null, botUserId: raw.bot_user_id ?? null } satisfies SlackCredentials,
        expiresAt: tokens.expiresAt,
      };
    },

    validate(post): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      for (const [i, item] of post.items.entries()) {
        const length = htmlToMrkdwn(item.content).length;
        if (length > SLACK_TEXT_LIMIT) issues.push({ path: `value.${i}.content`, code: 'too_long', message: `Slack allows ${SLACK_TEXT_LIMIT} characters; this has ${length}` });
        if (length === 0 && item.media.length === 0) issues.push({ path: `value.${i}.content`, code: 'empty', message: 'Slack cannot post an empty message' });
      }
      return issues;
    },

    /**
     * NOT idempotent: Slack has no idempotency key, so a retried call posts twice. Text goes
     * through chat.postMessage; media through files.getUploadURLExternal → upload →
     * files.completeUploadExternal (the text as `initial_comment`), whose message `ts` is the id.
     * Thread items are posted with `thread_ts` = the first message's ts.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const channel = await targetChannel(ctx, c, settings);
      const text = htmlToMrkdwn(item.content);
      const threadTs = replyTo?.rootId;
      let ts: string;
      if (item.media.length === 0) {
        ts = (await inChannel(ctx, c, channel, () => call<{ ts: string }>(ctx, c.accessToken, 'chat.postMessage', { channel, text, thread_ts: threadTs }, 'json'))).ts;
      } else {
        const files = await uploadFiles(ctx, c, item);
        const done = await inChannel(ctx, c, channel, () =>
          call<{ files: SharedFile[] }>(
            ctx,
            c.accessToken,
            'files.completeUploadExternal',
            { files: JSON.stringify(files), channel_id: channel, initial_comment: text || undefined, thread_ts: threadTs },
            'form',
          ),
        );
        ts = await fileMessageTs(ctx, c, done.files[0], channel);
      }
      return { status: 'published', id: ts, url: await permalink(ctx, c, channel, ts) };
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'channels') throw new PlatformError('unsupported', `Slack has no tool ${methodName}`);
      const c = creds(ctx);
      // Private channels are listed only when the app is a member of them (groups:read).
      const list = await conversations(ctx, c, 'public_channel,private_channel');
      return list
        .filter((x) => !x.is_archived)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((x) => ({ id: x.id, name: x.name }));
    },

    /**
     * The bot's recent top-level messages in the general channel (the only one known without a
     * post's settings). With `replyTo`, instead its replies in the thread of `replyTo.rootId`
     * (every reply goes there with `thread_ts`), which the channel's history leaves out.
     */
    /**
     * The bot's recent messages in the post's channel (the general channel when none was chosen or
     * the settings are not known); with `replyTo`, its replies in that thread.
     */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      const c = creds(ctx);
      const chosen = typeof settings?.channel === 'string' && settings.channel.trim() ? settings.channel.trim() : undefined;
      if (replyTo) {
        try {
          return await threadReplies(ctx, c, replyTo.rootId, since, limit, chosen);
        } catch (e) {
          // An install made before groups:history was asked for can still post: not a lost grant.
          if (e instanceof PlatformError && e.details.platformCode === 'missing_scope') {
            throw new PlatformError('unsupported', `Slack will not let this app read the thread (${e.message}), so it cannot check whether the reply arrived`, e.details);
          }
          throw e;
        }
      }
      const channel = chosen ?? (await generalChannel(ctx, c));
      if (!channel) return [];
      let history: { messages: HistoryMessage[] };
      try {
        history = await call(ctx, c.accessToken, 'conversations.history', { channel, oldest: (since.getTime() / 1000).toFixed(6), limit: Math.min(PAGE, Math.max(1, limit)) }, 'get');
      } catch (e) {
        // The bot never joined the channel, so it posted nothing there.
        if (e instanceof PlatformError && e.details.platformCode === 'not_in_channel') return [];
        throw e;
      }
      return history.messages
        .filter((m) => c.botUserId !== null && m.user === c.botUserId)
        .slice(0, limit)
        .map((m) => ({ id: m.ts, url: slackArchiveUrl(c, channel, m.ts), content: m.text ?? '', createdAt: new Date(Number(m.ts) * 1000).toISOString() }));
    },
  };
}
