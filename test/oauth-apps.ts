import { APP as LINKEDIN_APP } from '../src/platforms/linkedin/linkedin.testkit.js';

/**
 * The OAuth apps the tests register with the platform simulators, and the server configuration
 * that names them. The simulators' own defaults (Discord, Slack) are these same values.
 */

export { LINKEDIN_APP };
export const X_APP = { clientId: 'x-client-id', clientSecret: 'x-client-secret' };
export const REDDIT_APP = { clientId: 'reddit-client-id', clientSecret: 'reddit-client-secret' };
export const DISCORD = { clientId: '1100000000000000001', clientSecret: 'discord-client-secret', botToken: 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GabcDE.bot-token-secret' };
export const SLACK_APP = { clientId: '1111111111.2222222222', clientSecret: 'slack-client-secret' };
export const LINKEDIN_PAGE_APP = { clientId: '86pagesapp5678', clientSecret: 'WPL_AP1.page-secret==' };

/** The environment variables that configure the apps above (for `buildTestApp({ env })`). */
export function oauthAppEnv(): Record<string, string> {
  return {
    X_CLIENT_ID: X_APP.clientId,
    X_CLIENT_SECRET: X_APP.clientSecret,
    REDDIT_CLIENT_ID: REDDIT_APP.clientId,
    REDDIT_CLIENT_SECRET: REDDIT_APP.clientSecret,
    DISCORD_CLIENT_ID: DISCORD.clientId,
    DISCORD_CLIENT_SECRET: DISCORD.clientSecret,
    DISCORD_BOT_TOKEN: DISCORD.botToken,
    SLACK_CLIENT_ID: SLACK_APP.clientId,
    SLACK_CLIENT_SECRET: SLACK_APP.clientSecret,
    LINKEDIN_CLIENT_ID: LINKEDIN_APP.clientId,
    LINKEDIN_CLIENT_SECRET: LINKEDIN_APP.clientSecret,
    LINKEDIN_PAGE_CLIENT_ID: LINKEDIN_PAGE_APP.clientId,
    LINKEDIN_PAGE_CLIENT_SECRET: LINKEDIN_PAGE_APP.clientSecret,
  };
}
