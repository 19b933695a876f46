import { randomInt, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { BlueskyCredentialsSchema, blueskyMetadata } from './metadata.js';
import { blueskyError, blueskyResult } from './errors.js';
import { detectFacets, type Facet } from './richtext.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type Credentials,
  type OperationContext,
  type PlatformAdapter,
  type PlatformRequest,
  type PublishItem,
  type PublishResult,
} from '../platform.js';

const VIDEO_SERVICE = 'https://video.bsky.app';
const POST = 'app.bsky.feed.post';
const MAX_IMAGES = 4;
/** The access JWT's lifetime on the reference PDS, when its `exp` cannot be read. */
const ACCESS_LIFETIME_MS = 2 * 60 * 60 * 1000;
/** How long the video service may use our service token to store the processed video on the PDS. */
const SERVICE_TOKEN_SECONDS = 30 * 60;
/** The service names the file after its type, so the upload's name needs the right extension. */
const VIDEO_EXTENSIONS: Record<string, string> = { 'video/mp4': 'mp4', 'video/quicktime': 'mov', 'video/webm': 'webm', 'video/mpeg': 'mpeg' };

/**
 * Stored per channel. The session is cached and refreshed: createSession is limited to 30 per
 * 5 minutes and 300 (in practice sometimes 100) per day per account, so logging in before every
 * post (as the reference does) fails for busy channels. The app password is kept so a session
 * whose refresh token also died can be re-created without asking the user.
 */
type BlueskyCredentials = {
  /** the entryway/PDS the user named (https://bsky.social): sessions are created and refreshed there */
  service: string;
  /** the account's own PDS from its DID document: repo and read calls go there, as the official client does */
  pds: string;
  identifier: string;
  password: string;
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
};

interface SessionAnswer {
  accessJwt: string;
  refreshJwt: string;
  handle: string;
  did: string;
  didDoc?: { service?: { id?: string; type?: string; serviceEndpoint?: unknown }[] };
}

interface StrongRef {
  uri: string;
  cid: string;
}

interface BlobRef {
  $type: 'blob';
  ref: { $link: string };
  mimeType: string;
  size: number;
}

interface PostRecord {
  $type: typeof POST;
  text: string;
  createdAt: string;
  facets?: Facet[];
  reply?: { root: StrongRef; parent: StrongRef };
  embed?: Record<string, unknown>;
}

interface JobStatus {
  jobId?: string;
  state?: string;
  blob?: BlobRef;
  error?: string;
  message?: string;
}

/** What a pending video publish carries between `publish` and `checkPublish`. */
interface VideoToken {
  v: 1;
  jobId: string;
  /** chosen up front so a retried check can find the post it may already have created */
  rkey: string;
  record: PostRecord;
  aspectRatio?: { width: number; height: number };
  alt?: string;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

/** What a Bluesky channel stores, read with readCredentials (pds falls back to the service, handle to the DID; other fields are kept). */
const StoredBlueskyCredentials = z
  .looseObject({
    service: z.string().min(1),
    did: z.string().min(1),
    accessJwt: z.string().min(1),
    refreshJwt: z.string().min(1),
    identifier: z.string().min(1),
    password: z.string().min(1),
    pds: z.string().nullish(),
    handle: z.string().nullish(),
  })
  .transform((c): BlueskyCredentials => ({ ...c, pds: c.pds ?? c.service, handle: c.handle ?? c.did }));

function creds(ctx: { credentials: Credentials }): BlueskyCredentials {
  return readCredentials(ctx, StoredBlueskyCredentials, 'Bluesky');
}

/** One XRPC call. The service and PDS hosts come from the user, so the SSRF guard applies to them. */
async function xrpc<T>(
  ctx: Ctx,
  base: string,
  nsid: string,
  opts: { method?: PlatformRequest['method']; token?: string; params?: Record<string, string | number | string[]>; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const url = new URL(`/xrpc/${nsid}`, base);
  for (const [key, value] of Object.entries(opts.params ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
  }
  const res = await ctx.http.request({
    method: opts.method ?? 'GET',
    url: url.href,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
    body: opts.body,
    untrustedHost: base !== VIDEO_SERVICE,
  });
  return blueskyResult<T>(res);
}

/** Reads `exp` from a JWT without verifying it (it is ours, from the PDS); undefined when opaque. */
function jwtExpiry(jwt: string): Date | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** The `#atproto_pds` endpoint of a DID document, if it names a usable one. */
function pdsFromDidDoc(doc: SessionAnswer['didDoc']): string | undefined {
  const entry = doc?.service?.find((s) => s.id?.endsWith('#atproto_pds') && s.type === 'AtprotoPersonalDataServer');
  if (typeof entry?.serviceEndpoint !== 'string' || !URL.canParse(entry.serviceEndpoint)) return undefined;
  const url = new URL(entry.serviceEndpoint);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
}

function fromSession(s: SessionAnswer, base: Pick<BlueskyCredentials, 'service' | 'identifier' | 'password'> & { pds?: string }, now: number) {
  const credentials: BlueskyCredentials = {
    ...base,
    pds: pdsFromDidDoc(s.didDoc) ?? base.pds ?? base.service,
    did: s.did,
    handle: s.handle,
    accessJwt: s.accessJwt,
    refreshJwt: s.refreshJwt,
  };
  return { credentials, expiresAt: jwtExpiry(s.accessJwt) ?? new Date(now + ACCESS_LIFETIME_MS) };
}

function createSession(ctx: Ctx, service: string, identifier: string, password: string) {
  return xrpc<SessionAnswer>(ctx, service, 'com.atproto.server.createSession', { method: 'POST', body: { identifier, password } });
}

/** "@alice.bsky.social" → "alice.bsky.social": the PDS would take a leading @ for an email address. */
function normalizeIdentifier(identifier: string): string {
  const id = identifier.trim();
  return id.startsWith('@') ? id.slice(1) : id;
}

/**
 * Names the field a refused login is about. The PDS answers a wrong password and an unknown
 * account alike (401 "Invalid identifier or password"), so an unresolvable handle is checked
 * separately to point the user at the right field.
 */
async function loginError(ctx: Ctx, service: string, identifier: string, err: unknown): Promise<unknown> {
  if (!(err instanceof PlatformError) || err.kind === 'transient' || err.kind === 'rate_limited') return err;
  const code = err.details.platformCode;
  if (err.details.status === undefined || err.details.status === 404 || err.details.status === 501) {
    return new PlatformError('rejected', `Cannot log in through this service (is it a Bluesky/atproto PDS?): ${err.message}`, { ...err.details, field: 'service' });
  }
  if (code === 'AuthFactorTokenRequired') {
    return new PlatformError('rejected', 'This account asks for an emailed sign-in code: use an app password (Settings → Privacy and security → App passwords)', { ...err.details, field: 'password' });
  }
  if (code === 'AccountTakedown' || code === 'AccountDeactivated') {
    return new PlatformError('rejected', `Bluesky refused the account: ${err.message}`, { ...err.details, field: 'identifier' });
  }
  if (!identifier.includes('@') && !identifier.startsWith('did:')) {
    const known = await xrpc(ctx, service, 'com.atproto.identity.resolveHandle', { params: { handle: identifier } }).then(
      () => true,
      (e: unknown) => !(e instanceof PlatformError && e.kind === 'rejected'),
    );
    if (!known) return new PlatformError('rejected', `No Bluesky account has the handle ${identifier}`, { ...err.details, field: 'identifier' });
  }
  return new PlatformError('rejected', `Bluesky refused the login: ${err.message}`, { ...err.details, field: 'password' });
}

/** at://{did}/{collection}/{rkey} */
function parseAtUri(uri: string): { repo: string; collection: string; rkey: string } {
  const m = /^at:\/\/([^/]+)\/([^/]+)\/([^/?#]+)$/.exec(uri);
  if (!m) throw new PlatformError('rejected', `Not a Bluesky post id: ${uri}`);
  return { repo: m[1]!, collection: m[2]!, rkey: m[3]! };
}

export function blueskyPostUrl(handle: string, uri: string): string {
  return `https://bsky.app/profile/${handle}/post/${parseAtUri(uri).rkey}`;
}

/** A record key in the TID format posts need: 53 bits of microseconds, 10 bits of clock id, base32-sortable. */
export function newTid(nowMs: number): string {
  const alphabet = '234567abcdefghijklmnopqrstuvwxyz';
  let n = ((BigInt(nowMs) * 1000n + BigInt(randomInt(1000))) << 10n) | BigInt(randomInt(1024));
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = alphabet[Number(n & 31n)]! + out;
    n >>= 5n;
  }
  return out;
}

/** The time (ms) a TID record key was made, or undefined when the key is not a TID. */
export function tidTime(rkey: string): number | undefined {
  if (!/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(rkey)) return undefined;
  const alphabet = '234567abcdefghijklmnopqrstuvwxyz';
  let n = 0n;
  for (const ch of rkey) n = (n << 5n) | BigInt(alphabet.indexOf(ch));
  return Number((n >> 10n) / 1000n);
}

/** A file-backed Blob as a fixed-length stream: http.ts sends Node streams as is, and the PDS wants a length. */
async function mediaBody(ctx: OperationContext, media: PublishItem['media'][number]) {
  const blob = await ctx.openMedia(media);
  return {
    body: Readable.fromWeb(blob.stream()),
    headers: { 'content-type': media.mimeType, 'content-length': String(blob.size) },
  };
}

/** Bluesky keeps no history of its counts: each figure is today's total, as one point. */
function series(now: number, figures: [label: string, total: number | undefined][]): AnalyticsSeries[] {
  const date = new Date(now).toISOString().slice(0, 10);
  return figures.map(([label, total]) => ({ label, percentageChange: 0, data: [{ total: total ?? 0, date }] }));
}

function aspectRatio(m: PublishItem['media'][number]) {
  return m.width && m.height && m.width > 0 && m.height > 0 ? { aspectRatio: { width: Math.round(m.width), height: Math.round(m.height) } } : {};
}

/** Creates the Bluesky adapter: an app-password session on the user's PDS, posts as records. */
export function createBlueskyAdapter(): PlatformAdapter {
  async function createPost(ctx: Ctx, c: BlueskyCredentials, record: PostRecord, rkey?: string): Promise<PublishResult> {
    const created = await xrpc<StrongRef>(ctx, c.pds, 'com.atproto.repo.createRecord', {
      method: 'POST',
      token: c.accessJwt,
      body: { repo: c.did, collection: POST, ...(rkey ? { rkey } : {}), record },
    });
    return { status: 'published', id: created.uri, url: blueskyPostUrl(c.handle, created.uri) };
  }

  /**
   * A reply names the thread's root and its direct parent, each by uri *and* cid. Our ids are
   * at-uris, so the cid comes from the parent record; the root is the one the parent already
   * names, which keeps every item of a long thread pointing at the first post.
   */
  async function replyRefs(ctx: Ctx, c: BlueskyCredentials, parentUri: string): Promise<PostRecord['reply']> {
    const { repo, collection, rkey } = parseAtUri(parentUri);
    const parent = await xrpc<StrongRef & { value: Partial<PostRecord> }>(ctx, c.pds, 'com.atproto.repo.getRecord', { params: { repo, collection, rkey } });
    const parentRef = { uri: parent.uri, cid: parent.cid };
    return { root: parent.value.reply?.root ?? parentRef, parent: parentRef };
  }

  /** A handle's DID; undefined for an unknown handle (400), any other failure is thrown. */
  async function resolveHandle(ctx: Ctx, c: BlueskyCredentials, handle: string): Promise<string | undefined> {
    try {
      return (await xrpc<{ did: string }>(ctx, c.pds, 'com.atproto.identity.resolveHandle', { token: c.accessJwt, params: { handle } })).did;
    } catch (e) {
      if (e instanceof PlatformError && e.kind === 'rejected') return undefined;
      throw e;
    }
  }

  async function uploadImage(ctx: OperationContext, c: BlueskyCredentials, m: PublishItem['media'][number]) {
    const { body, headers } = await mediaBody(ctx, m);
    const { blob } = await xrpc<{ blob: BlobRef }>(ctx, c.pds, 'com.atproto.repo.uploadBlob', { method: 'POST', token: c.accessJwt, body, headers });
    return { image: blob, alt: m.alt ?? '', ...aspectRatio(m) };
  }

  /**
   * Video goes through the video service, which transcodes it and stores the result on the
   * user's PDS with a service token we grant it (audience: the PDS's did:web). Processing takes
   * a while, so publish answers `pending` and `checkPublish` creates the post once the blob exists.
   */
  async function startVideo(ctx: OperationContext, c: BlueskyCredentials, m: PublishItem['media'][number], record: PostRecord): Promise<PublishResult> {
    const { token } = await xrpc<{ token: string }>(ctx, c.pds, 'com.atproto.server.getServiceAuth', {
      token: c.accessJwt,
      params: { aud: `did:web:${new URL(c.pds).hostname}`, lxm: 'com.atproto.repo.uploadBlob', exp: Math.floor(ctx.clock.now() / 1000) + SERVICE_TOKEN_SECONDS },
    });
    const { body, headers } = await mediaBody(ctx, m);
    const ext = VIDEO_EXTENSIONS[m.mimeType] ?? 'mp4';
    const res = await ctx.http.request({
      method: 'POST',
      url: `${VIDEO_SERVICE}/xrpc/app.bsky.video.uploadVideo?${new URLSearchParams({ did: c.did, name: `${randomUUID().slice(0, 12)}.${ext}` }).toString()}`,
      headers: { authorization: `Bearer ${token}`, ...headers },
      body,
    });
    // Unlike its lexicon, the service answers the job status itself, not `{ jobStatus }`; it
    // also carries a jobId with some non-2xx answers (a video it already has), so that decides.
    const job = (res.body ?? {}) as JobStatus;
    if (typeof job.jobId !== 'string') {
      throw blueskyError(res) ?? new PlatformError('rejected', job.message ?? job.error ?? 'Bluesky did not accept the video');
    }
    const pending: VideoToken = { v: 1, jobId: job.jobId, rkey: newTid(ctx.clock.now()), record, ...aspectRatio(m), ...(m.alt ? { alt: m.alt } : {}) };
    return finishVideo(ctx, c, pending, job);
  }

  async function finishVideo(ctx: Ctx, c: BlueskyCredentials, p: VideoToken, job: JobStatus): Promise<PublishResult> {
    if (job.state === 'JOB_STATE_FAILED') throw new PlatformError('rejected', `Bluesky could not process the video: ${job.message ?? job.error ?? 'failed'}`);
    if (!job.blob) return { status: 'pending', token: JSON.stringify(p) };
    const embed = { $type: 'app.bsky.embed.video', video: job.blob, ...(p.aspectRatio ? { aspectRatio: p.aspectRatio } : {}), ...(p.alt ? { alt: p.alt } : {}) };
    return createPost(ctx, c, { ...p.record, embed }, p.rkey);
  }

  return {
    metadata: blueskyMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const parsed = BlueskyCredentialsSchema.parse(input);
      const service = new URL(parsed.service).origin;
      const identifier = normalizeIdentifier(parsed.identifier);
      let session: SessionAnswer;
      try {
        session = await createSession(ctx, service, identifier, parsed.password);
      } catch (e) {
        throw await loginError(ctx, service, identifier, e);
      }
      const { credentials, expiresAt } = fromSession(session, { service, identifier, password: parsed.password }, ctx.clock.now());
      const profile = await xrpc<{ handle: string; displayName?: string; avatar?: string }>(ctx, credentials.pds, 'app.bsky.actor.getProfile', {
        token: credentials.accessJwt,
        params: { actor: credentials.did },
      });
      return {
        internalId: credentials.did,
        name: profile.displayName?.trim() || profile.handle,
        profile: profile.handle,
        picture: profile.avatar ?? null,
        credentials,
        expiresAt,
      };
    },

    /**
     * refreshSession rotates both tokens. When the refresh token is dead too (expired after its
     * long lifetime, or revoked), one login with the stored app password saves the channel; only a
     * refused password means the user must act.
     */
    async refresh(ctx) {
      const c = creds(ctx);
      try {
        const s = await xrpc<SessionAnswer>(ctx, c.service, 'com.atproto.server.refreshSession', { method: 'POST', token: c.refreshJwt });
        return fromSession(s, c, ctx.clock.now());
      } catch (e) {
        if (!(e instanceof PlatformError) || e.kind === 'transient' || e.kind === 'rate_limited') throw e;
        ctx.logger.info({ platformCode: e.details.platformCode }, 'bluesky: refresh token refused, logging in again with the app password');
      }
      try {
        return fromSession(await createSession(ctx, c.service, c.identifier, c.password), c, ctx.clock.now());
      } catch (e) {
        if (!(e instanceof PlatformError) || e.kind === 'transient' || e.kind === 'rate_limited') throw e;
        throw new PlatformError('reconnect_required', `Bluesky refused the stored app password: ${e.message}`, { ...e.details });
      }
    },

    validate() {
      return [];
    },

    /**
     * Not idempotent: createRecord with a server-chosen key posts twice if retried. The record is
     * checked before anything is uploaded, so a failure up to createRecord leaves nothing behind
     * but unreferenced blobs, which the PDS deletes.
     */
    async publish({ item, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const images = item.media.filter((m) => m.type === 'image');
      const videos = item.media.filter((m) => m.type === 'video');
      if (videos.length > 1 || (videos.length > 0 && images.length > 0) || images.length > MAX_IMAGES) {
        throw new PlatformError('rejected', `Bluesky takes up to ${MAX_IMAGES} images or 1 video per post, not both`);
      }
      const text = htmlToText(item.content);
      const record: PostRecord = { $type: POST, text, createdAt: new Date(ctx.clock.now()).toISOString() };
      if (replyTo) record.reply = await replyRefs(ctx, c, replyTo.id);
      const facets = await detectFacets(text, (handle) => resolveHandle(ctx, c, handle));
      if (facets.length > 0) record.facets = facets;
      if (videos.length > 0) return startVideo(ctx, c, videos[0]!, record);
      if (images.length > 0) {
        const embedded = [];
        for (const m of images) embedded.push(await uploadImage(ctx, c, m));
        record.embed = { $type: 'app.bsky.embed.images', images: embedded };
      }
      return createPost(ctx, c, record);
    },

    /**
     * Polls the video job; once the processed blob exists, creates the post under the key chosen
     * at publish time. A check retried after an unknown createRecord outcome first looks for that
     * key, so it never posts twice.
     */
    async checkPublish(token, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      let p: VideoToken;
      try {
        p = JSON.parse(token) as VideoToken;
      } catch {
        throw new PlatformError('rejected', 'Unreadable Bluesky publish token');
      }
      if (p.v !== 1 || typeof p.jobId !== 'string') throw new PlatformError('rejected', 'Unknown Bluesky publish token');
      const { jobStatus } = await xrpc<{ jobStatus: JobStatus }>(ctx, VIDEO_SERVICE, 'app.bsky.video.getJobStatus', { params: { jobId: p.jobId } });
      if (jobStatus.blob) {
        const uri = `at://${c.did}/${POST}/${p.rkey}`;
        const existing = await xrpc<StrongRef>(ctx, c.pds, 'com.atproto.repo.getRecord', { params: { repo: c.did, collection: POST, rkey: p.rkey } }).catch((e: unknown) => {
          if (e instanceof PlatformError && e.details.platformCode === 'RecordNotFound') return undefined;
          throw e;
        });
        if (existing) return { status: 'published', id: uri, url: blueskyPostUrl(c.handle, uri) };
      }
      return finishVideo(ctx, c, p, jobStatus);
    },

    /**
     * Reads the repo on the account's PDS (`com.atproto.repo.listRecords`), the authoritative
     * store a post is written to, not the AppView's author feed: the AppView indexes new records
     * from the firehose with a lag (seconds, more under load), so a post made just before a crash
     * may not be in the feed yet and reconciling from it would send the post twice. Records come
     * newest first by record key; our keys are TIDs (the time they were made), so the listing stops
     * at the first key older than `since`. Replies are records of the same collection, so thread
     * items are listed too.
     */
    async findRecent({ since, limit }, ctx) {
      const c = creds(ctx);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      const sinceMs = since.getTime();
      let cursor: string | undefined;
      for (let page = 0; page < 10 && out.length < limit; page++) {
        const pageSize = Math.min(100, Math.max(1, limit));
        const { records, cursor: next } = await xrpc<{ cursor?: string; records: { uri: string; value: { text?: unknown; createdAt?: unknown } }[] }>(ctx, c.pds, 'com.atproto.repo.listRecords', {
          token: c.accessJwt,
          params: { repo: c.did, collection: POST, limit: pageSize, ...(cursor ? { cursor } : {}) },
        });
        for (const { uri, value } of records) {
          const keyTime = tidTime(parseAtUri(uri).rkey);
          if (keyTime !== undefined && keyTime < sinceMs) return out;
          const createdAt = typeof value.createdAt === 'string' && !Number.isNaN(Date.parse(value.createdAt)) ? value.createdAt : new Date(keyTime ?? ctx.clock.now()).toISOString();
          // A record whose key is not a TID has only its own (client-set) createdAt to go by.
          if (keyTime === undefined && Date.parse(createdAt) < sinceMs) continue;
          out.push({ id: uri, url: blueskyPostUrl(c.handle, uri), content: typeof value.text === 'string' ? value.text : '', createdAt });
          if (out.length >= limit) break;
        }
        if (!next || records.length < pageSize) break;
        cursor = next;
      }
      return out;
    },

    async analytics(_days, ctx): Promise<AnalyticsSeries[]> {
      const c = creds(ctx);
      const p = await xrpc<{ followersCount?: number; followsCount?: number; postsCount?: number }>(ctx, c.pds, 'app.bsky.actor.getProfile', {
        token: c.accessJwt,
        params: { actor: c.did },
      });
      return series(ctx.clock.now(), [
        ['Followers', p.followersCount],
        ['Following', p.followsCount],
        ['Posts', p.postsCount],
      ]);
    },

    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      const c = creds(ctx);
      parseAtUri(postId);
      const { posts } = await xrpc<{ posts: { likeCount?: number; repostCount?: number; replyCount?: number; quoteCount?: number }[] }>(ctx, c.pds, 'app.bsky.feed.getPosts', {
        token: c.accessJwt,
        params: { uris: [postId] },
      });
      const post = posts[0];
      if (!post) return [];
      return series(ctx.clock.now(), [
        ['Likes', post.likeCount],
        ['Reposts', post.repostCount],
        ['Replies', post.replyCount],
        ['Quotes', post.quoteCount],
      ]);
    },
  };
}
