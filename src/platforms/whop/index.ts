import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToMarkdown } from '../common/markdown.js';
import { buildAuthorizeUrl, type OAuthApp } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type Credentials, type OperationContext, type PlatformAdapter, type PublishResult } from '../platform.js';
import { companies, createForumPost, fileOf, forumPosts, forumsOf, postUrl, tokenCall, uploadFiles, userinfo, type ForumPost, type WhopCredentials } from './client.js';
import { whopMetadata } from './metadata.js';

/** How soon to look again at files Whop is still processing. */
const FILE_POLL_MS = 2000;

interface WhopSettings {
  company?: string;
  experience?: string;
  title?: string;
}

/** What a pending publish carries until its files are ready: everything to create the post then. */
interface PendingToken {
  experience: string;
  content: string;
  title?: string;
  parentId?: string;
  files: string[];
}

const StoredCredentials = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.unknown().transform((v) => (typeof v === 'string' ? v : null)),
  userId: z.string(),
});
const creds = (ctx: { credentials: Credentials }): WhopCredentials => readCredentials(ctx, StoredCredentials, 'Whop');

const createdAtOf = (v: ForumPost['created_at']): string => {
  if (v === null || v === undefined || v === '') return '';
  const n = typeof v === 'number' || /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (Number.isNaN(n)) return '';
  // Whop's older API gave milliseconds since the epoch; seconds are told apart by their size.
  return new Date(n < 1e12 ? n * 1000 : n).toISOString();
};

function settingsOf(settings: Record<string, unknown>): WhopSettings {
  const s = settings as WhopSettings;
  return { company: s.company?.trim() || undefined, experience: s.experience?.trim() || undefined, title: s.title?.trim() || undefined };
}

/**
 * Creates the Whop adapter: OAuth 2 with PKCE (OIDC: the user from `/oauth/userinfo`), refreshed
 * with the refresh token; forum posts (`POST /forum_posts`, Markdown) into the experience chosen
 * in the settings (the `companies` and `experiences` tools list them), with pictures and videos
 * uploaded as Whop files first (created, PUT to the upload address Whop gives, then polled until
 * `ready`: `pending` + `checkPublish` while Whop processes them); thread items as comments
 * (`parent_id`: the previous item); the experience's posts by this user for reconciliation.
 */
export function createWhopAdapter(config: { app?: OAuthApp }): PlatformAdapter {
  const app = () => {
    if (!config.app) throw new PlatformError('unsupported', 'Whop is not configured: set WHOP_CLIENT_ID and WHOP_CLIENT_SECRET');
    return config.app;
  };

  /** The files' states: all ready, one failed (refused with its name), or still processing. */
  async function filesReady(ctx: OperationContext, token: string, ids: string[]): Promise<boolean> {
    let ready = true;
    for (const id of ids) {
      const f = await fileOf(ctx, token, id);
      if (f.upload_status === 'failed') throw new PlatformError('rejected', `Whop could not process the attached file ${id} (upload_status: failed)`);
      if (f.upload_status !== 'ready') ready = false;
    }
    return ready;
  }

  async function createPost(ctx: OperationContext, token: string, p: PendingToken): Promise<PublishResult> {
    const post = await createForumPost(ctx, token, {
      experience_id: p.experience,
      content: p.content,
      ...(p.title ? { title: p.title } : {}),
      ...(p.files.length > 0 ? { attachments: p.files.map((id) => ({ id })) } : {}),
      ...(p.parentId ? { parent_id: p.parentId } : {}),
    });
    if (!post?.id) throw new PlatformError('transient', 'Whop created the post without naming it', { outcomeUnknown: true });
    return { status: 'published', id: post.id, url: postUrl(p.experience, post.id) };
  }

  return {
    metadata: whopMetadata,

    async beginConnect({ state, redirectUri, codeChallenge }) {
      const { clientId } = app();
      // OIDC wants a nonce; the state is single-use and unguessable, so it serves.
      return Promise.resolve({ url: buildAuthorizeUrl(whopMetadata.oauth!, { clientId, redirectUri, state, codeChallenge, extra: { nonce: state } }) });
    },

    async completeConnect({ code, redirectUri, codeVerifier }, ctx): Promise<ConnectedAccount> {
      const { clientId, clientSecret } = app();
      const tokens = await tokenCall(ctx, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        client_secret: clientSecret,
        ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
      }).catch((e: unknown) => {
        throw e instanceof PlatformError && e.kind === 'reconnect_required' ? new PlatformError('rejected', `Whop refused the authorisation: ${e.message.replace(/^Whop: /, '')}`, e.details) : e;
      });
      const me = await userinfo(ctx, tokens.credentials.accessToken);
      if (!me.sub) throw new PlatformError('rejected', 'Whop did not say who the user is');
      return {
        internalId: me.sub,
        name: me.name?.trim() || me.preferred_username || me.sub,
        profile: me.preferred_username ?? null,
        picture: me.picture ?? null,
        credentials: { ...tokens.credentials, userId: me.sub } satisfies WhopCredentials,
        expiresAt: tokens.expiresAt,
      };
    },

    async refresh(ctx) {
      const { clientId, clientSecret } = app();
      const c = creds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'Whop gave no refresh token: reconnect the channel');
      const tokens = await tokenCall(ctx, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: clientId, client_secret: clientSecret }).catch((e: unknown) => {
        // A refusal at the token endpoint is never fixed by refreshing again.
        throw e instanceof PlatformError && (e.kind === 'auth_expired' || e.kind === 'rejected') ? new PlatformError('reconnect_required', e.message, e.details) : e;
      });
      return { credentials: { ...tokens.credentials, userId: c.userId } satisfies WhopCredentials, expiresAt: tokens.expiresAt };
    },

    validate() {
      return [];
    },

    /**
     * Not idempotent: `POST /forum_posts` has no idempotency key (the publisher reconciles with
     * `findRecent`). Files are uploaded first; when Whop is still processing them the answer is
     * `pending` and `checkPublish` creates the post once they are ready (files uploaded twice
     * after a crash are only orphans, never a second post).
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const { accessToken } = creds(ctx);
      const s = settingsOf(settings);
      if (!s.experience) throw new PlatformError('rejected', 'A Whop post needs an experience (settings.experience): pick one with the experiences tool');
      const files = await uploadFiles(ctx, accessToken, item.media);
      const pending: PendingToken = {
        experience: s.experience,
        content: htmlToMarkdown(item.content),
        ...(s.title && !replyTo ? { title: s.title } : {}),
        ...(replyTo ? { parentId: replyTo.id } : {}),
        files,
      };
      if (files.length > 0 && !(await filesReady(ctx, accessToken, files))) return { status: 'pending', token: JSON.stringify(pending), pollAfterMs: FILE_POLL_MS };
      return createPost(ctx, accessToken, pending);
    },

    /** Looks at the files again; creates the post once all are ready. Safe to retry until it has. */
    async checkPublish(token, ctx): Promise<PublishResult> {
      const { accessToken } = creds(ctx);
      const pending = JSON.parse(token) as PendingToken;
      if (!(await filesReady(ctx, accessToken, pending.files))) return { status: 'pending', token, pollAfterMs: FILE_POLL_MS };
      return createPost(ctx, accessToken, pending);
    },

    /**
     * The user's posts in the post's experience (`GET /forum_posts?experience_id=`), or with
     * `replyTo` the user's comments under the previous item (`parent_id`), newest first.
     */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      const { accessToken, userId } = creds(ctx);
      const experience = settingsOf(settings ?? {}).experience;
      if (!experience) throw new PlatformError('unsupported', 'Whop lists forum posts per experience, and none was given');
      const q = new URLSearchParams({ experience_id: experience, first: '50', ...(replyTo ? { parent_id: replyTo.id } : {}) });
      const body = await forumPosts(ctx, accessToken, q);
      return (body.data ?? [])
        .filter((p) => p.user?.id === userId && (replyTo ? p.parent_id === replyTo.id : !p.parent_id))
        .map((p) => ({ id: p.id, url: postUrl(experience, p.id), content: p.content ?? '', createdAt: createdAtOf(p.created_at) }))
        .filter((p) => p.createdAt === '' || Date.parse(p.createdAt) >= since.getTime())
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .slice(0, limit);
    },

    async runTool(methodName, data, ctx) {
      const { accessToken } = creds(ctx);
      if (methodName === 'companies') {
        const body = await companies(ctx, accessToken);
        return (body.data ?? []).map((c) => ({ id: c.id, name: c.title ?? c.name ?? c.id }));
      }
      if (methodName === 'experiences') {
        const company = typeof (data as { id?: unknown } | null)?.id === 'string' ? (data as { id: string }).id : '';
        if (!company) throw new PlatformError('rejected', 'The experiences tool needs the company id (data.id)');
        const body = await forumsOf(ctx, accessToken, company);
        return (body.data ?? []).filter((f) => f.experience?.id).map((f) => ({ id: f.experience!.id, name: f.experience!.name ?? f.experience!.id }));
      }
      throw new PlatformError('unsupported', `Whop has no tool "${methodName}"`);
    },
  };
}
