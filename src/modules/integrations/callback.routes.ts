import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { requestOrigin } from '../../http/origin.js';
import type { ConnectService } from './connect.service.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the page tells the app that opened it (`window.opener`), and other tabs of the app. */
export type ConnectMessage =
  | { type: 'tidings:connected'; identifier: string; integration: { id: string; name: string; profile: string | null; identifier: string } }
  | { type: 'tidings:connect-failed'; identifier: string; code: string; message: string };

/**
 * Runs in the page the platform redirected to. The message comes from the page's own
 * `data-message` attribute (escaped as HTML, read back as text), never from script source, so no
 * value reaches JavaScript unparsed. When the window was opened by the app (same origin), the
 * app is told and the window closes; otherwise the page stays, with its text and a link back.
 * Other tabs of the app hear it too (BroadcastChannel, same origin by definition): the app
 * refreshes its channels even when the platform's pages cut the link to the opener.
 */
const SCRIPT = `(function(){var m;try{m=JSON.parse(document.body.getAttribute('data-message')||'null')}catch(e){return}if(!m)return;try{var b=new BroadcastChannel('tidings-connect');b.postMessage(m);b.close()}catch(e){}var o=window.opener,same=false;try{same=!!o&&o!==window&&o.location.origin===location.origin}catch(e){same=false}if(same){o.postMessage(m,location.origin);window.close()}})();`;

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}@media (prefers-color-scheme:dark){body{color:#ececf1;background:#16161a}a{color:#8fb0ff}}';

function page(title: string, body: string, message: ConnectMessage) {
  const nonce = randomBytes(16).toString('base64');
  const markup = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)} · Tidings</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><style nonce="${nonce}">${STYLE}</style></head><body data-message="${escape(JSON.stringify(message))}"><h1>${escape(title)}</h1><p>${escape(body)}</p><p><a href="/channels">Back to your channels</a></p><script nonce="${nonce}">${SCRIPT}</script></body></html>`;
  return {
    markup,
    headers: {
      // only this response's own style and script run; nothing is loaded but the service's icon, nothing may frame it
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'x-frame-options': 'DENY',
      // the URL carries the platform's code and state
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  };
}

/**
 * Where platforms send the user back after OAuth. Outside /public/v1 and without an API
 * credential: the single-use `state` binds the answer to the organisation that asked.
 * Answers a small page for the person in the browser, which tells the app's window that opened
 * the connection (if any) how it went.
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
          })
            // whatever else the platform adds (Neynar: signer_uuid, fid; VK ID: device_id): the adapter's callbackParams
            .catchall(z.union([z.string().max(2048), z.array(z.string().max(2048))])),
        },
      },
      async (req, reply) => {
        const identifier = req.params.identifier;
        // Begun at another address of this server: finish there, where the app's window is.
        const there = await service.callbackOrigin(identifier, req.query.state, requestOrigin(req));
        if (there) return reply.header('referrer-policy', 'no-referrer').header('cache-control', 'no-store').redirect(`${there}${req.url}`, 303);
        let status = 200;
        let shown;
        try {
          const { integration, platform } = await service.completeConnect(identifier, req.query);
          shown = page(`${platform} connected`, `${integration.name}${integration.profile ? ` (${integration.profile})` : ''} is connected to Tidings. You can close this window.`, {
            type: 'tidings:connected',
            identifier,
            integration: { id: integration.id, name: integration.name, profile: integration.profile, identifier: integration.identifier },
          });
        } catch (e) {
          if (e instanceof AppError) {
            req.log.info({ code: e.code }, e.message);
            status = e.status;
            shown = page('Could not connect', e.message, { type: 'tidings:connect-failed', identifier, code: e.code, message: e.message });
          } else {
            req.log.error({ err: e }, 'completing a channel connection failed');
            status = 500;
            const message = 'Something went wrong while finishing the connection. Try again.';
            shown = page('Could not connect', message, { type: 'tidings:connect-failed', identifier, code: 'INTERNAL', message });
          }
        }
        return reply.status(status).headers(shown.headers).type('text/html; charset=utf-8').send(shown.markup);
      },
    );
  };
}
