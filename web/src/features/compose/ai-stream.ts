import { API_BASE, ApiFailure, csrfHeader, failureOf, signInUrl } from '../../api/client.js';
import type { components, paths } from '../../api/schema.js';

/**
 * Writing help's calls (POST /ai/<action>) read as a stream: the request asks for
 * `text/event-stream` and the answer's body is read as it arrives, so suggestions fill in while
 * the model writes. The events (the assist module's README):
 *   `event: delta`  data `{"index":n,"text":"chunk"}`  → appended to suggestion n
 *   `event: done`   data `{"suggestions":[...]}`       → the final suggestions (after the length checks)
 *   `event: error`  data `{"code","message"}`          → the model failed after the stream started
 * A refusal before the stream starts (404 AI_NOT_CONFIGURED, 429, 400) is an ordinary JSON error,
 * thrown as the ApiFailure every other call throws. A plain fetch, not openapi-fetch: it has to
 * read the body as a stream; the CSRF header is the one client.ts adds.
 */

/** One suggestion as the API answers it (the generated types: a change to the API breaks the build). */
export type Suggestion = components['schemas']['Suggestion'];

export type AiAction = 'draft' | 'rewrite' | 'thread' | 'hashtags' | 'translate' | 'alt-text';
/** The request body of an action, as the API declares it. */
export type AiBody<A extends AiAction> = paths[`/ai/${A}`]['post']['requestBody']['content']['application/json'];
/** An action and its body. */
export type AiRequest = { [A in AiAction]: { action: A; body: AiBody<A> } }[AiAction];

/** One server-sent event: its name (`message` when unnamed) and its data lines joined. */
export interface ServerEvent {
  event: string;
  data: string;
}

/**
 * The events of a `text/event-stream` body, as the HTML standard reads them: lines end in LF,
 * CRLF or CR; a blank line ends an event; `data:` lines are joined with LF; a `:` line is a
 * comment; one space after the colon is dropped. Chunks may split lines and characters anywhere.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let sawCr = false;
  function* line(text: string): Generator<ServerEvent> {
    if (text === '') {
      if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        buffer += decoder.decode();
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      // a CR at the end of the last chunk was a line end: an LF starting this one belongs to it
      if (sawCr && buffer.startsWith('\n')) buffer = buffer.slice(1);
      sawCr = false;
      let m: RegExpExecArray | null;
      const eol = /\r\n|\r|\n/g;
      let start = 0;
      while ((m = eol.exec(buffer)) !== null) {
        // a lone CR at the very end may be the first half of CRLF: decided with the next chunk
        if (m[0] === '\r' && m.index === buffer.length - 1) sawCr = true;
        yield* line(buffer.slice(start, m.index));
        start = m.index + m[0].length;
      }
      buffer = buffer.slice(start);
    }
    // the stream ended inside an event: what it had is still read (a server may omit the last blank line)
    if (buffer !== '') yield* line(buffer);
    yield* line('');
  } finally {
    reader.releaseLock();
  }
}

/** JSON of a body, or undefined when it is not JSON. */
async function jsonOf(res: Response): Promise<unknown> {
  try {
    return (await res.json()) as unknown;
  } catch {
    return undefined;
  }
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Runs a writing-help action. `onDelta(index, text)` gets each chunk as it streams in; the promise
 * gives the final suggestions (the `done` event's), or throws an ApiFailure: the API's refusal, or
 * the `error` event's code and message. A stream that ends without `done` is an error too.
 */
export async function runAiAction({ action, body }: AiRequest, opts: { onDelta?: (index: number, text: string) => void; signal?: AbortSignal } = {}): Promise<Suggestion[]> {
  const res = await fetch(`${API_BASE}/ai/${action}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...csrfHeader() },
    body: JSON.stringify(body),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (res.status === 401) window.location.assign(signInUrl());
  if (!res.ok) throw failureOf(res.status, await jsonOf(res));
  // a server that answers JSON (no streaming) gives the suggestions at once
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const answer = (await jsonOf(res)) as { suggestions?: Suggestion[] } | undefined;
    if (!answer || !Array.isArray(answer.suggestions)) throw failureOf(502, { code: 'AI_UNAVAILABLE', message: 'The service answered something that is not suggestions' });
    return answer.suggestions;
  }
  if (!res.body) throw failureOf(502, { code: 'AI_UNAVAILABLE', message: 'The answer had no body' });
  for await (const ev of readEvents(res.body)) {
    const data = parse(ev.data) as Record<string, unknown> | undefined;
    if (ev.event === 'delta' && data && typeof data.index === 'number' && typeof data.text === 'string') opts.onDelta?.(data.index, data.text);
    else if (ev.event === 'done' && data && Array.isArray(data.suggestions)) return data.suggestions as Suggestion[];
    else if (ev.event === 'error') {
      const code = typeof data?.code === 'string' ? data.code : 'AI_UNAVAILABLE';
      const message = typeof data?.message === 'string' ? data.message : 'The model failed while writing';
      throw new ApiFailure(502, { statusCode: 502, code, message, requestId: '' });
    }
  }
  throw failureOf(502, { code: 'AI_UNAVAILABLE', message: 'The answer stopped before the suggestions were complete' });
}
