import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { ConnectService } from './connect.service.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)} · Tidings</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style></head><body><h1>${escape(title)}</h1><p>${escape(body)}</p></body></html>`;
}

/**
 * Where platforms send the user back after OAuth. Outside /public/v1 and without an API
 * credential: the single-use `state` binds the answer to the organisation that asked.
 * Answers a small page for the person in the browser.
 */
export function callbackRoutes(service: ConnectService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/integrations/social/:identifier/callback',
      {
        schema: {
          hide: true,
          params: z.object({ identifier: z.string() }),
          querystring: z.object({
            code: z.string().optional(),
            state: z.string().optional(),
            error: z.string().optional(),
            error_description: z.string().optional(),
          }),
        },
      },
      async (req, reply) => {
        try {
          const { integration, platform } = await service.completeConnect(req.params.identifier, req.query);
          return reply
            .type('text/html; charset=utf-8')
            .send(page(`${platform} connected`, `${integration.name}${integration.profile ? ` (${integration.profile})` : ''} is connected to Tidings. You can close this window.`));
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          req.log.info({ code: e.code }, e.message);
          return reply.status(e.status).type('text/html; charset=utf-8').send(page('Could not connect', e.message));
        }
      },
    );
  };
}
