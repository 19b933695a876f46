import { createHmac } from 'node:crypto';
import { Agent } from 'undici';
import { assertPublicLiteral, blockedCause, causeChain, createGuardedLookup, isPublicAddress, networkErrorReason, type AddressPolicy, type Resolver } from '../../lib/safe-address.js';

/**
 * Sends one webhook request (Standard Webhooks, https://www.standardwebhooks.com):
 * - `POST` of the JSON body exactly as signed, with `webhook-id` (the delivery's id, the same on
 *   every attempt, so receivers can de-duplicate), `webhook-timestamp` (this attempt, unix
 *   seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of `id.timestamp.body` with each
 *   secret that is valid now, space-separated: the current one, then the previous one during a
 *   rotation's overlap);
 * - SSRF-safe at every send: the webhook's URL was checked when it was saved, but a name can
 *   resolve elsewhere later, so the socket connects through the guarded lookup (the address that
 *   was checked is the one connected to) and literal IPs are checked before anything is sent;
 * - redirects are never followed (a 3xx answer is a failed attempt: the receiver must be fixed);
 * - one timeout for the whole attempt, connecting and reading the first bytes of the answer included.
 * It never throws: every outcome is a `SendResult` for the delivery log.
 */

export const WEBHOOK_USER_AGENT = 'Tidings-Webhooks/1';

/** The log keeps the first 1,000 characters of an answer's body. */
export const RESPONSE_SNIPPET_CHARS = 1000;

export interface SendRequest {
  url: string;
  /** the delivery's id (`webhook-id`) */
  messageId: string;
  /** the serialized JSON body, sent and signed as these exact bytes */
  body: string;
  /** `whsec_…` secrets valid now, the current one first */
  secrets: string[];
  /** when this attempt is made (the clock's now), for `webhook-timestamp` */
  at: Date;
}

export interface SendResult {
  /** HTTP status; undefined when no answer came */
  status: number | undefined;
  ok: boolean;
  /** the first characters of the answer's body */
  snippet: string | null;
  /** what went wrong (status, timeout, refused address, connection error); null on a 2xx */
  error: string | null;
  durationMs: number;
}

export interface WebhookSenderOptions {
  /** config ALLOW_PRIVATE_TARGETS: loopback and private addresses may be reached */
  allowPrivateTargets: boolean;
  /** the whole attempt (config WEBHOOK_TIMEOUT_SECONDS) */
  timeoutMs: number;
  /** hostname → addresses; the system resolver by default (tests inject their own) */
  lookup?: Resolver;
}

/** The base64 HMAC-SHA256 of `id.timestamp.body` with a `whsec_` secret (its base64 key after the prefix). */
export function signPayload(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
}

/** The `webhook-signature` header: one `v1,` signature per secret, space-separated. */
export function signatureHeader(secrets: string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets.map((s) => `v1,${signPayload(s, messageId, timestampSeconds, body)}`).join(' ');
}

function describeError(err: unknown, host: string, timedOut: boolean, timeoutMs: number): string {
  const blocked = blockedCause(err);
  if (blocked) return blocked.message;
  if (timedOut) return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  const known = networkErrorReason(err, host);
  if (known) return known;
  const last = causeChain(err).at(-1);
  return `the request to ${host} failed (${last instanceof Error ? last.message : String(last)})`;
}

/** Reads at most `maxChars` characters of a body, then drops the rest (a huge or endless answer costs nothing). */
async function readSnippet(body: AsyncIterable<Uint8Array> | null, maxChars: number): Promise<string> {
  if (!body) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= maxChars) break;
  }
  return text.slice(0, maxChars);
}

export function createWebhookSender(opts: WebhookSenderOptions) {
  const isAllowed: AddressPolicy = opts.allowPrivateTargets ? () => true : isPublicAddress;
  const agent = new Agent({
    connect: { timeout: opts.timeoutMs, lookup: createGuardedLookup({ resolve: opts.lookup, isAllowed }) },
    // Receivers are many and mostly idle between events: keep few idle sockets around, briefly.
    keepAliveTimeout: 4_000,
  });

  async function send(req: SendRequest, signal?: AbortSignal): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(req.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`only http and https URLs can receive webhooks, not ${url.protocol}`);
      assertPublicLiteral(url.hostname, isAllowed);
    } catch (err) {
      return { status: undefined, ok: false, snippet: null, error: err instanceof Error ? err.message : String(err), durationMs: elapsed() };
    }
    const timestamp = Math.floor(req.at.getTime() / 1000);
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
    try {
      // undici's `request` (not `fetch`: its WHATWG streams cost more CPU than the rest of a
      // delivery; measured 122 vs 3xx deliveries/s on one core). It never follows redirects.
      const res = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        signal: combined,
        body: req.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          'webhook-id': req.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(req.secrets, req.messageId, timestamp, req.body),
        },
      });
      let snippet: string | null = null;
      try {
        snippet = await readSnippet(res.body, RESPONSE_SNIPPET_CHARS);
      } catch {
        // The status is what counts; a body cut short (or too slow, past the timeout) is logged as far as it came.
      } finally {
        res.body.destroy();
      }
      const status = res.statusCode;
      const ok = status >= 200 && status <= 299;
      const error = ok ? null : status >= 300 && status <= 399 ? `answered ${status} (redirects are not followed)` : `answered ${status}`;
      return { status, ok, snippet, error, durationMs: elapsed() };
    } catch (err) {
      return { status: undefined, ok: false, snippet: null, error: describeError(err, url.host, timeout.aborted, opts.timeoutMs), durationMs: elapsed() };
    }
  }

  return {
    send,
    async close() {
      await agent.close();
    },
  };
}

export type WebhookSender = ReturnType<typeof createWebhookSender>;
