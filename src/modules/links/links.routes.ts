import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import type { LinksService } from './links.service.js';
import { PostLinksParamsSchema, PostLinksSchema, ShortLinkSettingsBodySchema, ShortLinkSettingsSchema } from './links.schemas.js';

const tags = ['Short links'];

export function linksRoutes(service: LinksService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/short-links/settings',
      { schema: { tags, summary: "The organisation's short-link settings (never the API key)", response: { 200: ShortLinkSettingsSchema } } },
      async (req) => service.getSettings(req.auth.organizationId),
    );

    app.put(
      '/short-links/settings',
      {
        schema: {
          tags,
          summary: 'Choose who shortens links and the UTM parameters they carry',
          description:
            "Posts sent with `shortLink: true` (or a channel's `posts[].shortLink`) have every http(s) URL of their text replaced by a short link when they are published. `builtin` needs nothing; Dub, Short.io and Kutt need an API key, which is checked with the provider before it is stored (sealed): a refusal is a 422 naming `apiKey` or `domain`. Owners and admins only.",
          body: ShortLinkSettingsBodySchema,
          response: { 200: ShortLinkSettingsSchema, ...errorResponses('FORBIDDEN', 'SHORTENER_REJECTED') },
        },
      },
      async (req) => service.saveSettings(req.auth.organizationId, req.body),
    );

    app.get(
      '/posts/:id/links',
      {
        schema: {
          tags,
          summary: "A post's short links and their clicks",
          description: 'The links made when the post (and its thread items) were published, with clicks by people and, apart, fetches by crawlers and link previews.',
          params: PostLinksParamsSchema,
          response: { 200: PostLinksSchema },
        },
      },
      async (req) => service.postLinks(req.auth.organizationId, req.params.id),
    );
  };
}

/** `GET /s/:code`: the built-in short links' redirect, outside the API (no credential, not in the document). */
export function shortLinkRedirectRoutes(service: LinksService): FastifyPluginAsyncZod {
  return async (app) => {
    app.route({
      method: ['GET', 'HEAD'],
      url: '/s/:code',
      schema: { hide: true },
      handler: async (req, reply) => {
        const code = (req.params as { code: string }).code;
        const purpose = req.headers['sec-purpose'] ?? req.headers.purpose ?? req.headers['x-purpose'];
        const target = await service.visit(code, { method: req.method, userAgent: req.headers['user-agent'], purpose: Array.isArray(purpose) ? purpose.join(',') : purpose });
        // never cached: each visit must reach us to be counted
        reply.header('cache-control', 'private, no-store');
        if (!target) return reply.status(404).type('text/plain; charset=utf-8').send('This short link does not exist.\n');
        return reply.redirect(target, 302);
      },
    });
  };
}
