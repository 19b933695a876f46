import { countGraphemes } from '../text-length.js';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of the Bluesky hosts a client talks to: the entryway (`https://bsky.social`:
 * sessions), the account's PDS (repo writes and, proxied to the AppView, reads) and the video
 * service (`https://video.bsky.app`). All three are one server here; tests map each real origin
 * to it. Errors have the XRPC shape `{ error: "Name", message }` with the real statuses.
 *
 * Like the real split between a PDS and the AppView, a new post is in the repo at once
 * (`com.atproto.repo.getRecord`, `listRecords`) but in the AppView's author feed only once the
 * AppView has indexed it from the firehose: `appViewLagMs` after it was made (real time), or
 * when a test calls `indexAppView()`.
 */
export const BSKY_ENTRYWAY = 'https://bsky.social';
/** The PDS the accounts' DID documents name (a real bsky.social PDS host name). */
export const BSKY_PDS = 'https://morel.us-east.host.bsky.network';
export const BSKY_VIDEO = 'https://video.bsky.app';

export interface BlueskyAccountInput {
  handle: string;
  did: string;
  password: string;
  displayName?: string;
  email?: string;
  avatar?: string;
  followers?: number;
  follows?: number;
}

export interface StoredBlob {
  cid: string;
  did: string;
  mimeType: string;
  size: number;
  /** sha256 of the bytes as they were uploaded */
  sha256: string;
}

export interface BlueskyRecord {
  uri: string;
  cid: string;
  did: string;
  rkey: string;
  text: string;
  facets?: unknown[];
  embed?: Record<string, unknown>;
  reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
  createdAt: string;
  /** when the AppView indexes (indexed) it: `appViewLagMs` after the PDS stored it, or at `indexAppView()` */
  indexedAt: string;
  /** the blobs the embed references, resolved when the record was created */
  media: StoredBlob[];
  value: Record<string, unknown>;
  likeCount: number;
  repostCount: number;
  quoteCount: number;
}

export interface BlueskySimulator extends Simulator {
  addAccount(account: BlueskyAccountInput): void;
  records: BlueskyRecord[];
  blobs: Map<string, StoredBlob>;
  find(uri: string): BlueskyRecord | undefined;
  injectKind(kind: InjectedKind): void;
  /** Current access JWTs answer 400 ExpiredToken from now on (and refresh JWTs too with `refresh`). */
  expireAccessTokens(opts?: { refresh?: boolean }): void;
  /** Video jobs report `polls` in-progress states before completing, or fail with `failWith`. */
  configureVideo(opts: { polls?: number; failWith?: string }): void;
  /** The AppView indexes every record made so far now (the author feed lists them). */
  indexAppView(): void;
  /** How long (ms) after it is made the AppView lists a new post; applies to posts made from now on. */
  setAppViewLag(ms: number): void;
}

export interface BlueskySimulatorOptions {
  /** ms between a record's creation and the AppView's author feed listing it (default 3000; real: usually about a second, much more under load) */
  appViewLagMs?: number;
}

interface Token {
  did: string;
  scope: 'access' | 'refresh' | 'service';
  /** ms */
  exp: number;
  revoked?: boolean;
  aud?: string;
  lxm?: string;
}

interface VideoJob {
  jobId: string;
  did: string;
  upload: Omit<StoredBlob, 'cid' | 'did'>;
  pollsLeft: number;
  failWith?: string;
  blob?: StoredBlob;
}

type Query = Record<string, string | string[] | undefined>;
type Handler = (req: FastifyRequest, reply: FastifyReply, q: Query) => unknown;

const POST = 'app.bsky.feed.post';
const ACCESS_MS = 2 * 60 * 60 * 1000;
const REFRESH_MS = 90 * 24 * 60 * 60 * 1000;
const TID = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
const MAX_IMAGE_BYTES = 1_000_000;

const fail = (reply: FastifyReply, status: number, error: string, message: string, headers: Record<string, string> = {}) =>
  reply.status(status).headers(headers).send({ error, message });

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** CIDv1 (`b` + lowercase base32) of a sha256 multihash: codec 0x55 raw for blobs, 0x71 dag-cbor for records. */
function cid(codec: number, digest: Buffer): string {
  const bytes = Buffer.concat([Buffer.from([0x01, codec, 0x12, 0x20]), digest]);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = 'b';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

const graphemes = countGraphemes;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function startBlueskySimulator(options: BlueskySimulatorOptions = {}): Promise<BlueskySimulator> {
  let appViewLagMs = options.appViewLagMs ?? 3000;
  const accounts = new Map<string, Required<Omit<BlueskyAccountInput, 'email' | 'avatar'>> & Pick<BlueskyAccountInput, 'email' | 'avatar'>>();
  const tokens = new Map<string, Token>();
  const blobs = new Map<string, StoredBlob>();
  const records: BlueskyRecord[] = [];
  const jobs = new Map<string, VideoJob>();
  const logins = new Map<string, number[]>();
  const video = { polls: 1, failWith: undefined as string | undefined };
  let tidClock = 0;

  /** Record keys are TIDs: microseconds since the epoch and a clock id, base32-sortable. */
  function nextTid(): string {
    tidClock = Math.max(tidClock + 1, Date.now() * 1000);
    let n = (BigInt(tidClock) << 10n) | 7n;
    let out = '';
    for (let i = 0; i < 13; i++) {
      out = '234567abcdefghijklmnopqrstuvwxyz'[Number(n & 31n)]! + out;
      n >>= 5n;
    }
    return out;
  }

  function issue(did: string, scope: Token['scope'], lifetimeMs: number, extra: Partial<Token> = {}): string {
    const exp = Date.now() + lifetimeMs;
    const jwt = [
      b64({ typ: scope === 'refresh' ? 'refresh+jwt' : 'at+jwt', alg: 'ES256K' }),
      b64({ scope: { access: 'com.atproto.appPass', refresh: 'com.atproto.refresh', service: undefined }[scope], sub: did, iat: Math.floor(Date.now() / 1000), exp: Math.floor(exp / 1000), ...(extra.aud ? { aud: extra.aud } : {}) }),
      randomBytes(32).toString('base64url'),
    ].join('.');
    tokens.set(jwt, { did, scope, exp, ...extra });
    return jwt;
  }

  function findAccount(actor: string | undefined) {
    if (!actor) return undefined;
    const a = actor.toLowerCase();
    for (const acc of accounts.values()) if (acc.did === actor || acc.handle === a || acc.email?.toLowerCase() === a) return acc;
    return undefined;
  }

  const didDoc = (acc: { did: string; handle: string }) => ({
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: acc.did,
    alsoKnownAs: [`at://${acc.handle}`],
    service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: BSKY_PDS }],
  });

  function session(acc: { did: string; handle: string; email?: string }) {
    return {
      did: acc.did,
      handle: acc.handle,
      didDoc: didDoc(acc),
      ...(acc.email ? { email: acc.email, emailConfirmed: true } : {}),
      accessJwt: issue(acc.did, 'access', ACCESS_MS),
      refreshJwt: issue(acc.did, 'refresh', REFRESH_MS),
      active: true,
    };
  }

  /** Checks the bearer token; sends the PDS's error and returns undefined when it is not usable. */
  function authorize(req: FastifyRequest, reply: FastifyReply, scope: Token['scope'], optional = false): Token | undefined | null {
    const header = req.headers.authorization;
    if (!header) {
      if (optional) return null;
      void fail(reply, 401, 'AuthMissing', 'Authentication Required');
      return undefined;
    }
    const token = header.startsWith('Bearer ') ? tokens.get(header.slice(7)) : undefined;
    if (!token) return void fail(reply, 401, 'InvalidToken', 'Token could not be verified');
    if (token.scope !== scope) return void fail(reply, 400, 'InvalidToken', 'Bad token scope');
    if (token.revoked) return void fail(reply, 400, 'ExpiredToken', 'Token has been revoked');
    if (token.exp <= Date.now()) return void fail(reply, 400, 'ExpiredToken', 'Token has expired');
    return token;
  }

  function postView(r: BlueskyRecord) {
    const acc = accounts.get(r.did)!;
    return {
      uri: r.uri,
      cid: r.cid,
      author: { did: acc.did, handle: acc.handle, displayName: acc.displayName },
      record: r.value,
      replyCount: records.filter((x) => x.reply?.parent.uri === r.uri).length,
      repostCount: r.repostCount,
      likeCount: r.likeCount,
      quoteCount: r.quoteCount,
      indexedAt: r.indexedAt,
    };
  }

  const find = (uri: string) => records.find((r) => r.uri === uri);
  /** Whether the AppView has indexed the record yet (the PDS has it either way). */
  const indexed = (r: BlueskyRecord) => Date.parse(r.indexedAt) <= Date.now();

  /** Blob refs the embed names, checked as the PDS does when a record references them. */
  function embeddedBlobs(embed: Record<string, unknown> | undefined, did: string): { blobs: StoredBlob[] } | { error: string; message: string } {
    if (!embed) return { blobs: [] };
    const refOf = (b: unknown) => (b as { ref?: { $link?: string } } | undefined)?.ref?.$link;
    const lookup = (path: string, b: unknown, accept: RegExp, maxBytes: number) => {
      const stored = blobs.get(refOf(b) ?? '');
      if (!stored || stored.did !== did) return { error: 'BlobNotFound', message: `Could not find blob: ${refOf(b) ?? '(none)'}` };
      if (!accept.test(stored.mimeType)) return { error: 'InvalidMimeType', message: `${path} has an unaccepted mime type: ${stored.mimeType}` };
      if (stored.size > maxBytes) return { error: 'BlobTooLarge', message: `${path} is too big: ${maxBytes} bytes maximum` };
      return stored;
    };
    if (embed.$type === 'app.bsky.embed.images') {
      const images = Array.isArray(embed.images) ? (embed.images as { image?: unknown; alt?: unknown }[]) : [];
      if (images.length > 4) return { error: 'InvalidRequest', message: `Invalid ${POST} record: Record/embed/images must not have more than 4 elements` };
      const out: StoredBlob[] = [];
      for (const [i, img] of images.entries()) {
        if (typeof img.alt !== 'string') return { error: 'InvalidRequest', message: `Invalid ${POST} record: Record/embed/images/${i} must have the property "alt"` };
        const r = lookup(`Record/embed/images/${i}/image`, img.image, /^image\//, MAX_IMAGE_BYTES);
        if ('error' in r) return r;
        out.push(r);
      }
      return { blobs: out };
    }
    if (embed.$type === 'app.bsky.embed.video') {
      const r = lookup('Record/embed/video', embed.video, /^video\/mp4$/, 100 * 1024 * 1024);
      return 'error' in r ? r : { blobs: [r] };
    }
    return { blobs: [] };
  }

  const queries: Record<string, Handler> = {
    'app.bsky.actor.getProfile': (req, reply, q) => {
      if (authorize(req, reply, 'access', true) === undefined) return reply;
      const acc = findAccount(first(q.actor));
      if (!acc) return fail(reply, 400, 'InvalidRequest', 'Profile not found');
      return {
        did: acc.did,
        handle: acc.handle,
        displayName: acc.displayName,
        ...(acc.avatar ? { avatar: acc.avatar } : {}),
        followersCount: acc.followers,
        followsCount: acc.follows,
        postsCount: records.filter((r) => r.did === acc.did).length,
      };
    },
    'com.atproto.identity.resolveHandle': (req, reply, q) => {
      if (authorize(req, reply, 'access', true) === undefined) return reply;
      const handle = first(q.handle)?.toLowerCase();
      const acc = [...accounts.values()].find((a) => a.handle === handle);
      return acc ? { did: acc.did } : fail(reply, 400, 'InvalidRequest', 'Unable to resolve handle');
    },
    'com.atproto.repo.getRecord': (_req, reply, q) => {
      const acc = findAccount(first(q.repo));
      const uri = `at://${acc?.did ?? first(q.repo)}/${first(q.collection)}/${first(q.rkey)}`;
      const r = find(uri);
      return r ? { uri: r.uri, cid: r.cid, value: r.value } : fail(reply, 400, 'RecordNotFound', `Could not locate record: ${uri}`);
    },
    'app.bsky.feed.getAuthorFeed': (req, reply, q) => {
      if (authorize(req, reply, 'access', true) === undefined) return reply;
      const acc = findAccount(first(q.actor));
      if (!acc) return fail(reply, 400, 'InvalidRequest', 'Profile not found');
      const limit = Number(first(q.limit) ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(reply, 400, 'InvalidRequest', 'Error: limit must be between 1 and 100');
      const sortAt = (r: BlueskyRecord) => Math.min(Date.parse(r.createdAt), Date.parse(r.indexedAt));
      const noReplies = first(q.filter) === 'posts_no_replies';
      // The AppView's view: only what it has indexed so far.
      const feed = records.filter((r) => r.did === acc.did && indexed(r) && !(noReplies && r.reply)).sort((a, b) => sortAt(b) - sortAt(a));
      // An opaque cursor (the real one is `{sortAt}::{cid}`): here the offset.
      const start = Number(first(q.cursor) ?? 0);
      const page = feed.slice(start, start + limit);
      return { feed: page.map((r) => ({ post: postView(r) })), ...(start + limit < feed.length ? { cursor: String(start + limit) } : {}) };
    },
    /**
     * The PDS's own listing of a repo's records (no auth needed), newest record key first unless
     * `reverse`; the cursor is the last record's key. Unlike the AppView it has a record as soon
     * as createRecord answered.
     */
    'com.atproto.repo.listRecords': (_req, reply, q) => {
      const repo = first(q.repo);
      const collection = first(q.collection);
      if (!repo || !collection) return fail(reply, 400, 'InvalidRequest', 'Error: Params must have the properties "repo" and "collection"');
      const acc = findAccount(repo);
      if (!acc) return fail(reply, 400, 'InvalidRequest', `Could not find repo: ${repo}`);
      const limit = Number(first(q.limit) ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(reply, 400, 'InvalidRequest', 'Error: limit must be between 1 and 100');
      const reverse = first(q.reverse) === 'true';
      const cursor = first(q.cursor);
      const mine = records
        .filter((r) => r.did === acc.did && collection === POST)
        .filter((r) => cursor === undefined || (reverse ? r.rkey > cursor : r.rkey < cursor))
        .sort((a, b) => (a.rkey < b.rkey ? 1 : a.rkey > b.rkey ? -1 : 0) * (reverse ? -1 : 1))
        .slice(0, limit);
      const last = mine.at(-1);
      return { records: mine.map((r) => ({ uri: r.uri, cid: r.cid, value: r.value })), ...(last ? { cursor: last.rkey } : {}) };
    },
    'app.bsky.feed.getPosts': (req, reply, q) => {
      if (authorize(req, reply, 'access', true) === undefined) return reply;
      const uris = q.uris === undefined ? [] : ([] as string[]).concat(q.uris);
      if (uris.length > 25) return fail(reply, 400, 'InvalidRequest', 'Error: uris must not have more than 25 elements');
      // Unknown or deleted posts are left out, not reported.
      return { posts: uris.map(find).filter((r): r is BlueskyRecord => r !== undefined).map(postView) };
    },
    'com.atproto.server.getServiceAuth': (req, reply, q) => {
      const token = authorize(req, reply, 'access');
      if (!token) return reply;
      const aud = first(q.aud);
      if (!aud) return fail(reply, 400, 'InvalidRequest', 'Error: Params must have the property "aud"');
      const exp = Number(first(q.exp) ?? Date.now() / 1000 + 60) * 1000;
      if (!(exp > Date.now())) return fail(reply, 400, 'BadExpiration', 'expiration is in past');
      if (exp - Date.now() > 60 * 60 * 1000) return fail(reply, 400, 'BadExpiration', 'cannot request a token with an expiration more than an hour in the future');
      return { token: issue(token.did, 'service', exp - Date.now(), { aud, lxm: first(q.lxm) }) };
    },
    'app.bsky.video.getJobStatus': (_req, reply, q) => {
      const job = jobs.get(first(q.jobId) ?? '');
      if (!job) return fail(reply, 400, 'InvalidRequest', 'Job not found');
      const base = { jobId: job.jobId, did: job.did };
      if (job.pollsLeft > 0) {
        job.pollsLeft--;
        return { jobStatus: { ...base, state: 'JOB_STATE_ENCODING', progress: 50 } };
      }
      if (job.failWith) return { jobStatus: { ...base, state: 'JOB_STATE_FAILED', error: job.failWith } };
      // The service stores the processed video on the user's PDS (the simulator keeps the bytes as uploaded).
      if (!job.blob) {
        job.blob = { cid: cid(0x55, Buffer.from(job.upload.sha256, 'hex')), did: job.did, ...job.upload };
        blobs.set(job.blob.cid, job.blob);
      }
      const { cid: link, mimeType, size } = job.blob;
      return { jobStatus: { ...base, state: 'JOB_STATE_COMPLETED', progress: 100, blob: { $type: 'blob', ref: { $link: link }, mimeType, size } } };
    },
  };

  const procedures: Record<string, Handler> = {
    'com.atproto.server.createSession': (req, reply) => {
      const body = (req.body ?? {}) as { identifier?: unknown; password?: unknown };
      if (typeof body.identifier !== 'string' || typeof body.password !== 'string') {
        return fail(reply, 400, 'InvalidRequest', 'Input must have the properties "identifier" and "password"');
      }
      // 30 logins per 5 minutes per account: the reason sessions must be cached.
      const key = body.identifier.toLowerCase();
      const recent = (logins.get(key) ?? []).filter((t) => t > Date.now() - 5 * 60 * 1000);
      if (recent.length >= 30) {
        const reset = String(Math.ceil((recent[0]! + 5 * 60 * 1000) / 1000));
        return fail(reply, 429, 'RateLimitExceeded', 'Rate Limit Exceeded', { 'ratelimit-limit': '30', 'ratelimit-remaining': '0', 'ratelimit-reset': reset, 'ratelimit-policy': '30;w=300' });
      }
      logins.set(key, [...recent, Date.now()]);
      const acc = findAccount(body.identifier);
      // The same answer for an unknown account and a wrong password.
      if (!acc || acc.password !== body.password) return fail(reply, 401, 'AuthenticationRequired', 'Invalid identifier or password');
      return session(acc);
    },
    'com.atproto.server.refreshSession': (req, reply) => {
      const token = authorize(req, reply, 'refresh');
      if (!token) return reply;
      // Rotation: the used refresh token is revoked (the real PDS allows a short grace period).
      token.revoked = true;
      return session(accounts.get(token.did)!);
    },
    'com.atproto.repo.uploadBlob': (req, reply) => {
      const token = authorize(req, reply, 'access');
      if (!token) return reply;
      if (!Buffer.isBuffer(req.body)) return fail(reply, 400, 'InvalidRequest', 'Request encoding (Content-Type) not supported');
      const sha = createHash('sha256').update(req.body).digest();
      const blob: StoredBlob = { cid: cid(0x55, sha), did: token.did, mimeType: req.headers['content-type'] ?? 'application/octet-stream', size: req.body.length, sha256: sha.toString('hex') };
      blobs.set(blob.cid, blob);
      return { blob: { $type: 'blob', ref: { $link: blob.cid }, mimeType: blob.mimeType, size: blob.size } };
    },
    'com.atproto.repo.createRecord': (req, reply) => {
      const token = authorize(req, reply, 'access');
      if (!token) return reply;
      const body = (req.body ?? {}) as { repo?: string; collection?: string; rkey?: string; record?: Record<string, unknown> };
      const acc = findAccount(body.repo);
      if (!acc) return fail(reply, 400, 'InvalidRequest', `Could not find repo: ${body.repo}`);
      if (acc.did !== token.did) return fail(reply, 401, 'AuthenticationRequired', 'Authentication Required');
      // The real PDS takes any collection; this simulator only knows posts.
      if (body.collection !== POST) return fail(reply, 400, 'InvalidRequest', `Unsupported collection in the simulator: ${body.collection}`);
      const record = body.record ?? {};
      if (record.$type !== POST) return fail(reply, 400, 'InvalidRequest', `Invalid $type: expected ${POST}, got ${String(record.$type)}`);
      const invalid = (m: string) => fail(reply, 400, 'InvalidRequest', `Invalid ${POST} record: ${m}`);
      if (typeof record.text !== 'string') return invalid('Record must have the property "text"');
      if (graphemes(record.text) > 300) return invalid('Record/text must not be longer than 300 graphemes');
      if (Buffer.byteLength(record.text) > 3000) return invalid('Record/text must not be longer than 3000 characters');
      if (typeof record.createdAt !== 'string' || Number.isNaN(Date.parse(record.createdAt))) {
        return invalid('Record/createdAt must be an valid atproto datetime (both RFC-3339 and ISO-8601)');
      }
      const reply_ = record.reply as BlueskyRecord['reply'];
      if (reply_) {
        // Stricter than the PDS, which stores any well-formed reply: the AppView then drops a
        // reply whose refs are wrong from the thread. Failing loudly here catches that.
        const parent = find(reply_.parent?.uri);
        const root = find(reply_.root?.uri);
        if (!parent || parent.cid !== reply_.parent.cid) return invalid('Record/reply/parent does not name an existing post and its cid');
        if (!root || root.cid !== reply_.root.cid) return invalid('Record/reply/root does not name an existing post and its cid');
        const expectedRoot = parent.reply?.root.uri ?? parent.uri;
        if (root.uri !== expectedRoot) return invalid(`Record/reply/root must be the thread's root ${expectedRoot}`);
      }
      const media = embeddedBlobs(record.embed as Record<string, unknown> | undefined, acc.did);
      if ('error' in media) return fail(reply, 400, media.error, media.message);
      if (body.rkey !== undefined && !TID.test(body.rkey)) return invalid(`Invalid record key: ${body.rkey}`);
      const rkey = body.rkey ?? nextTid();
      const uri = `at://${acc.did}/${POST}/${rkey}`;
      if (find(uri)) return fail(reply, 400, 'InvalidRequest', `Record already exists: ${uri}`);
      const stored: BlueskyRecord = {
        uri,
        cid: cid(0x71, createHash('sha256').update(JSON.stringify(record)).digest()),
        did: acc.did,
        rkey,
        text: record.text,
        ...(Array.isArray(record.facets) ? { facets: record.facets as unknown[] } : {}),
        ...(record.embed ? { embed: record.embed as Record<string, unknown> } : {}),
        ...(reply_ ? { reply: { root: reply_.root, parent: reply_.parent } } : {}),
        createdAt: record.createdAt,
        indexedAt: new Date(Date.now() + appViewLagMs).toISOString(),
        media: media.blobs,
        value: record,
        likeCount: 0,
        repostCount: 0,
        quoteCount: 0,
      };
      records.push(stored);
      return { uri, cid: stored.cid, commit: { cid: cid(0x71, randomBytes(32)), rev: nextTid() }, validationStatus: 'valid' };
    },
    'app.bsky.video.uploadVideo': (req, reply, q) => {
      // The video service takes a service token the PDS issued for itself (aud = its did:web),
      // which it then uses to store the processed video on that PDS.
      const header = req.headers.authorization ?? '';
      const token = tokens.get(header.replace(/^Bearer /, ''));
      const pdsAud = `did:web:${new URL(BSKY_PDS).hostname}`;
      if (!token || token.scope !== 'service' || token.exp <= Date.now()) return fail(reply, 401, 'AuthenticationRequired', 'Missing or expired service token');
      if (token.aud !== pdsAud || token.lxm !== 'com.atproto.repo.uploadBlob') {
        return fail(reply, 401, 'AuthenticationRequired', `Service token must have aud ${pdsAud} and lxm com.atproto.repo.uploadBlob`);
      }
      if (first(q.did) !== token.did) return fail(reply, 400, 'InvalidRequest', 'did does not match the token');
      if (!first(q.name)) return fail(reply, 400, 'InvalidRequest', 'Missing name');
      if (!Buffer.isBuffer(req.body) || !/^video\//.test(req.headers['content-type'] ?? '')) return fail(reply, 400, 'InvalidRequest', 'Expected a video body');
      const job: VideoJob = {
        jobId: randomBytes(8).toString('hex'),
        did: token.did,
        upload: { mimeType: 'video/mp4', size: req.body.length, sha256: createHash('sha256').update(req.body).digest('hex') },
        pollsLeft: video.polls,
        failWith: video.failWith,
      };
      jobs.set(job.jobId, job);
      // Not wrapped in `{ jobStatus }`, whatever the lexicon says: this is what the service sends.
      return { jobId: job.jobId, did: job.did, state: 'JOB_STATE_CREATED' };
    },
  };

  const sim = await startSimulator((app) => {
    // uploadBlob and uploadVideo take the raw bytes under their own content type.
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.route({
      method: ['GET', 'POST'],
      url: '/xrpc/:nsid',
      handler: async (req: FastifyRequest<{ Params: { nsid: string } }>, reply) => {
        const { nsid } = req.params;
        const handler = req.method === 'GET' ? queries[nsid] : procedures[nsid];
        if (!handler) {
          if (queries[nsid] ?? procedures[nsid]) return fail(reply, 400, 'InvalidRequest', `Incorrect HTTP method (${req.method}) for ${nsid}`);
          return fail(reply, 501, 'MethodNotImplemented', 'Method Not Implemented');
        }
        return handler(req, reply, req.query as Query);
      },
    });
  });

  return Object.assign(sim, {
    records,
    blobs,
    find,
    addAccount(a: BlueskyAccountInput) {
      accounts.set(a.did, { displayName: a.handle, followers: 0, follows: 0, ...a, handle: a.handle.toLowerCase() });
    },
    expireAccessTokens(opts: { refresh?: boolean } = {}) {
      for (const t of tokens.values()) if (t.scope === 'access' || (opts.refresh && t.scope === 'refresh')) t.exp = Date.now() - 1000;
    },
    indexAppView() {
      const now = new Date().toISOString();
      for (const r of records) if (!indexed(r)) r.indexedAt = now;
    },
    setAppViewLag(ms: number) {
      appViewLagMs = ms;
    },
    configureVideo(opts: { polls?: number; failWith?: string }) {
      video.polls = opts.polls ?? video.polls;
      video.failWith = opts.failWith;
    },
    injectKind(kind: InjectedKind) {
      const path = /com\.atproto\.repo\.createRecord/;
      switch (kind) {
        case 'auth_expired':
          return sim.inject({ path, status: 400, body: { error: 'ExpiredToken', message: 'Token has expired' } });
        case 'revoked':
          return sim.inject({ path, status: 401, body: { error: 'InvalidToken', message: 'Token could not be verified' } });
        case 'rate_limited': {
          const reset = String(Math.ceil(Date.now() / 1000) + 60);
          return sim.inject({
            path,
            status: 429,
            headers: { 'ratelimit-limit': '5000', 'ratelimit-remaining': '0', 'ratelimit-reset': reset, 'ratelimit-policy': '5000;w=3600' },
            body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
          });
        }
        case 'server_error':
          return sim.inject({ path, status: 500, body: { error: 'InternalServerError', message: 'Internal Server Error' } });
        case 'rejected':
          return sim.inject({ path, status: 400, body: { error: 'InvalidRequest', message: `Invalid ${POST} record: Record/text must not be longer than 300 graphemes` } });
        case 'error_in_200':
          throw new Error('Bluesky never reports an error under HTTP 200: XRPC errors always carry a 4xx/5xx status');
      }
    },
  });
}
