import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { platformEnvPrefix, setPlatformVariables, type Config, type Role } from './config.js';
import { MIGRATIONS_DIR, openPglite, openPostgres, type Database } from './db/client.js';
import { createPrometheusMetrics, type MetricSources } from './core/metrics/prometheus.js';
import { createOverdueRepository } from './engines/publishing/overdue.repository.js';
import { createOverdueWatchdog } from './engines/publishing/overdue-watchdog.js';
import { createJobEngine, type JobEngine, type Logger } from './jobs/job-engine.js';
import { systemClock, type Clock } from './lib/clock.js';
import { loadOrCreateEmbeddedSecret } from './lib/credentials-secret.js';
import { createSecretBox, type SecretBox } from './lib/secret-box.js';
import { createAuthRepository } from './modules/auth/auth.repository.js';
import { createAuthService } from './modules/auth/auth.service.js';
import { createGroupsRepository } from './modules/groups/groups.repository.js';
import { createGroupsService } from './modules/groups/groups.service.js';
import { createHealthRepository } from './modules/health/health.repository.js';
import { createHealthService } from './modules/health/health.service.js';
import { createIntegrationsRepository } from './modules/integrations/integrations.repository.js';
import { createIntegrationsService } from './modules/integrations/integrations.service.js';
import { createNotificationsRepository } from './modules/notifications/notifications.repository.js';
import { createNotificationsService } from './modules/notifications/notifications.service.js';
import { createOrganizationsRepository } from './modules/organizations/organizations.repository.js';
import { createOrganizationsService } from './modules/organizations/organizations.service.js';
import { createPlansRepository } from './modules/plans/plans.repository.js';
import { createPlansService } from './modules/plans/plans.service.js';
import { createConnectStatesRepository } from './modules/integrations/connect-states.repository.js';
import { createConnectService } from './modules/integrations/connect.service.js';
import { createPlatformsService } from './modules/integrations/platforms.service.js';
import { createPlatformHttp } from './platforms/http.js';
import { createPlatformRegistry } from './platforms/registry.js';
import { createAnalyticsRepository } from './modules/analytics/analytics.repository.js';
import { createAnalyticsService } from './modules/analytics/analytics.service.js';
import { createToolsService } from './modules/integrations/tools.service.js';
import { PlatformError } from './platforms/platform.js';
import { createChannelAccess } from './core/channels/channel-access.js';
import { createChannelsRepository } from './core/channels/channels.repository.js';
import { createHeartbeat } from './engines/publishing/heartbeat.js';
import { createHeartbeatRepository } from './engines/publishing/heartbeat.repository.js';
import { createDispatcher, type Dispatcher } from './engines/publishing/dispatcher.js';
import { createPublishQueue, PUBLISH_QUEUE } from './engines/publishing/publish-queue.js';
import { createPublisher, DEFAULT_PUBLISHER_OPTIONS } from './engines/publishing/publisher.js';
import { createPublishingRepository } from './engines/publishing/publishing.repository.js';
import { createImageFitter } from './core/media/image-fitter.js';
import { createMediaJanitor } from './core/media/media-janitor.js';
import { createTokenKeeper } from './engines/publishing/token-keeper.js';
import { createLocalStorage } from './core/media/local-storage.js';
import { createS3Storage } from './core/media/s3-storage.js';
import type { MediaStorage } from './core/media/storage.js';
import { createRemoteFetcher, type RemoteFetchOptions } from './core/media/remote-fetch.js';
import { createMediaRepository } from './modules/media/media.repository.js';
import { createMediaService } from './modules/media/media.service.js';
import { createPostsRepository } from './modules/posts/posts.repository.js';
import { createPostsService } from './modules/posts/posts.service.js';
import { createSeriesRepository } from './modules/series/series.repository.js';
import { createSeriesService } from './modules/series/series.service.js';
import { startSeriesExtender } from './modules/series/series-extender.js';
import { createImportsRepository } from './modules/imports/imports.repository.js';
import { createImportsService } from './modules/imports/imports.service.js';
import { startImportRecovery } from './modules/imports/import-recovery.js';
import { createEvergreenRepository } from './modules/evergreen/evergreen.repository.js';
import { createApprovalsRepository } from './modules/approvals/approvals.repository.js';
import { createApprovalsService } from './modules/approvals/approvals.service.js';
import { startApprovalExpirySweep } from './modules/approvals/approvals-sweep.js';
import { createCommentsRepository } from './modules/comments/comments.repository.js';
import { createCommentsService } from './modules/comments/comments.service.js';
import { createTemplatesRepository } from './modules/templates/templates.repository.js';
import { createTemplatesService } from './modules/templates/templates.service.js';
// Short links (issue 32)
import { createLinksRepository } from './modules/links/links.repository.js';
import { createLinksService } from './modules/links/links.service.js';
import { SHORTENERS } from './modules/links/providers/index.js';
// Writing help (issue 32)
import { createAssistRepository } from './modules/assist/assist.repository.js';
import { createAssistService } from './modules/assist/assist.service.js';
import { createOpenAiClient } from './modules/assist/openai-client.js';
// Preview links (issue 31)
import { createPreviewsRepository } from './modules/previews/previews.repository.js';
import { createPreviewsService } from './modules/previews/previews.service.js';
import { createEvergreenService } from './modules/evergreen/evergreen.service.js';
import { startEvergreenFill } from './modules/evergreen/evergreen-filler.js';
import { createFeedsRepository } from './modules/feeds/feeds.repository.js';
import { createFeedsService, startFeedPoller } from './modules/feeds/feeds.service.js';
import { createActivityRepository } from './modules/activity/activity.repository.js';
import { createActivityService } from './modules/activity/activity.service.js';
import { startActivityPurge } from './modules/activity/activity-purge.js';
import { createMemoryStore } from './rate-limit/memory-store.js';
import { createPostgresStore } from './rate-limit/postgres-store.repository.js';
import { createRedisStore } from './rate-limit/redis-store.js';
import type { SlidingLogStore } from './rate-limit/store.js';
import type { Resolver } from './lib/safe-address.js';
import { createWebhooksRepository } from './modules/webhooks/webhooks.repository.js';
import { createWebhooksService } from './modules/webhooks/webhooks.service.js';
import { createWebhookDelivery } from './engines/webhooks/delivery.js';
import { createWebhookSender } from './engines/webhooks/send.js';
import { createMailer } from './lib/mailer.js';
import { createSandboxPlatforms, SANDBOX_ADAPTER_CONFIG, SANDBOX_SET_VARIABLES } from './platforms/sandbox/sandbox.js';
import { createSandboxRepository } from './modules/sandbox/sandbox.repository.js';
import { createSandboxService, type SandboxService } from './modules/sandbox/sandbox.service.js';
import { createFailureThrottle } from './rate-limit/failure-throttle.js';
import { createAccountsRepository } from './modules/accounts/accounts.repository.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createOnboardingService } from './modules/onboarding/onboarding.service.js';
import { createSessionsRepository } from './modules/sessions/sessions.repository.js';
import { createSessionsService } from './modules/sessions/sessions.service.js';
import { createOauthRepository } from './modules/oauth/oauth.repository.js';
import { createOauthCore } from './modules/oauth/oauth-core.js';
import { createOauthService } from './modules/oauth/oauth.service.js';
import { createClientsService } from './modules/oauth/clients.service.js';
import { createDeviceService } from './modules/oauth/device.service.js';
import { createVideoRepository } from './modules/video/video.repository.js';
import { createVideoService } from './modules/video/video.service.js';
import { createVideoProviders } from './core/video-providers/providers.js';
import { createVideoQueue, VIDEO_QUEUE } from './engines/video/video-queue.js';
import { createVideoJobsRepository } from './engines/video/video-jobs.repository.js';
import { createVideoWorker, type VideoWorker } from './engines/video/video-worker.js';

export interface CreateDepsOptions {
  role?: Role;
  clock?: Clock;
  /** An already-open database (tests); otherwise opened from config. */
  database?: Database;
  logger?: Logger;
  /** Skip pg-boss (admin CLI commands need only the database). */
  withoutJobs?: boolean;
  /** `upload-from-url` resolver and address policy (tests: a name resolving to a chosen address). */
  remoteFetch?: Pick<RemoteFetchOptions, 'lookup' | 'isAllowedAddress'>;
  /** The resolver webhook URLs are checked with (tests: names resolving to chosen addresses). */
  webhookResolve?: Resolver;
  /** Sees the origin of every request a sandbox channel sends (tests: all of them in-process). */
  onSandboxRequest?: (origin: string) => void;
}

export async function openDatabase(config: Config): Promise<Database> {
  return config.databaseUrl
    ? openPostgres({ url: config.databaseUrl, poolSize: config.databasePoolSize })
    : openPglite({ dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers });
}

/** How often worker processes renew the tokens that must be renewed while valid. */
const TOKEN_KEEPER_INTERVAL_MS = 30 * 60_000;

const silentLogger: Logger = { error: () => undefined, warn: () => undefined };

/** How many migrations this build has (what `/readyz` expects the database to have applied). */
function countMigrations(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}

/** The pool figures of the metrics: pg's pool in PostgreSQL mode; the one connection of the embedded database. */
function poolSource(database: Database, poolSize: number): MetricSources['pool'] {
  if (database.kind !== 'postgres') return () => ({ max: 1, total: 1 });
  // drizzle's node-postgres driver keeps the pg.Pool it was given at `$client`.
  const pool = (database.db as unknown as { $client?: { totalCount: number; idleCount: number; waitingCount: number } }).$client;
  return () => ({ max: poolSize, total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0 });
}

/** Composition root: config → database → repositories → services. */
export async function createDeps(config: Config, opts: CreateDepsOptions = {}) {
  const role = opts.role ?? 'all';
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? silentLogger;
  const database = opts.database ?? (await openDatabase(config));
  const closers: (() => Promise<void>)[] = [];
  try {
    await database.migrate();

    const secret =
      config.credentialsSecret ??
      (database.kind === 'pglite' && !opts.database ? loadOrCreateEmbeddedSecret(resolve(config.dataDir)) : undefined);
    if (!secret) throw new Error('CREDENTIALS_SECRET is required');
    const secretBox: SecretBox = createSecretBox(secret, config.credentialsSecretsPrevious);

    const rateStore: SlidingLogStore = config.redisUrl
      ? createRedisStore(config.redisUrl)
      : database.kind === 'postgres'
        ? createPostgresStore(database.sql)
        : createMemoryStore();
    closers.push(() => rateStore.close());

    let jobs: JobEngine | undefined;
    if (!opts.withoutJobs) {
      jobs = createJobEngine(database, { role, logger });
      await jobs.start();
      await jobs.ensureQueue(PUBLISH_QUEUE);
      await jobs.ensureQueue(VIDEO_QUEUE);
      const engine = jobs;
      closers.push(() => engine.stop());
    }

    const platformHttp = createPlatformHttp({
      origins: config.platformOrigins,
      allowPrivateTargets: config.allowPrivateTargets,
      timeoutMs: config.platformTimeoutSeconds * 1000,
    });
    closers.push(() => platformHttp.close());
    const adapters = createPlatformRegistry({ apps: config.platformApps, discordBotToken: config.discordBotToken });
    // Sandbox channels (issue 28): the same adapters with the sandbox's own apps, each
    // organisation's simulators in-process (started on first use), taken back after a restart.
    let sandboxService: SandboxService | undefined;
    const sandboxPlatforms = config.sandbox
      ? createSandboxPlatforms({
          clock,
          mediaOrigins: { [new URL(config.publicUrl).origin]: `http://127.0.0.1:${config.port}` },
          onStart: (organizationId, identifier) => sandboxService!.restore(organizationId, identifier),
          onRequest: opts.onSandboxRequest,
        })
      : undefined;
    if (sandboxPlatforms) closers.push(() => sandboxPlatforms.close());
    const sandboxAdapters = createPlatformRegistry(SANDBOX_ADAPTER_CONFIG);

    const db = database.db;
    const repositories = {
      organizations: createOrganizationsRepository(db),
      plans: createPlansRepository(db),
      auth: createAuthRepository(db),
      integrations: createIntegrationsRepository(db),
      groups: createGroupsRepository(db),
      notifications: createNotificationsRepository(db),
      posts: createPostsRepository(db),
      media: createMediaRepository(db),
      webhooks: createWebhooksRepository(db),
      accounts: createAccountsRepository(db),
      sessions: createSessionsRepository(db),
      oauth: createOauthRepository(db),
      video: createVideoRepository(db),
    };
    // S3 when a bucket is configured (processes that share no disk), else DATA_DIR/media.
    const storage: MediaStorage = config.s3
      ? createS3Storage({ ...config.s3, cacheDir: join(config.dataDir, 'cache', 's3') })
      : createLocalStorage(join(config.dataDir, 'media'));
    closers.push(async () => storage.close?.());
    const remoteFetcher = createRemoteFetcher({
      allowPrivateTargets: config.allowPrivateTargets,
      timeoutMs: config.mediaFetchTimeoutSeconds * 1000,
      ...opts.remoteFetch,
    });
    closers.push(() => remoteFetcher.close());
    const media = createMediaService({ media: repositories.media, storage, clock, publicUrl: config.publicUrl, limits: config.media, remote: remoteFetcher });
    // Partial uploads and objects of interrupted uploads or deletions, left by a crash (scheduled by `startWorker`).
    const mediaJanitor = createMediaJanitor({
      storage,
      unclaimedBefore: (before, limit) => repositories.media.unclaimedBefore(before, limit),
      forgetUnclaimed: (key) => repositories.media.forgetUnclaimed(key),
      isLiveKey: (key) => repositories.media.isLiveKey(key),
      logger,
    });
    // The publishing engine's own SQL (post rows on the queue, leases, attempts), the workers'
    // heartbeats, and the channel rows' credentials and marks (channel access, the publisher).
    const publishing = createPublishingRepository(database);
    // Metrics (issue 29): one registry per app; process metrics only where they are served.
    const overdueRepo = createOverdueRepository(db);
    const prometheus = createPrometheusMetrics({
      defaults: config.metrics.token !== undefined || config.metrics.port !== undefined,
      sources: {
        duePosts: () => overdueRepo.countDue(new Date(clock.now()), new Date(clock.now() - config.overdue.thresholdMs)),
        pool: poolSource(database, config.databasePoolSize),
      },
    });
    const metrics = prometheus.metrics;
    const heartbeats = createHeartbeatRepository(db);
    const channels = createChannelsRepository(db);
    const queue = createPublishQueue({ database, jobs, posts: publishing });
    // Video generation (issue 19): the providers this deployment offers, the queue, scratch space.
    const videoProviders = createVideoProviders(config.video);
    // The video engine's own SQL (the job rows it claims, settles and recovers).
    const videoJobs = createVideoJobsRepository(database);
    const videoQueue = jobs ? createVideoQueue({ jobs, video: videoJobs, timeLimitMs: config.video.timeLimitMs }) : undefined;
    const videoWorkRoot = join(config.dataDir, 'tmp', 'video');
    const sessions = createSessionsService({ sessions: repositories.sessions, clock, options: config.accounts.session });
    const auth = createAuthService({
      auth: repositories.auth,
      sessions,
      store: rateStore,
      clock,
      options: {
        defaultRateLimit: config.rateLimit.max,
        rateWindowSeconds: config.rateLimit.windowSeconds,
        appRateLimit: config.accounts.appRateLimit,
        failure: config.authFailure,
        cacheMs: config.authCacheSeconds * 1000,
      },
    });
    const notifications = createNotificationsService({ notifications: repositories.notifications, clock });
    // The activity log (issue 31): services record through it; the actor comes from core/actor.ts.
    const activity = createActivityService({ activity: createActivityRepository(db), clock, retentionDays: config.activityRetentionDays });
    // Short links (issue 32): made at publish time (the engine's port), counted at /s/<code>.
    const links = createLinksService({ links: createLinksRepository(db), shorteners: SHORTENERS, http: platformHttp, secretBox, clock, baseUrl: config.shortLinkBaseUrl, activity, logger });
    const plans = createPlansService({ plans: repositories.plans });
    const platformLogger = { debug: () => undefined, info: () => undefined, warn: (obj: unknown, msg?: string) => logger.warn(obj, msg) };
    // File-backed Blobs of the stored media (adapters stream them, never read them whole).
    const openMedia = (m: { id: string }) =>
      media.blob(m).catch((err: unknown) => Promise.reject(new PlatformError('rejected', `Media ${m.id} is not available: ${err instanceof Error ? err.message : String(err)}`)));
    const access = createChannelAccess({
      channels,
      adapters,
      http: platformHttp,
      secretBox,
      clock,
      logger: platformLogger,
      notify: (organizationId, content) => notifications.notify(organizationId, content),
      openMedia,
      timeoutMs: config.platformTimeoutSeconds * 1000,
      sandbox: sandboxPlatforms && {
        adapters: sandboxAdapters,
        http: (organizationId, identifier) => sandboxPlatforms.http(organizationId, identifier),
        prepare: async (organizationId, identifier) => void (await sandboxPlatforms.instance(organizationId, identifier)),
      },
    });
    const organizations = createOrganizationsService({
      organizations: repositories.organizations,
      plans: repositories.plans,
      clock,
      onAccessChanged: (change) => auth.invalidate(change),
      activity,
    });
    // Approvals (issue 31): rules, the gate every posts service asks before queueing, and decisions.
    const approvals = createApprovalsService({
      repo: createApprovalsRepository(db),
      posts: repositories.posts,
      queue,
      clock,
      checkPlan: (organizationId, date, adding, tx) => postsService.checkPlan(organizationId, date, adding, tx),
      activity,
      notifyMember: (organizationId, userId, content, link) => notifications.notifyMember(organizationId, userId, content, link),
      commentNote: (organizationId, group, author, body) => services.comments.postNote(organizationId, group, author, body),
      forgetCredential: (id) => auth.invalidate({ credentialId: id }),
      publicUrl: config.publicUrl,
      logger,
    });
    const accounts = createAccounts({ config, repositories, sessions, organizations, activity, rateStore, clock, logger, onTokensRevoked: (ids) => ids.forEach((id) => auth.invalidate({ credentialId: id })) });
    closers.push(async () => accounts.mailer.close());
    if (accounts.mailer.delivers) approvals.setMailer(accounts.mailer);
    // RSS/Atom/JSON Feed autoposting (issue 30 part 3): posts through the posts service, slots from
    // the integrations service, images through the media library, fetched with the upload-from-url guard.
    const feeds = createFeedsService({
      feeds: createFeedsRepository(db),
      posts: createPostsService({ posts: repositories.posts, media: repositories.media, queue, adapters, plans, access, clock, activity, approvals: approvals.gate, shortLinks: links }),
      findSlot: (organizationId, id) =>
        createIntegrationsService({ integrations: repositories.integrations, groups: repositories.groups, clock, notify: (o, c) => notifications.notify(o, c) }).findSlot(organizationId, id),
      importImage: (organizationId, url) => media.uploadFromUrl(organizationId, url),
      notify: (organizationId, content, link) => notifications.notify(organizationId, content, link),
      remote: remoteFetcher,
      adapters,
      clock,
    });
    // names only (never values) of the platform app variables that are set
    const platformVariables = setPlatformVariables(config);
    const connectDeps = {
      integrations: repositories.integrations,
      states: createConnectStatesRepository(db),
      activity,
      publicUrl: config.publicUrl,
      plans,
      secretBox,
      clock,
      logger: platformLogger,
      timeoutMs: config.platformTimeoutSeconds * 1000,
    };
    // Post templates and signatures (issue 31 part 4); imports use the templates too.
    const templates = createTemplatesService({ templates: createTemplatesRepository(db), media: repositories.media, clock });
    const postsService = createPostsService({ posts: repositories.posts, media: repositories.media, queue, adapters, plans, access, clock, activity, approvals: approvals.gate, shortLinks: links });
    // Writing help (issue 32): the organisation's own OpenAI-compatible model, through the SSRF guard.
    const aiClient = createOpenAiClient({ allowPrivateTargets: config.allowPrivateTargets, timeoutMs: config.ai.timeoutMs });
    closers.push(() => aiClient.close());
    const services = {
      organizations,
      ...accounts.services,
      plans,
      auth,
      integrations: createIntegrationsService({
        integrations: repositories.integrations,
        groups: repositories.groups,
        clock,
        notify: (organizationId, content) => notifications.notify(organizationId, content),
        activity,
      }),
      groups: createGroupsService({ groups: repositories.groups, clock }),
      approvals,
      notifications,
      activity,
      // Comments on posts (issue 31 part 3): @mentions notify the member (and mail them when SMTP is set).
      comments: createCommentsService({
        comments: createCommentsRepository(db),
        clock,
        notifyMember: (organizationId, userId, content, link) => notifications.notifyMember(organizationId, userId, content, link),
        mailer: accounts.mailer.delivers ? accounts.mailer : undefined,
        publicUrl: config.publicUrl,
        logger,
      }),
      connect: createConnectService({ ...connectDeps, setVariables: platformVariables, adapters, http: platformHttp }),
      sandbox: (sandboxService = createSandboxService({
        platforms: sandboxPlatforms,
        repository: createSandboxRepository(db),
        connectService: (organizationId, identifier, sandboxKey) =>
          createConnectService({
            ...connectDeps,
            setVariables: new Set([...SANDBOX_SET_VARIABLES, ...Object.keys(SANDBOX_ADAPTER_CONFIG.apps).flatMap((id) => [`${platformEnvPrefix(id)}_CLIENT_ID`, `${platformEnvPrefix(id)}_CLIENT_SECRET`])]),
            adapters: sandboxAdapters,
            http: sandboxPlatforms!.http(organizationId, identifier),
            sandboxKey,
          }),
        adapters,
        clock,
        logger,
      })),
      platforms: createPlatformsService({
        adapters,
        setVariables: platformVariables,
        publicUrl: config.publicUrl,
        docsUrl: config.docsUrl,
        sandbox: (identifier) => sandboxPlatforms?.available(identifier) ?? false,
      }),
      tools: createToolsService({ integrations: repositories.integrations, access, secretBox, clock }),
      analytics: createAnalyticsService({
        integrations: repositories.integrations,
        analytics: createAnalyticsRepository(db),
        access,
        clock,
        linkClicks: (organizationId, postId, days) => links.clickSeries(organizationId, postId, days),
      }),
      media,
      posts: postsService,
      // Recurring posts (issue 30 part 1): occurrences are created through the posts service.
      series: createSeriesService({ series: createSeriesRepository(db), posts: postsService, queue, clock }),
      // Bulk import and export (issue 30 part 4): every post through the posts service.
      imports: createImportsService({
        imports: createImportsRepository(db),
        posts: postsService,
        postsRepo: repositories.posts,
        plans,
        media,
        mediaRepo: repositories.media,
        remote: remoteFetcher,
        maxMediaBytes: Math.max(config.media.maxImageBytes, config.media.maxVideoBytes),
        clock,
        logger,
        // Embedded PGlite is one process (its lock file): an unfinished import it does not run is orphaned.
        options: { backgroundThreshold: config.autopilot.importBackgroundRows, soleProcess: database.kind === 'pglite' },
        templates,
      }),
      // Evergreen queues (issue 30 part 2): free posting-time slots filled through the posts service.
      evergreen: createEvergreenService({
        evergreen: createEvergreenRepository(db),
        posts: postsService,
        integrations: createIntegrationsService({ integrations: repositories.integrations, groups: repositories.groups, clock, notify: (organizationId, content) => notifications.notify(organizationId, content) }),
        clock,
        notify: (organizationId, content) => notifications.notify(organizationId, content),
      }),
      templates,
      links,
      assist: createAssistService({
        repo: createAssistRepository(db),
        integrations: repositories.integrations,
        media: repositories.media,
        storage,
        adapters,
        client: aiClient,
        secretBox,
        store: rateStore,
        perMinute: config.ai.perMinute,
        clock,
        activity,
      }),
      // Preview links (issue 31): decisions through a link go to the approvals service; wrong passwords: 10 per link per 15 minutes.
      previews: createPreviewsService({
        previews: createPreviewsRepository(db),
        clock,
        publicUrl: config.publicUrl,
        passwordThrottle: createFailureThrottle({ store: rateStore, clock, max: 10, windowSeconds: 900 }),
        approvals,
        canApproveAll: (organizationId, integrationIds) => approvals.canApproveAll(organizationId, integrationIds),
        activity,
      }),
      webhooks: createWebhooksService({
        webhooks: repositories.webhooks,
        plans,
        secretBox,
        clock,
        target: { allowPrivate: config.allowPrivateTargets, resolve: opts.webhookResolve },
        activity,
      }),
      video: createVideoService({
        video: repositories.video,
        media: repositories.media,
        storage,
        plans: repositories.plans,
        providers: videoProviders,
        queue: videoQueue,
        http: platformHttp,
        clock,
        workRoot: videoWorkRoot,
        options: { requestWaitMs: config.video.requestWaitMs },
      }),
      health: createHealthService({
        health: createHealthRepository(database),
        clock,
        maxHeartbeatAgeSeconds: config.readyMaxHeartbeatAgeSeconds,
        role,
        expectedMigrations: countMigrations(),
        ownBeat: () => ownBeatAt,
      }),
      feeds,
      onboarding: createOnboardingService({ accounts: repositories.accounts, organizations: repositories.organizations, integrations: repositories.integrations, posts: repositories.posts, clock }),
    };

    const heartbeat = createHeartbeat({
      heartbeats,
      clock,
      role,
      intervalSeconds: config.workerHeartbeatSeconds,
      onError: (err) => logger.warn({ err }, 'heartbeat failed'),
    });

    // Housekeeping of the rate-limit logs (old failed-auth entries of addresses never seen again).
    const maxWindowMs = Math.max(config.rateLimit.windowSeconds, config.authFailure.windowSeconds, config.accounts.loginFailure.windowSeconds, config.accounts.appRateLimit.windowSeconds, 3600) * 1000;
    const sweepTimer = setInterval(() => {
      rateStore.sweep(clock.now() - maxWindowMs).catch((err: unknown) => logger.warn({ err }, 'rate-limit sweep failed'));
    }, 10 * 60_000);
    sweepTimer.unref();
    const idempotencyTimer = setInterval(() => {
      repositories.posts.sweepIdempotency(new Date(clock.now() - 24 * 3600_000)).catch((err: unknown) => logger.warn({ err }, 'idempotency-key sweep failed'));
    }, 60 * 60_000);
    idempotencyTimer.unref();
    // Expired sessions, used links and codes, never-approved self-registered apps.
    const accountsTimer = setInterval(() => {
      accounts.sweep().catch((err: unknown) => logger.warn({ err }, 'accounts sweep failed'));
    }, 60 * 60_000);
    accountsTimer.unref();

    const publisher = createPublisher({
      activity,
      links: links.port,
      posts: publishing,
      channels,
      queue,
      access,
      clock,
      workerId: heartbeat.workerId,
      fitter: createImageFitter({ open: openMedia }),
      // Platforms fetch renditions from the service itself (`GET /media/<key>` renders them).
      mediaUrl: (key) => `${config.publicUrl}/media/${key}`,
      options: {
        ...DEFAULT_PUBLISHER_OPTIONS,
        maxLatenessMs: config.publish.maxLatenessMs,
        maxAttempts: config.publish.maxAttempts,
        retryFirstMs: config.publish.retryFirstMs,
        retryBaseMs: config.publish.retryBaseMs,
        attemptTimeoutMs: config.publish.attemptTimeoutMs,
      },
      logger: { warn: (obj, msg) => logger.warn(obj, msg), info: () => undefined },
      metrics,
    });
    // Webhook deliveries: sent by worker processes (started in `startWorker`); `runOnce`/`drain` for tests.
    const webhookSender = createWebhookSender({ allowPrivateTargets: config.allowPrivateTargets, timeoutMs: config.webhooks.timeoutMs });
    closers.push(() => webhookSender.close());
    const webhookDelivery = createWebhookDelivery({
      database,
      sender: webhookSender,
      secretBox,
      clock,
      workerId: heartbeat.workerId,
      options: {
        concurrency: config.webhooks.concurrency,
        perWebhook: config.webhooks.perWebhook,
        maxIdleMs: 2000,
        soleWorker: database.kind === 'pglite',
        deadAfterMs: Math.max(3 * config.workerHeartbeatSeconds * 1000, 15_000),
      },
      logger: { warn: (obj, msg) => logger.warn(obj, msg), error: (obj, msg) => logger.error(obj, msg) },
      metrics,
    });
    let videoWorker: VideoWorker | undefined;
    if (jobs && videoQueue) {
      videoWorker = createVideoWorker({
        jobs,
        queue: videoQueue,
        video: videoJobs,
        media: repositories.media,
        mediaService: media,
        storage,
        remote: remoteFetcher,
        http: platformHttp,
        providers: videoProviders,
        clock,
        workerId: heartbeat.workerId,
        workRoot: videoWorkRoot,
        options: {
          concurrency: config.video.concurrency,
          timeLimitMs: config.video.timeLimitMs,
          deadAfterMs: Math.max(3 * config.workerHeartbeatSeconds * 1000, 15_000),
          soleWorker: database.kind === 'pglite',
          pollMs: 1000,
          maxVideoBytes: config.media.maxVideoBytes,
        },
        logger,
        metrics,
      });
    }
    let dispatcher: Dispatcher | undefined;
    /** when this process's publisher loop last beat (`/readyz` of worker and all processes) */
    let ownBeatAt: number | undefined;
    let watchdogRun: { stop(): Promise<void> } | undefined;
    let feedsRun: { stop(): Promise<void> } | undefined;
    let seriesRun: { stop(): Promise<void> } | undefined;
    let importsRun: { stop(): Promise<void> } | undefined;
    let evergreenRun: { stop(): Promise<void> } | undefined;
    let activityPurgeRun: { stop(): Promise<void> } | undefined;
    let approvalSweepRun: { stop(): Promise<void> } | undefined;
    const overdueWatchdog = createOverdueWatchdog({
      overdue: overdueRepo,
      clock,
      metrics,
      displayName: (identifier) => (identifier in adapters ? adapters[identifier as keyof typeof adapters].metadata.displayName : identifier),
      options: { thresholdMs: config.overdue.thresholdMs, batchSize: 100 },
      logger: { warn: (obj, msg) => logger.warn(obj, msg), error: (obj, msg) => logger.error(obj, msg) },
    });
    let janitorRun: { stop(): Promise<void> } | undefined;
    let keeperRun: { stop(): Promise<void> } | undefined;
    const tokenKeeper = createTokenKeeper({
      channels,
      access,
      adapters,
      logger: { warn: (obj, msg) => logger.warn(obj, msg) },
      aheadMs: 2 * TOKEN_KEEPER_INTERVAL_MS,
    });

    let closed = false;
    return {
      config,
      role,
      clock,
      database,
      jobs,
      rateStore,
      secretBox,
      adapters,
      storage,
      mediaJanitor,
      tokenKeeper,
      platformHttp,
      access,
      repositories,
      services,
      registrationThrottle: accounts.registrationThrottle,
      mailer: accounts.mailer,
      heartbeat,
      queue,
      publisher,
      webhookDelivery,
      videoProviders,
      videoWorker,
      metrics: prometheus,
      overdueWatchdog,
      get dispatcher() {
        return dispatcher;
      },
      /** Starts the worker side of this process: the publisher, whose loop writes the heartbeat. */
      async startWorker() {
        if (!jobs) throw new Error('the job engine is not running in this process');
        dispatcher = createDispatcher({
          database,
          posts: publishing,
          heartbeats,
          jobs,
          queue,
          publisher,
          adapters,
          clock,
          workerId: heartbeat.workerId,
          beat: async () => {
            await heartbeat.beat();
            ownBeatAt = clock.now();
          },
          heartbeatMs: config.workerHeartbeatSeconds * 1000,
          options: {
            capacity: config.publish.concurrency,
            maxIdleMs: Math.min(2000, config.workerHeartbeatSeconds * 1000),
            deadAfterMs: Math.max(3 * config.workerHeartbeatSeconds * 1000, 15_000),
            soleWorker: database.kind === 'pglite',
          },
          logger: { warn: (obj, msg) => logger.warn(obj, msg), error: (obj, msg) => logger.error(obj, msg) },
        });
        await dispatcher.start();
        await webhookDelivery.start();
        // Video generation: encodes (or waits on outside providers) in worker processes only.
        await videoWorker?.start();
        // The media storage janitor runs here, not with the sweeps above that every process runs:
        // this is the embedded process (`all`) and each `worker`, never an `api` process, which
        // may be scaled out for traffic and would each sweep the same keys for nothing.
        // First a few minutes after start (leftovers of a crash just before), then hourly.
        janitorRun = mediaJanitor.start({ clock, firstDelayMs: 5 * 60_000, intervalMs: 60 * 60_000 });
        // Tokens that must be renewed while valid, for channels nobody publishes to (worker only too).
        keeperRun = tokenKeeper.start({ clock, firstDelayMs: 60_000, intervalMs: TOKEN_KEEPER_INTERVAL_MS });
        // Posts still queued PUBLISH_OVERDUE_SECONDS after their time: post.overdue and a notification, once each.
        watchdogRun = overdueWatchdog.start({ firstDelayMs: config.overdue.checkMs, intervalMs: config.overdue.checkMs });
        // Feeds: the due ones polled every minute (each leased to one poller; an item is posted once ever).
        feedsRun = startFeedPoller(feeds, { firstDelayMs: 20_000, intervalMs: config.autopilot.feedCheckMs, logger });
        // Repeating posts: occurrences created a horizon ahead (each series under its row's lock, so workers may race).
        // Evergreen queues: free slots filled a horizon ahead (one fill per channel slot, so workers may race).
        evergreenRun = startEvergreenFill(services.evergreen, { firstDelayMs: 45_000, intervalMs: config.autopilot.evergreenFillMs, logger: { warn: (obj, msg) => logger.warn(obj, msg), error: (obj, msg) => logger.error(obj, msg) } });
        // Background imports whose process stopped: taken over soon after a start, then every minute.
        importsRun = startImportRecovery(services.imports, { firstDelayMs: 2_000, intervalMs: 60_000, logger: { warn: (obj, msg) => logger.warn(obj, msg), error: (obj, msg) => logger.error(obj, msg) } });
        // Posts whose time came while they awaited approval: reported once (post.approval_expired), every minute.
        approvalSweepRun = startApprovalExpirySweep(approvals, { firstDelayMs: 15_000, intervalMs: config.overdue.checkMs, logger: { error: (obj, msg) => logger.error(obj, msg) } });
        // The activity log's retention: entries older than ACTIVITY_RETENTION_DAYS deleted, hourly.
        activityPurgeRun = startActivityPurge(activity, { firstDelayMs: 10 * 60_000, intervalMs: 60 * 60_000, logger: { error: (obj, msg) => logger.error(obj, msg) } });
        seriesRun = startSeriesExtender(services.series, { firstDelayMs: 30_000, intervalMs: config.autopilot.seriesExtendMs, logger: { warn: (obj, msg) => logger.warn(obj, msg), error: (obj, msg) => logger.error(obj, msg) } });
      },
      async close() {
        if (closed) return;
        closed = true;
        clearInterval(sweepTimer);
        clearInterval(idempotencyTimer);
        clearInterval(accountsTimer);
        await janitorRun?.stop();
        await keeperRun?.stop();
        await watchdogRun?.stop();
        await feedsRun?.stop();
        await seriesRun?.stop();
        await importsRun?.stop();
        await evergreenRun?.stop();
        await activityPurgeRun?.stop();
        await approvalSweepRun?.stop();
        await videoWorker?.stop();
        await dispatcher?.stop();
        await webhookDelivery.stop();
        await heartbeat.forget().catch(() => undefined);
        for (const close of closers.reverse()) await close().catch((err: unknown) => logger.warn({ err }, 'close failed'));
        if (!opts.database) await database.close();
      },
    };
  } catch (e) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (!opts.database) await database.close();
    throw e;
  }
}

export type AppDeps = Awaited<ReturnType<typeof createDeps>>;

/** People, sessions and the OAuth server (issue 15), wired from config. */
function createAccounts(input: {
  config: Config;
  repositories: { accounts: ReturnType<typeof createAccountsRepository>; sessions: ReturnType<typeof createSessionsRepository>; oauth: ReturnType<typeof createOauthRepository> };
  organizations: ReturnType<typeof createOrganizationsService>;
  activity: ReturnType<typeof createActivityService>;
  sessions: ReturnType<typeof createSessionsService>;
  rateStore: SlidingLogStore;
  clock: Clock;
  logger: Logger;
  onTokensRevoked(tokenIds: string[]): void;
}) {
  const { config, repositories, clock, rateStore } = input;
  const a = config.accounts;
  const throttle = (max: number, windowSeconds: number) => createFailureThrottle({ store: rateStore, clock, max, windowSeconds });
  const mailer = createMailer({ smtpUrl: a.smtpUrl, from: a.mailFrom, logger: input.logger });
  const { sessions } = input;
  const oauthCore = createOauthCore({ oauth: repositories.oauth, clock, accessTokenTtlMs: a.accessTokenTtlMs });
  const oauth = createOauthService({ oauth: repositories.oauth, core: oauthCore, accounts: repositories.accounts, clock, issuer: config.publicUrl, onTokensRevoked: (ids) => input.onTokensRevoked(ids), activity: input.activity });
  const accounts = createAccountsService({
    accounts: repositories.accounts,
    sessions,
    organizations: input.organizations,
    revokeAppAccess: async (tx, filter, reason) => input.onTokensRevoked(await repositories.oauth.revokeGrantsOf(tx, filter, new Date(clock.now()), reason)),
    loginThrottle: throttle(a.loginFailure.max, a.loginFailure.windowSeconds),
    // reset links: a few per address an hour is plenty for a person and useless for mail bombing
    resetThrottle: throttle(5, 3600),
    mailer,
    clock,
    publicUrl: config.publicUrl,
    signup: a.signup,
    activity: input.activity,
  });
  const clients = createClientsService({ oauth: repositories.oauth, accounts, clock, dynamicRegistration: a.dynamicRegistration, onTokensRevoked: (ids) => input.onTokensRevoked(ids) });
  const device = createDeviceService({
    oauth: repositories.oauth,
    core: oauthCore,
    grants: oauth,
    clock,
    activity: input.activity,
    publicUrl: config.publicUrl,
    intervalSeconds: a.devicePollIntervalSeconds,
    codeThrottle: throttle(10, 900),
  });
  return {
    mailer,
    services: { sessions, accounts, oauth, clients, device },
    /** registrations per address an hour (RFC 7591 is open to anyone) */
    registrationThrottle: throttle(20, 3600),
    async sweep() {
      const now = new Date(clock.now());
      await sessions.sweep();
      await repositories.accounts.sweep(now);
      await repositories.oauth.sweep(now);
    },
  };
}
