import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import type { OAuth2Controls } from './oauth2.simulator.js';

/**
 * A simulator of LinkedIn for both adapters (`linkedin`, `linkedin-page`). It answers for two
 * real origins, which tests map to it: `https://www.linkedin.com` (OAuth authorisation page and
 * token endpoint, media upload URLs under `/dms-uploads/`) and `https://api.linkedin.com`
 * (`/v2/userinfo` and the versioned REST API under `/rest/`).
 *
 * Faithful parts: the REST API refuses calls without an active `LinkedIn-Version` (400
 * `VERSION_MISSING`, 426 `NONEXISTENT_VERSION`); creating a post or a comment answers 201 with
 * an EMPTY body and the new URN only in `x-restli-id`; errors are `{ status, serviceErrorCode,
 * code, message }` with LinkedIn's token codes (65600 invalid, 65601 expired, 65602 revoked);
 * an exact duplicate post is refused with 422 `DUPLICATE_POST`; commentary is read as "little
 * text", so an unescaped reserved character cuts the shown text there; images and documents are
 * uploaded with a bearer PUT, videos in parts that answer an `etag` and are then finalised and
 * processed asynchronously (`PROCESSING` → `AVAILABLE`). A post's comments are listed newest
 * first in pages of `elements` + `paging { start, count, total }`, each with `id`, `$URN`,
 * `actor`, `created.time` and `message.text`, and only to its author (a page's: an administrator
 * holding `r_organization_social`), per LinkedIn's social access control.
 *
 * LinkedIn lets an app read a member's own posts and comments only with the restricted
 * `r_member_social`, which the `linkedin` adapter does not ask for (most apps cannot get it):
 * `memberReadsNeedScope` answers those reads 403 ACCESS_DENIED as LinkedIn does; by default the
 * member may read them without it (an app that has the permission). Not modelled: LinkedIn names a comment after the
 * post's activity (`urn:li:comment:(urn:li:activity:…,…)`, `object` the activity), where this
 * simulator uses the post's own URN.
 */

export const LINKEDIN_WWW_ORIGIN = 'https://www.linkedin.com';
export const LINKEDIN_API_ORIGIN = 'https://api.linkedin.com';

/** Versions this simulator treats as active (LinkedIn keeps each for about a year). */
export const ACTIVE_LINKEDIN_VERSIONS: ReadonlySet<string> = new Set(
  Array.from({ length: 13 }, (_, i) => {
    const m = 11 + i; // 2025-11 … 2026-11
    return `${2025 + Math.floor((m - 1) / 12)}${String(((m - 1) % 12) + 1).padStart(2, '0')}`;
  }),
);

const TOKEN_SECONDS = 60 * 24 * 3600;
const REFRESH_SECONDS = 365 * 24 * 3600;
const RESERVED = '\\|{}@[]()<>#*_~';

export interface LinkedinAppRecord {
  clientId: string;
  clientSecret: string;
  /** registered redirect URLs (any when absent) */
  redirectUris?: string[];
  /** scopes the app may ask for (any when absent) */
  scopes?: string[];
  /** approved for programmatic refresh: issues refresh tokens */
  refreshTokens: boolean;
}

export interface LinkedinMemberRecord {
  sub: string;
  name: string;
  givenName?: string;
  familyName?: string;
  picture?: string;
}

export interface LinkedinOrganizationRecord {
  id: string;
  name: string;
  vanityName: string;
  /** members (sub) holding the ADMINISTRATOR role */
  admins: string[];
}

export interface LinkedinTokenRecord {
  accessToken: string;
  sub: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface LinkedinAssetRecord {
  urn: string;
  kind: 'image' | 'video' | 'document';
  owner: string;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  key: string;
  /** the bytes received (a video's parts joined in order) */
  sha256?: string;
  size?: number;
  /** the Content-Type they were PUT with (a video: its first part's) */
  mimeType?: string;
  /** documents: pages found in the PDF */
  pages?: number;
  /** videos */
  fileSizeBytes?: number;
  uploadToken?: string;
  parts?: { firstByte: number; lastByte: number; data?: Buffer; etag?: string; mimeType?: string }[];
  pollsLeft?: number;
  processingFailureReason?: string;
}

export interface LinkedinPostRecord {
  urn: string;
  author: string;
  /** the commentary as sent (little text) */
  commentary: string;
  /** what LinkedIn shows of it */
  text: string;
  visibility: string;
  content?: unknown;
  mediaUrns: string[];
  mediaSha256: string[];
  lifecycleState: string;
  createdAt: number;
  lastModifiedAt: number;
}

export interface LinkedinCommentRecord {
  urn: string;
  object: string;
  actor: string;
  /** a page's comment: the administrator who wrote it */
  impersonator?: string;
  text: string;
  createdAt: number;
}

export interface DailyStatistics {
  date: string;
  organicFollowerGain?: number;
  paidFollowerGain?: number;
  impressionCount?: number;
  uniqueImpressionsCount?: number;
  clickCount?: number;
  likeCount?: number;
  commentCount?: number;
  shareCount?: number;
  engagement?: number;
}

export interface LinkedinSimulator extends Simulator, Pick<OAuth2Controls<string, LinkedinAppRecord>, 'apps' | 'addApp' | 'approveAs' | 'expireAccessTokens'> {
  members: Map<string, LinkedinMemberRecord>;
  organizations: Map<string, LinkedinOrganizationRecord>;
  tokens: Map<string, LinkedinTokenRecord>;
  assets: Map<string, LinkedinAssetRecord>;
  posts: LinkedinPostRecord[];
  comments: LinkedinCommentRecord[];
  addMember(member: LinkedinMemberRecord): void;
  addOrganization(org: LinkedinOrganizationRecord): void;
  revokeAccessTokens(): void;
  failVideoProcessing(urn: string, reason: string): void;
  setDailyStatistics(organizationId: string, rows: DailyStatistics[]): void;
  setPostStatistics(postUrn: string, stats: Omit<DailyStatistics, 'date' | 'organicFollowerGain' | 'paidFollowerGain'>): void;
  /** a comment someone else made (another member, another page) on a post, as if through LinkedIn's site */
  addComment(comment: { object: string; actor: string; text: string; createdAt?: number }): LinkedinCommentRecord;
  /** a post or comment by URN, as the contract suite reads it */
  lookup(id: string): { text: string; replyTo?: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

export interface LinkedinSimulatorOptions {
  /** bytes per video upload part (LinkedIn: 4 MiB) */
  videoPartSize?: number;
  /** how many status reads answer PROCESSING after finalising a video */
  videoPollsUntilAvailable?: number;
  /** a member's posts and comments are readable only with `r_member_social` (LinkedIn's rule for most apps) */
  memberReadsNeedScope?: boolean;
}

/** LinkedIn's error body. */
const fail = (reply: FastifyReply, status: number, code: string, message: string, serviceErrorCode?: number) =>
  reply.status(status).send({ status, ...(serviceErrorCode !== undefined ? { serviceErrorCode } : {}), code, message });

const unprocessable = (reply: FastifyReply, path: string, problem: string) =>
  fail(reply, 422, 'UNPROCESSABLE_ENTITY', `ERROR :: ${path} :: ${problem}\n`, 100);

/** What LinkedIn shows of a little-text commentary: templates rendered, escapes removed, cut at a stray reserved character. */
export function renderLittleText(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const rest = s.slice(i);
    if (ch === '\\' && i + 1 < s.length && RESERVED.includes(s[i + 1]!)) {
      out += s[++i];
      continue;
    }
    const mention = /^@\[([^\]]*)\]\(urn:li:(?:person|organization):[^)]+\)/.exec(rest);
    if (mention) {
      out += mention[1];
      i += mention[0].length - 1;
      continue;
    }
    const hashtag = /^\{hashtag\|\\#\|([^}]+)\}/.exec(rest);
    if (hashtag) {
      out += `#${hashtag[1]}`;
      i += hashtag[0].length - 1;
      continue;
    }
    // A bare # starts a hashtag; any other reserved character breaks the parse and the rest is lost.
    if (ch !== '#' && RESERVED.includes(ch)) break;
    out += ch;
  }
  return out;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

export async function startLinkedinSimulator(opts: LinkedinSimulatorOptions = {}): Promise<LinkedinSimulator> {
  const partSize = opts.videoPartSize ?? 4 * 1024 * 1024;
  const apps = new Map<string, LinkedinAppRecord>();
  const members = new Map<string, LinkedinMemberRecord>();
  const organizations = new Map<string, LinkedinOrganizationRecord>();
  const tokens = new Map<string, LinkedinTokenRecord>();
  const refreshTokens = new Map<string, { sub: string; clientId: string; scopes: string[]; expiresAt: number; revoked: boolean }>();
  const codes = new Map<string, { clientId: string; redirectUri: string; sub: string; scopes: string[]; expiresAt: number; used: boolean }>();
  const assets = new Map<string, LinkedinAssetRecord>();
  const assetsByKey = new Map<string, LinkedinAssetRecord>();
  const posts: LinkedinPostRecord[] = [];
  const comments: LinkedinCommentRecord[] = [];
  const daily = new Map<string, DailyStatistics[]>();
  const postStats = new Map<string, Omit<DailyStatistics, 'date'>>();
  let approver: string | undefined;
  let seq = 0;
  const nextId = () => (7_400_000_000_000_000_000n + BigInt(++seq)).toString();
  const personUrn = (sub: string) => `urn:li:person:${sub}`;

  function issueTokens(sub: string, clientId: string, scopes: string[], refresh: { token: string; expiresAt: number } | 'new' | null) {
    const accessToken = token('AQV');
    tokens.set(accessToken, { accessToken, sub, clientId, scopes, expiresAt: Date.now() + TOKEN_SECONDS * 1000, revoked: false });
    const body: Record<string, unknown> = { access_token: accessToken, expires_in: TOKEN_SECONDS - 1, scope: scopes.join(','), token_type: 'Bearer' };
    if (refresh === 'new') {
      const rt = token('AQX');
      const expiresAt = Date.now() + REFRESH_SECONDS * 1000;
      refreshTokens.set(rt, { sub, clientId, scopes, expiresAt, revoked: false });
      Object.assign(body, { refresh_token: rt, refresh_token_expires_in: REFRESH_SECONDS - 1 });
    } else if (refresh) {
      // LinkedIn hands back the same refresh token, its lifetime counting down.
      Object.assign(body, { refresh_token: refresh.token, refresh_token_expires_in: Math.floor((refresh.expiresAt - Date.now()) / 1000) });
    }
    return body;
  }

  /** The bearer token of a request, or the 401/403 answer already sent. */
  function authorize(req: FastifyRequest, reply: FastifyReply, scopes?: string[], resource = 'this resource'): LinkedinTokenRecord | undefined {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t) return void fail(reply, 401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600);
    if (t.revoked) return void fail(reply, 401, 'REVOKED_ACCESS_TOKEN', 'The token used in the request has been revoked by the user', 65602);
    if (t.expiresAt <= Date.now()) return void fail(reply, 401, 'EXPIRED_ACCESS_TOKEN', 'The token used in the request has expired', 65601);
    if (scopes && !scopes.some((s) => t.scopes.includes(s))) return void fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: ${resource}`, 100);
    return t;
  }

  const isAdmin = (t: LinkedinTokenRecord, orgUrn: string) => {
    const id = /^urn:li:organization:(\d+)$/.exec(orgUrn)?.[1];
    return id !== undefined && (organizations.get(id)?.admins.includes(t.sub) ?? false);
  };

  /** May this token write as `urn` (the member with w_member_social, or a page it administers with w_organization_social)? */
  const canWriteAs = (t: LinkedinTokenRecord, urn: string) =>
    urn === personUrn(t.sub) ? t.scopes.includes('w_member_social') : isAdmin(t, urn) && t.scopes.includes('w_organization_social');

  /**
   * May this token read the social actions on `author`'s posts? LinkedIn's social access control:
   * a member only their own, a page its administrators, with `r_organization_social`.
   */
  const canReadSocial = (t: LinkedinTokenRecord, author: string) =>
    (author === personUrn(t.sub) && memberMayRead(t)) || (isAdmin(t, author) && t.scopes.includes('r_organization_social'));
  const memberMayRead = (t: LinkedinTokenRecord) => !opts.memberReadsNeedScope || t.scopes.includes('r_member_social');

  /** `start` (default 0) and `count` (default 10, at most 100) of a Rest.li collection; undefined when malformed. */
  function pagingOf(q: Record<string, string | undefined>): { start: number; count: number } | undefined {
    const start = Number(q.start ?? 0);
    const count = Number(q.count ?? 10);
    if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0) return undefined;
    return { start, count: Math.min(100, count) };
  }

  /** A comment as LinkedIn lists it: its numeric `id` and full `$URN`, who wrote it and when. */
  function commentView(c: LinkedinCommentRecord) {
    const stamp = { actor: c.actor, ...(c.impersonator ? { impersonator: c.impersonator } : {}), time: c.createdAt };
    return {
      actor: c.actor,
      commentsSummary: { selectedComments: [], totalFirstLevelComments: 0, aggregatedTotalComments: 0 },
      created: stamp,
      lastModified: stamp,
      id: /,(\d+)\)$/.exec(c.urn)![1],
      $URN: c.urn,
      message: { attributes: [], text: c.text },
      object: c.object,
    };
  }

  const versionTag = (req: FastifyRequest) => `${String(req.headers['linkedin-version'] ?? '').slice(0, 6)}01`;

  function postView(p: LinkedinPostRecord) {
    return {
      id: p.urn,
      author: p.author,
      commentary: p.commentary,
      visibility: p.visibility,
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: p.lifecycleState,
      isReshareDisabledByAuthor: false,
      createdAt: p.createdAt,
      publishedAt: p.createdAt,
      lastModifiedAt: p.lastModifiedAt,
      ...(p.content ? { content: p.content } : {}),
    };
  }

  function uploadUrl(asset: LinkedinAssetRecord, what: string, part = 0) {
    return `${LINKEDIN_WWW_ORIGIN}/dms-uploads/sp/v2/${asset.key}/${what}/${part}?ca=vector_feedshare&cn=uploads&m=${randomBytes(6).toString('hex')}&sync=0&v=beta`;
  }

  function newAsset(kind: LinkedinAssetRecord['kind'], owner: string, extra: Partial<LinkedinAssetRecord> = {}): LinkedinAssetRecord {
    const prefix = kind === 'image' ? 'D4E10AQ' : kind === 'video' ? 'D4E10AQV' : 'D4E10AQD';
    const asset: LinkedinAssetRecord = { urn: `urn:li:${kind}:${prefix}${randomBytes(8).toString('hex')}`, kind, owner, status: 'WAITING_UPLOAD', key: randomBytes(12).toString('hex'), ...extra };
    assets.set(asset.urn, asset);
    assetsByKey.set(asset.key, asset);
    return asset;
  }

  function parseIntervals(value: string | undefined): { start: number; end: number } | undefined {
    const m = /timeRange:\(start:(\d+),end:(\d+)\)/.exec(value ?? '');
    return m ? { start: Number(m[1]), end: Number(m[2]) } : undefined;
  }

  const sim = await startSimulator((app) => {
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    // Every REST call names an active API version.
    app.addHook('preHandler', async (req, reply) => {
      if (!req.url.startsWith('/rest/')) return;
      const version = req.headers['linkedin-version'];
      if (!version) return fail(reply, 400, 'VERSION_MISSING', 'A version must be present. Please specify a version by adding the LinkedIn-Version header.');
      if (!ACTIVE_LINKEDIN_VERSIONS.has(String(version).slice(0, 6)) || !/^\d{6}(\.\d{2})?$/.test(String(version))) {
        return fail(reply, 426, 'NONEXISTENT_VERSION', `Requested version ${String(version)} is not active`);
      }
    });

    // ---- OAuth (www.linkedin.com)
    app.get('/oauth/v2/authorization', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const a = q.client_id ? apps.get(q.client_id) : undefined;
      if (!a) return reply.status(400).type('text/html').send('<h1>Bummer, something went wrong.</h1><p>The passed in client_id is invalid</p>');
      if (!q.redirect_uri || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) {
        return reply.status(400).type('text/html').send('<h1>Bummer, something went wrong.</h1><p>The redirect_uri does not match the registered value</p>');
      }
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      if (q.response_type !== 'code') {
        back.searchParams.set('error', 'invalid_request');
        back.searchParams.set('error_description', 'The response_type parameter must be code');
        return reply.redirect(back.toString(), 302);
      }
      const scopes = (q.scope ?? '').split(/[ ,]+/).filter(Boolean);
      const refused = a.scopes ? scopes.find((s) => !a.scopes!.includes(s)) : undefined;
      if (refused) {
        back.searchParams.set('error', 'unauthorized_scope_error');
        back.searchParams.set('error_description', `Scope "${refused}" is not authorized for your application`);
        return reply.redirect(back.toString(), 302);
      }
      const sub = approver ?? members.keys().next().value;
      if (!sub) return reply.status(400).type('text/html').send('<p>No member is signed in</p>');
      const code = token('AQT');
      codes.set(code, { clientId: a.clientId, redirectUri: q.redirect_uri, sub, scopes, expiresAt: Date.now() + 30 * 60_000, used: false });
      back.searchParams.set('code', code);
      return reply.redirect(back.toString(), 302);
    });

    app.post('/oauth/v2/accessToken', async (req, reply) => {
      const b = (req.body ?? {}) as Record<string, string | undefined>;
      const a = b.client_id ? apps.get(b.client_id) : undefined;
      if (!a || b.client_secret !== a.clientSecret) return reply.status(401).send({ error: 'invalid_client', error_description: 'Client authentication failed' });
      if (b.grant_type === 'authorization_code') {
        const c = b.code ? codes.get(b.code) : undefined;
        if (!c || c.used || c.expiresAt < Date.now() || c.clientId !== a.clientId || c.redirectUri !== b.redirect_uri) {
          return reply.status(400).send({
            error: 'invalid_request',
            error_description: 'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists',
          });
        }
        c.used = true;
        return issueTokens(c.sub, a.clientId, c.scopes, a.refreshTokens ? 'new' : null);
      }
      if (b.grant_type === 'refresh_token') {
        const r = b.refresh_token ? refreshTokens.get(b.refresh_token) : undefined;
        if (!r || r.revoked || r.expiresAt < Date.now() || r.clientId !== a.clientId) {
          return reply.status(400).send({ error: 'invalid_grant', error_description: 'The provided authorization grant or refresh token is invalid, expired or revoked' });
        }
        return issueTokens(r.sub, a.clientId, r.scopes, { token: b.refresh_token!, expiresAt: r.expiresAt });
      }
      return reply.status(400).send({ error: 'unsupported_grant_type', error_description: 'The grant_type is not supported' });
    });

    // ---- Identity (api.linkedin.com/v2)
    app.get('/v2/userinfo', async (req, reply) => {
      const t = authorize(req, reply, ['openid'], '/userinfo');
      if (!t) return reply;
      const m = members.get(t.sub)!;
      return {
        sub: m.sub,
        name: m.name,
        given_name: m.givenName ?? m.name.split(' ')[0],
        family_name: m.familyName ?? m.name.split(' ').slice(1).join(' '),
        ...(m.picture ? { picture: m.picture } : {}),
        locale: { country: 'US', language: 'en' },
      };
    });

    // ---- Organisations
    app.get('/rest/organizationAcls', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply, ['rw_organization_admin', 'r_organization_admin', 'w_organization_social', 'r_organization_social'], 'organizationAcls.FINDER-roleAssignee');
      if (!t) return reply;
      const q = req.query;
      if (q.q !== 'roleAssignee') return fail(reply, 400, 'ILLEGAL_ARGUMENT', `Unsupported finder: ${q.q ?? '(none)'}`);
      const start = Number(q.start ?? 0);
      const count = Number(q.count ?? 10);
      const all = [...organizations.values()]
        .filter((o) => o.admins.includes(t.sub) && (!q.role || q.role === 'ADMINISTRATOR') && (!q.state || q.state === 'APPROVED'))
        .map((o) => ({ roleAssignee: personUrn(t.sub), state: 'APPROVED', role: 'ADMINISTRATOR', organization: `urn:li:organization:${o.id}` }));
      return { paging: { start, count, links: [], total: all.length }, elements: all.slice(start, start + count) };
    });

    app.get('/rest/organizations/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const o = organizations.get(req.params.id);
      if (!o) return fail(reply, 404, 'NOT_FOUND', `Organization ${req.params.id} not found`);
      return { id: Number(o.id), localizedName: o.name, vanityName: o.vanityName, name: { localized: { en_US: o.name } }, logoV2: { original: `urn:li:digitalmediaAsset:C4D0B${o.id}` } };
    });

    // ---- Media
    app.post('/rest/images', async (req: FastifyRequest<{ Querystring: { action?: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      if (req.query.action !== 'initializeUpload') return fail(reply, 400, 'ILLEGAL_ARGUMENT', `Unsupported action ${req.query.action ?? ''}`);
      const owner = (req.body as { initializeUploadRequest?: { owner?: string } } | null)?.initializeUploadRequest?.owner;
      if (!owner) return unprocessable(reply, '/initializeUploadRequest/owner', 'field is required but not found and has no default value');
      if (!canWriteAs(t, owner)) return fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: partnerApiImages.ACTION-initializeUpload.${versionTag(req)}`, 100);
      const asset = newAsset('image', owner);
      return { value: { uploadUrlExpiresAt: Date.now() + 3600_000, uploadUrl: uploadUrl(asset, 'uploadedImage'), image: asset.urn } };
    });

    app.post('/rest/documents', async (req: FastifyRequest<{ Querystring: { action?: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      if (req.query.action !== 'initializeUpload') return fail(reply, 400, 'ILLEGAL_ARGUMENT', `Unsupported action ${req.query.action ?? ''}`);
      const owner = (req.body as { initializeUploadRequest?: { owner?: string } } | null)?.initializeUploadRequest?.owner;
      if (!owner) return unprocessable(reply, '/initializeUploadRequest/owner', 'field is required but not found and has no default value');
      if (!canWriteAs(t, owner)) return fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: partnerApiDocuments.ACTION-initializeUpload.${versionTag(req)}`, 100);
      const asset = newAsset('document', owner);
      return { value: { uploadUrlExpiresAt: Date.now() + 3600_000, uploadUrl: uploadUrl(asset, 'uploadedDocument'), document: asset.urn } };
    });

    app.post('/rest/videos', async (req: FastifyRequest<{ Querystring: { action?: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      if (req.query.action === 'initializeUpload') {
        const r = (req.body as { initializeUploadRequest?: { owner?: string; fileSizeBytes?: number } } | null)?.initializeUploadRequest;
        if (!r?.owner) return unprocessable(reply, '/initializeUploadRequest/owner', 'field is required but not found and has no default value');
        if (typeof r.fileSizeBytes !== 'number' || r.fileSizeBytes <= 0) return unprocessable(reply, '/initializeUploadRequest/fileSizeBytes', 'field is required but not found and has no default value');
        if (r.fileSizeBytes > 500 * 1024 * 1024) return fail(reply, 400, 'BAD_REQUEST', 'Video file size exceeds the maximum of 500 MB');
        if (!canWriteAs(t, r.owner)) return fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: partnerApiVideos.ACTION-initializeUpload.${versionTag(req)}`, 100);
        const parts: NonNullable<LinkedinAssetRecord['parts']> = [];
        for (let first = 0; first < r.fileSizeBytes; first += partSize) parts.push({ firstByte: first, lastByte: Math.min(r.fileSizeBytes, first + partSize) - 1 });
        const asset = newAsset('video', r.owner, { fileSizeBytes: r.fileSizeBytes, parts, uploadToken: parts.length > 1 ? token('') : '' });
        return {
          value: {
            uploadUrlsExpireAt: Date.now() + 3600_000,
            video: asset.urn,
            uploadInstructions: parts.map((p, i) => ({ uploadUrl: uploadUrl(asset, 'videoUploadPart', i), firstByte: p.firstByte, lastByte: p.lastByte })),
            uploadToken: asset.uploadToken,
          },
        };
      }
      if (req.query.action === 'finalizeUpload') {
        const r = (req.body as { finalizeUploadRequest?: { video?: string; uploadToken?: string; uploadedPartIds?: string[] } } | null)?.finalizeUploadRequest;
        const asset = r?.video ? assets.get(r.video) : undefined;
        if (!asset || asset.kind !== 'video') return fail(reply, 404, 'NOT_FOUND', `Video ${r?.video ?? ''} not found`);
        if (!canWriteAs(t, asset.owner)) return fail(reply, 403, 'ACCESS_DENIED', 'Not enough permissions to access: partnerApiVideos.ACTION-finalizeUpload', 100);
        if ((r!.uploadToken ?? '') !== asset.uploadToken) return fail(reply, 400, 'BAD_REQUEST', 'Invalid upload token');
        const parts = asset.parts ?? [];
        const ids = r!.uploadedPartIds ?? [];
        if (parts.some((p) => !p.data) || ids.length !== parts.length || parts.some((p, i) => p.etag !== ids[i])) {
          return fail(reply, 400, 'BAD_REQUEST', 'Uploaded part ids do not match the uploaded parts');
        }
        const whole = Buffer.concat(parts.map((p) => p.data!));
        asset.sha256 = sha256(whole);
        asset.size = whole.length;
        asset.mimeType = parts[0]?.mimeType;
        asset.status = 'PROCESSING';
        asset.pollsLeft = opts.videoPollsUntilAvailable ?? 1;
        for (const p of parts) delete p.data;
        return reply.status(200).send();
      }
      return fail(reply, 400, 'ILLEGAL_ARGUMENT', `Unsupported action ${req.query.action ?? ''}`);
    });

    app.get('/rest/videos/:urn', async (req: FastifyRequest<{ Params: { urn: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const asset = assets.get(req.params.urn);
      if (!asset || asset.kind !== 'video') return fail(reply, 404, 'NOT_FOUND', `Video ${req.params.urn} not found`);
      if (asset.status === 'PROCESSING') {
        if ((asset.pollsLeft ?? 0) <= 0) asset.status = 'AVAILABLE';
        else asset.pollsLeft = (asset.pollsLeft ?? 1) - 1;
      }
      return {
        id: asset.urn,
        owner: asset.owner,
        status: asset.status,
        ...(asset.processingFailureReason ? { processingFailureReason: asset.processingFailureReason } : {}),
        ...(asset.status === 'AVAILABLE' ? { duration: 1000, aspectRatioWidth: 16, aspectRatioHeight: 9, downloadUrl: `${LINKEDIN_WWW_ORIGIN}/dms/video/${asset.key}` } : {}),
      };
    });

    app.put('/dms-uploads/sp/v2/:key/:what/:part', async (req: FastifyRequest<{ Params: { key: string; what: string; part: string } }>, reply) => {
      const asset = assetsByKey.get(req.params.key);
      if (!asset) return reply.status(404).send();
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (asset.kind === 'video') {
        // Video parts go to pre-signed URLs: no bearer token needed.
        const part = asset.parts?.[Number(req.params.part)];
        if (!part) return reply.status(404).send();
        if (body.length !== part.lastByte - part.firstByte + 1) return reply.status(400).send({ message: `Expected ${part.lastByte - part.firstByte + 1} bytes, got ${body.length}` });
        part.data = body;
        part.mimeType = req.headers['content-type'] ?? 'application/octet-stream';
        part.etag = `/ambry-video/signedId/${asset.key}/${req.params.part}/${sha256(body).slice(0, 16)}`;
        return reply.status(200).header('etag', part.etag).send();
      }
      const t = authorize(req, reply);
      if (!t) return reply;
      if (body.length === 0) return reply.status(400).send({ message: 'Empty upload' });
      asset.sha256 = sha256(body);
      asset.size = body.length;
      asset.mimeType = req.headers['content-type'] ?? 'application/octet-stream';
      if (asset.kind === 'document') {
        if (body.subarray(0, 5).toString('latin1') !== '%PDF-') {
          asset.status = 'PROCESSING_FAILED';
          asset.processingFailureReason = 'The document could not be read';
        } else {
          asset.status = 'AVAILABLE';
          asset.pages = (body.toString('latin1').match(/\/Type \/Page(?![s\w])/g) ?? []).length;
        }
      } else {
        asset.status = 'AVAILABLE';
      }
      return reply.status(201).send();
    });

    // ---- Posts
    app.post('/rest/posts', async (req, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const b = (req.body ?? {}) as Record<string, unknown>;
      const author = typeof b.author === 'string' ? b.author : undefined;
      if (!author) return unprocessable(reply, '/author', 'field is required but not found and has no default value');
      for (const field of ['visibility', 'distribution', 'lifecycleState']) {
        if (b[field] === undefined) return unprocessable(reply, `/${field}`, 'field is required but not found and has no default value');
      }
      if (!['PUBLIC', 'CONNECTIONS', 'LOGGED_IN'].includes(String(b.visibility))) return unprocessable(reply, '/visibility', `"${String(b.visibility)}" is not an enum symbol`);
      if (!canWriteAs(t, author)) return fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: partnerApiPostsExternal.CREATE.${versionTag(req)}`, 100);
      const commentary = typeof b.commentary === 'string' ? b.commentary : '';
      if (commentary.length > 3000) return unprocessable(reply, '/commentary', `length of ${commentary.length} exceeds the maximum allowed (3000)`);
      const content = b.content as { media?: { id?: string; title?: string }; multiImage?: { images?: { id?: string }[] } } | undefined;
      const mediaUrns: string[] = [];
      if (content?.media) mediaUrns.push(String(content.media.id ?? ''));
      if (content?.multiImage) {
        const images = content.multiImage.images ?? [];
        if (images.length < 2 || images.length > 20) return unprocessable(reply, '/content/multiImage/images', `must contain between 2 and 20 images, found ${images.length}`);
        mediaUrns.push(...images.map((i) => String(i.id ?? '')));
      }
      for (const [i, urn] of mediaUrns.entries()) {
        const asset = assets.get(urn);
        const path = content?.multiImage ? `/content/multiImage/images/${i}/id` : '/content/media/id';
        if (!asset) return unprocessable(reply, path, `${urn} does not exist`);
        if (content?.multiImage && asset.kind !== 'image') return unprocessable(reply, path, `${urn} is not an image`);
        if (asset.owner !== author) return fail(reply, 403, 'ACCESS_DENIED', `The author ${author} does not own ${urn}`, 100);
        if (asset.status !== 'AVAILABLE') return unprocessable(reply, path, `${urn} is not in AVAILABLE state (${asset.status})`);
        if (asset.kind === 'document' && !content?.media?.title) return unprocessable(reply, '/content/media/title', 'a document needs a title');
      }
      if (commentary === '' && mediaUrns.length === 0) return unprocessable(reply, '/commentary', 'a post needs commentary or content');
      const duplicate = commentary !== '' && posts.find((p) => p.author === author && p.commentary === commentary);
      if (duplicate) return fail(reply, 422, 'DUPLICATE_POST', `Content is a duplicate of ${duplicate.urn}`, 65700);
      const now = Date.now();
      const post: LinkedinPostRecord = {
        urn: `urn:li:share:${nextId()}`,
        author,
        commentary,
        text: renderLittleText(commentary),
        visibility: String(b.visibility),
        content,
        mediaUrns,
        mediaSha256: mediaUrns.map((u) => assets.get(u)!.sha256!),
        lifecycleState: String(b.lifecycleState),
        createdAt: now,
        lastModifiedAt: now,
      };
      posts.push(post);
      // The quirk: no body at all, the new URN only in the header.
      return reply.status(201).header('x-restli-id', post.urn).send();
    });

    app.get('/rest/posts/:urn', async (req: FastifyRequest<{ Params: { urn: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const p = posts.find((x) => x.urn === req.params.urn);
      if (!p) return fail(reply, 404, 'NOT_FOUND', `Post ${req.params.urn} not found`);
      return postView(p);
    });

    app.get('/rest/posts', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const q = req.query;
      if (q.q !== 'author' || !q.author) return fail(reply, 400, 'ILLEGAL_ARGUMENT', 'The author finder needs q=author and author');
      const readable = q.author === personUrn(t.sub) ? memberMayRead(t) : isAdmin(t, q.author);
      if (!readable) return fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: partnerApiPostsExternal.FINDER-author.${versionTag(req)}`, 100);
      const start = Number(q.start ?? 0);
      const count = Math.min(100, Number(q.count ?? 10));
      const key = q.sortBy === 'CREATED' ? 'createdAt' : 'lastModifiedAt';
      const mine = posts.filter((p) => p.author === q.author).sort((a, b) => b[key] - a[key] || b.urn.localeCompare(a.urn));
      return { paging: { start, count, links: [] }, elements: mine.slice(start, start + count).map(postView) };
    });

    // ---- Comments
    app.post('/rest/socialActions/:target/comments', async (req: FastifyRequest<{ Params: { target: string } }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const b = (req.body ?? {}) as { actor?: string; object?: string; message?: { text?: string } };
      const target = req.params.target;
      if (!posts.some((p) => p.urn === target)) return fail(reply, 404, 'NOT_FOUND', `Unable to obtain activity for ${target}`);
      if (!b.actor) return unprocessable(reply, '/actor', 'field is required but not found and has no default value');
      if (b.object !== target) return unprocessable(reply, '/object', `must be ${target}`);
      if (!canWriteAs(t, b.actor)) return fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: partnerApiSocialActions.CREATE.${versionTag(req)}`, 100);
      const text = b.message?.text ?? '';
      if (text.trim() === '') return unprocessable(reply, '/message/text', 'must not be empty');
      if (text.length > 1250) return unprocessable(reply, '/message/text', `length of ${text.length} exceeds the maximum allowed (1250)`);
      const urn = `urn:li:comment:(${target},${nextId()})`;
      comments.push({ urn, object: target, actor: b.actor, ...(b.actor !== personUrn(t.sub) ? { impersonator: personUrn(t.sub) } : {}), text, createdAt: Date.now() });
      return reply.status(201).header('x-restli-id', urn).send();
    });

    app.get('/rest/socialActions/:target/comments', async (req: FastifyRequest<{ Params: { target: string }; Querystring: Record<string, string | undefined> }>, reply) => {
      const t = authorize(req, reply);
      if (!t) return reply;
      const target = req.params.target;
      const post = posts.find((p) => p.urn === target);
      if (!post) return fail(reply, 404, 'NOT_FOUND', `Unable to obtain activity for ${target}`);
      if (!canReadSocial(t, post.author)) return fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access: partnerApiSocialActions.GET_ALL.${versionTag(req)}`, 100);
      const paging = pagingOf(req.query);
      if (!paging) return fail(reply, 400, 'ILLEGAL_ARGUMENT', 'start and count must be non-negative integers');
      const on = comments.filter((c) => c.object === target).sort((a, b) => b.createdAt - a.createdAt || b.urn.localeCompare(a.urn));
      return {
        paging: { start: paging.start, count: paging.count, links: [], total: on.length },
        elements: on.slice(paging.start, paging.start + paging.count).map(commentView),
      };
    });

    // ---- Page statistics
    const statsAccess = (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply) => {
      const t = authorize(req, reply, ['rw_organization_admin', 'r_organization_admin'], 'organizational statistics');
      if (!t) return undefined;
      const entity = req.query.organizationalEntity ?? '';
      if (req.query.q !== 'organizationalEntity' || !entity) return void fail(reply, 400, 'ILLEGAL_ARGUMENT', 'q=organizationalEntity and organizationalEntity are required');
      if (!isAdmin(t, entity)) return void fail(reply, 403, 'ACCESS_DENIED', `Not enough permissions to access statistics of ${entity}`, 100);
      return { entity, id: entity.slice(entity.lastIndexOf(':') + 1) };
    };
    const inRange = (rows: DailyStatistics[], r: { start: number; end: number }) => rows.filter((d) => Date.parse(`${d.date}T00:00:00Z`) >= r.start && Date.parse(`${d.date}T00:00:00Z`) < r.end);
    const shareStats = (d: Partial<DailyStatistics>) => ({
      impressionCount: d.impressionCount ?? 0,
      uniqueImpressionsCount: d.uniqueImpressionsCount ?? 0,
      clickCount: d.clickCount ?? 0,
      likeCount: d.likeCount ?? 0,
      commentCount: d.commentCount ?? 0,
      shareCount: d.shareCount ?? 0,
      engagement: d.engagement ?? 0,
      commentMentionsCount: 0,
      shareMentionsCount: 0,
    });
    const dayRange = (d: DailyStatistics) => ({ start: Date.parse(`${d.date}T00:00:00Z`), end: Date.parse(`${d.date}T00:00:00Z`) + 86_400_000 });

    app.get('/rest/organizationalEntityFollowerStatistics', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const access = statsAccess(req, reply);
      if (!access) return reply;
      const range = parseIntervals(req.query.timeIntervals);
      if (!range) return { paging: { start: 0, count: 10, links: [] }, elements: [{ organizationalEntity: access.entity, followerCountsByAssociationType: [], followerCountsBySeniority: [] }] };
      const rows = inRange(daily.get(access.id) ?? [], range);
      return {
        paging: { start: 0, count: rows.length, links: [] },
        elements: rows.map((d) => ({ timeRange: dayRange(d), followerGains: { organicFollowerGain: d.organicFollowerGain ?? 0, paidFollowerGain: d.paidFollowerGain ?? 0 }, organizationalEntity: access.entity })),
      };
    });

    app.get('/rest/organizationalEntityShareStatistics', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const access = statsAccess(req, reply);
      if (!access) return reply;
      const list = /^List\((.*)\)$/.exec(req.query.shares ?? req.query.ugcPosts ?? '')?.[1];
      if (list !== undefined) {
        const field = req.query.shares !== undefined ? 'share' : 'ugcPost';
        return {
          paging: { start: 0, count: 10, links: [] },
          elements: list
            .split(',')
            .filter(Boolean)
            .map((urn) => ({ [field]: urn, organizationalEntity: access.entity, totalShareStatistics: shareStats(postStats.get(urn) ?? {}) })),
        };
      }
      const range = parseIntervals(req.query.timeIntervals);
      const rows = daily.get(access.id) ?? [];
      if (!range) {
        const total = rows.reduce<Partial<DailyStatistics>>((acc, d) => {
          for (const k of ['impressionCount', 'uniqueImpressionsCount', 'clickCount', 'likeCount', 'commentCount', 'shareCount'] as const) acc[k] = (acc[k] ?? 0) + (d[k] ?? 0);
          return acc;
        }, {});
        return { paging: { start: 0, count: 10, links: [] }, elements: [{ organizationalEntity: access.entity, totalShareStatistics: shareStats(total) }] };
      }
      const within = inRange(rows, range);
      return {
        paging: { start: 0, count: within.length, links: [] },
        elements: within.map((d) => ({ timeRange: dayRange(d), totalShareStatistics: shareStats(d), organizationalEntity: access.entity })),
      };
    });
  });

  return Object.assign(sim, {
    apps,
    members,
    organizations,
    tokens,
    assets,
    posts,
    comments,
    addApp: (a: LinkedinAppRecord) => void apps.set(a.clientId, a),
    addMember: (m: LinkedinMemberRecord) => void members.set(m.sub, m),
    addOrganization: (o: LinkedinOrganizationRecord) => void organizations.set(o.id, o),
    approveAs(sub: string) {
      approver = sub;
    },
    expireAccessTokens() {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1000;
    },
    revokeAccessTokens() {
      for (const t of tokens.values()) t.revoked = true;
      for (const r of refreshTokens.values()) r.revoked = true;
    },
    failVideoProcessing(urn: string, reason: string) {
      const a = assets.get(urn);
      if (a) Object.assign(a, { status: 'PROCESSING_FAILED', processingFailureReason: reason });
    },
    setDailyStatistics: (organizationId: string, rows: DailyStatistics[]) => void daily.set(organizationId, rows),
    setPostStatistics: (postUrn: string, stats: Omit<DailyStatistics, 'date'>) => void postStats.set(postUrn, stats),
    addComment(c: { object: string; actor: string; text: string; createdAt?: number }) {
      const comment: LinkedinCommentRecord = { urn: `urn:li:comment:(${c.object},${nextId()})`, object: c.object, actor: c.actor, text: c.text, createdAt: c.createdAt ?? Date.now() };
      comments.push(comment);
      return comment;
    },
    lookup(id: string) {
      const p = posts.find((x) => x.urn === id);
      if (p) return { text: p.text, mediaSha256: p.mediaSha256 };
      const c = comments.find((x) => x.urn === id);
      if (c) return { text: c.text, replyTo: c.object, mediaSha256: [] };
      return undefined;
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/rest\/(posts|socialActions\/[^/]+\/comments)(\?|$)/;
      switch (kind) {
        case 'auth_expired':
          return sim.inject({ path, status: 401, body: { status: 401, serviceErrorCode: 65601, code: 'EXPIRED_ACCESS_TOKEN', message: 'The token used in the request has expired' } });
        case 'revoked':
          return sim.inject({ path, status: 401, body: { status: 401, serviceErrorCode: 65602, code: 'REVOKED_ACCESS_TOKEN', message: 'The token used in the request has been revoked by the user' } });
        case 'rate_limited':
          // LinkedIn sends no Retry-After.
          return sim.inject({ path, status: 429, body: { status: 429, serviceErrorCode: 101, code: 'TOO_MANY_REQUESTS', message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.' } });
        case 'server_error':
          return sim.inject({ path, status: 500, body: { status: 500, serviceErrorCode: 0, code: 'INTERNAL_SERVER_ERROR', message: 'Internal Server Error' } });
        case 'rejected':
          return sim.inject({ path, status: 422, body: { status: 422, serviceErrorCode: 65700, code: 'DUPLICATE_POST', message: 'Content is a duplicate of urn:li:share:7400000000000000001' } });
        case 'error_in_200':
          // LinkedIn never reports errors under HTTP 200: nothing to inject.
          return;
      }
    },
  });
}
