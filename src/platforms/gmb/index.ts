import { readCredentials, StoredOAuthTokens, storedText } from '../common/credentials.js';
import { percentageChange } from '../common/figures.js';
import { htmlToText } from '../common/html.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type Credentials,
  type OperationContext,
  type PlatformAdapter,
  type PostDraft,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import {
  allLocations,
  createLocalPost,
  fetchDailyMetrics,
  getLocalPost,
  listLocalPosts,
  locationUrl,
  type GoogleDate,
  type LocalPost,
  type Location,
  type LocationResource,
} from './client.js';

export { locationUrl } from './client.js';
import { gmbMetadata, GmbSettingsSchema } from './metadata.js';

/** Google's summary limit for a local post. */
export const SUMMARY_MAX = 1500;
/** The language local posts are written in (the API wants one; the settings have none). */
export const LANGUAGE_CODE = 'en';
/** What a connected location stores (sealed by the caller). */
export interface GmbCredentials {
  accessToken: string;
  /** long-lived; Google keeps it on refresh */
  refreshToken: string | null;
  /** ISO time the access token expires (one hour after issue) */
  expiresAt: string | null;
  /** the account the location is managed through, `accounts/{a}` (the v4 local posts path needs it) */
  accountName: string;
  /** the location this channel is, `locations/{l}` */
  locationName: string;
}

export interface GmbAdapterConfig {
  app?: OAuthApp;
}

type ConnectCtx = Omit<OperationContext, 'credentials'>;

interface GoogleTime {
  hours: number;
  minutes: number;
  seconds?: number;
}

const DAY = 86_400_000;

function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'Google Business Profile is not configured on this server: set GMB_CLIENT_ID and GMB_CLIENT_SECRET');
  return app;
}

const StoredGmbCredentials = StoredOAuthTokens.extend({ accountName: storedText, locationName: storedText });
export const gmbCreds = (ctx: { credentials: Credentials }): GmbCredentials => readCredentials(ctx, StoredGmbCredentials, 'Google Business Profile');

function addressOf(l: LocationResource): string | null {
  const a = l.storefrontAddress;
  if (!a) return null;
  const line = [...(a.addressLines ?? []), [a.postalCode, a.locality].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return line || null;
}

function locationAccount(l: Location, tokens: Pick<GmbCredentials, 'accessToken' | 'refreshToken' | 'expiresAt'>): ConnectedAccount {
  const credentials: GmbCredentials = { ...tokens, accountName: l.accountName, locationName: l.name };
  return {
    internalId: l.name,
    name: l.title || l.name,
    profile: addressOf(l),
    picture: null,
    credentials: { ...credentials },
    expiresAt: tokens.expiresAt ? new Date(tokens.expiresAt) : null,
  };
}

const tokenCredentials = (t: TokenSet) => ({ accessToken: t.accessToken, refreshToken: t.refreshToken, expiresAt: t.expiresAt?.toISOString() ?? null });

/** `YYYY-MM-DD` (or an ISO date-time, its date part) as Google's Date, or undefined when it is not a real day. */
export function parseDay(s: unknown): GoogleDate | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(s.trim());
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return { year, month, day };
}

/** `HH:mm` or `HH:mm:ss` as Google's TimeOfDay. */
export function parseTime(s: unknown): GoogleTime | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(s.trim());
  if (!m) return undefined;
  const [hours, minutes, seconds] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return seconds ? { hours, minutes, seconds } : { hours, minutes };
}

const dayKey = (d: GoogleDate) => d.year * 10_000 + d.month * 100 + d.day;
const timeKey = (t: GoogleTime | undefined) => (t ? t.hours * 3600 + t.minutes * 60 + (t.seconds ?? 0) : 0);
const present = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/**
 * The rules of local posts the settings schema cannot say (it keeps the reference's, where only
 * an EVENT needs `eventTitle`): an EVENT or an OFFER needs a title and a start and end date (Google
 * requires `event.title` and `event.schedule` for both kinds), the end not before the start,
 * times as `HH:mm` and both or neither; `GET_OFFER` is only an OFFER's button.
 */
export function gmbIssues(settings: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const topic = settings.topicType ?? 'STANDARD';
  const cta = settings.callToActionType;
  if (cta === 'GET_OFFER' && topic !== 'OFFER') {
    issues.push({ path: 'settings.callToActionType', code: 'offer_only', message: 'GET_OFFER is only for OFFER posts (Google deprecated it as a button): choose the OFFER topic type or another button' });
  }
  if (topic !== 'EVENT' && topic !== 'OFFER') return issues;
  const kind = topic === 'EVENT' ? 'an event' : 'an offer';
  // An EVENT without a title is refused by the settings schema already.
  if (topic === 'OFFER' && !present(settings.eventTitle)) issues.push({ path: 'settings.eventTitle', code: 'required', message: `Required for ${kind} (its title)` });
  const dates: Partial<Record<'start' | 'end', GoogleDate>> = {};
  for (const [key, field] of [['start', 'eventStartDate'], ['end', 'eventEndDate']] as const) {
    const v = settings[field];
    if (!present(v)) issues.push({ path: `settings.${field}`, code: 'required', message: `Required for ${kind} (YYYY-MM-DD)` });
    else if (!(dates[key] = parseDay(v))) issues.push({ path: `settings.${field}`, code: 'invalid_date', message: 'Must be a date as YYYY-MM-DD' });
  }
  const times: Partial<Record<'start' | 'end', GoogleTime>> = {};
  for (const [key, field] of [['start', 'eventStartTime'], ['end', 'eventEndTime']] as const) {
    const v = settings[field];
    if (present(v) && !(times[key] = parseTime(v))) issues.push({ path: `settings.${field}`, code: 'invalid_time', message: 'Must be a time as HH:mm' });
  }
  if (present(settings.eventStartTime) !== present(settings.eventEndTime)) {
    const missing = present(settings.eventStartTime) ? 'eventEndTime' : 'eventStartTime';
    issues.push({ path: `settings.${missing}`, code: 'required', message: 'Give both the start and the end time, or neither (all day)' });
  }
  if (dates.start && dates.end) {
    const before = dayKey(dates.end) < dayKey(dates.start) || (dayKey(dates.end) === dayKey(dates.start) && times.start && times.end && timeKey(times.end) < timeKey(times.start));
    if (before) issues.push({ path: 'settings.eventEndDate', code: 'end_before_start', message: `The end of ${kind} cannot be before its start` });
  }
  return issues;
}

/** The v4 LocalPost body of one post (settings already valid). */
export function localPostBody(content: string, settings: Record<string, unknown>, photoUrl: string | undefined): Record<string, unknown> {
  const parsed = GmbSettingsSchema.safeParse(settings);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new PlatformError('rejected', `settings.${first.path.map(String).join('.')}: ${first.message}`);
  }
  const problems = gmbIssues(settings);
  if (problems.length > 0) throw new PlatformError('rejected', `${problems[0]!.path}: ${problems[0]!.message}`);
  const s = parsed.data;
  const topicType = s.topicType ?? 'STANDARD';
  const body: Record<string, unknown> = { languageCode: LANGUAGE_CODE, summary: htmlToText(content), topicType };
  if (topicType === 'EVENT' || topicType === 'OFFER') {
    const schedule: Record<string, unknown> = { startDate: parseDay(s.eventStartDate), endDate: parseDay(s.eventEndDate) };
    if (present(s.eventStartTime)) schedule.startTime = parseTime(s.eventStartTime);
    if (present(s.eventEndTime)) schedule.endTime = parseTime(s.eventEndTime);
    body.event = { title: s.eventTitle!.trim(), schedule };
  }
  if (topicType === 'OFFER') {
    const offer: Record<string, string> = {};
    if (present(s.offerCouponCode)) offer.couponCode = s.offerCouponCode.trim();
    if (present(s.offerRedeemUrl)) offer.redeemOnlineUrl = s.offerRedeemUrl;
    if (present(s.offerTerms)) offer.termsConditions = s.offerTerms.trim();
    if (Object.keys(offer).length > 0) body.offer = offer;
  } else if (s.callToActionType && s.callToActionType !== 'NONE') {
    // An OFFER has no button (Google shows "Redeem online" from the offer's URL instead); a CALL
    // button dials the business's phone number, so it takes no URL.
    body.callToAction = s.callToActionType === 'CALL' ? { actionType: 'CALL' } : { actionType: s.callToActionType, url: s.callToActionUrl!.trim() };
  }
  if (photoUrl) body.media = [{ mediaFormat: 'PHOTO', sourceUrl: photoUrl }];
  if ((body.summary as string).length > SUMMARY_MAX) throw new PlatformError('rejected', `A Google Business Profile post can have at most ${SUMMARY_MAX} characters`);
  return body;
}

/** The figures of `analytics`: a label and the Performance API daily metrics summed into it. */
export const ANALYTICS_SERIES: readonly { label: string; metrics: readonly string[] }[] = [
  { label: 'Impressions', metrics: ['BUSINESS_IMPRESSIONS_DESKTOP_MAPS', 'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH', 'BUSINESS_IMPRESSIONS_MOBILE_MAPS', 'BUSINESS_IMPRESSIONS_MOBILE_SEARCH'] },
  { label: 'Website clicks', metrics: ['WEBSITE_CLICKS'] },
  { label: 'Calls', metrics: ['CALL_CLICKS'] },
  { label: 'Direction requests', metrics: ['BUSINESS_DIRECTION_REQUESTS'] },
  { label: 'Conversations', metrics: ['BUSINESS_CONVERSATIONS'] },
  { label: 'Bookings', metrics: ['BUSINESS_BOOKINGS'] },
];

/**
 * Creates the Google Business Profile adapter: Google OAuth 2 with offline access (one-hour
 * access tokens, refreshed; `invalid_grant` → reconnect), the channel is one location (the first
 * the grant reaches; the `locations` tool lists them and `selectAccount` switches), local posts
 * through the v4 API with one photo Google fetches from its public URL, daily location metrics
 * from the Performance API. No threads.
 */
export function createGmbAdapter(config: GmbAdapterConfig = {}): PlatformAdapter {
  /** The answer for a local post Google made: LIVE is published, PROCESSING is still under review, REJECTED failed. */
  function outcome(post: LocalPost, c: GmbCredentials): PublishResult {
    if (!post.name) throw new PlatformError('transient', 'Google accepted the local post without naming it', { outcomeUnknown: true });
    if (post.state === 'REJECTED') throw new PlatformError('rejected', 'Google rejected the post: it does not meet the Business Profile content policies', { platformCode: 'REJECTED' });
    if (post.state === 'PROCESSING') return { status: 'pending', token: post.name };
    return { status: 'published', id: post.name, url: post.searchUrl || locationUrl(c.locationName) };
  }

  return {
    metadata: gmbMetadata,

    async beginConnect(input) {
      const app = requireApp(config.app);
      const url = buildAuthorizeUrl(gmbMetadata.oauth!, {
        clientId: app.clientId,
        redirectUri: input.redirectUri,
        state: input.state,
        // Without prompt=consent Google gives a refresh token only the first time an account grants the app.
        extra: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
      });
      return { url };
    },

    async completeConnect(input, ctx: ConnectCtx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      const tokens = await exchangeCode(ctx.http, { tokenUrl: gmbMetadata.oauth!.tokenUrl, app, code: input.code, redirectUri: input.redirectUri, clientAuth: 'body', now: ctx.clock.now() });
      if (tokens.scope && !tokens.scope.split(' ').includes('https://www.googleapis.com/auth/business.manage')) {
        throw new PlatformError('rejected', 'Google did not grant access to the Business Profile: connect again and allow managing your business');
      }
      const first = (await allLocations(ctx, tokens.accessToken))[0];
      if (!first) throw new PlatformError('rejected', 'This Google account manages no Business Profile location: create or claim one first, then connect again');
      return locationAccount(first, tokenCredentials(tokens));
    },

    /** Renews the one-hour access token; Google keeps the refresh token, and refuses a revoked one with `invalid_grant`. */
    async refresh(ctx) {
      const c = gmbCreds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'This Google Business Profile channel has no refresh token: reconnect it');
      const tokens = await refreshTokens(ctx.http, { tokenUrl: gmbMetadata.oauth!.tokenUrl, app: requireApp(config.app), refreshToken: c.refreshToken, clientAuth: 'body', now: ctx.clock.now() });
      const next: GmbCredentials = { ...c, ...tokenCredentials(tokens) };
      return { credentials: { ...next }, expiresAt: tokens.expiresAt };
    },

    /** Switches the channel to another location the grant reaches (`locations/{id}` or the bare id, as the `locations` tool lists them). */
    async selectAccount(id, ctx): Promise<ConnectedAccount> {
      const c = gmbCreds(ctx);
      const wanted = id.startsWith('locations/') ? id : `locations/${id}`;
      const location = (await allLocations(ctx, c.accessToken)).find((l) => l.name === wanted);
      if (!location) throw new PlatformError('rejected', `The connected Google account does not manage location ${id}`);
      return locationAccount(location, c);
    },

    validate(post: PostDraft): ValidationIssue[] {
      return gmbIssues(post.settings);
    },

    /**
     * Creates a local post (`POST /v4/{account}/{location}/localPosts`). Google fetches the photo
     * from its public URL. NOT idempotent (the API has no request id): the publisher reconciles
     * with `findRecent`. A post still under review (`PROCESSING`) answers `pending`.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      if (replyTo) throw new PlatformError('unsupported', 'Google Business Profile posts have no replies or comments');
      const c = gmbCreds(ctx);
      if (item.media.some((m) => m.type !== 'image')) throw new PlatformError('rejected', 'A Google Business Profile post cannot carry a video');
      if (item.media.length > 1) throw new PlatformError('rejected', 'A Google Business Profile post can have at most one photo');
      const body = localPostBody(item.content, settings, item.media[0]?.path);
      return outcome(await createLocalPost(ctx, c.accessToken, c, body), c);
    },

    /** Reads the post back (`GET /v4/{name}`) until Google's review ends. Idempotent. */
    async checkPublish(token, ctx): Promise<PublishResult> {
      const c = gmbCreds(ctx);
      if (!/^accounts\/[^/]+\/locations\/[^/]+\/localPosts\/[^/]+$/.test(token)) throw new PlatformError('rejected', 'Unreadable Google Business Profile publish token');
      return outcome(await getLocalPost(ctx, c.accessToken, token), c);
    },

    /** The location's local posts since `since`, newest first (the summary as content). There are no replies to list. */
    async findRecent({ since, limit, replyTo }, ctx) {
      if (replyTo) throw new PlatformError('unsupported', 'Google Business Profile posts have no replies or comments');
      const c = gmbCreds(ctx);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      let pageToken: string | undefined;
      do {
        const page = await listLocalPosts(ctx, c.accessToken, c, pageToken);
        let older = false;
        for (const p of page.localPosts ?? []) {
          if (!p.name) continue;
          if (Date.parse(p.createTime ?? '') < since.getTime()) {
            older = true;
            continue;
          }
          out.push({ id: p.name, url: p.searchUrl || locationUrl(c.locationName), content: p.summary ?? '', createdAt: p.createTime ?? '' });
        }
        pageToken = older ? undefined : page.nextPageToken;
      } while (pageToken && out.length < limit);
      return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'locations') throw new PlatformError('unsupported', `Google Business Profile has no tool "${methodName}"`);
      const c = gmbCreds(ctx);
      return (await allLocations(ctx, c.accessToken)).map((l) => ({
        id: l.name,
        name: l.title || l.name,
        address: addressOf(l),
        account: l.accountName,
        mapsUri: l.metadata?.mapsUri ?? null,
        current: l.name === c.locationName,
      }));
    },

    /**
     * Daily figures of the location over the last `days` days (Performance API
     * `fetchMultiDailyMetricsTimeSeries`); the four impression metrics are summed into one
     * series. Days Google reports nothing for count 0 (its figures lag by a few days).
     */
    async analytics(days, ctx): Promise<AnalyticsSeries[]> {
      const c = gmbCreds(ctx);
      const n = Math.max(1, Math.floor(days));
      const end = Math.floor(ctx.clock.now() / DAY) * DAY;
      const dates: string[] = [];
      for (let i = n - 1; i >= 0; i--) dates.push(new Date(end - i * DAY).toISOString().slice(0, 10));
      const q = new URLSearchParams();
      for (const s of ANALYTICS_SERIES) for (const m of s.metrics) q.append('dailyMetrics', m);
      for (const [k, date] of [['startDate', dates[0]!], ['endDate', dates.at(-1)!]] as const) {
        const d = parseDay(date)!;
        q.set(`dailyRange.${k}.year`, String(d.year));
        q.set(`dailyRange.${k}.month`, String(d.month));
        q.set(`dailyRange.${k}.day`, String(d.day));
      }
      const res = await fetchDailyMetrics(ctx, c.accessToken, c.locationName, q);
      const byMetric = new Map<string, Map<string, number>>();
      for (const group of res.multiDailyMetricTimeSeries ?? []) {
        for (const series of group.dailyMetricTimeSeries ?? []) {
          if (!series.dailyMetric) continue;
          const days = byMetric.get(series.dailyMetric) ?? new Map<string, number>();
          for (const v of series.timeSeries?.datedValues ?? []) {
            const d = v.date;
            if (!d?.year || !d.month || !d.day) continue;
            const key = `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
            days.set(key, (days.get(key) ?? 0) + (Number(v.value ?? 0) || 0));
          }
          byMetric.set(series.dailyMetric, days);
        }
      }
      return ANALYTICS_SERIES.map((s) => {
        const data = dates.map((date) => ({ date, total: s.metrics.reduce((sum, m) => sum + (byMetric.get(m)?.get(date) ?? 0), 0) }));
        return { label: s.label, percentageChange: percentageChange(data), data };
      });
    },
  };
}
