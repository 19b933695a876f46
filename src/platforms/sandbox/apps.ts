import type { OAuthApp } from '../common/oauth2.js';
import { PLATFORM_IDENTIFIERS, type PlatformIdentifier } from '../platform.js';

/**
 * The sandbox's own OAuth app at each platform's simulator: fixed, public test values (the
 * sandbox uses no secret of the deployment). Each kit registers its platform's with the simulator.
 */
export const SANDBOX_APPS: Record<PlatformIdentifier, OAuthApp> = Object.fromEntries(
  PLATFORM_IDENTIFIERS.map((id) => [id, { clientId: `tidings-sandbox-${id}`, clientSecret: `tidings-sandbox-${id}-secret` }]),
) as Record<PlatformIdentifier, OAuthApp>;

/** The bot the sandbox's Discord adapter posts as. */
export const SANDBOX_DISCORD_BOT_TOKEN = 'TidingsSandboxBot.000000.sandbox-discord-bot-token';
