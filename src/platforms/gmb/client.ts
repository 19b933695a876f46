import type { OperationContext, PlatformRequest, PlatformResponse } from '../platform.js';
import { gmbOk } from './errors.js';

/** The real Google origins the adapter talks to (PLATFORM_ORIGINS maps them to the simulator in tests). */
export const GOOGLE_ACCOUNTS_ORIGIN = 'https://accounts.google.com';
export const GOOGLE_OAUTH_ORIGIN = 'https://oauth2.googleapis.com';
export const ACCOUNT_MANAGEMENT_ORIGIN = 'https://mybusinessaccountmanagement.googleapis.com';
export const BUSINESS_INFORMATION_ORIGIN = 'https://mybusinessbusinessinformation.googleapis.com';
export const MYBUSINESS_V4_ORIGIN = 'https://mybusiness.googleapis.com';
export const PERFORMANCE_ORIGIN = 'https://businessprofileperformance.googleapis.com';
export const GMB_ORIGINS = [GOOGLE_ACCOUNTS_ORIGIN, GOOGLE_OAUTH_ORIGIN, ACCOUNT_MANAGEMENT_ORIGIN, BUSINESS_INFORMATION_ORIGIN, MYBUSINESS_V4_ORIGIN, PERFORMANCE_ORIGIN] as const;

const READ_MASK = 'name,title,storefrontAddress,metadata';
/** Where a post is shown when Google gives no `searchUrl` (Postiz's fallback). */
export const locationUrl = (locationName: string) => `https://business.google.com/locations/${locationName.replace(/^locations\//, '')}`;

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

export interface LocationResource {
  name: string;
  title?: string;
  storefrontAddress?: { addressLines?: string[]; locality?: string; postalCode?: string; regionCode?: string };
  metadata?: { mapsUri?: string; newReviewUri?: string; placeId?: string };
}

export interface Location extends LocationResource {
  accountName: string;
}

export interface LocalPost {
  name?: string;
  summary?: string;
  state?: 'LOCAL_POST_STATE_UNSPECIFIED' | 'REJECTED' | 'LIVE' | 'PROCESSING';
  searchUrl?: string;
  createTime?: string;
  topicType?: string;
}

export interface GoogleDate {
  year: number;
  month: number;
  day: number;
}

/** Where a local post lives: the account it is managed through and the location. */
export interface LocationRef {
  accountName: string;
  locationName: string;
}

export async function googleRequest(ctx: Ctx, accessToken: string, req: PlatformRequest): Promise<PlatformResponse> {
  const res = await ctx.http.request({ ...req, headers: { authorization: `Bearer ${accessToken}`, ...req.headers } });
  return gmbOk(res, ctx.clock.now());
}

export async function googleGet<T>(ctx: Ctx, accessToken: string, url: string): Promise<T> {
  return (await googleRequest(ctx, accessToken, { method: 'GET', url })).body as T;
}

/** Every location the grant reaches, account by account (Google's order), with the account it is reached through. */
export async function allLocations(ctx: Ctx, accessToken: string): Promise<Location[]> {
  const accounts: string[] = [];
  let pageToken: string | undefined;
  do {
    const q = new URLSearchParams({ pageSize: '20' });
    if (pageToken) q.set('pageToken', pageToken);
    const page = await googleGet<{ accounts?: { name: string }[]; nextPageToken?: string }>(ctx, accessToken, `${ACCOUNT_MANAGEMENT_ORIGIN}/v1/accounts?${q.toString()}`);
    accounts.push(...(page.accounts ?? []).map((a) => a.name));
    pageToken = page.nextPageToken;
  } while (pageToken);
  const out: Location[] = [];
  const seen = new Set<string>();
  for (const account of accounts) {
    let token: string | undefined;
    do {
      const q = new URLSearchParams({ readMask: READ_MASK, pageSize: '100' });
      if (token) q.set('pageToken', token);
      const page = await googleGet<{ locations?: LocationResource[]; nextPageToken?: string }>(
        ctx,
        accessToken,
        `${BUSINESS_INFORMATION_ORIGIN}/v1/${account}/locations?${q.toString().replace(/%2C/g, ',')}`,
      );
      for (const l of page.locations ?? []) {
        // A location reached through several accounts (personal and a location group) is listed once.
        if (seen.has(l.name)) continue;
        seen.add(l.name);
        out.push({ ...l, accountName: account });
      }
      token = page.nextPageToken;
    } while (token);
  }
  return out;
}

/** `POST /v4/{account}/{location}/localPosts`: the new post as Google answers it. */
export async function createLocalPost(ctx: Ctx, accessToken: string, at: LocationRef, body: Record<string, unknown>): Promise<LocalPost> {
  const res = await googleRequest(ctx, accessToken, { method: 'POST', url: `${MYBUSINESS_V4_ORIGIN}/v4/${at.accountName}/${at.locationName}/localPosts`, body });
  return res.body as LocalPost;
}

/** `GET /v4/{name}` of a local post. */
export function getLocalPost(ctx: Ctx, accessToken: string, name: string): Promise<LocalPost> {
  return googleGet<LocalPost>(ctx, accessToken, `${MYBUSINESS_V4_ORIGIN}/v4/${name}`);
}

/** One page of the location's local posts (100 a page). */
export function listLocalPosts(ctx: Ctx, accessToken: string, at: LocationRef, pageToken: string | undefined) {
  const q = new URLSearchParams({ pageSize: '100' });
  if (pageToken) q.set('pageToken', pageToken);
  return googleGet<{ localPosts?: LocalPost[]; nextPageToken?: string }>(ctx, accessToken, `${MYBUSINESS_V4_ORIGIN}/v4/${at.accountName}/${at.locationName}/localPosts?${q.toString()}`);
}

/** Performance API `fetchMultiDailyMetricsTimeSeries` of the location, with the query the caller built. */
export function fetchDailyMetrics(ctx: Ctx, accessToken: string, locationName: string, q: URLSearchParams) {
  return googleGet<{
    multiDailyMetricTimeSeries?: { dailyMetricTimeSeries?: { dailyMetric?: string; timeSeries?: { datedValues?: { date?: Partial<GoogleDate>; value?: string }[] } }[] }[];
  }>(ctx, accessToken, `${PERFORMANCE_ORIGIN}/v1/${locationName}:fetchMultiDailyMetricsTimeSeries?${q.toString()}`);
}
