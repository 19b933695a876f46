/**
 * The MeWe client: requests to MeWe's developer API with the deployment's app headers
 * (`X-App-Id`, `X-Api-Key`) and, for a user, the apiToken. MeWe publishes no documentation of
 * this API: the paths follow a working implementation (Postiz; see docs/platforms.md).
 */
import type { OAuthApp } from '../common/oauth2.js';
import { PlatformError, type OperationContext, type PlatformResponse, type PublishMedia } from '../platform.js';
import { meweResult } from './errors.js';

/** Assumed host (the reference leaves it open; Postiz defaults to it). */
export const MEWE_HOST = 'https://mewe.com';

export interface TokenAnswer {
  apiToken?: string;
  expiresAt?: string | number | null;
  pending?: boolean;
}

export interface MeweMe {
  userId?: string;
  name?: string;
  firstName?: string;
  lastName?: string;
  handle?: string;
}

type Ctx = Pick<OperationContext, 'http'>;

export function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'MeWe is not available on this server: it needs the MeWe app, set MEWE_CLIENT_ID (the X-App-Id) and MEWE_CLIENT_SECRET (the X-Api-Key)');
  return app;
}

/** MeWe's API for the deployment's app (`undefined` when the server has none: every call then says so). */
export function meweClient(app: OAuthApp | undefined) {
  const appHeaders = () => {
    const a = requireApp(app);
    return { 'x-app-id': a.clientId, 'x-api-key': a.clientSecret };
  };
  const headers = (c: { apiToken: string }) => ({ ...appHeaders(), authorization: `Bearer ${c.apiToken}` });
  return {
    /** The login request's token: the raw answer (its refusals are read by the caller). */
    loginToken: (ctx: Ctx, tokenUrl: string, loginRequestToken: string): Promise<PlatformResponse> =>
      ctx.http.request({ method: 'GET', url: `${tokenUrl}?loginRequestToken=${encodeURIComponent(loginRequestToken)}`, headers: appHeaders() }),
    get: async <T>(ctx: Ctx, c: { apiToken: string }, path: string) => meweResult<T>(await ctx.http.request({ method: 'GET', url: `${MEWE_HOST}${path}`, headers: headers(c) })),
    /** Uploads a photo (streamed from the stored file): MeWe's answer. */
    uploadPhoto: async (ctx: Pick<OperationContext, 'http' | 'openMedia'>, c: { apiToken: string }, m: PublishMedia) => {
      const form = new FormData();
      form.set('file', await ctx.openMedia(m), m.path.split('/').pop()?.split('?')[0] || `${m.id}`);
      return meweResult<{ id?: string }>(await ctx.http.request({ method: 'POST', url: `${MEWE_HOST}/api/dev/photo/upload`, headers: headers(c), body: form, timeoutMs: 300_000 }));
    },
    /** Posts to `path` (the timeline or a group): MeWe's answer (perhaps none). */
    post: async (ctx: Ctx, c: { apiToken: string }, path: string, body: unknown) =>
      meweResult<{ postItemId?: string; id?: string; post?: { postItemId?: string; id?: string } } | null>(await ctx.http.request({ method: 'POST', url: `${MEWE_HOST}${path}`, headers: headers(c), body })),
  };
}
