import { randomInt } from 'node:crypto';
import { htmlToText } from '../common/html.js';
import { PlatformError, type AnalyticsSeries, type ConnectedAccount, type OperationContext, type PlatformAdapter, type PublishItem, type PublishResult } from '../platform.js';
import {
  blueskyPostUrl,
  createPostRecord,
  createSession,
  creds,
  getJobStatus,
  getPosts,
  getProfile,
  getRecord,
  listPostRecords,
  parseAtUri,
  POST,
  refreshSession,
  resolveHandle,
  uploadBlob,
  uploadVideo,
  type BlueskyCredentials,
  type JobStatus,
  type PostRecord,
  type SessionAnswer,
} from './client.js';
import { BlueskyCredentialsSchema, blueskyMetadata } from './metadata.js';
import { detectFacets } from './richtext.js';

const MAX_IMAGES = 4;
/** The access JWT's lifetime on the reference PDS, when its `exp` cannot be read. */
const ACCESS_LIFETIME_MS = 2 * 60 * 60 * 1000;

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
    const known = await resolveHandle(ctx, service, identifier).then(
      () => true,
      (e: unknown) => !(e instanceof PlatformError && e.kind === 'rejected'),
    );
    if (!known) return new PlatformError('rejected', `No Bluesky account has the handle ${identifier}`, { ...err.details, field: 'identifier' });
  }
  return new PlatformError('rejected', `Bluesky refused the login: ${err.message}`, { ...err.details, field: 'password' });
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
    const created = await createPostRecord(ctx, c, record, rkey);
    return { status: 'published', id: created.uri, url: blueskyPostUrl(c.handle, created.uri) };
  }

  /**
   * A reply names the thread's root and its direct parent, each by uri *and* cid. Our ids are
   * at-uris, so the cid comes from the parent record; the root is the one the parent already
   * names, which keeps every item of a long thread pointing at the first post.
   */
  async function replyRefs(ctx: Ctx, c: BlueskyCredentials, parentUri: string): Promise<PostRecord['reply']> {
    const { repo, collection, rkey } = parseAtUri(parentUri);
    const parent = await getRecord(ctx, c, { repo, collection, rkey });
    const parentRef = { uri: parent.uri, cid: parent.cid };
    return { root: parent.value.reply?.root ?? parentRef, parent: parentRef };
  }

  /** A handle's DID; undefined for an unknown handle (400), any other failure is thrown. */
  async function mentionedDid(ctx: Ctx, c: BlueskyCredentials, handle: string): Promise<string | undefined> {
    try {
      return await resolveHandle(ctx, c.pds, handle, c.accessJwt);
    } catch (e) {
      if (e instanceof PlatformError && e.kind === 'rejected') return undefined;
      throw e;
    }
  }

  async function uploadImage(ctx: OperationContext, c: BlueskyCredentials, m: PublishItem['media'][number]) {
    return { image: await uploadBlob(ctx, c, m), alt: m.alt ?? '', ...aspectRatio(m) };
  }

  /**
   * Video goes through the video service, which transcodes it and stores the result on the
   * user's PDS with a service token we grant it (audience: the PDS's did:web). Processing takes
   * a while, so publish answers `pending` and `checkPublish` creates the post once the blob exists.
   */
  async function startVideo(ctx: OperationContext, c: BlueskyCredentials, m: PublishItem['media'][number], record: PostRecord): Promise<PublishResult> {
    const job = await uploadVideo(ctx, c, m);
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
      const profile = await getProfile(ctx, credentials);
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
        const s = await refreshSession(ctx, c);
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
      const facets = await detectFacets(text, (handle) => mentionedDid(ctx, c, handle));
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
      const jobStatus = await getJobStatus(ctx, p.jobId);
      if (jobStatus.blob) {
        const uri = `at://${c.did}/${POST}/${p.rkey}`;
        const existing = await getRecord(ctx, c, { repo: c.did, collection: POST, rkey: p.rkey }).catch((e: unknown) => {
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
        const { records, cursor: next } = await listPostRecords(ctx, c, pageSize, cursor);
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
      const p = await getProfile(ctx, c);
      return series(ctx.clock.now(), [
        ['Followers', p.followersCount],
        ['Following', p.followsCount],
        ['Posts', p.postsCount],
      ]);
    },

    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      const c = creds(ctx);
      parseAtUri(postId);
      const { posts } = await getPosts(ctx, c, [postId]);
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
