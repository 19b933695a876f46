import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { VERSION } from '../version.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import { createMcpServerFactory } from './server.js';
import { allTools } from './tools/index.js';
import { mcpTransports } from './transports.js';

const INSTRUCTIONS = [
  'Tidings schedules and publishes social posts on the organisation\'s connected channels.',
  'Start with list_channels (channel ids), then get_channel_settings for a channel\'s rules and settings schema.',
  'Dates are ISO 8601 in UTC. Media go in as ids from upload_media_from_url or list_media.',
  'create_posts schedules; list_posts, get_post, reschedule_post, delete_post manage what is planned.',
].join(' ');

/** Mounts the MCP front door (issue 27) on the app: tools on the same services as the routes. */
export async function installMcp(app: FastifyInstance, deps: AppDeps, logger: FastifyBaseLogger) {
  const { config, services } = deps;
  const factory = createMcpServerFactory({
    tools: allTools(services),
    extensions: [resources(services), prompts(services)],
    rateStore: deps.rateStore,
    onRateLimited: () => deps.metrics.metrics.rateLimitRefused('mcp'),
    clock: deps.clock,
    logger: logger.child({ frontDoor: 'mcp' }),
    version: VERSION,
    instructions: INSTRUCTIONS,
  });
  await app.register(
    mcpTransports({
      factory,
      auth: services.auth,
      clock: deps.clock,
      publicUrl: config.publicUrl,
      allowedOrigins: config.mcp.allowedOrigins,
      sessions: { enabled: config.mcp.sessions, idleMs: config.mcp.sessionIdleMs, max: config.mcp.maxSessions },
    }),
  );
  return factory;
}
