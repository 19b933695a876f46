import { mediaFileName } from '../common/media.js';
import { PlatformError, type OperationContext, type PlatformRequest, type PublishItem } from '../platform.js';
import { listmonkData } from './errors.js';

/** listmonk's API client: the requests the adapter makes to the instance and the shapes of their answers. */

export interface ListmonkCredentials {
  /** base URL of the instance, without a trailing slash (it may have a path) */
  instanceUrl: string;
  username: string;
  token: string;
}

export interface Campaign {
  id: number;
  uuid: string;
  name: string;
  subject: string;
  status: string;
  body?: string;
  created_at: string;
}

export interface Page<T> {
  results: T[];
  total?: number;
}

type Http = Pick<OperationContext, 'http'>;

/** `https://lists.example.com/` → `https://lists.example.com` (a path, if any, is kept). */
export function normaliseInstanceUrl(raw: string): string {
  const u = new URL(raw.trim());
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** Every call goes to the host the user typed: the outgoing-request guard applies (`untrustedHost`). */
export function call(ctx: Http, c: ListmonkCredentials, method: PlatformRequest['method'], path: string, body?: unknown) {
  return ctx.http.request({
    method,
    url: `${c.instanceUrl}${path}`,
    headers: { authorization: `Basic ${Buffer.from(`${c.username}:${c.token}`).toString('base64')}`, accept: 'application/json' },
    ...(body === undefined ? {} : { body }),
    untrustedHost: true,
  });
}

export const campaignUrl = (c: ListmonkCredentials, id: number | string) => `${c.instanceUrl}/admin/campaigns/${id}`;

/** `POST /api/media`: the picture's listmonk URL. */
export async function uploadPicture(ctx: OperationContext, c: ListmonkCredentials, m: PublishItem['media'][number]): Promise<string> {
  const form = new FormData();
  form.set('file', await ctx.openMedia(m), mediaFileName(m));
  const media = listmonkData<{ id: number; url: string }>(await call(ctx, c, 'POST', '/api/media', form));
  if (!media.url) throw new PlatformError('rejected', 'listmonk stored the picture but gave no URL for it (check the media upload settings)');
  return media.url;
}

/** `POST /api/campaigns`: the campaign, created as a draft. */
export async function createCampaign(ctx: Http, c: ListmonkCredentials, body: unknown): Promise<Campaign> {
  return listmonkData<Campaign>(await call(ctx, c, 'POST', '/api/campaigns', body));
}

/** `PUT /api/campaigns/{id}/status` with `running`: starts the campaign. */
export async function startCampaign(ctx: Http, c: ListmonkCredentials, id: number): Promise<void> {
  listmonkData<Campaign>(await call(ctx, c, 'PUT', `/api/campaigns/${id}/status`, { status: 'running' }));
}

/** `GET /api/lists?per_page=all`: the instance's lists (paged or a bare array, by version). */
export async function allLists(ctx: Http, c: ListmonkCredentials) {
  const data = listmonkData<Page<{ id: number; name: string; subscriber_count?: number; type?: string }> | { id: number; name: string }[]>(
    await call(ctx, c, 'GET', '/api/lists?page=1&per_page=all'),
  );
  return Array.isArray(data) ? data : data.results;
}

/** `GET /api/templates?no_body=true`. */
export async function templates(ctx: Http, c: ListmonkCredentials) {
  return listmonkData<{ id: number; name: string; type: string; is_default: boolean }[]>(await call(ctx, c, 'GET', '/api/templates?no_body=true'));
}

/** `GET /api/campaigns?…`: one page of campaigns. */
export async function campaigns(ctx: Http, c: ListmonkCredentials, q: URLSearchParams): Promise<Page<Campaign>> {
  return listmonkData<Page<Campaign>>(await call(ctx, c, 'GET', `/api/campaigns?${q.toString()}`));
}

/** `GET /api/campaigns/analytics/{views|clicks}?…`: counts by timestamp. */
export async function campaignAnalytics(ctx: Http, c: ListmonkCredentials, type: 'views' | 'clicks', q: URLSearchParams) {
  return listmonkData<{ campaign_id: number; count: number; timestamp: string }[] | null>(await call(ctx, c, 'GET', `/api/campaigns/analytics/${type}?${q.toString()}`)) ?? [];
}
