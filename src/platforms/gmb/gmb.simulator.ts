import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from '../common/oauth2.simulator.js';
import { createGoogleOAuthSimulator, type GoogleOAuthApp, type GoogleUserRecord } from '../common/google-oauth.simulator.js';
import { fixedWindowCounter } from '../common/rate-limit.simulator.js';

/**
 * A simulator of Google's side of Google Business Profile, one server standing for six real
 * origins (map them all to it):
 *
 * - `https://accounts.google.com`: the consent page `GET /o/oauth2/v2/auth`, approving at once as
 *   the signed-in Google user and redirecting with `code`, `state` and `scope`;
 * - `https://oauth2.googleapis.com`: `POST /token` — codes single use and ten minutes, the
 *   redirect URI and the client secret checked, one-hour access tokens, a refresh token only with
 *   `access_type=offline` (again only with `prompt=consent` once the user has granted the app),
 *   refreshes that keep the refresh token, `invalid_grant` for a revoked grant;
 * - `https://mybusinessaccountmanagement.googleapis.com`: `GET /v1/accounts` (the user's
 *   accounts, paginated, at most 20 a page);
 * - `https://mybusinessbusinessinformation.googleapis.com`: `GET /v1/accounts/{a}/locations`
 *   (`readMask` required and applied, at most 100 a page);
 * - `https://mybusiness.googleapis.com`: the v4 local posts — create, list (newest first,
 *   paginated), get. The body is checked as Google checks it: topic type, summary (≤ 1,500),
 *   `event.title` and `event.schedule` for EVENT and OFFER, the schedule's dates real and in
 *   order, the call to action's type and URL (none for CALL), media formats. Each photo's
 *   `sourceUrl` is FETCHED (through `mediaOrigins`) and must be a JPEG or PNG of at most 5 MB;
 *   the record keeps the sha256 of what came back. A post is `LIVE`, or `PROCESSING` for a
 *   configurable number of reads, or `REJECTED` (policy) — the one refusal under HTTP 200;
 * - `https://businessprofileperformance.googleapis.com`:
 *   `GET /v1/locations/{l}:fetchMultiDailyMetricsTimeSeries` (metrics and a complete
 *   `dailyRange` required; zero values left out, as Google does).
 *
 * Errors are Google's shape `{ error: { code, message, status, details } }` with `ErrorInfo`,
 * `BadRequest` field violations and, on v4, `google.mybusiness.v4.ValidationError`; quota per
 * user and minute (429 `RESOURCE_EXHAUSTED`, reason `RATE_LIMIT_EXCEEDED`). Google documents the
 * v4 validation messages loosely: their wording is approximate; statuses and shapes are Google's.
 * Refusing a call to action on an OFFER is this simulator's reading of Google's rule that an offer
 * has no button (its redeem URL is the button).
 */

export const GOOGLE_ACCOUNTS = 'https://accounts.google.com';
export const GOOGLE_OAUTH = 'https://oauth2.googleapis.com';
export const ACCOUNT_MANAGEMENT = 'https://mybusinessaccountmanagement.googleapis.com';
export const BUSINESS_INFORMATION = 'https://mybusinessbusinessinformation.googleapis.com';
export const MYBUSINESS = 'https://mybusiness.googleapis.com';
export const PERFORMANCE = 'https://businessprofileperformance.googleapis.com';
export const GMB_SIM_ORIGINS = [GOOGLE_ACCOUNTS, GOOGLE_OAUTH, ACCOUNT_MANAGEMENT, BUSINESS_INFORMATION, MYBUSINESS, PERFORMANCE] as const;

export const BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage';
const ACCESS_SECONDS = 3600;
const PHOTO_MAX_BYTES = 5 * 1024 * 1024;
const TOPIC_TYPES = ['STANDARD', 'EVENT', 'OFFER', 'ALERT'];
const ACTION_TYPES = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'GET_OFFER', 'CALL'];
export const DAILY_METRICS = [
  'BUSINESS_IMPRESSIONS_DESKTOP_MAPS',
  'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH',
  'BUSINESS_IMPRESSIONS_MOBILE_MAPS',
  'BUSINESS_IMPRESSIONS_MOBILE_SEARCH',
  'BUSINESS_CONVERSATIONS',
  'BUSINESS_DIRECTION_REQUESTS',
  'CALL_CLICKS',
  'WEBSITE_CLICKS',
  'BUSINESS_BOOKINGS',
  'BUSINESS_FOOD_ORDERS',
  'BUSINESS_FOOD_MENU_CLICKS',
];

export type GoogleAppRecord = GoogleOAuthApp;
export type { GoogleUserRecord };
export interface AccountRecord {
  /** `accounts/{id}` */
  name: string;
  accountName: string;
  type: 'PERSONAL' | 'LOCATION_GROUP' | 'ORGANIZATION';
  /** Google users who manage the account */
  members: string[];
}
export interface LocationRecord {
  /** the bare id (`locations/{id}` is its name) */
  id: string;
  /** accounts that list the location */
  accounts: string[];
  title: string;
  addressLines: string[];
  locality: string;
  postalCode: string;
  regionCode: string;
  placeId: string;
}
export interface PostMediaRecord {
  mediaFormat: 'PHOTO' | 'VIDEO';
  sourceUrl: string;
  sha256: string;
  size: number;
  contentType: string;
}
export interface LocalPostRecord {
  name: string;
  locationId: string;
  accountName: string;
  sub: string;
  languageCode: string | null;
  summary: string;
  topicType: string;
  callToAction: { actionType: string; url?: string } | null;
  event: { title: string; schedule: Record<string, unknown> } | null;
  offer: Record<string, string> | null;
  media: PostMediaRecord[];
  state: 'LIVE' | 'PROCESSING' | 'REJECTED';
  readsLeft: number;
  searchUrl: string;
  createTime: string;
}
interface TokenRecord {
  sub: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface GmbSimulatorOptions {
  /** public origin of pulled media → where it is really served */
  mediaOrigins?: Record<string, string>;
  /** reads of a new post that still answer PROCESSING (default 0: LIVE at once) */
  reviewReads?: number;
  /** requests per user and minute before 429 (default 300, Google's default quota) */
  requestsPerMinute?: number;
}

export interface GmbSimulator extends Simulator, Omit<OAuth2Controls<string, GoogleAppRecord>, 'revokeGrant'> {
  users: Map<string, GoogleUserRecord>;
  accounts: AccountRecord[];
  locations: Map<string, LocationRecord>;
  posts: LocalPostRecord[];
  addUser(user: GoogleUserRecord): void;
  addAccount(account: AccountRecord): void;
  addLocation(location: Partial<LocationRecord> & { id: string; accounts: string[]; title: string }): LocationRecord;
  /** the user removes the app's access: tokens and refresh tokens stop working */
  revokeGrants(): void;
  /** the next created post comes back REJECTED (a policy refusal, under HTTP 200) */
  rejectNextPost(): void;
  setDailyMetrics(locationId: string, rows: { date: string; metrics: Record<string, number> }[]): void;
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const rand = (n: number) => randomBytes(n).toString('base64url');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
type Query = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Google's error body; `details` as Google puts them (ErrorInfo, BadRequest, v4 ValidationError…). */
export function googleError(status: number, message: string, details: Record<string, unknown>[] = []) {
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN', ...(details.length ? { details } : {}) } };
}
const errorInfo = (reason: string, service: string, metadata: Record<string, string> = {}) => ({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com', metadata: { service, ...metadata } });
const v4Invalid = (field: string, message: string) =>
  googleError(400, 'Request contains an invalid argument.', [{ '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError', errorDetails: [{ code: 2, field, message }] }]);
const badRequest = (field: string, description: string) => googleError(400, 'Request contains an invalid argument.', [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description }] }]);

function pictureType(b: Buffer): string | undefined {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  return undefined;
}

/** A Google Date object as a day number, or undefined when it is not a real day. */
function dayOf(d: unknown): number | undefined {
  if (!d || typeof d !== 'object') return undefined;
  const { year, month, day } = d as Record<string, unknown>;
  if (![year, month, day].every((x) => Number.isInteger(x))) return undefined;
  const t = new Date(Date.UTC(year as number, (month as number) - 1, day as number));
  if (t.getUTCFullYear() !== year || t.getUTCMonth() !== (month as number) - 1 || t.getUTCDate() !== day) return undefined;
  return t.getTime();
}
function secondsOf(t: unknown): number | undefined {
  if (t === undefined) return 0;
  if (!t || typeof t !== 'object') return undefined;
  const { hours = 0, minutes = 0, seconds = 0 } = t as Record<string, unknown>;
  if (![hours, minutes, seconds].every((x) => Number.isInteger(x))) return undefined;
  if ((hours as number) > 23 || (minutes as number) > 59 || (seconds as number) > 59) return undefined;
  return (hours as number) * 3600 + (minutes as number) * 60 + (seconds as number);
}

export async function startGmbSimulator(opts: GmbSimulatorOptions = {}): Promise<GmbSimulator> {
  const mode = currentSimulatorMode();
  const apps = new Map<string, GoogleAppRecord>();
  const users = new Map<string, GoogleUserRecord>();
  const accounts: AccountRecord[] = [];
  const locations = new Map<string, LocationRecord>();
  const posts: LocalPostRecord[] = [];
  const tokens = new Map<string, TokenRecord>();
  const daily = new Map<string, { date: string; metrics: Record<string, number> }[]>();
  const calls = fixedWindowCounter<string>();
  const perMinute = opts.requestsPerMinute ?? 300;
  let approver: string | undefined;
  let grantedScopes: string[] | undefined;
  let rejectNext = false;
  let refreshes = 0;
  let seq = 0;

  const accountsOf = (sub: string) => accounts.filter((a) => a.members.includes(sub));
  const reaches = (sub: string, loc: LocationRecord) => accountsOf(sub).some((a) => loc.accounts.includes(a.name));

  function issueAccess(sub: string, clientId: string, scopes: string[]) {
    const accessToken = `ya29.a0${rand(90)}`;
    tokens.set(accessToken, { sub, clientId, scopes, expiresAt: Date.now() + ACCESS_SECONDS * 1000, revoked: false });
    return { access_token: accessToken, expires_in: ACCESS_SECONDS - 1, scope: scopes.join(' '), token_type: 'Bearer' };
  }

  const oauth = createGoogleOAuthSimulator<Record<string, never>>({
    apps,
    approve: () => {
      const sub = approver ?? users.keys().next().value;
      const user = sub ? users.get(sub) : undefined;
      return user ? { sub: user.sub, extra: {} } : undefined;
    },
    grant: (asked) => (grantedScopes ? asked.filter((s) => grantedScopes!.includes(s)) : asked),
    issueAccess: (sub, _extra, clientId, scopes) => issueAccess(sub, clientId, scopes),
    onRefresh: () => {
      refreshes++;
    },
  });

  /** The bearer token's record, or the 401/403/429 already sent. */
  function authorize(req: FastifyRequest, reply: FastifyReply, service: string): TokenRecord | undefined {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t || t.revoked || t.expiresAt <= Date.now()) {
      void reply
        .header('www-authenticate', 'Bearer realm="https://accounts.google.com/", error="invalid_token"')
        .status(401)
        .send(
          googleError(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.', [
            errorInfo(m ? 'ACCESS_TOKEN_EXPIRED' : 'CREDENTIALS_MISSING', service),
          ]),
        );
      return undefined;
    }
    if (!t.scopes.includes(BUSINESS_SCOPE)) {
      void reply.status(403).send(googleError(403, 'Request had insufficient authentication scopes.', [errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', service)]));
      return undefined;
    }
    const window = calls.hit(t.sub);
    if (window.count > perMinute) {
      void reply.status(429).send(
        googleError(429, `Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service '${service}' for consumer 'project_number:734518092011'.`, [
          errorInfo('RATE_LIMIT_EXCEEDED', service, { quota_metric: `${service}/default_requests`, quota_limit: 'DefaultRequestsPerMinutePerProject', quota_limit_value: String(perMinute), consumer: 'projects/734518092011' }),
        ]),
      );
      return undefined;
    }
    return t;
  }

  const denied = (reply: FastifyReply, service: string) => reply.status(403).send(googleError(403, 'The caller does not have permission', [errorInfo('PERMISSION_DENIED', service)]));
  const notFound = (reply: FastifyReply) => reply.status(404).send(googleError(404, 'Requested entity was not found.'));

  function pageParams(q: Query, max: number, dflt: number): { size: number; offset: number } {
    const size = Math.min(max, Number(one(q.pageSize)) || dflt);
    const token = one(q.pageToken);
    const offset = token ? Number(Buffer.from(token, 'base64url').toString()) || 0 : 0;
    return { size, offset };
  }
  const nextToken = (offset: number, size: number, total: number) => (offset + size < total ? Buffer.from(String(offset + size)).toString('base64url') : undefined);

  async function pull(url: unknown, field: string): Promise<{ ok: true; media: Omit<PostMediaRecord, 'mediaFormat'> } | { ok: false; body: unknown }> {
    if (typeof url !== 'string') return { ok: false, body: v4Invalid(field, 'sourceUrl is required') };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { ok: false, body: v4Invalid(field, `Invalid URL: ${url}`) };
    }
    if (!['http:', 'https:'].includes(target.protocol)) return { ok: false, body: v4Invalid(field, `Invalid URL: ${url}`) };
    let res: Response;
    try {
      res = await mediaFetch(mode, opts.mediaOrigins, url, { signal: AbortSignal.timeout(10_000) });
    } catch {
      return { ok: false, body: v4Invalid(field, `Failed to fetch the media from ${url}`) };
    }
    if (!res.ok) return { ok: false, body: v4Invalid(field, `Failed to fetch the media from ${url} (HTTP ${res.status})`) };
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = pictureType(bytes);
    if (!type) return { ok: false, body: v4Invalid(field, 'The photo must be a JPG or PNG image') };
    if (bytes.length > PHOTO_MAX_BYTES) return { ok: false, body: v4Invalid(field, 'The photo is larger than 5 MB') };
    return { ok: true, media: { sourceUrl: url, sha256: sha256(bytes), size: bytes.length, contentType: type } };
  }

  function postView(p: LocalPostRecord) {
    return {
      name: p.name,
      ...(p.languageCode ? { languageCode: p.languageCode } : {}),
      summary: p.summary,
      ...(p.callToAction ? { callToAction: p.callToAction } : {}),
      createTime: p.createTime,
      updateTime: p.createTime,
      ...(p.event ? { event: p.event } : {}),
      state: p.state,
      media: p.media.map((m, i) => ({ name: `${p.name}/media/${i}`, mediaFormat: m.mediaFormat, sourceUrl: m.sourceUrl, googleUrl: `https://lh3.googleusercontent.com/p/${p.name.split('/').pop()}-${i}` })),
      searchUrl: p.searchUrl,
      topicType: p.topicType,
      ...(p.offer ? { offer: p.offer } : {}),
    };
  }

  /** The account and location of a v4 path the caller reaches, or the error already sent. */
  function v4Location(t: TokenRecord, a: string, l: string, reply: FastifyReply): { account: AccountRecord; location: LocationRecord } | undefined {
    const account = accounts.find((x) => x.name === `accounts/${a}`);
    if (!account || !account.members.includes(t.sub)) return void denied(reply, 'mybusiness.googleapis.com');
    const location = locations.get(l);
    if (!location || !location.accounts.includes(account.name)) return void notFound(reply);
    return { account, location };
  }

  const sim = await startSimulator((app) => {
    oauth.register(app);

    // ---- Account Management API
    app.get('/v1/accounts', async (req: FastifyRequest<{ Querystring: Query }>, reply) => {
      const t = authorize(req, reply, 'mybusinessaccountmanagement.googleapis.com');
      if (!t) return reply;
      const size = Number(one(req.query.pageSize) ?? 20);
      if (!Number.isInteger(size) || size < 1 || size > 20) return reply.status(400).send(badRequest('page_size', 'Page size must be between 1 and 20'));
      const p = pageParams(req.query, 20, 20);
      const mine = accountsOf(t.sub);
      const page = mine.slice(p.offset, p.offset + p.size);
      const next = nextToken(p.offset, p.size, mine.length);
      return {
        accounts: page.map((a) => ({ name: a.name, accountName: a.accountName, type: a.type, role: 'PRIMARY_OWNER', verificationState: 'VERIFIED', vettedState: 'NOT_VETTED' })),
        ...(next ? { nextPageToken: next } : {}),
      };
    });

    // ---- Business Information API
    app.get('/v1/accounts/:a/locations', async (req: FastifyRequest<{ Params: { a: string }; Querystring: Query }>, reply) => {
      const t = authorize(req, reply, 'mybusinessbusinessinformation.googleapis.com');
      if (!t) return reply;
      const readMask = one(req.query.readMask) ?? one(req.query.read_mask);
      if (!readMask) return reply.status(400).send(badRequest('read_mask', 'Field is required'));
      const fields = readMask.split(',').map((f) => f.trim());
      const known = ['name', 'title', 'storefrontAddress', 'metadata', 'languageCode', 'phoneNumbers', 'categories', 'websiteUri', 'regularHours', 'profile'];
      const unknown = fields.find((f) => !known.includes(f));
      if (unknown) return reply.status(400).send(badRequest('read_mask', `Invalid field mask provided: ${unknown}`));
      const account = accounts.find((x) => x.name === `accounts/${req.params.a}`);
      if (!account || !account.members.includes(t.sub)) return denied(reply, 'mybusinessbusinessinformation.googleapis.com');
      const size = Number(one(req.query.pageSize) ?? 10);
      if (!Number.isInteger(size) || size < 1 || size > 100) return reply.status(400).send(badRequest('page_size', 'Page size must be between 1 and 100'));
      const p = pageParams(req.query, 100, 10);
      const all = [...locations.values()].filter((l) => l.accounts.includes(account.name));
      const next = nextToken(p.offset, p.size, all.length);
      const view = (l: LocationRecord) => {
        const full: Record<string, unknown> = {
          name: `locations/${l.id}`,
          title: l.title,
          storefrontAddress: { regionCode: l.regionCode, languageCode: 'en', postalCode: l.postalCode, locality: l.locality, addressLines: l.addressLines },
          metadata: { mapsUri: `https://maps.google.com/maps?cid=${l.placeId.length}${l.id}`, newReviewUri: `https://search.google.com/local/writereview?placeid=${l.placeId}`, placeId: l.placeId },
        };
        return Object.fromEntries(Object.entries(full).filter(([k]) => fields.includes(k)));
      };
      return { locations: all.slice(p.offset, p.offset + p.size).map(view), totalSize: all.length, ...(next ? { nextPageToken: next } : {}) };
    });

    // ---- My Business API v4: local posts
    app.post('/v4/accounts/:a/locations/:l/localPosts', async (req: FastifyRequest<{ Params: { a: string; l: string }; Body: Record<string, unknown> | undefined }>, reply) => {
      const t = authorize(req, reply, 'mybusiness.googleapis.com');
      if (!t) return reply;
      const at = v4Location(t, req.params.a, req.params.l, reply);
      if (!at) return reply;
      const b = req.body ?? {};
      const topicType = b.topicType === undefined ? 'STANDARD' : typeof b.topicType === 'string' ? b.topicType : JSON.stringify(b.topicType);
      if (!TOPIC_TYPES.includes(topicType)) return reply.status(400).send(v4Invalid('topic_type', `Invalid value: ${topicType}`));
      if (topicType === 'ALERT' && b.alertType !== 'COVID_19') return reply.status(400).send(v4Invalid('alert_type', 'An ALERT post needs alert_type'));
      if (b.languageCode !== undefined && (typeof b.languageCode !== 'string' || !/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(b.languageCode))) {
        return reply.status(400).send(v4Invalid('language_code', 'Invalid language code'));
      }
      const summary = typeof b.summary === 'string' ? b.summary : '';
      if (summary.length > 1500) return reply.status(400).send(v4Invalid('summary', 'The summary is longer than 1500 characters'));
      const mediaIn = b.media === undefined ? [] : b.media;
      if (!Array.isArray(mediaIn)) return reply.status(400).send(v4Invalid('media', 'Invalid value'));
      if (topicType === 'STANDARD' && summary.trim() === '' && mediaIn.length === 0) return reply.status(400).send(v4Invalid('summary', 'A post needs a summary or media'));
      let event: LocalPostRecord['event'] = null;
      if (topicType === 'EVENT' || topicType === 'OFFER') {
        const e = b.event as Record<string, unknown> | undefined;
        if (!e || typeof e !== 'object') return reply.status(400).send(v4Invalid('event', `An ${topicType} post needs an event`));
        if (typeof e.title !== 'string' || e.title.trim() === '') return reply.status(400).send(v4Invalid('event.title', 'The event title is required'));
        const s = e.schedule as Record<string, unknown> | undefined;
        if (!s || typeof s !== 'object') return reply.status(400).send(v4Invalid('event.schedule', 'The event schedule is required'));
        const start = dayOf(s.startDate);
        const end = dayOf(s.endDate);
        if (start === undefined) return reply.status(400).send(v4Invalid('event.schedule.start_date', 'Invalid or missing start date'));
        if (end === undefined) return reply.status(400).send(v4Invalid('event.schedule.end_date', 'Invalid or missing end date'));
        const st = secondsOf(s.startTime);
        const et = secondsOf(s.endTime);
        if (st === undefined) return reply.status(400).send(v4Invalid('event.schedule.start_time', 'Invalid start time'));
        if (et === undefined) return reply.status(400).send(v4Invalid('event.schedule.end_time', 'Invalid end time'));
        if (end + et * 1000 < start + st * 1000) return reply.status(400).send(v4Invalid('event.schedule', 'The end of the event is before its start'));
        event = { title: e.title, schedule: s };
      }
      let callToAction: LocalPostRecord['callToAction'] = null;
      if (b.callToAction !== undefined) {
        if (topicType === 'OFFER') return reply.status(400).send(v4Invalid('call_to_action', 'An OFFER post cannot have a call to action'));
        const c = b.callToAction as Record<string, unknown>;
        const type = String(c?.actionType);
        if (!ACTION_TYPES.includes(type)) return reply.status(400).send(v4Invalid('call_to_action.action_type', `Invalid value: ${type}`));
        if (type === 'CALL') callToAction = { actionType: 'CALL' };
        else {
          if (typeof c.url !== 'string' || !/^https?:\/\/[^\s/]+/.test(c.url)) return reply.status(400).send(v4Invalid('call_to_action.url', 'A valid URL is required for this action type'));
          callToAction = { actionType: type, url: c.url };
        }
      }
      let offer: LocalPostRecord['offer'] = null;
      if (b.offer !== undefined) {
        if (topicType !== 'OFFER') return reply.status(400).send(v4Invalid('offer', 'Only an OFFER post can have an offer'));
        const o = b.offer as Record<string, unknown>;
        if (o.redeemOnlineUrl !== undefined && (typeof o.redeemOnlineUrl !== 'string' || !/^https?:\/\//.test(o.redeemOnlineUrl))) {
          return reply.status(400).send(v4Invalid('offer.redeem_online_url', 'Invalid URL'));
        }
        offer = Object.fromEntries(Object.entries(o).filter(([k, v]) => ['couponCode', 'redeemOnlineUrl', 'termsConditions'].includes(k) && typeof v === 'string')) as Record<string, string>;
      }
      if (mediaIn.length > 10) return reply.status(400).send(v4Invalid('media', 'Too many media items'));
      const media: PostMediaRecord[] = [];
      for (const [i, m] of (mediaIn as Record<string, unknown>[]).entries()) {
        if (m?.mediaFormat !== 'PHOTO' && m?.mediaFormat !== 'VIDEO') return reply.status(400).send(v4Invalid(`media[${i}].media_format`, `Invalid value: ${String(m?.mediaFormat)}`));
        if (m.mediaFormat === 'VIDEO') return reply.status(400).send(v4Invalid(`media[${i}].media_format`, 'Videos are not supported in local posts'));
        const r = await pull(m.sourceUrl, `media[${i}].source_url`);
        if (!r.ok) return reply.status(400).send(r.body);
        media.push({ mediaFormat: 'PHOTO', ...r.media });
      }
      const id = `${BigInt(1_234_567_890_123_456_000n) + BigInt(++seq)}`;
      const reviewReads = opts.reviewReads ?? 0;
      const record: LocalPostRecord = {
        name: `${at.account.name}/locations/${at.location.id}/localPosts/${id}`,
        locationId: at.location.id,
        accountName: at.account.name,
        sub: t.sub,
        languageCode: typeof b.languageCode === 'string' ? b.languageCode : null,
        summary,
        topicType,
        callToAction,
        event,
        offer,
        media,
        state: rejectNext ? 'REJECTED' : reviewReads > 0 ? 'PROCESSING' : 'LIVE',
        readsLeft: reviewReads,
        searchUrl: `https://local.google.com/place?id=${at.location.placeId.length}${at.location.id}&use=posts&lpsid=${id}`,
        createTime: new Date(Date.now() + seq).toISOString(),
      };
      rejectNext = false;
      posts.push(record);
      return postView(record);
    });

    app.get('/v4/accounts/:a/locations/:l/localPosts', async (req: FastifyRequest<{ Params: { a: string; l: string }; Querystring: Query }>, reply) => {
      const t = authorize(req, reply, 'mybusiness.googleapis.com');
      if (!t) return reply;
      const at = v4Location(t, req.params.a, req.params.l, reply);
      if (!at) return reply;
      const size = Number(one(req.query.pageSize) ?? 20);
      if (!Number.isInteger(size) || size < 1 || size > 100) return reply.status(400).send(v4Invalid('page_size', 'Page size must be between 1 and 100'));
      const p = pageParams(req.query, 100, 20);
      const all = posts.filter((x) => x.locationId === at.location.id).sort((x, y) => y.createTime.localeCompare(x.createTime));
      const next = nextToken(p.offset, p.size, all.length);
      return { localPosts: all.slice(p.offset, p.offset + p.size).map(postView), ...(next ? { nextPageToken: next } : {}) };
    });

    app.get('/v4/accounts/:a/locations/:l/localPosts/:p', async (req: FastifyRequest<{ Params: { a: string; l: string; p: string } }>, reply) => {
      const t = authorize(req, reply, 'mybusiness.googleapis.com');
      if (!t) return reply;
      const at = v4Location(t, req.params.a, req.params.l, reply);
      if (!at) return reply;
      const post = posts.find((x) => x.name === `accounts/${req.params.a}/locations/${req.params.l}/localPosts/${req.params.p}`);
      if (!post) return notFound(reply);
      if (post.state === 'PROCESSING') {
        if (post.readsLeft <= 1) post.state = 'LIVE';
        post.readsLeft--;
      }
      return postView(post);
    });

    // ---- Business Profile Performance API: `locations/{l}:fetchMultiDailyMetricsTimeSeries`
    app.get('/v1/locations/*', async (req: FastifyRequest<{ Params: { '*': string }; Querystring: Query }>, reply) => {
      const m = /^(\d+):fetchMultiDailyMetricsTimeSeries$/.exec(req.params['*']);
      if (!m) return notFound(reply);
      const t = authorize(req, reply, 'businessprofileperformance.googleapis.com');
      if (!t) return reply;
      const loc = locations.get(m[1]!);
      if (!loc || !reaches(t.sub, loc)) return denied(reply, 'businessprofileperformance.googleapis.com');
      const raw = req.query.dailyMetrics ?? req.query.daily_metrics;
      const metrics = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      if (metrics.length === 0) return reply.status(400).send(badRequest('daily_metrics', 'At least one daily metric is required'));
      const bad = metrics.find((x) => !DAILY_METRICS.includes(x));
      if (bad) return reply.status(400).send(badRequest('daily_metrics', `Invalid value at 'daily_metrics' (${bad})`));
      const part = (which: 'start' | 'end', unit: string) => Number(one(req.query[`dailyRange.${which}Date.${unit}`] ?? req.query[`dailyRange.${which}_date.${unit}`]));
      const range = (which: 'start' | 'end') => dayOf({ year: part(which, 'year'), month: part(which, 'month'), day: part(which, 'day') });
      const start = range('start');
      const end = range('end');
      if (start === undefined || end === undefined) return reply.status(400).send(badRequest('daily_range', 'A complete daily range (start and end dates) is required'));
      if (end < start) return reply.status(400).send(badRequest('daily_range', 'The end date is before the start date'));
      const rows = daily.get(loc.id) ?? [];
      return {
        multiDailyMetricTimeSeries: [
          {
            dailyMetricTimeSeries: metrics.map((metric) => {
              const datedValues: { date: { year: number; month: number; day: number }; value?: string }[] = [];
              for (let d = start; d <= end; d += 86_400_000) {
                const date = new Date(d);
                const key = date.toISOString().slice(0, 10);
                const v = rows.find((r) => r.date === key)?.metrics[metric] ?? 0;
                // Google leaves `value` out of the days it counted nothing.
                datedValues.push({ date: { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }, ...(v ? { value: String(v) } : {}) });
              }
              return { dailyMetric: metric, timeSeries: { datedValues } };
            }),
          },
        ],
      };
    });
  });

  const postPath = /^\/v4\/accounts\/[^/]+\/locations\/[^/]+\/localPosts/;
  return Object.assign(sim, {
    apps,
    users,
    accounts,
    locations,
    posts,
    addApp: (a: GoogleAppRecord) => void apps.set(a.clientId, a),
    addUser: (u: GoogleUserRecord) => void users.set(u.sub, u),
    addAccount: (a: AccountRecord) => void accounts.push(a),
    addLocation(l: Partial<LocationRecord> & { id: string; accounts: string[]; title: string }) {
      const record: LocationRecord = { addressLines: ['1 Main Street'], locality: 'Springfield', postalCode: '12345', regionCode: 'US', placeId: `ChIJ${rand(18)}`, ...l };
      locations.set(record.id, record);
      return record;
    },
    approveAs(sub: string) {
      approver = sub;
    },
    grantOnly(scopes: string[] | undefined) {
      grantedScopes = scopes;
    },
    expireAccessTokens() {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1000;
    },
    revokeGrants() {
      for (const t of tokens.values()) t.revoked = true;
      for (const r of oauth.refreshTokens.values()) r.revoked = true;
    },
    rejectNextPost() {
      rejectNext = true;
    },
    setDailyMetrics: (locationId: string, rows: { date: string; metrics: Record<string, number> }[]) => void daily.set(locationId, rows),
    refreshCount: () => refreshes,
    lookup(id: string) {
      const p = posts.find((x) => x.name === id);
      return p ? { text: p.summary, mediaSha256: p.media.map((m) => m.sha256) } : undefined;
    },
    injectKind(kind: InjectedKind) {
      const service = 'mybusiness.googleapis.com';
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          // Google answers both with the same 401; the refused refresh (`invalid_grant`) tells them apart.
          return sim.inject({
            path: postPath,
            status: 401,
            body: googleError(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', [errorInfo('ACCESS_TOKEN_EXPIRED', service)]),
          });
        case 'rate_limited':
          return sim.inject({
            path: postPath,
            status: 429,
            body: googleError(429, `Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service '${service}' for consumer 'project_number:734518092011'.`, [
              errorInfo('RATE_LIMIT_EXCEEDED', service, { quota_limit_value: '300' }),
            ]),
          });
        case 'server_error':
          return sim.inject({ path: postPath, status: 503, body: googleError(503, 'The service is currently unavailable.') });
        case 'rejected':
          return sim.inject({ path: postPath, status: 400, body: v4Invalid('summary', 'The summary contains a phone number, which is not allowed') });
        case 'error_in_200':
          // A post Google accepts under 200 but files as REJECTED (its content policies).
          rejectNext = true;
          return;
      }
    },
  });
}
