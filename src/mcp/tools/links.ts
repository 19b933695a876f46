import type { LinksService } from '../../modules/links/links.service.js';
import { PostLinksParamsSchema, PostLinksSchema, ShortLinkSettingsBodySchema, ShortLinkSettingsSchema } from '../../modules/links/links.schemas.js';
import { defineTool } from '../tool.js';

const ABOUT =
  'Posts created with `shortLink: true` have every http(s) URL of their text replaced by a short link when they are published (once per post and channel), through the built-in shortener or the organisation\'s Dub, Short.io or Kutt account, with the UTM parameters of its template.';

/** Short links: the tools of `modules/links/links.routes.ts`, on the same service methods. */
export function linkTools(links: LinksService) {
  return [
    defineTool({
      name: 'get_short_link_settings',
      title: 'Short-link settings',
      route: 'GET /short-links/settings',
      description: `Who shortens the organisation's links, the UTM template, and how long a short link is. ${ABOUT}`,
      input: {},
      output: ShortLinkSettingsSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => links.getSettings(ctx.organizationId),
      summary: (r) => `Shortener: ${r.provider}${r.domain ? ` on ${r.domain}` : ''}; UTM: ${r.utmTemplate ?? 'none'}; a short link takes ${r.shortLinkLength} characters`,
    }),
    defineTool({
      name: 'set_short_link_settings',
      title: 'Change short-link settings',
      route: 'PUT /short-links/settings',
      description: `Chooses the shortener (builtin, dub, shortio, kutt; an outside one needs its API key, checked with it before it is stored) and the UTM template. ${ABOUT}`,
      input: { body: ShortLinkSettingsBodySchema },
      hints: {
        provider: 'builtin (nothing to set up), dub, shortio or kutt',
        apiKey: "the provider's API key; leave out to keep the stored one",
        domain: 'the short domain (Short.io needs one)',
        apiUrl: "a self-hosted Kutt's address",
        utmTemplate: 'e.g. utm_source={platform}&utm_medium=social&utm_campaign={group}; null for none',
      },
      output: ShortLinkSettingsSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: (ctx, { body }) => links.saveSettings(ctx.organizationId, body),
      summary: (r) => `Saved: shortener ${r.provider}; UTM ${r.utmTemplate ?? 'none'}`,
    }),
    defineTool({
      name: 'list_post_links',
      title: "A post's short links and clicks",
      route: 'GET /posts/:id/links',
      description: `The short links made when a post (and its thread items) was published, where each leads, and its clicks by people (crawlers and link previews apart). ${ABOUT}`,
      input: { params: PostLinksParamsSchema },
      rename: { 'params.id': 'postId' },
      hints: { postId: 'the post id (from list_posts)' },
      output: PostLinksSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => links.postLinks(ctx.organizationId, params.id),
      summary: (r) => (r.links.length ? r.links.map((l) => `${l.shortUrl} → ${l.originalUrl}: ${l.clicks} click(s), ${l.botClicks} by bots`).join('; ') : 'No short links (the post was not published with shortLink, or its text has no URL)'),
    }),
  ];
}
