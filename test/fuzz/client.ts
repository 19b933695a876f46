import { Agent, request } from 'undici';

/**
 * The fuzz tier's HTTP client: undici with a keep-alive pool, as SDK clients talk to the service,
 * a time limit on every request (a hang fails fast instead of stalling vitest), and a tally of
 * every request sent, by status class.
 */

export interface SentRequest {
  method: string;
  /** path and query, exactly as sent */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /**
   * Send on a connection of its own, closed after the answer. For multipart uploads: a refused
   * upload may leave its body unread on a kept-alive connection (wire.fuzz tests exactly that),
   * and the next request on it would fail for a reason that is not its own.
   */
  ownConnection?: boolean;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  ms: number;
}

/** How long any request may take before the tier calls it a hang. */
export const REQUEST_TIMEOUT_MS = 20_000;

export class HangError extends Error {}

export interface Tally {
  sent: number;
  byClass: Record<string, number>;
}

export function createTally(): Tally {
  return { sent: 0, byClass: {} };
}

export function countAnswer(tally: Tally, status: number | 'no answer') {
  tally.sent++;
  const key = status === 'no answer' ? 'no answer' : `${String(status)[0]}xx`;
  tally.byClass[key] = (tally.byClass[key] ?? 0) + 1;
}

export function createClient(origin: string, tally: Tally) {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 8, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
  return {
    origin,
    async send(req: SentRequest): Promise<Answer> {
      const started = performance.now();
      try {
        const res = await request(`${origin}${req.url}`, {
          method: req.method as 'GET',
          headers: req.headers,
          body: req.body,
          dispatcher: agent,
          reset: req.ownConnection === true,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.body.text();
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        countAnswer(tally, res.statusCode);
        return { status: res.statusCode, headers, text, ms: performance.now() - started };
      } catch (err) {
        countAnswer(tally, 'no answer');
        const e = err as Error & { code?: string };
        if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
          throw new HangError(`no answer within ${REQUEST_TIMEOUT_MS} ms (${e.name === 'TimeoutError' ? 'the client gave up' : String(e.code)})`);
        }
        throw new Error(`the request failed without an answer: ${e.code ?? ''} ${e.message}`, { cause: err });
      }
    },
    close: () => agent.close(),
  };
}

export type Client = ReturnType<typeof createClient>;
