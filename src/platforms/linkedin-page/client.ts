/**
 * The LinkedIn Page client: the shared LinkedIn client (`common/linkedin-client.ts`, members and
 * the pages they administer share one API) plus the organisation requests only pages make —
 * the pages a member administers and their statistics.
 */
import { linkedinCreds, linkedinRest, type Ctx, type LinkedinCredentials, type LinkedinRest } from '../common/linkedin-client.js';
import { PlatformError } from '../platform.js';

export * from '../common/linkedin-client.js';

/** A LinkedIn page (organisation) the member administers. */
export interface LinkedinPage {
  id: string;
  urn: string;
  name: string;
  vanityName: string | null;
}

/** Pages where the member holds the ADMINISTRATOR role (approved), in LinkedIn's order. */
export async function administeredPages(api: LinkedinRest): Promise<LinkedinPage[]> {
  const urns: string[] = [];
  const count = 100;
  for (let start = 0; ; start += count) {
    const page = await api.get<{ elements?: { organization?: string; role?: string; state?: string }[] }>(
      `/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&count=${count}&start=${start}`,
    );
    const elements = page.elements ?? [];
    for (const e of elements) if (e.organization && !urns.includes(e.organization)) urns.push(e.organization);
    if (elements.length < count) break;
  }
  const pages: LinkedinPage[] = [];
  for (const urn of urns) {
    const id = urn.slice(urn.lastIndexOf(':') + 1);
    const org = await api.get<{ id?: number; localizedName?: string; vanityName?: string }>(`/rest/organizations/${encodeURIComponent(id)}`);
    pages.push({ id, urn, name: org.localizedName || org.vanityName || id, vanityName: org.vanityName ?? null });
  }
  return pages;
}

/** The stored credentials of a page channel, with the page's id (older channels name it only in `authorUrn`). */
export function pageCreds(ctx: Ctx): LinkedinCredentials & { organizationId: string } {
  const c = linkedinCreds(ctx);
  const organizationId = c.organizationId ?? /^urn:li:organization:(\d+)$/.exec(c.authorUrn)?.[1];
  if (!organizationId) throw new PlatformError('reconnect_required', 'Stored LinkedIn Page credentials name no page');
  return { ...c, organizationId };
}

/** The REST client of a page channel's stored grant. */
export const pageRest = (ctx: Ctx, c: LinkedinCredentials): LinkedinRest => linkedinRest(ctx, c.accessToken, c.refreshToken !== null);

/** `(timeRange:(start:…,end:…),timeGranularityType:DAY)` in Rest.li 2.0 syntax (not URL-encoded). */
function dailyIntervals(start: number, end: number): string {
  return `(timeRange:(start:${start},end:${end}),timeGranularityType:DAY)`;
}

export interface ShareStatistics {
  impressionCount?: number;
  uniqueImpressionsCount?: number;
  clickCount?: number;
  likeCount?: number;
  commentCount?: number;
  shareCount?: number;
  engagement?: number;
}

type Daily<T> = { elements?: ({ timeRange?: { start: number } } & T)[] };

/** The page's daily follower gains and share statistics between `start` and `end` (ms, whole UTC days). */
export async function dailyPageStatistics(api: LinkedinRest, authorUrn: string, start: number, end: number) {
  const entity = `q=organizationalEntity&organizationalEntity=${encodeURIComponent(authorUrn)}&timeIntervals=${dailyIntervals(start, end)}`;
  const followers = await api.get<Daily<{ followerGains?: { organicFollowerGain?: number; paidFollowerGain?: number } }>>(`/rest/organizationalEntityFollowerStatistics?${entity}`);
  const shares = await api.get<Daily<{ totalShareStatistics?: ShareStatistics }>>(`/rest/organizationalEntityShareStatistics?${entity}`);
  return { followers, shares };
}

/** Lifetime share statistics of one page post (LinkedIn gives them per post, not per day). */
export async function postShareStatistics(api: LinkedinRest, authorUrn: string, postId: string): Promise<ShareStatistics> {
  const param = postId.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares';
  const res = await api.get<{ elements?: { totalShareStatistics?: ShareStatistics }[] }>(
    `/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${encodeURIComponent(authorUrn)}&${param}=List(${encodeURIComponent(postId)})`,
  );
  return res.elements?.[0]?.totalShareStatistics ?? {};
}
