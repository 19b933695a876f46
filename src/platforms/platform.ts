import type { z } from 'zod';
import type { Clock } from '../lib/clock.js';
import type { LookupFunction } from '../lib/safe-address.js';

/**
 * The platform adapter contract. Every platform is a folder `platforms/<identifier>/` exporting
 * `create<Name>Adapter(config)`; the registry maps each identifier to its adapter, so a missing
 * platform is a compile error. Adapters never touch the database, the queue, `process.env` or
 * Fastify: everything they need comes in through `config` and the operation context.
 */

/** Folders under src/platforms/ that are not platforms: what platforms share, and the sandbox. */
export const SHARED_PLATFORM_FOLDERS: readonly string[] = ['common', 'sandbox'];

export const PLATFORM_IDENTIFIERS = [
  'bluesky',
  'devto',
  'discord',
  'dribbble',
  'facebook',
  'gmb',
  'hashnode',
  'instagram',
  'instagram-standalone',
  'kick',
  'lemmy',
  'linkedin',
  'linkedin-page',
  'listmonk',
  'mastodon',
  'medium',
  'mewe',
  'moltbook',
  'nostr',
  'pinterest',
  'reddit',
  'skool',
  'slack',
  'telegram',
  'threads',
  'tiktok',
  'tumblr',
  'twitch',
  'vk',
  'whop',
  'wordpress',
  'wrapcast',
  'x',
  'youtube',
] as const;

export type PlatformIdentifier = (typeof PLATFORM_IDENTIFIERS)[number];

export function isPlatformIdentifier(value: string): value is PlatformIdentifier {
  return (PLATFORM_IDENTIFIERS as readonly string[]).includes(value);
}

/** How a user connects a channel. */
export type AuthKind =
  /** OAuth 2 authorisation-code redirect (PKCE where `oauth.pkce`) */
  | 'oauth2'
  /** OAuth 2 on a user-chosen instance (mastodon): the app is registered on the instance */
  | 'instance-oauth2'
  /** a credentials form posted to `POST /social/{identifier}` (app passwords, bot tokens, API keys…) */
  | 'credentials';

/** How the platform counts the length of a text against `maxLength`. */
export type TextCounting =
  /** UTF-16 code units, as `String.length` (most platforms) */
  | 'characters'
  /** user-perceived characters (Intl.Segmenter graphemes): bluesky */
  | 'graphemes'
  /** twitter-text weighted length (URLs count 23, CJK and emoji 2): x */
  | 'twitter-weighted'
  /** UTF-8 bytes: farcaster */
  | 'bytes'
  /** Mastodon's own count: graphemes, every URL as 23, `@user@domain` as `@user` */
  | 'mastodon';

/** How stored content is converted before it is sent. */
export type Editor = 'normal' | 'markdown' | 'html';

export interface MediaKindRule {
  /** most items of this kind in one post item */
  maxCount: number;
  /** MIME types a post may attach (for images, may be wider than what the platform takes: see `platformTypes`) */
  mimeTypes: readonly string[];
  /**
   * The image types the platform itself takes, where narrower than `mimeTypes`. The others are
   * re-encoded at publish time, or, when the platform pulls pictures from their URL (`pulled`),
   * handed to it as the URL of a rendition in the first of JPEG, WebP, PNG it takes
   * (`core/media/renditions.ts`).
   */
  platformTypes?: readonly string[];
  /** largest file the platform takes, bytes (larger still images are re-encoded at publish time) */
  maxBytes?: number;
  /** longest accepted video, seconds */
  maxDurationSeconds?: number;
  /** image dimension limits of the platform; still images beyond them are scaled at publish time */
  maxWidth?: number;
  maxHeight?: number;
  minWidth?: number;
  maxPixels?: number;
  /** accepted width ÷ height range (not fixable without cropping, so checked when the post is made) */
  aspectRatio?: { min: number; max: number };
  /**
   * The platform fetches the file from its public URL (Instagram, Threads, TikTok photos): pictures
   * cannot be re-encoded in memory for it, so they must already fit its size and dimensions when
   * the post is made. Types outside `platformTypes` reach it as a rendition's URL instead.
   */
  pulled?: boolean;
}

/** Media rules of the first item of a post (thread items: `onThreadItems`). */
export interface MediaRules {
  /** fewest attachments a post must have (instagram, youtube, pinterest… need ≥ 1) */
  minItems: number;
  /** most attachments in one post item, all kinds together */
  maxItems: number;
  image?: MediaKindRule;
  video?: MediaKindRule;
  /** images and videos may appear together in one post item */
  mixed: boolean;
  /** thread items (replies/comments) may carry media */
  onThreadItems: boolean;
}

/** A platform tool (`POST /integration-trigger/{id}`): lists boards, channels, flairs… */
export interface ToolDefinition {
  methodName: string;
  description: string;
  /** JSON body `data` the tool takes */
  dataSchema: z.ZodType;
  /**
   * The tool lists the accounts one grant reaches (`selectAccount`, `PUT /integrations/{id}/account`):
   * the web app offers them to choose from, naming one `noun` ("page", "blog"). At most one per platform.
   */
  account?: { noun: string };
}

export interface OAuthMetadata {
  /** real authorisation endpoint (PLATFORM_ORIGINS rewrites it for simulators) */
  authorizeUrl: string;
  tokenUrl: string;
  scopes: readonly string[];
  /** scope separator in the authorisation URL */
  scopeSeparator?: ' ' | ',';
  pkce: boolean;
  /** the platform issues refresh tokens */
  refresh: boolean;
  /**
   * The token can only be renewed while it is still valid (Meta's long-lived tokens: Threads,
   * Instagram Login): the service renews such channels when `tokenExpiresAt` comes, even when
   * nothing is published, so an idle channel never lapses. Adapters set `expiresAt` to when the
   * token should be renewed, well before it really expires.
   */
  renewWhileValid?: boolean;
  /**
   * The callback query parameter that carries the grant, when it is not `code` (Sign in with
   * Neynar answers `signer_uuid`): its value reaches `completeConnect` as `code`.
   */
  callbackCodeParam?: string;
}

/**
 * The app a deployment must register at the platform before anyone can connect a channel there
 * (the platforms whose OAuth app belongs to the deployment). What is missing is told to the
 * deployment's administrators (`GET /platforms`) instead of surfacing on the first click.
 */
export interface DeploymentAppSetup {
  /** the environment variables that must all be set (names only: `config.ts` reads them) */
  variables: readonly string[];
  /** where an administrator registers the app; null when the platform has no public console */
  consoleUrl: string | null;
  /** what to register there, in a few words */
  app: string;
}

export interface PlatformMetadata {
  identifier: PlatformIdentifier;
  /** the name the API answers (`GET /platforms`, error messages), the reference's spelling */
  displayName: string;
  /** how the web app names the platform, where it differs from `displayName` (`DEV` for `Dev.to`) */
  appName?: string;
  authKind: AuthKind;
  /** OAuth details for `oauth2` platforms */
  oauth?: OAuthMetadata;
  /**
   * The deployment's app at the platform, where connecting needs one; absent when nothing must be
   * registered (credential forms, apps registered per instance). Its callback is always
   * `PUBLIC_URL/integrations/social/<identifier>/callback`.
   */
  deploymentApp?: DeploymentAppSetup;
  /** instance platforms: the channel lives on a user-supplied host */
  instanceBased: boolean;
  editor: Editor;
  text: { maxLength: number; counting: TextCounting };
  media: MediaRules;
  /** thread items (`value[1..]`) are published as replies/comments to the first */
  thread: { supported: boolean; kind?: 'reply' | 'comment' };
  /** the platform processes media/posts asynchronously (publish may answer `pending`) */
  asyncProcessing: boolean;
  /** per worker process: requests to the platform at once (`perPlatform`), and jobs of one channel at once (`perChannel`) */
  concurrency: { perPlatform: number; perChannel: number };
  /**
   * Settings of a post on this platform, with the reference's field names. `null`: the platform
   * takes no settings (any object is accepted and only `__type` is kept).
   */
  settings: z.ZodType | null;
  /** Body of `POST /social/{identifier}` for credential platforms. */
  credentials?: z.ZodObject;
  tools: readonly ToolDefinition[];
  /** The human rule sentence of `GET /integration-settings` (`output.rules`), "" when none. */
  rules: string;
  analytics: { channel: boolean; post: boolean };
}

/** A problem with a post found by `validate`, named by its path inside the post. */
export interface ValidationIssue {
  /** path relative to the post, e.g. `settings.title`, `value.0.content`, `value.0.image` */
  path: string;
  code: string;
  message: string;
}

/** What `validate` sees of a post: its items (first + thread) and its settings. */
export interface PostDraft {
  settings: Record<string, unknown>;
  items: { content: string; media: { type: 'image' | 'video'; mimeType: string; size: number; width?: number | null; height?: number | null; duration?: number | null }[] }[];
}

export type PlatformErrorKind =
  /** the access token expired: refresh and retry once */
  | 'auth_expired'
  /** the grant is gone (revoked, password changed): the user must reconnect */
  | 'reconnect_required'
  /** the platform asked us to slow down; `retryAfterSeconds` when it said */
  | 'rate_limited'
  /** a failure worth retrying (5xx, timeout before anything was sent) */
  | 'transient'
  /** the platform refused the content or request: final, with its message */
  | 'rejected'
  /** the platform cannot do this (operation or option not supported) */
  | 'unsupported';

export class PlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    readonly details: {
      retryAfterSeconds?: number;
      status?: number;
      platformCode?: string;
      /** the request may have reached the platform (timeout or reset after sending): never blindly re-send */
      outcomeUnknown?: boolean;
      /** for connect errors: the credentials field the platform refused (`botToken`, `password`…) */
      field?: string;
    } = {},
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

/** Stored, decrypted credentials of a channel; each adapter defines its own shape. */
export type Credentials = Record<string, unknown>;

/** What every operation receives: no globals. */
export interface OperationContext {
  credentials: Credentials;
  /** instance base URL for instance platforms */
  instanceUrl?: string | null;
  http: PlatformHttp;
  logger: Logger;
  clock: Clock;
  signal: AbortSignal;
  /** The bytes of a stored media item, as a file-backed Blob (streamed, never read whole). */
  openMedia(media: PublishMedia): Promise<Blob>;
}

/** The one outgoing HTTP client (platforms/http.ts) as adapters see it. */
export interface PlatformHttp {
  request(req: PlatformRequest): Promise<PlatformResponse>;
  /**
   * Where a WebSocket to `url` (ws/wss) must really connect: the same origin rewrite and, with
   * `untrustedHost`, the same SSRF guard as `request` (pass `lookup` to the socket). Absent on
   * clients that cannot open sockets.
   */
  socketTarget?(url: string, opts?: { untrustedHost?: boolean }): SocketTarget;
}

/** The URL a WebSocket really connects to, and the guarded DNS lookup to connect with when the host is untrusted. */
export interface SocketTarget {
  url: string;
  lookup?: LookupFunction;
}

export interface PlatformRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** JSON-encoded when an object; sent as is when a string, Buffer, FormData or stream */
  body?: unknown;
  /** ms; default from the client */
  timeoutMs?: number;
  /** user-supplied host (instance URL): the SSRF guard applies */
  untrustedHost?: boolean;
}

export interface PlatformResponse {
  status: number;
  headers: Record<string, string>;
  /** parsed JSON when the answer is JSON, else the text */
  body: unknown;
}

export interface ConnectedAccount {
  /** the platform's own account id (the same account connected twice updates one channel) */
  internalId: string;
  name: string;
  profile: string | null;
  picture: string | null;
  credentials: Credentials;
  /** when the access token expires, if it does */
  expiresAt?: Date | null;
}

/** A stored media item as an adapter gets it (bytes through `ctx.openMedia`). */
export interface PublishMedia {
  id: string;
  path: string;
  type: 'image' | 'video';
  mimeType: string;
  size: number;
  width?: number | null;
  height?: number | null;
  duration?: number | null;
  alt?: string | null;
}

export interface PublishItem {
  content: string;
  media: PublishMedia[];
}

export type PublishResult =
  /**
   * `note`: what the user should know about a publish that succeeded only in part (Nostr: the
   * relays that refused the event and why); the publisher keeps it as the post's `error` text.
   */
  | { status: 'published'; id: string; url: string; note?: string }
  /**
   * The platform is still processing: call `checkPublish` with the token later. The token holds
   * everything needed to go on (ids of containers or uploads already made, the offset reached),
   * so a restart resumes instead of starting again. `pollAfterMs`: when to check, if the adapter
   * knows (0 = at once, e.g. the next upload chunk; the platform's own estimate); otherwise the
   * publisher backs off.
   */
  | { status: 'pending'; token: string; pollAfterMs?: number };

export interface AnalyticsSeries {
  label: string;
  percentageChange: number;
  data: { total: number; date: string }[];
}

/**
 * A platform adapter. Operations throw `PlatformError` (one kind each) and nothing else that the
 * publisher should interpret; anything else is treated as `transient`.
 */
export interface PlatformAdapter {
  metadata: PlatformMetadata;

  /**
   * OAuth platforms: the authorisation URL for `state` (and PKCE `codeChallenge`). Pure; no
   * network except for instance platforms, which may register an app on the instance.
   */
  beginConnect?(
    input: {
      state: string;
      redirectUri: string;
      codeChallenge?: string;
      instanceUrl?: string;
      /** the app already registered on this instance, if any (instance platforms) */
      instanceApp?: Credentials;
    },
    ctx: Omit<OperationContext, 'credentials'>,
  ): Promise<{ url: string; /** a newly registered instance app, for the service to keep */ instanceApp?: Credentials }>;

  /** OAuth platforms: exchange the callback `code` for credentials and fetch the profile. Not retried. */
  completeConnect?(
    input: {
      code: string;
      redirectUri: string;
      codeVerifier?: string;
      instanceUrl?: string;
      instanceApp?: Credentials;
      /**
       * the callback's other single-valued query parameters (besides code/state/error), for
       * platforms that answer more than a code (Neynar: `fid`; VK ID: `device_id`)
       */
      callbackParams?: Record<string, string>;
    },
    ctx: Omit<OperationContext, 'credentials'>,
  ): Promise<ConnectedAccount>;

  /** Credential platforms: verify the credentials against the platform and fetch the profile. Not retried. */
  connectWithCredentials?(input: Record<string, unknown>, ctx: Omit<OperationContext, 'credentials'>): Promise<ConnectedAccount>;

  /**
   * Renew the access token. Idempotent from the caller's view; may rotate the refresh token,
   * so the caller must store the returned credentials before using them. `reconnect_required`
   * when the grant is gone.
   */
  refresh?(ctx: OperationContext): Promise<{ credentials: Credentials; expiresAt?: Date | null }>;

  /**
   * Platforms where one grant reaches several accounts (LinkedIn pages; later Facebook pages,
   * Google locations…): the account `id` (as listed by the platform's tool) for the channel to post
   * as, with the same grant. Read-only on the platform; safe to retry. `rejected` when the grant
   * does not reach that account.
   */
  selectAccount?(id: string, ctx: OperationContext): Promise<ConnectedAccount>;

  /** Platform-specific checks beyond metadata (pure, no network). */
  validate(post: PostDraft): ValidationIssue[];

  /**
   * Publish one item (the first, or a thread item replying to `replyTo`). NOT idempotent on most
   * platforms: the publisher records the attempt before calling and never blindly re-sends after
   * an unknown outcome — it reconciles with `findRecent`.
   */
  publish(input: { item: PublishItem; settings: Record<string, unknown>; replyTo?: { id: string; rootId: string }; idempotencyKey: string }, ctx: OperationContext): Promise<PublishResult>;

  /** Poll an asynchronous publish. Idempotent, safe to retry. */
  checkPublish?(token: string, ctx: OperationContext): Promise<PublishResult>;

  /** Channel figures over the last `days`. Idempotent. */
  analytics?(days: number, ctx: OperationContext): Promise<AnalyticsSeries[]>;

  /** Figures of one published post. Idempotent. */
  postAnalytics?(postId: string, days: number, ctx: OperationContext): Promise<AnalyticsSeries[]>;

  /** Run a tool of `metadata.tools`. Read-only on the platform; safe to retry. */
  runTool?(methodName: string, data: unknown, ctx: OperationContext): Promise<unknown>;

  /**
   * Recent posts of the account (newest first), for reconciliation and `missing` candidates.
   * Idempotent. With `replyTo` (reconciling an interrupted thread item) it must include the
   * account's replies or comments to that post made since `since`: an adapter whose main listing
   * leaves them out (comments, thread replies) lists them under `replyTo` instead, since a reply
   * it cannot see would be sent twice. The shared contract suite checks this. `settings` are the
   * post's own when reconciling one (where it went: a chat channel, a board…), so a platform whose
   * posts go to a chosen place looks there.
   */
  findRecent?(
    input: { since: Date; limit: number; replyTo?: { id: string; rootId: string }; settings?: Record<string, unknown> },
    ctx: OperationContext,
  ): Promise<{ id: string; url: string; content: string; createdAt: string }[]>;
}
