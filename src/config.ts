import { z } from 'zod';
import { PLATFORM_IDENTIFIERS } from './platforms/platform.js';

/**
 * The only reader of `process.env`. Parsed once at boot; a wrong value stops the start with a
 * message naming the variable. Every variable here is documented in the README.
 */

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

/** A duration: `90` (seconds), `90s`, `15m`, `24h`, `2d` → milliseconds. */
const duration = z
  .string()
  .trim()
  .regex(/^\d+(s|m|h|d)?$/, 'must be a duration such as 3600, 90m, 24h or 2d')
  .transform((v) => {
    const n = Number.parseInt(v, 10);
    const unit = v.replace(/^\d+/, '') || 's';
    return n * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 's' | 'm' | 'h' | 'd'];
  });

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  EMBEDDED_SHARED_BUFFERS: z
    .string()
    .regex(/^\d+(kB|MB|GB)$/, 'must be a size such as 16MB')
    .default('16MB'),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DOCS_URL: z.url({ protocol: /^https?$/ }).optional(),
  API_RATE_LIMIT: positiveInt.default(90),
  API_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  AUTH_FAILURE_LIMIT: positiveInt.default(30),
  AUTH_FAILURE_WINDOW_SECONDS: positiveInt.default(900),
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).default(5),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  CREDENTIALS_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  CREDENTIALS_SECRET_PREVIOUS: z.string().optional(),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  JSON_BODY_LIMIT_BYTES: positiveInt.default(5 * 1024 * 1024),
  TRUST_PROXY: bool.default(false),
  PLATFORM_ORIGINS: z.string().optional(),
  ALLOW_PRIVATE_TARGETS: bool.default(false),
  PLATFORM_TIMEOUT_SECONDS: positiveInt.default(30),
  DISCORD_BOT_TOKEN: z.string().min(20, 'must be a Discord bot token').optional(),
  WORKER_HEARTBEAT_SECONDS: positiveInt.default(5),
  READY_MAX_HEARTBEAT_AGE_SECONDS: positiveInt.default(30),
  PUBLISH_MAX_LATENESS: duration.default(24 * 3_600_000),
  PUBLISH_CONCURRENCY: positiveInt.default(50),
  PUBLISH_MAX_ATTEMPTS: positiveInt.default(6),
  PUBLISH_RETRY_FIRST_SECONDS: positiveInt.default(1),
  PUBLISH_RETRY_BASE_SECONDS: positiveInt.default(30),
  PUBLISH_ATTEMPT_TIMEOUT_SECONDS: positiveInt.default(300),
  MEDIA_MAX_IMAGE_BYTES: positiveInt.default(10 * 1024 * 1024),
  MEDIA_MAX_VIDEO_BYTES: positiveInt.default(1024 * 1024 * 1024),
  MEDIA_FETCH_TIMEOUT_SECONDS: positiveInt.default(60),
  MEDIA_MAX_AUDIO_BYTES: positiveInt.default(100 * 1024 * 1024),
  // Video generation (issue 19): the built-in slides provider is on unless turned off.
  VIDEO_LOCAL_PROVIDER: z.enum(['on', 'off']).default('on'),
  VIDEO_CONCURRENCY: positiveInt.default(1),
  VIDEO_TIME_LIMIT_SECONDS: positiveInt.default(900),
  VIDEO_REQUEST_WAIT_SECONDS: z.coerce.number().int().min(0).max(600).default(60),
  VIDEO_FFMPEG_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  KIE_API_KEY: z.string().min(8, 'must be a KIE.ai API key').optional(),
  VIDEO_REMOTE_POLL_MS: positiveInt.min(5).default(10_000),
  // At most 30 s: a delivery's lease lasts 60 s, and a send must end well within it, or another
  // worker would take the delivery over while it is still being sent.
  WEBHOOK_TIMEOUT_SECONDS: positiveInt.max(30).default(10),
  WEBHOOK_CONCURRENCY: positiveInt.default(64),
  SHORT_LINK_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  AI_TIMEOUT_SECONDS: positiveInt.max(600).default(60),
  AI_RATE_LIMIT: positiveInt.default(30),
  WEBHOOK_CONCURRENCY_PER_WEBHOOK: positiveInt.default(16),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3-63 characters: lower-case letters, digits, dots, hyphens)')
    .optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  // SigV4 presigned URLs live at most 7 days
  S3_PRESIGN_SECONDS: positiveInt.max(604_800).default(3600),
  // Accounts and the OAuth server (issue 15)
  SIGNUP: z.enum(['open', 'invite', 'off']).default('invite'),
  SESSION_IDLE_TIMEOUT: duration.default(14 * 86_400_000),
  SESSION_MAX_AGE: duration.default(90 * 86_400_000),
  LOGIN_FAILURE_LIMIT: positiveInt.default(10),
  LOGIN_FAILURE_WINDOW_SECONDS: positiveInt.default(900),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  SMTP_FROM: z.string().min(3).optional(),
  OAUTH_DYNAMIC_REGISTRATION: bool.default(true),
  OAUTH_ACCESS_TOKEN_TTL: duration.default(0),
  DEVICE_POLL_INTERVAL_SECONDS: positiveInt.max(60).default(5),
  APP_RATE_LIMIT: positiveInt.default(600),
  APP_RATE_WINDOW_SECONDS: positiveInt.default(60),
  // sandbox channels (issue 28): `off` turns them off (existing sandbox channels can no longer publish)
  SANDBOX: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  // MCP (issue 27)
  MCP_SESSIONS: bool.default(true),
  MCP_SESSION_IDLE_TIMEOUT: duration.default(30 * 60_000),
  MCP_MAX_SESSIONS: positiveInt.default(1000),
  // Observability (issue 29): /metrics behind a bearer token on the main port, and/or an admin port
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  PUBLISH_OVERDUE_SECONDS: positiveInt.default(300),
  PUBLISH_OVERDUE_CHECK_SECONDS: positiveInt.default(30),
  // Autopilot (issue 30): how often worker processes run its periodic parts; imports run as a job above a row count
  SERIES_EXTEND_INTERVAL_SECONDS: positiveInt.default(900),
  EVERGREEN_FILL_INTERVAL_SECONDS: positiveInt.default(600),
  FEED_CHECK_INTERVAL_SECONDS: positiveInt.default(60),
  IMPORT_BACKGROUND_ROWS: positiveInt.default(2000),
  // The activity log (issue 31): kept at least 90 days
  ACTIVITY_RETENTION_DAYS: z.coerce.number().int().min(90, 'must be at least 90 (the activity log is kept at least 90 days)').max(36500).default(90),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .refine((v) => (v ?? '').split(',').map((o) => o.trim()).filter(Boolean).every((o) => URL.canParse(o)), 'must be a comma-separated list of origins (https://app.example)'),
});

export type Role = 'api' | 'worker' | 'all';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** undefined → embedded PGlite in `dataDir/pg` */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** PostgreSQL shared_buffers of the embedded database (PGlite keeps it in process memory) */
  embeddedSharedBuffers: string;
  publicUrl: string;
  /** where the docs folder is published (links from the app to setup steps); undefined: the app names the file instead */
  docsUrl: string | undefined;
  rateLimit: { max: number; windowSeconds: number };
  authFailure: { max: number; windowSeconds: number };
  /** how long a process remembers a resolved credential (changes from other processes apply within it) */
  authCacheSeconds: number;
  redisUrl: string | undefined;
  /** Required in PostgreSQL mode; generated and kept in DATA_DIR in embedded mode when absent. */
  credentialsSecret: string | undefined;
  credentialsSecretsPrevious: string[];
  logLevel: (typeof logLevels)[number];
  jsonBodyLimitBytes: number;
  trustProxy: boolean;
  /** origin rewrites for every outgoing platform call and returned authorisation URL */
  platformOrigins: Map<string, string>;
  /** user-supplied URLs (instances, webhooks, upload-from-url) may reach private addresses */
  allowPrivateTargets: boolean;
  platformTimeoutSeconds: number;
  /** OAuth apps from `<IDENTIFIER>_CLIENT_ID` / `<IDENTIFIER>_CLIENT_SECRET` (upper-case, `-` → `_`) */
  platformApps: Record<string, { clientId?: string; clientSecret?: string }>;
  /** the bot that posts to Discord servers (users add it with the OAuth install) */
  discordBotToken: string | undefined;
  workerHeartbeatSeconds: number;
  readyMaxHeartbeatAgeSeconds: number;
  /** the publisher (API.md §6) */
  publish: { maxLatenessMs: number; concurrency: number; maxAttempts: number; retryFirstMs: number; retryBaseMs: number; attemptTimeoutMs: number };
  /** upload size caps per media type (413 above); files live in `dataDir/media` */
  media: { maxImageBytes: number; maxVideoBytes: number; maxAudioBytes: number };
  /** video generation (issue 19): providers, encodes at a time per worker, time limit, how long POST /generate-video waits */
  video: {
    localProvider: boolean;
    concurrency: number;
    timeLimitMs: number;
    requestWaitMs: number;
    /** ffmpeg `-threads` (0 = ffmpeg chooses) */
    ffmpegThreads: number;
    /** the Veo 3 provider through KIE.ai, when its key is set */
    kieApiKey: string | undefined;
    /** how often outside providers are asked whether a video is ready */
    remotePollMs: number;
  };
  /** the whole of one `upload-from-url` download, body included */
  mediaFetchTimeoutSeconds: number;
  /** webhook delivery: one attempt's whole time (connect to body), requests in flight per process and per webhook */
  webhooks: { timeoutMs: number; concurrency: number; perWebhook: number };
  /** where the built-in shortener's links point (`<base>/s/<code>`): SHORT_LINK_BASE_URL, else PUBLIC_URL */
  shortLinkBaseUrl: string;
  /** writing help: how long one model call may take, and how many calls an organisation may make per minute */
  ai: { timeoutMs: number; perMinute: number };
  /** sandbox channels: platforms' simulators inside Tidings (issue 28) */
  sandbox: boolean;
  /** the MCP server: sessions (off: every request on its own) and the browser origins it also accepts */
  mcp: { sessions: boolean; sessionIdleMs: number; maxSessions: number; allowedOrigins: string[] };
  /** media in an S3-compatible bucket instead of `dataDir/media` (set when S3_BUCKET is) */
  s3: S3Config | undefined;
  /** people, sessions, mail and the OAuth server (issue 15) */
  accounts: AccountsConfig;
  /**
   * Prometheus metrics (issue 29): `GET /metrics` on the main port answers a bearer `token` (404
   * without one); `port` (on `host`) serves /metrics, /healthz and /readyz without a token, in every role.
   */
  metrics: { token: string | undefined; port: number | undefined; host: string };
  /** the overdue-post watchdog (worker processes): a post still queued `thresholdMs` after its time is reported, checked every `checkMs` */
  overdue: { thresholdMs: number; checkMs: number };
  /**
   * Autopilot (issue 30), worker processes: extend repeating posts every `seriesExtendMs`, fill
   * evergreen queues every `evergreenFillMs`, look for due feeds every `feedCheckMs` (each feed has
   * its own poll interval); an import of more than `importBackgroundRows` rows answers 202 and runs as a job.
   */
  autopilot: { seriesExtendMs: number; evergreenFillMs: number; feedCheckMs: number; importBackgroundRows: number };
  /** activity log entries older than this many days (at least 90) are purged by worker processes */
  activityRetentionDays: number;
}

export interface AccountsConfig {
  /** who may create an account once the first one exists: anyone, invited people only, nobody (admin CLI only) */
  signup: 'open' | 'invite' | 'off';
  session: { idleMs: number; maxAgeMs: number };
  /** cookies get `Secure` (and the `__Host-` name) when PUBLIC_URL is https */
  secureCookies: boolean;
  loginFailure: { max: number; windowSeconds: number };
  /** SMTP transport URL; undefined = links are written to the log */
  smtpUrl: string | undefined;
  mailFrom: string;
  dynamicRegistration: boolean;
  /** 0 = access tokens valid until revoked */
  accessTokenTtlMs: number;
  devicePollIntervalSeconds: number;
  /** the web app's API calls (session cookie): requests per window per person, not the organisation's budget */
  appRateLimit: { max: number; windowSeconds: number };
}

export interface S3Config {
  bucket: string;
  region: string;
  /** undefined → AWS */
  endpoint: string | undefined;
  forcePathStyle: boolean;
  /** undefined → the AWS SDK's default credential chain */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** public bucket or CDN base, no trailing slash; undefined → private bucket, presigned redirects */
  publicUrl: string | undefined;
  presignSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Treat empty strings as unset so `FOO= tidings serve` behaves like no FOO at all. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

/** The variable prefix of a platform's OAuth app: `linkedin-page` → `LINKEDIN_PAGE`. */
export function platformEnvPrefix(identifier: string): string {
  return identifier.toUpperCase().replace(/-/g, '_');
}

function readPlatformApps(env: Record<string, string>) {
  const apps: Config['platformApps'] = {};
  for (const id of PLATFORM_IDENTIFIERS) {
    const prefix = platformEnvPrefix(id);
    const clientId = env[`${prefix}_CLIENT_ID`];
    const clientSecret = env[`${prefix}_CLIENT_SECRET`];
    if (clientId || clientSecret) apps[id] = { clientId, clientSecret };
  }
  return apps;
}

/**
 * The names of the platform variables that hold a value (`<IDENTIFIER>_CLIENT_ID`,
 * `<IDENTIFIER>_CLIENT_SECRET`, `DISCORD_BOT_TOKEN`): what a platform's `deploymentApp.variables`
 * are checked against. Names only, so nothing that reads it can leak a secret.
 */
export function setPlatformVariables(config: Pick<Config, 'platformApps' | 'discordBotToken'>): ReadonlySet<string> {
  const names = new Set<string>();
  for (const [id, app] of Object.entries(config.platformApps)) {
    const prefix = platformEnvPrefix(id);
    if (app.clientId) names.add(`${prefix}_CLIENT_ID`);
    if (app.clientSecret) names.add(`${prefix}_CLIENT_SECRET`);
  }
  if (config.discordBotToken) names.add('DISCORD_BOT_TOKEN');
  return names;
}

/** `https://api.telegram.org=http://127.0.0.1:9001,…` → origin map; names the bad pair. */
function parseOrigins(value: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of (value ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const [from, to, ...rest] = pair.split('=');
    let fromUrl: URL;
    let toUrl: URL;
    try {
      if (!from || !to || rest.length > 0) throw new Error('shape');
      fromUrl = new URL(from);
      toUrl = new URL(to);
    } catch {
      throw new ConfigError([`PLATFORM_ORIGINS: "${pair}" is not <origin>=<origin> (e.g. https://api.x.com=http://127.0.0.1:9001)`]);
    }
    map.set(fromUrl.origin, toUrl.origin);
  }
  return map;
}

/** The S3 variables together: both keys or neither, and nothing S3-specific without a bucket. */
function readS3(e: z.infer<typeof EnvSchema>): S3Config | undefined {
  const problems: string[] = [];
  if (e.S3_ACCESS_KEY_ID && !e.S3_SECRET_ACCESS_KEY) problems.push('S3_SECRET_ACCESS_KEY: required when S3_ACCESS_KEY_ID is set');
  if (e.S3_SECRET_ACCESS_KEY && !e.S3_ACCESS_KEY_ID) problems.push('S3_ACCESS_KEY_ID: required when S3_SECRET_ACCESS_KEY is set');
  if (!e.S3_BUCKET) {
    const stray = (['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_PUBLIC_URL'] as const).filter((k) => e[k] !== undefined);
    // Media silently landing on one process's disk would break a scale-out deployment.
    if (stray.length > 0) problems.push(`S3_BUCKET: required when ${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} set (media go to S3 only with a bucket)`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (!e.S3_BUCKET) return undefined;
  return {
    bucket: e.S3_BUCKET,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT?.replace(/\/+$/, ''),
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
    credentials: e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY } : undefined,
    publicUrl: e.S3_PUBLIC_URL?.replace(/\/+$/, ''),
    presignSeconds: e.S3_PRESIGN_SECONDS,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
    );
  }
  const e = parsed.data;
  const platformOrigins = parseOrigins(e.PLATFORM_ORIGINS);
  if (e.DATABASE_URL && !e.CREDENTIALS_SECRET) {
    throw new ConfigError([
      'CREDENTIALS_SECRET: required when DATABASE_URL is set (every process must share the key that encrypts stored platform credentials; generate one with `openssl rand -base64 48`)',
    ]);
  }
  const s3 = readS3(e);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    embeddedSharedBuffers: e.EMBEDDED_SHARED_BUFFERS,
    publicUrl,
    docsUrl: e.DOCS_URL?.replace(/\/+$/, ''),
    rateLimit: { max: e.API_RATE_LIMIT, windowSeconds: e.API_RATE_WINDOW_SECONDS },
    authFailure: { max: e.AUTH_FAILURE_LIMIT, windowSeconds: e.AUTH_FAILURE_WINDOW_SECONDS },
    authCacheSeconds: e.AUTH_CACHE_SECONDS,
    redisUrl: e.REDIS_URL,
    credentialsSecret: e.CREDENTIALS_SECRET,
    credentialsSecretsPrevious: (e.CREDENTIALS_SECRET_PREVIOUS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    logLevel: e.LOG_LEVEL,
    jsonBodyLimitBytes: e.JSON_BODY_LIMIT_BYTES,
    trustProxy: e.TRUST_PROXY,
    platformOrigins,
    allowPrivateTargets: e.ALLOW_PRIVATE_TARGETS,
    platformTimeoutSeconds: e.PLATFORM_TIMEOUT_SECONDS,
    platformApps: readPlatformApps(withoutEmpty(env)),
    discordBotToken: e.DISCORD_BOT_TOKEN,
    workerHeartbeatSeconds: e.WORKER_HEARTBEAT_SECONDS,
    readyMaxHeartbeatAgeSeconds: e.READY_MAX_HEARTBEAT_AGE_SECONDS,
    media: { maxImageBytes: e.MEDIA_MAX_IMAGE_BYTES, maxVideoBytes: e.MEDIA_MAX_VIDEO_BYTES, maxAudioBytes: e.MEDIA_MAX_AUDIO_BYTES },
    video: {
      localProvider: e.VIDEO_LOCAL_PROVIDER === 'on',
      concurrency: e.VIDEO_CONCURRENCY,
      timeLimitMs: e.VIDEO_TIME_LIMIT_SECONDS * 1000,
      requestWaitMs: e.VIDEO_REQUEST_WAIT_SECONDS * 1000,
      ffmpegThreads: e.VIDEO_FFMPEG_THREADS,
      kieApiKey: e.KIE_API_KEY,
      remotePollMs: e.VIDEO_REMOTE_POLL_MS,
    },
    mediaFetchTimeoutSeconds: e.MEDIA_FETCH_TIMEOUT_SECONDS,
    webhooks: { timeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000, concurrency: e.WEBHOOK_CONCURRENCY, perWebhook: e.WEBHOOK_CONCURRENCY_PER_WEBHOOK },
    shortLinkBaseUrl: (e.SHORT_LINK_BASE_URL ?? publicUrl).replace(/\/+$/, ''),
    ai: { timeoutMs: e.AI_TIMEOUT_SECONDS * 1000, perMinute: e.AI_RATE_LIMIT },
    sandbox: e.SANDBOX === 'on',
    mcp: {
      sessions: e.MCP_SESSIONS,
      sessionIdleMs: e.MCP_SESSION_IDLE_TIMEOUT,
      maxSessions: e.MCP_MAX_SESSIONS,
      allowedOrigins: (e.MCP_ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean),
    },
    s3,
    accounts: {
      signup: e.SIGNUP,
      session: { idleMs: e.SESSION_IDLE_TIMEOUT, maxAgeMs: Math.max(e.SESSION_MAX_AGE, e.SESSION_IDLE_TIMEOUT) },
      secureCookies: publicUrl.startsWith('https:'),
      loginFailure: { max: e.LOGIN_FAILURE_LIMIT, windowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS },
      smtpUrl: e.SMTP_URL,
      mailFrom: e.SMTP_FROM ?? `Tidings <no-reply@${new URL(publicUrl).hostname}>`,
      dynamicRegistration: e.OAUTH_DYNAMIC_REGISTRATION,
      accessTokenTtlMs: e.OAUTH_ACCESS_TOKEN_TTL,
      devicePollIntervalSeconds: e.DEVICE_POLL_INTERVAL_SECONDS,
      appRateLimit: { max: e.APP_RATE_LIMIT, windowSeconds: e.APP_RATE_WINDOW_SECONDS },
    },
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST },
    overdue: { thresholdMs: e.PUBLISH_OVERDUE_SECONDS * 1000, checkMs: e.PUBLISH_OVERDUE_CHECK_SECONDS * 1000 },
    autopilot: {
      seriesExtendMs: e.SERIES_EXTEND_INTERVAL_SECONDS * 1000,
      evergreenFillMs: e.EVERGREEN_FILL_INTERVAL_SECONDS * 1000,
      feedCheckMs: e.FEED_CHECK_INTERVAL_SECONDS * 1000,
      importBackgroundRows: e.IMPORT_BACKGROUND_ROWS,
    },
    activityRetentionDays: e.ACTIVITY_RETENTION_DAYS,
    publish: {
      maxLatenessMs: e.PUBLISH_MAX_LATENESS,
      concurrency: e.PUBLISH_CONCURRENCY,
      maxAttempts: e.PUBLISH_MAX_ATTEMPTS,
      retryFirstMs: e.PUBLISH_RETRY_FIRST_SECONDS * 1000,
      retryBaseMs: e.PUBLISH_RETRY_BASE_SECONDS * 1000,
      attemptTimeoutMs: e.PUBLISH_ATTEMPT_TIMEOUT_SECONDS * 1000,
    },
  };
}

/**
 * What `tidings mcp` (the stdio bridge a desktop assistant starts) reads: the credential
 * (`TIDINGS_API_KEY`) and the service's address (`TIDINGS_URL`, else `http://localhost:<PORT>`).
 * Separate from `loadConfig`: the bridge runs on the assistant's machine with none of the
 * service's variables, and a bad one of those must not stop it.
 */
export function loadMcpBridgeConfig(env: NodeJS.ProcessEnv = process.env): { key: string | undefined; url: string | undefined; port: string } {
  const e = withoutEmpty(env);
  return { key: e.TIDINGS_API_KEY?.trim() || undefined, url: e.TIDINGS_URL, port: e.PORT ?? '3000' };
}
