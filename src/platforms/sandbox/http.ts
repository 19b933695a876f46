import type { FastifyInstance } from 'fastify';
import { Request } from 'undici';
import { encodeBody, isStream, type PlatformHttpClient } from '../http.js';
import { PlatformError, type PlatformRequest, type PlatformResponse, type SocketTarget } from '../platform.js';

/**
 * The outgoing client of sandbox channels: every request is answered in-process by the simulator
 * app that owns its origin (`app.inject`, no socket is ever opened), and a request to any other
 * origin is refused. So a sandbox channel runs its platform's real adapter code, and can never
 * reach a real platform host, whatever the adapter, the user's input or a redirect asks for.
 */
export interface SandboxRoute {
  /** the simulator app answering the origin */
  app: FastifyInstance;
  /** waits before answering (the "slow" control), in ms */
  latencyMs?(): number;
  /** answers instead of the simulator (the "down" control) */
  override?(req: PlatformRequest): PlatformResponse | undefined;
}

export interface SandboxHttpOptions {
  /** real origin (`https://api.x.com`) → the simulator answering it; undefined: refused */
  route(origin: string): Promise<SandboxRoute | undefined>;
  /** every request, after routing (tests assert that all of them went in-process) */
  onRequest?(origin: string): void;
  /** a WebSocket's target (the simulator's loopback server), or undefined: refused */
  socketTarget?(url: string): string | undefined;
}

const MAX_REDIRECTS = 5;

function parseBody(raw: Buffer, type: string): unknown {
  if (raw.length === 0) return null;
  const text = raw.toString('utf8');
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** The bytes and content type a request body is sent as (multipart boundaries and all), as fetch would send them. */
async function serialise(body: unknown, headers: Record<string, string>): Promise<Buffer | undefined> {
  const encoded = encodeBody(body, headers);
  if (encoded === undefined) return undefined;
  const r = new Request('http://in-process.invalid/', { method: 'POST', body: encoded, ...(isStream(encoded) ? { duplex: 'half' as const } : {}) });
  const type = r.headers.get('content-type');
  if (type && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = type;
  return Buffer.from(await r.arrayBuffer());
}

export function createSandboxHttp(opts: SandboxHttpOptions): PlatformHttpClient {
  async function routeOf(url: URL): Promise<SandboxRoute> {
    const route = await opts.route(url.origin);
    if (!route) throw new PlatformError('rejected', `Sandbox channels reach their platform's simulator only, not ${url.origin}`);
    return route;
  }

  async function request(req: PlatformRequest, signal?: AbortSignal): Promise<PlatformResponse> {
    const headers: Record<string, string> = { 'user-agent': 'Tidings (sandbox)', ...req.headers };
    let url = new URL(req.url);
    let method = req.method;
    let payload = await serialise(req.body, headers);
    for (let hop = 0; ; hop++) {
      const route = await routeOf(url);
      opts.onRequest?.(url.origin);
      if (signal?.aborted) throw new PlatformError('transient', 'Cancelled', { outcomeUnknown: method !== 'GET' });
      const overridden = route.override?.(req);
      if (overridden) return overridden;
      const wait = route.latencyMs?.() ?? 0;
      if (wait > 0) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, wait);
          signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new PlatformError('transient', `${url.host} did not answer in time (the ${method} request timed out)`, { outcomeUnknown: method !== 'GET' }));
          });
        });
      }
      const res = await route.app.inject({
        method: method as 'GET',
        url: url.pathname + url.search,
        headers: { ...headers, host: url.host },
        ...(payload ? { payload } : {}),
      });
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
      const location = out.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && location && hop < MAX_REDIRECTS) {
        url = new URL(location, url);
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          payload = undefined;
          delete headers['content-type'];
        }
        continue;
      }
      return { status: res.statusCode, headers: out, body: parseBody(res.rawPayload, out['content-type'] ?? '') };
    }
  }

  return {
    request,
    rewriteUrl: (url) => url,
    socketTarget(url: string): SocketTarget {
      let target: string | undefined;
      try {
        target = opts.socketTarget?.(url);
      } catch {
        target = undefined;
      }
      if (!target) throw new PlatformError('rejected', `Sandbox channels reach their platform's simulator only, not ${url}`);
      return { url: target };
    },
    async close() {},
  };
}
