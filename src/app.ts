import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type FastifyPluginAsyncZod, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from './deps.js';
import { installAuth } from './http/auth.js';
import { completeResponses } from './http/error-schema.js';
import { clientErrorHandler, installErrorHandling, requestIdOf, sendError } from './http/error-handler.js';
import { installHttpMetrics, metricsRoute } from './http/metrics.js';
import { trackInflight } from './http/inflight.js';
import { installJsonParser } from './http/json-body.js';
import { API_PREFIX, installOpenApi, servedApiUrl } from './http/openapi.js';
import { installRateLimit } from './http/rate-limit.js';
import { installRequestGuards } from './http/request-guards.js';
import { mediaFilesRoutes, mediaRoutes } from './modules/media/media.routes.js';
import { groupsRoutes } from './modules/groups/groups.routes.js';
import { callbackRoutes } from './modules/integrations/callback.routes.js';
import { connectRoutes } from './modules/integrations/connect.routes.js';
import { platformsRoutes } from './modules/integrations/platforms.routes.js';
import { toolsRoutes } from './modules/integrations/tools.routes.js';
import { analyticsRoutes } from './modules/analytics/analytics.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import { notificationsRoutes } from './modules/notifications/notifications.routes.js';
import { postsRoutes } from './modules/posts/posts.routes.js';
import { seriesRoutes } from './modules/series/series.routes.js';
import { importsRoutes } from './modules/imports/imports.routes.js';
import { evergreenRoutes } from './modules/evergreen/evergreen.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { feedsRoutes } from './modules/feeds/feeds.routes.js';
import { commentsRoutes } from './modules/comments/comments.routes.js';
import { templatesRoutes } from './modules/templates/templates.routes.js';
import { approvalsRoutes } from './modules/approvals/approvals.routes.js';
import { linksRoutes, shortLinkRedirectRoutes } from './modules/links/links.routes.js';
import { assistRoutes } from './modules/assist/assist.routes.js';
import { teamRoutes } from './modules/team/team.routes.js';
import { onboardingRoutes } from './modules/onboarding/onboarding.routes.js';
import { videoRoutes } from './modules/video/video.routes.js';
import { activityRoutes } from './modules/activity/activity.routes.js';
// Preview links (issue 31)
import { previewsRoutes } from './modules/previews/previews.routes.js';
import { PREVIEW_API_PREFIX, previewPublicRoutes } from './modules/previews/previews.public-routes.js';
import { sandboxRoutes } from './modules/sandbox/sandbox.routes.js';
import { installSandboxScope } from './http/sandbox-scope.js';
import { installContributorScope } from './http/contributor-scope.js';
import { VERSION } from './version.js';
import { installMcp } from './mcp/index.js';
import cookie from '@fastify/cookie';
import { installPages } from './http/pages.js';
import { cookieNames, installSessions } from './http/session.js';
import { installFavicon, installWebApp, type WebApp } from './http/web-app.js';
import { accountPages } from './modules/accounts/accounts.pages.js';
import { oauthPages } from './modules/oauth/oauth.pages.js';
import { oauthRoutes } from './modules/oauth/oauth.routes.js';
import type { SessionContext } from './modules/sessions/sessions.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** requests being handled; shutdown waits for them before closing the database */
    inflight: ReturnType<typeof trackInflight>;
  }
}

export interface BuildAppOptions {
  /** A pino logger; none = silent (tests). */
  logger?: FastifyBaseLogger;
  /** Extra routes mounted in the authenticated, rate-limited scope (tests). */
  extraRoutes?: FastifyPluginAsyncZod;
  /** Sees every route as it is registered (tests that compare routes with what covers them). */
  onRoute?: (route: RouteOptions) => void;
  /** The built calendar app to serve (default web/dist when it exists); false: none. */
  webApp?: false | { dir: string };
}

/** Builds the HTTP application from its dependencies. Never listens (tests use `inject`). */
export async function buildApp(deps: AppDeps, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config, services, clock } = deps;
  const app = Fastify({
    // Long ids in paths reach the handlers (and answer 404) instead of the router's 414.
    routerOptions: { maxParamLength: 1000 },
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    bodyLimit: config.jsonBodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: requestIdOf,
    // Clients set up for a self-hosted Postiz call the API under `/api/public/v1`.
    rewriteUrl: (req) => servedApiUrl(req.url ?? '/'),
    // The router's own refusals (malformed percent-encoding, over-long parameter) and requests
    // the HTTP parser could not read answer in the one error shape too.
    frameworkErrors: (err, req, reply) => {
      void sendError(req, reply, err);
    },
    clientErrorHandler,
    http: { requireHostHeader: false },
  }).withTypeProvider<ZodTypeProvider>();

  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  // HTTP latency by route template and status, for every route registered below.
  installHttpMetrics(app, deps.metrics.metrics);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Media URLs name PUBLIC_URL (or S3's addresses): the app's CSP lets its pages show them
  // whichever address of this server the person opened.
  const mediaOrigins = [config.publicUrl, config.s3?.publicUrl, config.s3?.endpoint].filter((u): u is string => u !== undefined);
  const webApp: WebApp | undefined = opts.webApp === false ? undefined : await installWebApp(app, { dir: opts.webApp?.dir, mediaOrigins });
  installFavicon(app, { dir: opts.webApp === false ? undefined : opts.webApp?.dir });
  installErrorHandling(app, { spa: webApp });
  installJsonParser(app);
  installRequestGuards(app);
  const inflight = trackInflight(app);
  app.decorate('inflight', inflight);
  app.addHook('onRequest', async (req, reply) => {
    void reply.header('x-request-id', req.id);
  });

  await app.register(cookie);
  await installOpenApi(app, { publicUrl: config.publicUrl, version: VERSION });
  await app.register(healthRoutes(services.health));
  // Prometheus metrics: 404 unless METRICS_TOKEN is set (the admin port, METRICS_PORT, serves them without one).
  await app.register(metricsRoute(deps.metrics, config.metrics.token));
  await app.register(callbackRoutes(services.connect));
  await app.register(mediaFilesRoutes(services.media));
  // Preview links (issue 31): the holder's side, no account (the token is the credential).
  await app.register(previewPublicRoutes(services.previews), { prefix: PREVIEW_API_PREFIX });
  // Built-in short links (issue 32): /s/<code> redirects, no credential.
  await app.register(shortLinkRedirectRoutes(services.links));

  // People and apps (issue 15): server-rendered pages on first-party sessions, and the OAuth
  // protocol endpoints (which authenticate clients, not sessions).
  await app.register(async (pages) => {
    const helpers = installSessions(pages, {
      sessions: services.sessions,
      cookies: { secure: config.accounts.secureCookies, maxAgeSeconds: Math.round(config.accounts.session.maxAgeMs / 1000) },
    });
    const nav = async (req: { session: SessionContext | undefined }) => {
      if (!req.session) return { session: undefined };
      const { current } = await services.accounts.overview(req.session);
      return { session: req.session, organizationName: current?.name, app: webApp !== undefined };
    };
    await installPages(pages, nav);
    const pageDeps = { accounts: services.accounts, helpers, nav, home: webApp ? '/' : '/account' };
    await pages.register(accountPages(pageDeps));
    await pages.register(oauthPages({ ...pageDeps, oauth: services.oauth, clients: services.clients, device: services.device }));
  });
  await app.register(
    oauthRoutes({
      oauth: services.oauth,
      clients: services.clients,
      device: services.device,
      issuer: config.publicUrl,
      dynamicRegistration: config.accounts.dynamicRegistration,
      registrationThrottle: deps.registrationThrottle,
    }),
  );

  // Assistants (issue 27): the MCP server, authenticated as the API is, on the same services.
  await installMcp(app, deps, app.log);

  await app.register(
    async (api) => {
      // Every route here answers the statuses of authentication, rate limit and request checks too.
      api.addHook('onRoute', completeResponses);
      installAuth(api, services.auth, { sessionCookie: cookieNames(config.accounts.secureCookies).session });
      installRateLimit(api, { store: deps.rateStore, clock, metrics: deps.metrics.metrics });
      installSandboxScope(api, services.sandbox.scope, {
        series: (org, id) => services.series.channelIdsOf(org, id),
        evergreen: (org, id) => services.evergreen.channelIdsOf(org, id),
        feed: (org, id) => services.feeds.channelIdsOf(org, id),
      });
      installContributorScope(api);
      await api.register(integrationsRoutes(services.integrations));
      await api.register(connectRoutes(services.connect));
      await api.register(platformsRoutes(services.platforms));
      await api.register(toolsRoutes(services.tools));
      await api.register(analyticsRoutes(services.analytics));
      await api.register(groupsRoutes(services.groups));
      await api.register(notificationsRoutes(services.notifications));
      await api.register(postsRoutes(services.posts, services.series));
      await api.register(seriesRoutes(services.series));
      await api.register(importsRoutes(services.imports, config.jsonBodyLimitBytes));
      await api.register(evergreenRoutes(services.evergreen));
      await api.register(mediaRoutes(services.media, config.media));
      await api.register(webhooksRoutes(services.webhooks));
      await api.register(feedsRoutes(services.feeds));
      await api.register(commentsRoutes(services.comments, { sandboxGroup: (org, group) => services.sandbox.scope.group(org, group) }));
      await api.register(templatesRoutes(services.templates));
      await api.register(videoRoutes(services.video));
      await api.register(sandboxRoutes(services.sandbox));
      await api.register(teamRoutes(services.accounts, services.oauth));
      await api.register(onboardingRoutes(services.onboarding));
      await api.register(activityRoutes(services.activity));
      await api.register(approvalsRoutes(services.approvals));
      // Preview links (issue 31)
      await api.register(previewsRoutes(services.previews));
      // Short links (issue 32)
      await api.register(linksRoutes(services.links));
      // Writing help (issue 32)
      await api.register(assistRoutes(services.assist));
      if (opts.extraRoutes) await api.register(opts.extraRoutes);
    },
    { prefix: API_PREFIX },
  );

  return app;
}

/**
 * The admin port (METRICS_PORT on METRICS_HOST, default 127.0.0.1), in every role — the one HTTP
 * listener a `worker` process has: `GET /metrics` without a token (whoever reaches the address is
 * trusted: keep it private), and `/healthz` and `/readyz` for probes of this very process.
 */
export async function buildAdminApp(deps: AppDeps, opts: { logger?: FastifyBaseLogger } = {}): Promise<FastifyInstance> {
  // Probes and scrapes come every few seconds: only this port's warnings and errors are logged.
  const app = Fastify({ ...(opts.logger ? { loggerInstance: opts.logger.child({ port: 'admin' }, { level: 'warn' }) } : { logger: false }), genReqId: requestIdOf });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  app.addHook('onRequest', async (req, reply) => {
    void reply.header('x-request-id', req.id);
  });
  await app.register(healthRoutes(deps.services.health));
  await app.register(metricsRoute(deps.metrics, false));
  return app;
}
