import type { OAuthApp } from '../common/oauth2.js';
import type { ConnectedAccount, PlatformAdapter } from '../platform.js';
import {
  linkedinAuthorizeUrl,
  linkedinConnect,
  linkedinPublishing,
  linkedinRefresh,
  requireApp,
  tokenCredentials,
  type LinkedinCredentials,
} from './client.js';
import { linkedinMetadata } from './metadata.js';

export { linkedinCommentUrl, linkedinPostUrl, LINKEDIN_API, LINKEDIN_VERSION, LINKEDIN_WWW, type LinkedinCredentials } from './client.js';

/**
 * Creates the LinkedIn (personal profile) adapter: OAuth 2 without PKCE, the member is the OIDC
 * `sub` and posts as `urn:li:person:{sub}` through the versioned Posts API. No analytics: LinkedIn
 * keeps member post statistics to approved partners.
 */
export function createLinkedinAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  const publishing = linkedinPublishing();
  return {
    metadata: linkedinMetadata,

    async beginConnect(input) {
      const app = requireApp(config.app);
      return { url: linkedinAuthorizeUrl(linkedinMetadata, app, input) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      const { tokens, member } = await linkedinConnect(linkedinMetadata, app, input, ctx);
      const memberUrn = `urn:li:person:${member.sub}`;
      const credentials: LinkedinCredentials = { ...tokenCredentials(tokens), memberUrn, authorUrn: memberUrn };
      return { internalId: member.sub, name: member.name, profile: null, picture: member.picture, credentials: { ...credentials }, expiresAt: tokens.expiresAt };
    },

    refresh: (ctx) => linkedinRefresh(linkedinMetadata, config.app, ctx),

    validate: publishing.validate,

    /**
     * Publishes a post, or a comment on it for thread items. NOT idempotent: LinkedIn refuses an
     * exact duplicate (422 `DUPLICATE_POST`) instead of recognising a retry, so an unknown
     * outcome must be reconciled with `findRecent`. Videos may answer `pending` (see `checkPublish`).
     */
    publish: (input, ctx) => publishing.publish(input, ctx),
    checkPublish: (token, ctx) => publishing.checkPublish(token, ctx),
    findRecent: (input, ctx) => publishing.findRecent(input, ctx),
  };
}
