import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiFailure } from '../../api/client.js';
import { readEvents, runAiAction, type ServerEvent } from './ai-stream.js';

/** A body that arrives in these chunks (split anywhere, even inside a character). */
function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? enc.encode(c) : c);
      controller.close();
    },
  });
}

async function all(body: ReadableStream<Uint8Array>): Promise<ServerEvent[]> {
  const out: ServerEvent[] = [];
  for await (const e of readEvents(body)) out.push(e);
  return out;
}

function sse(chunks: string[], status = 200): Response {
  return new Response(streamOf(chunks), { status, headers: { 'content-type': 'text/event-stream' } });
}

const suggestion = { integrationId: 'x1', platform: 'x', content: 'Hello there', length: 11, maxLength: 280, fits: true };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('reading server-sent events', () => {
  it('reads events split across chunks at any point, with CRLF, CR and LF line ends, comments and multi-line data', async () => {
    const euro = new TextEncoder().encode('€');
    const events = await all(
      streamOf([
        ': keep-alive\n\n',
        'event: del',
        'ta\r\ndata: {"index":0,"text":"a"}\r',
        '\n\r\n',
        'event: delta\rdata: {"index":1,"text":"',
        euro.slice(0, 1),
        euro.slice(1),
        '"}\r\r',
        'data: line one\ndata:line two\n\n',
        'event: done\ndata: {"suggestions":[]}',
      ]),
    );
    expect(events).toEqual([
      { event: 'delta', data: '{"index":0,"text":"a"}' },
      { event: 'delta', data: '{"index":1,"text":"€"}' },
      { event: 'message', data: 'line one\nline two' },
      { event: 'done', data: '{"suggestions":[]}' },
    ]);
  });

  it('skips events without data and fields it does not know', async () => {
    expect(await all(streamOf(['event: ping\n\nid: 7\nretry: 10\ndata: x\n\n']))).toEqual([{ event: 'message', data: 'x' }]);
  });
});

describe('running a writing-help action', () => {
  it('posts JSON asking for a stream with the CSRF header, passes each delta on and gives the final suggestions', async () => {
    const fetchMock = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) =>
      sse(['event: delta\ndata: {"index":0,"text":"Hel"}\n\n', 'event: delta\ndata: {"index":0,"text":"lo"}\n\nevent: delta\ndata: {"index":1,"text":"Hi"}\n\n', `event: done\ndata: ${JSON.stringify({ suggestions: [suggestion] })}\n\n`]),
    );
    vi.stubGlobal('fetch', fetchMock);
    const deltas: [number, string][] = [];
    const out = await runAiAction({ action: 'rewrite', body: { content: 'x', integrationIds: ['x1'] } }, { onDelta: (i, t) => deltas.push([i, t]) });
    expect(out).toEqual([suggestion]);
    expect(deltas).toEqual([
      [0, 'Hel'],
      [0, 'lo'],
      [1, 'Hi'],
    ]);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/public/v1/ai/rewrite');
    expect(init?.method).toBe('POST');
    expect((init?.headers as Record<string, string>).accept).toBe('text/event-stream');
    expect(JSON.parse(init?.body as string)).toEqual({ content: 'x', integrationIds: ['x1'] });
  });

  it('throws the API refusal before the stream (404 AI_NOT_CONFIGURED) with its code and message', async () => {
    vi.stubGlobal('fetch', async () =>
      new Response(JSON.stringify({ statusCode: 404, code: 'AI_NOT_CONFIGURED', message: 'Writing help is off', requestId: 'r' }), { status: 404, headers: { 'content-type': 'application/json' } }),
    );
    const err = await runAiAction({ action: 'draft', body: { brief: 'b' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiFailure);
    expect((err as ApiFailure).status).toBe(404);
    expect((err as ApiFailure).body.code).toBe('AI_NOT_CONFIGURED');
  });

  it('throws the error event of a stream that failed after it started, keeping the deltas already passed on', async () => {
    vi.stubGlobal('fetch', async () => sse(['event: delta\ndata: {"index":0,"text":"Par"}\n\n', 'event: error\ndata: {"code":"AI_TIMEOUT","message":"no answer within 60 s"}\n\n']));
    const deltas: string[] = [];
    const err = await runAiAction({ action: 'draft', body: { brief: 'b' } }, { onDelta: (_i, t) => deltas.push(t) }).catch((e: unknown) => e);
    expect(deltas).toEqual(['Par']);
    expect((err as ApiFailure).body).toMatchObject({ code: 'AI_TIMEOUT', message: 'no answer within 60 s' });
  });

  it('a stream that ends without its final event is an error, not an empty answer', async () => {
    vi.stubGlobal('fetch', async () => sse(['event: delta\ndata: {"index":0,"text":"Par"}\n\n']));
    await expect(runAiAction({ action: 'draft', body: { brief: 'b' } })).rejects.toThrow('stopped before the suggestions were complete');
  });

  it('takes a JSON answer (no streaming) as the suggestions', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ suggestions: [suggestion] }), { status: 200, headers: { 'content-type': 'application/json' } }));
    expect(await runAiAction({ action: 'hashtags', body: { content: 'x' } })).toEqual([suggestion]);
  });
});
