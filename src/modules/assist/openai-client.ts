import { Agent, fetch, type Response } from 'undici';
import { AppError } from '../../errors.js';
import { assertPublicLiteral, blockedCause, causeChain, createGuardedLookup, isPublicAddress, networkErrorReason, type AddressPolicy, type Resolver } from '../../lib/safe-address.js';

/**
 * The one client of an organisation's own model: any OpenAI-compatible chat-completions endpoint
 * (OpenAI, Ollama's and LM Studio's `/v1`, vLLM, OpenRouter…). The endpoint is user-supplied, so
 * every connection goes through the SSRF guard (the checked address is the one connected to;
 * literal IPs are checked before anything is sent) unless ALLOW_PRIVATE_TARGETS lets a model on
 * this machine or network be used. Redirects are never followed (a key must not travel on).
 *
 * One timeout (AI_TIMEOUT_SECONDS) covers a whole call: connecting, waiting and reading the last
 * streamed token. Failures are AppErrors the routes answer as they are:
 * 401/403 → AI_UNAVAILABLE ("the endpoint refused the key"), 429 → AI_RATE_LIMITED (its
 * Retry-After passed on), other answers, network errors and unreadable bodies → AI_UNAVAILABLE
 * with what it answered, the timeout → AI_TIMEOUT. A caller's abort (the client went away) is
 * rethrown as the AbortError it is.
 */

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ChatContentPart[];
}

export interface Endpoint {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (no trailing slash needed) */
  baseUrl: string;
  model: string;
  apiKey: string | null;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** sampling temperature (default: the endpoint's) */
  temperature?: number;
  /** the caller's signal (the HTTP client went away) */
  signal?: AbortSignal;
  /** with it, the answer is streamed and each piece of text is handed over as it arrives */
  onDelta?: (text: string) => void;
}

export interface OpenAiClientOptions {
  /** config ALLOW_PRIVATE_TARGETS */
  allowPrivateTargets: boolean;
  /** config.ai.timeoutMs: the whole call */
  timeoutMs: number;
  /** hostname → addresses (tests); the system resolver by default */
  resolve?: Resolver;
}

/** What the settings check found out about an endpoint. */
export type EndpointCheck =
  | { ok: true; models: string[] | null }
  | { ok: false; field: 'baseUrl' | 'apiKey' | 'model'; message: string };

const USER_AGENT = 'Tidings-WritingHelp/1';
/** what an error answer's message keeps of its body */
const SNIPPET_CHARS = 300;
/** the most a non-streamed answer or a whole stream may hold (a runaway endpoint costs nothing) */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/** `base` + `/path`, keeping the base's own path (`…/v1` + `/models` → `…/v1/models`). */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * Parses a Server-Sent Events byte stream of chat-completion chunks: calls `onText` with each
 * `choices[0].delta.content` and ends at `data: [DONE]` (or the stream's end). Comment lines
 * (`: keep-alive`), other fields and events without content are skipped; CRLF line ends are read.
 * An `error` object in a chunk (some servers report a failure mid-stream that way) or a chunk that
 * is not JSON throws. Answers the whole text.
 */
export async function readChatStream(body: AsyncIterable<Uint8Array>, onText: (text: string) => void): Promise<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let text = '';
  let bytes = 0;
  let done = false;
  const dispatch = () => {
    if (data.length === 0) return;
    const payload = data.join('\n');
    data = [];
    if (payload.trim() === '[DONE]') {
      done = true;
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(payload);
    } catch {
      throw new StreamFormatError(`a streamed chunk is not JSON: ${payload.slice(0, 100)}`);
    }
    const c = chunk as { error?: { message?: unknown } | string; choices?: { delta?: { content?: unknown } }[] };
    if (c.error) {
      const m = typeof c.error === 'string' ? c.error : typeof c.error.message === 'string' ? c.error.message : JSON.stringify(c.error);
      throw new StreamFormatError(`the stream reported an error: ${m}`);
    }
    const piece = c.choices?.[0]?.delta?.content;
    if (typeof piece === 'string' && piece !== '') {
      text += piece;
      onText(piece);
    }
  };
  const line = (l: string) => {
    if (l === '') return dispatch();
    if (l.startsWith(':')) return;
    const colon = l.indexOf(':');
    const field = colon === -1 ? l : l.slice(0, colon);
    let value = colon === -1 ? '' : l.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
  };
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > MAX_ANSWER_BYTES) throw new StreamFormatError(`the stream went on past ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const end = buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? nl + 2 : nl + 1;
      line(buffer.slice(0, nl));
      buffer = buffer.slice(end);
      if (done) return text;
    }
  }
  buffer += decoder.decode();
  if (buffer !== '') line(buffer);
  dispatch();
  return text;
}

export class StreamFormatError extends Error {
  override name = 'StreamFormatError';
}

/** The endpoint's message in an OpenAI-style error body (`{error:{message}}`), else the body's start. */
function answerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof m === 'string' && m !== '') return m.slice(0, SNIPPET_CHARS);
  } catch {
    // not JSON: the text itself
  }
  const t = text.replace(/\s+/g, ' ').trim();
  return t === '' ? '(empty body)' : t.slice(0, SNIPPET_CHARS);
}

async function readText(res: Response): Promise<string> {
  if (!res.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_ANSWER_BYTES) throw new StreamFormatError(`the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

export function createOpenAiClient(opts: OpenAiClientOptions) {
  const isAllowed: AddressPolicy = opts.allowPrivateTargets ? () => true : isPublicAddress;
  const agent = new Agent({
    connect: { timeout: opts.timeoutMs, lookup: createGuardedLookup({ resolve: opts.resolve, isAllowed }) },
    keepAliveTimeout: 10_000,
  });
  const seconds = Math.round(opts.timeoutMs / 1000);

  /** The request, through the guard, with the whole-call timeout and the caller's signal. */
  async function send(endpoint: Endpoint, path: string, init: { method: 'GET' | 'POST'; body?: unknown; accept: string }, signal: AbortSignal) {
    const url = new URL(endpointUrl(endpoint.baseUrl, path));
    assertPublicLiteral(url.hostname, isAllowed);
    return fetch(url, {
      method: init.method,
      dispatcher: agent,
      redirect: 'manual',
      signal,
      headers: {
        accept: init.accept,
        'user-agent': USER_AGENT,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  }

  /** A failed call in the words the routes answer. */
  function failure(err: unknown, host: string, timeout: AbortSignal, caller?: AbortSignal): unknown {
    if (caller?.aborted) return err;
    if (err instanceof AppError) return err;
    if (timeout.aborted) return new AppError('AI_TIMEOUT', `The model endpoint ${host} gave no answer within ${seconds} s (AI_TIMEOUT_SECONDS)`);
    const blocked = blockedCause(err);
    if (blocked) return new AppError('AI_UNAVAILABLE', `The model endpoint is not reachable: ${blocked.message} (ALLOW_PRIVATE_TARGETS=true allows it)`);
    if (err instanceof StreamFormatError) return new AppError('AI_UNAVAILABLE', `The model endpoint ${host} answered something unreadable: ${err.message}`);
    const known = networkErrorReason(err, host);
    const last = causeChain(err).at(-1);
    return new AppError('AI_UNAVAILABLE', `The model endpoint is not reachable: ${known ?? `${host} (${last instanceof Error ? last.message : String(last)})`}`);
  }

  /** An answer that is not a 2xx, as an AppError. */
  async function refusal(res: Response, host: string): Promise<AppError> {
    const message = answerMessage(await readText(res).catch(() => ''));
    if (res.status === 401 || res.status === 403) {
      return new AppError('AI_UNAVAILABLE', `The model endpoint refused the key (${res.status}: ${message}); change it with PUT /ai/settings`);
    }
    if (res.status === 429) {
      const retryAfter = res.headers.get('retry-after');
      const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? retryAfter.trim() : '60';
      return new AppError('AI_RATE_LIMITED', `The model endpoint is rate limiting this organisation (${message}); retry in ${seconds} s`, { headers: { 'retry-after': seconds } });
    }
    if (res.status >= 300 && res.status < 400) return new AppError('AI_UNAVAILABLE', `The model endpoint ${host} answered ${res.status} (a redirect, not followed: check the base URL)`);
    return new AppError('AI_UNAVAILABLE', `The model endpoint ${host} answered ${res.status}: ${message}`);
  }

  return {
    /**
     * One chat completion; answers the assistant's text. Streams (`stream: true`) when `onDelta`
     * is given. Not retried here: the caller decides (a suggestion is cheap to ask again).
     */
    async complete(endpoint: Endpoint, req: ChatRequest): Promise<string> {
      const host = new URL(endpoint.baseUrl).host;
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
      const stream = req.onDelta !== undefined;
      try {
        const res = await send(
          endpoint,
          '/chat/completions',
          {
            method: 'POST',
            accept: stream ? 'text/event-stream' : 'application/json',
            body: { model: endpoint.model, messages: req.messages, stream, ...(req.temperature === undefined ? {} : { temperature: req.temperature }) },
          },
          signal,
        );
        if (!res.ok) throw await refusal(res, host);
        const type = res.headers.get('content-type') ?? '';
        if (stream && type.includes('text/event-stream')) {
          if (!res.body) return '';
          return await readChatStream(res.body, req.onDelta!);
        }
        // Not streamed (asked not to, or the server ignored `stream`): one JSON answer.
        const text = await readText(res);
        let content: unknown;
        try {
          const body = JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] };
          content = body.choices?.[0]?.message?.content;
        } catch {
          throw new AppError('AI_UNAVAILABLE', `The model endpoint ${host} answered something that is not a chat completion: ${answerMessage(text)}`);
        }
        if (typeof content !== 'string') throw new AppError('AI_UNAVAILABLE', `The model endpoint ${host} answered without a message: ${answerMessage(text)}`);
        if (stream && content !== '') req.onDelta!(content);
        return content;
      } catch (err) {
        throw failure(err, host, timeout, req.signal);
      }
    },

    /**
     * `GET {baseUrl}/models` once, for the settings: whether the endpoint answers, takes the key,
     * and (when it lists models) offers `model`. Never throws.
     */
    async checkEndpoint(endpoint: Endpoint): Promise<EndpointCheck> {
      const host = new URL(endpoint.baseUrl).host;
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      let res: Response;
      try {
        res = await send(endpoint, '/models', { method: 'GET', accept: 'application/json' }, timeout);
      } catch (err) {
        const blocked = blockedCause(err);
        if (blocked) return { ok: false, field: 'baseUrl', message: `${blocked.message}; ALLOW_PRIVATE_TARGETS=true allows a model on this machine or network` };
        if (timeout.aborted) return { ok: false, field: 'baseUrl', message: `${host} gave no answer within ${seconds} s (AI_TIMEOUT_SECONDS)` };
        const known = networkErrorReason(err, host);
        const last = causeChain(err).at(-1);
        return { ok: false, field: 'baseUrl', message: known ?? `the request to ${host} failed (${last instanceof Error ? last.message : String(last)})` };
      }
      let text = '';
      try {
        text = await readText(res);
      } catch {
        // the status is what counts
      }
      if (res.status === 401 || res.status === 403) return { ok: false, field: 'apiKey', message: `The endpoint refused the key (${res.status}: ${answerMessage(text)})` };
      if (res.status === 404) return { ok: false, field: 'baseUrl', message: `${endpointUrl(endpoint.baseUrl, '/models')} answered 404: is the base URL the API's root (OpenAI: https://api.openai.com/v1, Ollama: http://127.0.0.1:11434/v1)?` };
      if (!res.ok) return { ok: false, field: 'baseUrl', message: `${endpointUrl(endpoint.baseUrl, '/models')} answered ${res.status}: ${answerMessage(text)}` };
      let models: string[] | null = null;
      try {
        const body = JSON.parse(text) as { data?: { id?: unknown }[] };
        if (Array.isArray(body.data)) models = body.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
      } catch {
        return { ok: false, field: 'baseUrl', message: `${endpointUrl(endpoint.baseUrl, '/models')} did not answer JSON: is it an OpenAI-compatible API? (${answerMessage(text)})` };
      }
      // Only a list that names models is held against `model` (some proxies list none).
      if (models && models.length > 0 && !models.includes(endpoint.model)) {
        const shown = models.slice(0, 10).join(', ');
        return { ok: false, field: 'model', message: `The endpoint does not offer "${endpoint.model}"; it lists ${shown}${models.length > 10 ? ` and ${models.length - 10} more` : ''}` };
      }
      return { ok: true, models };
    },

    async close() {
      await agent.close();
    },
  };
}

export type OpenAiClient = ReturnType<typeof createOpenAiClient>;
