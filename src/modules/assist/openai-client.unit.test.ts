import { describe, expect, it } from 'vitest';
import { endpointUrl, readChatStream, StreamFormatError } from './openai-client.js';

/** A body arriving in the given pieces (split anywhere, as TCP does). */
async function* bytes(...pieces: string[]) {
  for (const p of pieces) yield new TextEncoder().encode(p);
}

const chunk = (content: string | undefined, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;

describe('readChatStream', () => {
  it('joins the deltas in order and hands each over as it arrives', async () => {
    const seen: string[] = [];
    const body = [`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })}\n\n`, chunk('Hel'), chunk('lo'), chunk(' world'), chunk(undefined, 'stop'), 'data: [DONE]\n\n'].join('');
    expect(await readChatStream(bytes(body), (t) => seen.push(t))).toBe('Hello world');
    expect(seen).toEqual(['Hel', 'lo', ' world']);
  });

  it('reads events split across reads, CRLF line ends, comments and other fields', async () => {
    const body = `: keep-alive\r\n\r\nevent: message\r\nid: 1\r\n${chunk('a').replace(/\n/g, '\r\n')}${chunk('é')}`;
    // split inside the JSON, inside a CRLF and inside a multi-byte character
    const raw = new TextEncoder().encode(`${body}data: [DONE]\n\n`);
    const cut = [7, 30, raw.indexOf(0xc3) + 1, raw.length - 3];
    async function* pieces() {
      let from = 0;
      for (const to of [...cut, raw.length]) {
        yield raw.slice(from, to);
        from = to;
      }
    }
    expect(await readChatStream(pieces(), () => undefined)).toBe('aé');
  });

  it('stops at [DONE] and ignores anything after it', async () => {
    expect(await readChatStream(bytes(chunk('x'), 'data: [DONE]\n\n', 'data: not json\n\n'), () => undefined)).toBe('x');
  });

  it('ends at the end of the body without [DONE], a last event without its blank line included', async () => {
    expect(await readChatStream(bytes(chunk('a'), chunk('b').trimEnd()), () => undefined)).toBe('ab');
  });

  it('throws on a chunk that is not JSON, and on an error chunk with its message', async () => {
    await expect(readChatStream(bytes('data: {oops\n\n'), () => undefined)).rejects.toThrow(StreamFormatError);
    await expect(readChatStream(bytes(chunk('a'), `data: ${JSON.stringify({ error: { message: 'model overloaded' } })}\n\n`), () => undefined)).rejects.toThrow('the stream reported an error: model overloaded');
  });

  it('joins multi-line data fields with newlines before parsing', async () => {
    expect(await readChatStream(bytes('data: {"choices":\ndata: [{"delta":{"content":"ok"}}]}\n\n'), () => undefined)).toBe('ok');
  });
});

describe('endpointUrl', () => {
  it("keeps the base's path and drops trailing slashes", () => {
    expect(endpointUrl('http://127.0.0.1:11434/v1/', '/models')).toBe('http://127.0.0.1:11434/v1/models');
    expect(endpointUrl('https://api.openai.com/v1', '/chat/completions')).toBe('https://api.openai.com/v1/chat/completions');
  });
});
