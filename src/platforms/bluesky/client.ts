import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformRequest, type PublishItem } from '../platform.js';
import { blueskyError, blueskyResult } from './errors.js';
import type { Facet } from './richtext.js';

/**
 * Bluesky's XRPC client: sessions on the service the user named (the entryway), repo writes and
 * reads on the account's PDS, and the video service; the shapes of their answers. The service and
 * PDS hosts come from the user, so the SSRF guard applies to them; the video service is Bluesky's own.
 */

export const VIDEO_SERVICE = 'https://video.bsky.app';
export const POST = 'app.bsky.feed.post';
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
export type BlueskyCredentials = {
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

export function creds(ctx: { credentials: Credentials }): BlueskyCredentials {
  return readCredentials(ctx, StoredBlueskyCredentials, 'Bluesky');
}

export interface SessionAnswer {
  accessJwt: string;
  refreshJwt: string;
  handle: string;
  did: string;
  didDoc?: { service?: { id?: string; type?: string; serviceEndpoint?: unknown }[] };
}

export interface StrongRef {
  uri: string;
  cid: string;
}

export interface BlobRef {
  $type: 'blob';
  ref: { $link: string };
  mimeType: string;
  size: number;
}

export interface PostRecord {
  $type: typeof POST;
  text: string;
  createdAt: string;
  facets?: Facet[];
  reply?: { root: StrongRef; parent: StrongRef };
  embed?: Record<string, unknown>;
}

export interface JobStatus {
  jobId?: string;
  state?: string;
  blob?: BlobRef;
  error?: string;
  message?: string;
}

export interface Profile {
  handle: string;
  displayName?: string;
  avatar?: string;
  followersCount?: number;
  followsCount?: number;
  postsCount?: number;
}

export interface PostCounts {
  likeCount?: number;
  repostCount?: number;
  replyCount?: number;
  quoteCount?: number;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;
type Media = PublishItem['media'][number];

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

/** A file-backed Blob as a fixed-length stream: http.ts sends Node streams as is, and the PDS wants a length. */
async function mediaBody(ctx: OperationContext, media: Media) {
  const blob = await ctx.openMedia(media);
  return {
    body: Readable.fromWeb(blob.stream()),
    headers: { 'content-type': media.mimeType, 'content-length': String(blob.size) },
  };
}

/** at://{did}/{collection}/{rkey} */
export function parseAtUri(uri: string): { repo: string; collection: string; rkey: string } {
  const m = /^at:\/\/([^/]+)\/([^/]+)\/([^/?#]+)$/.exec(uri);
  if (!m) throw new PlatformError('rejected', `Not a Bluesky post id: ${uri}`);
  return { repo: m[1]!, collection: m[2]!, rkey: m[3]! };
}

export function blueskyPostUrl(handle: string, uri: string): string {
  return `https://bsky.app/profile/${handle}/post/${parseAtUri(uri).rkey}`;
}

// ── sessions ──────────────────────────────────────────────────────────────────────────────

/** `com.atproto.server.createSession`: a login with the app password on the service. */
export function createSession(ctx: Ctx, service: string, identifier: string, password: string) {
  return xrpc<SessionAnswer>(ctx, service, 'com.atproto.server.createSession', { method: 'POST', body: { identifier, password } });
}

/** `com.atproto.server.refreshSession`: both tokens rotated, with the refresh JWT. */
export function refreshSession(ctx: Ctx, c: BlueskyCredentials) {
  return xrpc<SessionAnswer>(ctx, c.service, 'com.atproto.server.refreshSession', { method: 'POST', token: c.refreshJwt });
}

/** `com.atproto.identity.resolveHandle` on `base`: the handle's DID; an unknown handle is `rejected`. */
export async function resolveHandle(ctx: Ctx, base: string, handle: string, token?: string): Promise<string> {
  return (await xrpc<{ did: string }>(ctx, base, 'com.atproto.identity.resolveHandle', { token, params: { handle } })).did;
}

// ── reads ─────────────────────────────────────────────────────────────────────────────────

/** `app.bsky.actor.getProfile` of the account itself. */
export function getProfile(ctx: Ctx, c: Pick<BlueskyCredentials, 'pds' | 'accessJwt' | 'did'>) {
  return xrpc<Profile>(ctx, c.pds, 'app.bsky.actor.getProfile', { token: c.accessJwt, params: { actor: c.did } });
}

/** `com.atproto.repo.getRecord` (no auth needed): the record with its cid. */
export function getRecord(ctx: Ctx, c: Pick<BlueskyCredentials, 'pds'>, at: { repo: string; collection: string; rkey: string }) {
  return xrpc<StrongRef & { value: Partial<PostRecord> }>(ctx, c.pds, 'com.atproto.repo.getRecord', { params: at });
}

/** `com.atproto.repo.listRecords` of the account's posts: newest record key first. */
export function listPostRecords(ctx: Ctx, c: BlueskyCredentials, limit: number, cursor?: string) {
  return xrpc<{ cursor?: string; records: { uri: string; value: { text?: unknown; createdAt?: unknown } }[] }>(ctx, c.pds, 'com.atproto.repo.listRecords', {
    token: c.accessJwt,
    params: { repo: c.did, collection: POST, limit, ...(cursor ? { cursor } : {}) },
  });
}

/** `app.bsky.feed.getPosts`: the posts' counts, as the AppView has them. */
export function getPosts(ctx: Ctx, c: BlueskyCredentials, uris: string[]) {
  return xrpc<{ posts: PostCounts[] }>(ctx, c.pds, 'app.bsky.feed.getPosts', { token: c.accessJwt, params: { uris } });
}

// ── writes ────────────────────────────────────────────────────────────────────────────────

/** `com.atproto.repo.createRecord` of a post, under `rkey` when given (else the PDS picks one). */
export function createPostRecord(ctx: Ctx, c: BlueskyCredentials, record: PostRecord, rkey?: string) {
  return xrpc<StrongRef>(ctx, c.pds, 'com.atproto.repo.createRecord', {
    method: 'POST',
    token: c.accessJwt,
    body: { repo: c.did, collection: POST, ...(rkey ? { rkey } : {}), record },
  });
}

/** `com.atproto.repo.uploadBlob` of the media's bytes, raw: the blob reference. */
export async function uploadBlob(ctx: OperationContext, c: BlueskyCredentials, m: Media): Promise<BlobRef> {
  const { body, headers } = await mediaBody(ctx, m);
  return (await xrpc<{ blob: BlobRef }>(ctx, c.pds, 'com.atproto.repo.uploadBlob', { method: 'POST', token: c.accessJwt, body, headers })).blob;
}

/**
 * Hands the video to the video service, which transcodes it and stores the result on the user's
 * PDS with a service token we grant it (`com.atproto.server.getServiceAuth`, audience: the PDS's
 * did:web). The job's first status, with its id.
 */
export async function uploadVideo(ctx: OperationContext, c: BlueskyCredentials, m: Media): Promise<JobStatus & { jobId: string }> {
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
  return { ...job, jobId: job.jobId };
}

/** `app.bsky.video.getJobStatus` on the video service. */
export async function getJobStatus(ctx: Ctx, jobId: string): Promise<JobStatus> {
  return (await xrpc<{ jobStatus: JobStatus }>(ctx, VIDEO_SERVICE, 'app.bsky.video.getJobStatus', { params: { jobId } })).jobStatus;
}
