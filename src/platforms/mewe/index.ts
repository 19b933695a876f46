import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import type { OAuthApp } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type Credentials, type PlatformAdapter, type PublishResult } from '../platform.js';
import { meweClient, requireApp, type MeweMe, type TokenAnswer } from './client.js';
import { meweResult } from './errors.js';
import { MeweSettingsSchema, meweMetadata } from './metadata.js';

/**
 * MeWe through its developer API. MeWe publishes no public documentation of it: the flow and
 * paths follow a working implementation (Postiz; see docs/platforms.md for what is assumed). The
 * deployment's app: `MEWE_CLIENT_ID` is the `X-App-Id`, `MEWE_CLIENT_SECRET` the `X-Api-Key`.
 */

/** When MeWe does not say when the apiToken expires (Postiz's assumption). */
const DEFAULT_TOKEN_DAYS = 30;
const GROUP_PAGES = 50;

interface MeweCredentials {
  apiToken: string;
  userId: string;
  handle: string | null;
}

const MeweCredentialsSchema = z
  .object({ apiToken: z.string().min(1), userId: z.string().min(1), handle: z.string().nullish() })
  .transform((c): MeweCredentials => ({ apiToken: c.apiToken, userId: c.userId, handle: c.handle ?? null }));

const creds = (ctx: { credentials: Credentials }): MeweCredentials => readCredentials(ctx, MeweCredentialsSchema, 'MeWe');

/** `expiresAt` as MeWe may give it: an ISO date, epoch seconds or epoch milliseconds (all assumed). */
export function meweExpiry(expiresAt: TokenAnswer['expiresAt'], now: number): Date {
  if (typeof expiresAt === 'number' && Number.isFinite(expiresAt)) return new Date(expiresAt < 1e12 ? expiresAt * 1000 : expiresAt);
  if (typeof expiresAt === 'string' && expiresAt !== '') {
    const t = /^\d+$/.test(expiresAt) ? Number(expiresAt) : Date.parse(expiresAt);
    if (Number.isFinite(t)) return new Date(t < 1e12 ? t * 1000 : t);
  }
  return new Date(now + DEFAULT_TOKEN_DAYS * 86_400_000);
}

export { MEWE_HOST } from './client.js';

/** Creates the MeWe adapter (redirect login → per-user apiToken; timeline or group posts with photos). */
export function createMeweAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  const api = meweClient(config.app);
  const get = api.get;

  return {
    metadata: meweMetadata,

    async beginConnect(input) {
      const app = requireApp(config.app);
      const url = new URL(meweMetadata.oauth!.authorizeUrl);
      url.searchParams.set('client_id', app.clientId);
      url.searchParams.set('redirect_uri', input.redirectUri);
      url.searchParams.set('state', input.state);
      return { url: url.toString() };
    },

    /** `code` is the callback's `loginRequestToken` (metadata `callbackCodeParam`). Not retried. */
    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const answer = await api.loginToken(ctx, meweMetadata.oauth!.tokenUrl, input.code);
      let token: TokenAnswer;
      try {
        token = meweResult<TokenAnswer>(answer);
      } catch (e) {
        // No user token is involved yet: "Unauthorized" here is the server's app id/key.
        if (e instanceof PlatformError && e.kind === 'reconnect_required') {
          throw new PlatformError('rejected', `MeWe refused this server's app (MEWE_CLIENT_ID as X-App-Id, MEWE_CLIENT_SECRET as X-Api-Key): ${String((answer.body as { message?: string } | null)?.message ?? answer.status)}`, { status: answer.status });
        }
        throw e;
      }
      if (token?.pending === true) {
        throw new PlatformError('rejected', 'The login request has not been approved on MeWe yet: approve it in MeWe, then connect again');
      }
      if (!token?.apiToken) throw new PlatformError('rejected', 'MeWe answered without an apiToken for this login request');
      const c = { apiToken: token.apiToken };
      const me = await get<MeweMe>(ctx, c, '/api/dev/me');
      if (!me?.userId) throw new PlatformError('rejected', 'MeWe did not answer with the user of this apiToken');
      const name = me.name || [me.firstName, me.lastName].filter(Boolean).join(' ').trim() || me.handle || String(me.userId);
      return {
        internalId: String(me.userId),
        name,
        profile: me.handle ?? null,
        picture: null,
        credentials: { apiToken: token.apiToken, userId: String(me.userId), handle: me.handle ?? null } satisfies MeweCredentials,
        expiresAt: meweExpiry(token.expiresAt, ctx.clock.now()),
      };
    },

    validate() {
      return [];
    },

    /**
     * Not idempotent (MeWe takes no idempotency key and nothing here lists posts back): a retried
     * call posts twice. Photos are uploaded first, then the post goes to the timeline or the group.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      if (replyTo) throw new PlatformError('unsupported', 'MeWe posts have no comments an app can make here');
      // Every call needs the deployment's app: without it, say so before anything else.
      requireApp(config.app);
      const c = creds(ctx);
      const s = MeweSettingsSchema.safeParse(settings);
      if (!s.success) throw new PlatformError('rejected', `MeWe needs a post type (timeline or group) and, for a group post, the group: ${s.error.issues.map((i) => i.path.join('.')).join(', ')}`);
      const { postType, group } = s.data;
      const videos = item.media.filter((m) => m.type !== 'image');
      if (videos.length > 0) throw new PlatformError('rejected', 'MeWe posts take photos only');
      const uploadedPhotoIds: string[] = [];
      for (const m of item.media) {
        const up = await api.uploadPhoto(ctx, c, m);
        if (!up?.id) throw new PlatformError('rejected', 'MeWe answered the photo upload without an id');
        uploadedPhotoIds.push(String(up.id));
      }
      const path = postType === 'group' ? `/api/dev/group/${encodeURIComponent(group!)}/post` : '/api/dev/me/post';
      const body = { text: htmlToText(item.content), ...(uploadedPhotoIds.length > 0 ? { uploadedPhotoIds } : {}) };
      const made = await api.post(ctx, c, path, body);
      // The answer's id is assumed; MeWe may answer 204 (Postiz then makes its own id): so do we, and say so.
      const given = made?.postItemId ?? made?.id ?? made?.post?.postItemId ?? made?.post?.id;
      const id = given ? String(given) : `local-${randomBytes(8).toString('hex')}`;
      if (!given) ctx.logger.warn({ postType }, 'MeWe answered the post without an id; a local id is kept');
      const url = postType === 'group' ? `https://mewe.com/group/${encodeURIComponent(group!)}` : `https://mewe.com/${encodeURIComponent(c.handle ?? c.userId)}/posts`;
      return { status: 'published', id, url };
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'groups') throw new PlatformError('unsupported', `MeWe has no tool ${methodName}`);
      requireApp(config.app);
      const c = creds(ctx);
      const out: { id: string; name: string }[] = [];
      let next: string | null = '/api/dev/groups';
      for (let page = 0; next && page < GROUP_PAGES; page++) {
        // `nextPage` is a path on the same host (as the reference shows).
        const path: string = next.startsWith('/') ? next : new URL(next).pathname + new URL(next).search;
        const answer: { groups?: { groupId: string; name: string }[]; nextPage?: string | null } = await get(ctx, c, path);
        out.push(...(answer?.groups ?? []).map((g) => ({ id: String(g.groupId), name: g.name })));
        next = answer?.nextPage || null;
      }
      return out;
    },
  };
}
